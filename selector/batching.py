"""Micro-batched query encoding and dense scoring: concurrent requests share one encoder call and one product.

A transformer encodes 16 queries in little more time than one, and the dense scores of 16 queries against every
tool vector cost one pass over those vectors instead of 16 (reading them is most of a matrix-vector product's cost):
a service that encodes and scores each request on its own spends its cores on per-call overhead and memory traffic.
:class:`QueryBatcher` runs on a thread of its own: each request queues its query text and awaits its row; the
thread takes the first waiting query, collects more for up to ``wait_s`` (or until ``max_batch``), encodes and
scores them together and hands each request its row. Under no load a query waits ``wait_s`` at most; under load
batches fill without waiting.

:func:`select_async` and :func:`search_async` are :meth:`ToolSelector.select_detailed` and the ``search_tools``
meta-tool with that row awaited from the batcher: the HTTP service and the MCP server call them.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence

import numpy as np

from selector.meta_tool import SearchTools
from selector.select import Selection, TaskState, ToolSelector

logger = logging.getLogger(__name__)


def _deliver(future: asyncio.Future, value: np.ndarray | None, error: BaseException | None) -> None:
    if future.done():  # the request went away (client disconnected, timeout): nobody waits for it
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


class QueryBatcher:
    """Encodes queued query texts in batches on one thread; :meth:`encode` awaits one text's vector."""

    def __init__(self, encode_batch: Callable[[list[str]], np.ndarray], max_batch: int = 32, wait_s: float = 0.002):
        if max_batch < 1 or wait_s < 0:
            raise ValueError("max_batch >= 1 and wait_s >= 0")
        self.encode_batch = encode_batch
        self.max_batch = max_batch
        self.wait_s = wait_s
        self.batches = self.queries = 0  # counters: mean batch size = queries / batches
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="query-batcher", daemon=True)
        self._thread.start()

    async def encode(self, text: str) -> np.ndarray:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._queue.put((text, loop, future))
        return await future

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(10)

    def _collect(self, first: tuple) -> list[tuple]:
        batch, deadline = [first], time.monotonic() + self.wait_s
        while len(batch) < self.max_batch:
            left = deadline - time.monotonic()
            try:
                item = self._queue.get(timeout=left) if left > 0 else self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:  # close() while collecting: finish this batch, then stop
                self._queue.put(None)
                break
            batch.append(item)
        return batch

    def _run(self) -> None:
        while (first := self._queue.get()) is not None:
            batch = self._collect(first)
            vectors, error = None, None
            try:
                vectors = self.encode_batch([text for text, _, _ in batch])
            except Exception as exc:  # every waiting request gets the error, the thread goes on
                logger.exception("query encoder failed on a batch of %d", len(batch))
                error = exc
            self.batches += 1
            self.queries += len(batch)
            for i, (_, loop, future) in enumerate(batch):
                loop.call_soon_threadsafe(_deliver, future, None if vectors is None else vectors[i], error)


async def select_async(selector: ToolSelector, batcher: QueryBatcher | None, query: str,
                       task_state: TaskState | None = None, caller_scopes: Sequence[str] = (),
                       token_budget: int | None = None, tenant: str | None = None,
                       max_tools: int | None = None) -> Selection:  # fmt: skip
    """:meth:`ToolSelector.select_detailed`, the query encoded by ``batcher`` (checks first: a bad request is
    refused before it takes a place in a batch)."""
    prepared = selector.prepare(query, task_state, caller_scopes, token_budget, tenant, max_tools)
    scores = await batcher.encode(prepared.query) if batcher is not None and selector.dense is not None else None
    return selector.complete(prepared, dense_scores=scores)


async def search_async(search: SearchTools, batcher: QueryBatcher | None, arguments: dict | str,
                       caller_scopes: Sequence[str], tenant: str | None = None) -> list[dict]:  # fmt: skip
    """The ``search_tools`` meta-tool, the query encoded by ``batcher``."""
    query, limit, allowed_rows = search.prepare(arguments, caller_scopes, tenant)
    dense = search.selector.dense is not None
    scores = await batcher.encode(query) if batcher is not None and dense else None
    return search.complete(query, limit, allowed_rows, caller_scopes, tenant, dense_scores=scores)


def batcher_for(selector: ToolSelector, max_batch: int = 32, wait_s: float = 0.002) -> QueryBatcher | None:
    """A batcher giving each query the dense scores of every tool: one encoder call and one matrix product per
    batch. None (each request encodes inline) without a dense ranker or without a batch encoder."""
    if selector.dense is None or selector.encoder is None:
        return None
    encoder, dense = selector.encoder, selector.dense
    return QueryBatcher(lambda texts: dense.batch_scores(encoder.encode_queries(texts)), max_batch, wait_s)
