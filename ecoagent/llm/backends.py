"""The LLM backends behind the one client, chosen by ``llm.backend``; and the answers to a request list.

- ``server``: any OpenAI-compatible URL (production: ``vllm serve google/gemma-3-1b-it --dtype bfloat16``).
- ``embedded``: an xllamacpp (llama.cpp) server on 127.0.0.1 with a local GGUF, started and stopped here
  (:mod:`ecoagent.llm.embedded`).
- ``batch``: the same requests written as an OpenAI Batch JSONL file for ``vllm run-batch``, and its output imported
  into the response cache (:mod:`ecoagent.llm.batch`); after that the client answers from the cache.

:func:`answer` is what the stages and the DAG's shard tasks (:mod:`ecoagent.llm.exchange`) call: answers from the
cache, the missing ones from the configured backend.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ecoagent.config import Config
from ecoagent.layout import RunLayout
from ecoagent.llm.cache import ResponseCache
from ecoagent.llm.client import LLMClient
from ecoagent.llm.embedded import EmbeddedServer, embedded_request_options
from ecoagent.llm.errors import LLMBackendError
from ecoagent.llm.request import LLMRequest, LLMResponse
from ecoagent.runtime.usage import llm_phase

# the response cache of a worker whose store is object storage: SQLite wants a local file, and the cache is only the
# worker's own accelerator (the tasks of a run meet through the store: ecoagent.llm.exchange)
LOCAL_CACHE = "~/.cache/ecoagent/llm/responses.sqlite"


def default_cache_path(config: Config) -> Path:
    """``llm.cache_path``, else ``<store>/llm/responses.sqlite`` for a local store, else :data:`LOCAL_CACHE`."""
    if config.llm.cache_path:
        return config.resolve_path(config.llm.cache_path)
    layout = RunLayout.of(config)
    return layout.llm_cache if layout.is_local else config.resolve_path(LOCAL_CACHE)


@contextlib.contextmanager
def open_llm(config: Config, cache_path: Path | None = None) -> Iterator[LLMClient]:
    """A client on the configured backend (``llm.backend``); an embedded server is always stopped on exit."""
    llm = config.llm
    if llm.backend == "batch":
        raise LLMBackendError(
            "llm.backend='batch' has no live client: write the requests with write_batch_requests(), "
            "run `vllm run-batch -i <requests.jsonl> -o <output.jsonl> --model <model>`, import the output with "
            "read_batch_output(); the client then answers those requests from the cache"
        )
    if llm.backend not in ("server", "embedded"):
        raise LLMBackendError(f"llm.backend={llm.backend!r}: expected 'embedded', 'server' or 'batch'")
    cache = ResponseCache(cache_path or default_cache_path(config))
    try:
        common = dict(
            concurrency=llm.concurrency,
            timeout_s=llm.timeout_s,
            max_retries=llm.max_retries,
            backoff_s=llm.backoff_s,
            cache=cache,
        )
        if llm.backend == "server":
            if not llm.base_url:
                raise LLMBackendError("llm.backend='server' needs llm.base_url (e.g. http://vllm-host:8000/v1)")
            yield LLMClient(llm.base_url, llm.model, api_key=os.environ.get(llm.api_key_env) or None, **common)
        else:
            with EmbeddedServer.from_config(config) as server:
                options = embedded_request_options(config)
                pinned = server.pinned_prefixes(llm.timeout_s)
                try:
                    yield LLMClient(server.base_url, llm.model, api_key=None, server_options=options,
                                    pinned_prefixes=pinned, **common)  # fmt: skip
                finally:
                    if pinned is not None:
                        pinned.close()
    finally:
        cache.close()




def answer(
    config: Config,
    requests: Sequence[LLMRequest],
    on_done: Callable[[LLMResponse], None] | None = None,
) -> tuple[list[LLMResponse], int]:
    """Every request's response, in order, and how many were already cached.

    Answers come from the response cache; only the missing requests go to the configured backend,
    and when nothing is missing no server is started at all (a refresh where nothing changed).
    """
    with llm_phase():  # what --usage reports as the LLM phase (ecoagent.runtime.usage)
        cache_path = default_cache_path(config)
        cache = ResponseCache(cache_path)
        try:
            found = cache.get_many(r.request_id for r in requests)  # one query per 500 ids, not one per request
        finally:
            cache.close()
        cached = [found.get(r.request_id) for r in requests]
        hits = sum(r is not None for r in cached)
        if hits == len(requests):
            return cached, hits
        with open_llm(config, cache_path=cache_path) as client:
            return client.generate(requests, on_done=on_done), hits
