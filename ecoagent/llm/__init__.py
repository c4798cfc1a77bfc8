"""The LLM layer: one OpenAI-compatible client, its response cache, and the backends behind it.

``open_llm(config)`` is the entry point for stages: it yields an :class:`LLMClient` on the
configured backend (an external server, or the embedded llama.cpp server it starts and stops).
"""

from ecoagent.llm.backends import EmbeddedServer, LLMBackendError, open_llm, read_batch_output, write_batch_requests
from ecoagent.llm.cache import ResponseCache
from ecoagent.llm.client import LLMClient, LLMRequest, LLMResponse, sampling, sanitize

__all__ = [
    "EmbeddedServer",
    "LLMBackendError",
    "LLMClient",
    "LLMRequest",
    "LLMResponse",
    "ResponseCache",
    "open_llm",
    "read_batch_output",
    "sampling",
    "sanitize",
    "write_batch_requests",
]
