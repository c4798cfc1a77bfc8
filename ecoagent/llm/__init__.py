"""The LLM layer: one OpenAI-compatible client, its response cache, and the backends behind it.

``open_llm(config)`` is the entry point for stages: it yields an :class:`LLMClient` on the
configured backend (an external server, or the embedded llama.cpp server it starts and stops).
"""

from ecoagent.llm.backends import open_llm
from ecoagent.llm.batch import read_batch_output, write_batch_requests
from ecoagent.llm.cache import ResponseCache
from ecoagent.llm.client import LLMClient, sanitize
from ecoagent.llm.embedded import EmbeddedServer
from ecoagent.llm.errors import LLMBackendError
from ecoagent.llm.request import LLMRequest, LLMResponse, sampling

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
