"""A stage's LLM requests answered: from the response cache first, then the configured backend, or through the
request and output files of ``vllm run-batch`` (``llm.backend=batch``), with progress and timing."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from ecoagent.config import Config
from ecoagent.errors import EcoAgentError
from ecoagent.llm.request import LLMRequest, LLMResponse


class BatchPending(EcoAgentError, RuntimeError):
    """The batch backend wrote a request file; the stage completes once its output is imported."""


@dataclass
class LLMAnswers:
    """Every request's response, in request order, and what answering them took."""

    responses: list[LLMResponse]
    cached: int  # answered from the response cache before this call asked anything
    seconds: float

    @property
    def failed(self) -> int:
        return sum(1 for r in self.responses if r.error)

    @property
    def sent(self) -> int:
        return len(self.responses) - self.cached


def ask(config: Config, requests: Sequence[LLMRequest], phase: str | None = None) -> LLMAnswers:
    """Answer ``requests`` on the configured backend; with ``phase``, the answers are counted under that name in the
    running step (:mod:`ecoagent.runtime.context`) as they arrive."""
    from ecoagent.llm.backends import answer
    from ecoagent.runtime import context

    started = time.perf_counter()
    # from the start, also when there is nothing to ask: the phase's line says so
    with context.phase(phase, len(requests)) as answering:
        if config.llm.backend == "batch":
            exchange_batch_files(config, requests)
        responses, cached = answer(config, requests, on_done=lambda _response: answering.advance())
    return LLMAnswers(list(responses), cached, time.perf_counter() - started)


def exchange_batch_files(config: Config, requests: Sequence[LLMRequest]) -> None:
    """Import ``output.jsonl`` if it is there; if requests are still unanswered, write ``requests.jsonl`` for
    ``vllm run-batch`` and raise :class:`BatchPending` saying what to run."""
    from ecoagent.llm.backends import default_cache_path
    from ecoagent.llm.batch import read_batch_output, write_batch_requests
    from ecoagent.llm.cache import ResponseCache

    if not config.llm.batch_dir:
        raise ValueError("llm.backend=batch needs llm.batch_dir (a folder shared with the GPU node)")
    folder = config.resolve_path(config.llm.batch_dir)
    folder.mkdir(parents=True, exist_ok=True)
    cache = ResponseCache(default_cache_path(config))
    try:
        if (folder / "output.jsonl").exists():
            read_batch_output(folder / "output.jsonl", cache)
        found = cache.get_many(r.request_id for r in requests)
    finally:
        cache.close()
    if sum(r.request_id in found for r in requests) < len(requests):
        written = write_batch_requests(requests, folder / "requests.jsonl")
        raise BatchPending(
            f"{written} requests written to {folder / 'requests.jsonl'}; on a GPU node run: vllm run-batch "
            f"-i requests.jsonl -o output.jsonl --model {config.llm.model} --dtype bfloat16, put output.jsonl "
            f"in {folder} and rerun this command"
        )
