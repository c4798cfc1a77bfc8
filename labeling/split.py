"""The label stage's split: the verified queries into train / validation / test, grouped by near-duplicate, template
and paraphrase (:mod:`ecoagent.text.splits`), and checked for leakage."""

from __future__ import annotations

import polars as pl

from ecoagent.config import Config

QUERY_SCHEMA = {
    "query_id": pl.String,
    "text": pl.String,
    "source": pl.String,
    "gold_tools": pl.List(pl.String),
    "source_tool": pl.String,
    "category": pl.String,
    "split": pl.String,
    "group_id": pl.String,  # queries of one group (near-duplicate, template, paraphrase) share a split
}


def split_queries(config: Config, final: list) -> pl.DataFrame:
    """The verified queries ``final``, split train / validation / test by near-duplicate, template and paraphrase
    group (``real_queries.parquet``'s rows)."""
    from ecoagent.retrieval.embedding import query_and_tool_encoders
    from ecoagent.text.splits import assign_splits, check_no_leakage, paraphrase_key

    cfg = config.label
    qframe = pl.DataFrame(
        {
            "query_id": [q.query_id for q in final],
            "text": [q.text for q in final],
            "source": [q.source for q in final],
            "gold_tools": [list(q.gold_tools) for q in final],
            "source_tool": [q.source_tool for q in final],
            "category": [q.category for q in final],
        },
        schema={k: v for k, v in QUERY_SCHEMA.items() if k not in ("split", "group_id")},
    )
    # paraphrases: queries the source wrote for the same tools, close in the agreement embedder's space
    agree_q, _ = query_and_tool_encoders(
        cfg.agreement_embedder, config.resolve_path(config.embedding.cache_dir), "label.agreement_embedder",
        config.embedding.device,
    )
    vectors = agree_q.encode(qframe["text"].to_list()) if len(qframe) else None
    qframe = assign_splits(
        qframe, ratios=cfg.split_ratios, seed=config.seed, dedup_threshold=cfg.dedup_threshold,
        setting="label.split_ratios", paraphrase_keys=[paraphrase_key(g) for g in qframe["gold_tools"].to_list()],
        paraphrase_vectors=vectors, paraphrase_min_cosine=cfg.paraphrase_min_cosine,
    )  # fmt: skip
    leaks = check_no_leakage(qframe, cfg.dedup_threshold)
    if leaks:
        raise RuntimeError(f"split leakage (this is a bug): {leaks[:3]}")
    return qframe.select(list(QUERY_SCHEMA)).sort("query_id")
