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
- with ``label.package_requests``: ``package_request_queries.parquet``, ``package_request_qrels.parquet`` and
  ``package_request_report.json``, the example requests of the crawled packages' own docs
  (:mod:`labeling.package_requests.build`), labelled by the docs themselves: nothing retrieved or verified
- ``label_summary.json``, with ``gold`` (the mapping counts and the evaluation against gold)

The folder is replaced as a whole (:class:`ecoagent.store.StageFolder`): a relabel also replaces a
``review_sample.csv`` people were filling in, so copy a filled sample elsewhere before relabelling.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from ecoagent.config import Config, ConfigError
from ecoagent.layout import LABEL_FILES, SCORE_FILES
from ecoagent.stage import StageResult
from ecoagent.store import ArtifactStore, StageFolder
from labeling.split import QUERY_SCHEMA
from labeling.verify import VERIFIERS, Verdicts, deciding_scores, pairs_for_llm, verified, verify_requests
from schemas.scored_tool import ScoredToolRecord

if TYPE_CHECKING:
    from ecoagent.llm.ask import LLMAnswers

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
__all__ = ["PAIR_SCHEMA", "QUERY_SCHEMA", "LabelPlan", "assemble", "plan"]


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
    package_requests: object | None = None  # labeling.package_requests.build.PackageRequestSet
    retrieval_pools: list[int] = field(default_factory=list)  # tools the retriever ranked, per call (with a depth)


def plan(config: Config, in_dir: str) -> LabelPlan:
    """Everything before the LLM, step by step: read (the source's queries and the gold set), retrieve (their
    candidate pairs, and those of the workflow set), and the pairs the verifier asks the LLM about; each embedding
    pass is a phase of the running step."""
    from ecoagent.text.splits import normalize
    from labeling.package_requests.build import build_package_requests
    from labeling.read import kept_queries, read_gold, read_source
    from labeling.retrieve import CandidateRetrieval
    from labeling.workflows.build import crawl_folder
    from labeling.workflows.stage import plan_workflows

    if config.label.verifier not in VERIFIERS:
        raise ConfigError(f"label.verifier must be one of {', '.join(VERIFIERS)}, got {config.label.verifier!r}")
    source = ArtifactStore(in_dir)
    catalog = source.read_table(SCORE_FILES.tools, ScoredToolRecord.model_fields)
    raw, drops = read_source(config)
    gold = read_gold(config, catalog)
    gold_texts = {normalize(t) for t in gold.queries["text"]} if gold is not None else set()
    kept = kept_queries(config, raw, drops, gold_texts)
    retrieval = CandidateRetrieval(config, catalog)
    candidates, pairs = retrieval.candidate_pairs([q.query_id for q in kept], [q.text for q in kept])
    drops["no_candidate_above_floor"] += sum(1 for c in candidates if not c)
    gold_pairs: list[dict] = []
    if gold is not None and len(gold.queries):
        _, gold_pairs = retrieval.candidate_pairs(gold.queries["query_id"].to_list(), gold.queries["text"].to_list())
    # label.workflows: workflow templates, labelled by construction; the labeler measured on them
    workflows = plan_workflows(config, catalog, source.url(), retrieval.agree_q.encode, retrieval.candidate_pairs)
    asked = pairs_for_llm(config, pairs) + pairs_for_llm(config, gold_pairs)
    if workflows is not None:
        asked += pairs_for_llm(config, workflows.pairs)
    package_requests = None
    if config.label.package_requests.enabled:  # labelled by the docs themselves: nothing to retrieve or verify
        package_requests = build_package_requests(config, catalog, crawl_folder(config, source.url()))
    return LabelPlan(catalog, kept, candidates, pairs, drops, len(raw), gold, gold_pairs, asked,
                     verify_requests(config, asked), workflows, package_requests, retrieval.pools)  # fmt: skip


def assemble(config: Config, the_plan: LabelPlan, answers: LLMAnswers, folder: StageFolder,
             started: float) -> StageResult:  # fmt: skip
    """Label the candidate pairs by the configured verifier (verify), split the verified queries (split), write the
    stage's files and the evaluations on the gold and workflow sets (gold)."""
    from labeling.gold import write_gold
    from labeling.summary import summary_lines
    from labeling.verify import verdicts

    verdict = verdicts(config, the_plan.pairs, the_plan.asked, answers, the_plan.drops)
    qframe = _query_frame(config, the_plan, verdict.labels)
    pframe = _pair_frame(config, the_plan.pairs, verdict, dict(zip(qframe["query_id"], qframe["split"], strict=True)))
    with folder.replace() as store:
        store.write_parquet(qframe, LABEL_FILES.queries)
        store.write_parquet(pframe, LABEL_FILES.pairs)
        review_rows = _review_sample(config, store, the_plan, pframe)
        summary = _summary(config, the_plan, verdict, qframe, review_rows, started)
        if the_plan.gold is not None:
            summary["gold"] = write_gold(config, store, the_plan.gold, the_plan.gold_pairs,
                                         verdict.llm_scores_of(the_plan.gold_pairs))  # fmt: skip
        if the_plan.workflows is not None:
            summary["workflows"] = _write_workflows(config, store, the_plan, verdict)
        if the_plan.package_requests is not None:
            summary["package_requests"] = _write_package_requests(store, the_plan.package_requests)
        store.write_json(summary, LABEL_FILES.summary)
    return StageResult(folder.url(), summary, summary_lines(summary, folder.url()))


def _review_sample(config: Config, store: ArtifactStore, the_plan: LabelPlan, pframe: pl.DataFrame) -> int:
    """The stratified review sample of the pairs (a local store only); its rows."""
    from labeling.review import export_review_sample

    if not len(pframe) or store.protocol not in ("file", "local"):
        return 0
    cfg, kept = config.label, the_plan.kept
    review = pframe.with_columns(pl.lit(cfg.verifier).alias("verifier"))
    all_queries = pl.DataFrame({"query_id": [q.query_id for q in kept], "text": [q.text for q in kept],
                                "source": [q.source for q in kept]})  # fmt: skip
    return export_review_sample(review, all_queries, the_plan.catalog, store.path(LABEL_FILES.review_sample),
                                size=cfg.review_sample, seed=config.seed)  # fmt: skip


def _write_workflows(config: Config, store: ArtifactStore, the_plan: LabelPlan, verdict: Verdicts) -> dict:
    from labeling.workflows.stage import write_workflows

    return write_workflows(config, store, the_plan.workflows, verdict.llm_scores_of(the_plan.workflows.pairs),
                           lambda a, llm, v: verified(config, a, llm, v), the_plan.catalog)  # fmt: skip


def _write_package_requests(store: ArtifactStore, found: object) -> dict:
    store.write_parquet(found.queries, LABEL_FILES.package_request_queries)
    store.write_parquet(found.qrels, LABEL_FILES.package_request_qrels)
    store.write_json(found.report, LABEL_FILES.package_request_report)
    return {k: found.report[k] for k in ("queries", "by_platform", "by_label_level", "by_split")}


def _query_frame(config: Config, the_plan: LabelPlan, labels: list[int]) -> pl.DataFrame:
    """The queries with at least one verified pair, split (:func:`labeling.split.split_queries`)."""
    from labeling.split import split_queries

    verified_ids = {p["query_id"] for p, lab in zip(the_plan.pairs, labels, strict=True) if lab}
    candidates = zip(the_plan.kept, the_plan.candidates, strict=True)
    the_plan.drops["no_verified_pair"] += sum(1 for q, cands in candidates if cands and q.query_id not in verified_ids)
    return split_queries(config, [q for q in the_plan.kept if q.query_id in verified_ids])


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
