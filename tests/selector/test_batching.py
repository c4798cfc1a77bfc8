"""Micro-batched encoding: concurrent requests share encoder calls and each gets its own row; errors reach them all."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from ecoagent.retrieval.embedding.static import training_texts
from selector.batching import QueryBatcher, batcher_for, search_async, select_async
from selector.meta_tool import SearchTools
from selector.registry import ToolRegistry
from tests.selector.conftest import CORE, TENANTS, hashing_encoder, make_selector, tools_frame


def test_concurrent_queries_share_encoder_calls_and_get_their_own_rows():
    encode = hashing_encoder()
    calls: list[int] = []

    def encode_batch(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return np.stack([encode(t) for t in texts])

    batcher = QueryBatcher(encode_batch, max_batch=8, wait_s=0.05)
    texts = [f"send an email number {i}" for i in range(20)]

    async def all_at_once() -> list[np.ndarray]:
        return await asyncio.gather(*(batcher.encode(t) for t in texts))

    try:
        rows = asyncio.run(all_at_once())
    finally:
        batcher.close()
    assert all(np.array_equal(row, encode(t)) for row, t in zip(rows, texts, strict=True))
    assert sum(calls) == 20 and len(calls) < 20 and max(calls) <= 8  # batched, never above max_batch


def test_an_encoder_error_reaches_every_waiting_request_and_the_batcher_goes_on():
    def encode_batch(texts: list[str]) -> np.ndarray:
        if any("boom" in t for t in texts):
            raise RuntimeError("encoder failed")
        return np.ones((len(texts), 3), dtype=np.float32)

    batcher = QueryBatcher(encode_batch, wait_s=0.05)

    async def run() -> None:
        results = await asyncio.gather(batcher.encode("boom"), batcher.encode("fine"), return_exceptions=True)
        assert any(isinstance(r, RuntimeError) for r in results)
        assert (await batcher.encode("fine again")).shape == (3,)

    try:
        asyncio.run(run())
    finally:
        batcher.close()


def test_the_service_path_selects_what_the_library_selects():
    """Dense scores of every tool from a batch, then the same filter, ranking and budget as select_detailed."""
    selector = make_selector(ToolRegistry.from_frame(tools_frame(), core_tools=CORE, tenants=TENANTS))
    encode = hashing_encoder()
    batcher = QueryBatcher(lambda texts: selector.dense.batch_scores(np.stack([encode(t) for t in texts])))
    requests = [("post the notes to the slack channel", ["slack.*"]), ("refund this order", ["billing.read"]),
                ("weather in Oslo", ["*"]), ("delete the customer account", ["crm.read", "orders.*"])]  # fmt: skip

    async def run() -> None:
        for query, scopes in requests:
            served = await select_async(selector, batcher, query, None, scopes, 1000)
            assert served.tool_ids == selector.select(query, None, scopes, 1000)
        found = await search_async(SearchTools(selector), batcher, {"query": "slack message"}, ["slack.*"])
        assert [t["x-tool_id"] for t in found] == [t["x-tool_id"] for t in SearchTools(selector)(
            {"query": "slack message"}, ["slack.*"])]  # fmt: skip

    try:
        asyncio.run(run())
    finally:
        batcher.close()
    assert batcher_for(make_selector(selector.registry)) is None  # no encoder object: requests encode inline


def test_the_static_form_fits_on_the_tool_texts_and_query_sized_windows_of_them():
    documents = ["send_email: Send an email message to one or more recipients with attachments",
                 "slack_post: Post a message to a Slack channel as the bot user"]  # fmt: skip
    texts = training_texts(documents, windows=50, seed=3)
    assert texts[:2] == documents and texts == training_texts(documents, windows=50, seed=3)
    assert all(4 <= len(t.split()) <= 12 for t in texts[2:]) and len(texts) > 2


@pytest.mark.parametrize("bad", [{"max_batch": 0}, {"wait_s": -1}])
def test_bad_batcher_settings_are_refused(bad):
    with pytest.raises(ValueError):
        QueryBatcher(lambda texts: np.zeros((len(texts), 1)), **bad)
