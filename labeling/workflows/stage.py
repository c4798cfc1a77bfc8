"""The label stage's workflow part: the set built, the Real labeler run on it as if unlabeled, all written.

:func:`plan_workflows` builds the workflow queries and qrels (:mod:`labeling.workflows.build`) and runs the label
stage's own retrieval (top-k above the cosine floor, with the agreement score of each pair) on the task view of
the kept queries (a seeded sample of ``label.workflows.measure_sample`` of them when set). :func:`write_workflows`
writes the set, the scored pairs and a blind review sample of the native labels, and measures every verifier that
ran against the native labels (:mod:`labeling.workflows.measure`): at the tool level (the exact labels required, a
stripped node's tools acceptable) and at the node level (a predicted tool is right when the workflow runs its
node). The thresholds are the configured ones (``label.min_agreement_score``, ``label.min_verifier_score``,
calibrated on BFCL); none is chosen on the workflows, so the test split is measured like the others.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from ecoagent.config import Config
from ecoagent.layout import LABEL_FILES
from ecoagent.store import ArtifactStore
from labeling.workflows import completion
from labeling.workflows.build import WorkflowSet, build_workflows, crawl_folder
from labeling.workflows.mapping import node_of
from labeling.workflows.measure import bucket, measure_by_tools

WORKFLOW_PAIR_SCHEMA = {
    "query_id": pl.String,
    "tool_id": pl.String,
    "retrieval_cosine": pl.Float64,
    "agreement_score": pl.Float64,
    "llm_score": pl.Float64,
    "label": pl.Int8,  # verified by the verifier that decides (label.verifier)
    "native": pl.Boolean,  # an exact label of the template
    "acceptable": pl.Boolean,  # a stripped node's tool (alternative)
    "split": pl.String,
    "view": pl.String,  # task (title + cleaned description) | title
}


@dataclass
class WorkflowPlan:
    workflows: WorkflowSet
    measured: list[str]  # the query ids the labeler ran on
    pairs: list[dict] = field(default_factory=list)  # their candidate pairs (task view), as the stage's plan makes them
    title_pairs: list[dict] = field(default_factory=list)  # the same on the title view (never sent to the LLM)


def plan_workflows(config: Config, catalog: pl.DataFrame, score_dir: str, encode: Callable,
                   candidate_pairs: Callable) -> WorkflowPlan | None:  # fmt: skip
    """The workflow set and the labeler's candidate pairs on it; None when ``label.workflows.enabled`` is off."""
    cfg = config.label.workflows
    if not cfg.enabled:
        return None
    workflows = build_workflows(config, catalog, crawl_folder(config, score_dir), encode)
    kept = workflows.kept.select("query_id", "text")
    ids = kept["query_id"].to_list()
    if cfg.measure_sample is not None and len(ids) > cfg.measure_sample:
        ids = sorted(random.Random(config.seed).sample(ids, cfg.measure_sample))
    texts = dict(kept.iter_rows())
    _, pairs = candidate_pairs(ids, [texts[q] for q in ids])
    title_pairs: list[dict] = []
    if cfg.measure_title:
        titles = dict(workflows.kept.select("query_id", "title").iter_rows())
        _, title_pairs = candidate_pairs(ids, [titles[q] for q in ids])
    return WorkflowPlan(workflows, ids, pairs, title_pairs)


def write_workflows(config: Config, store: ArtifactStore, plan: WorkflowPlan, llm_scores: list,
                    verified: Callable[[float | None, float | None, str | None], bool],
                    catalog: pl.DataFrame) -> dict:  # fmt: skip
    """Write the workflow files; the summary's ``workflows`` section. ``llm_scores``: one per plan pair (None where
    the LLM was not asked); ``verified(agreement, llm, verifier)``: the stage's decision rule."""
    ws, cfg = plan.workflows, config.label
    store.write_parquet(ws.queries, LABEL_FILES.workflow_queries)
    store.write_parquet(ws.qrels, LABEL_FILES.workflow_qrels)
    store.write_json(ws.report, LABEL_FILES.workflow_mapping)
    required, acceptable, grade = native_truth(ws.qrels)
    split_of = dict(ws.queries.select("query_id", "split").iter_rows())
    scored = [(p, llm, "task") for p, llm in zip(plan.pairs, llm_scores, strict=True)]
    scored += [(p, None, "title") for p in plan.title_pairs]
    frame = pl.DataFrame([
        {"query_id": p["query_id"], "tool_id": p["tool_id"], "retrieval_cosine": p["retrieval_cosine"],
         "agreement_score": p["agreement_score"], "llm_score": llm,
         "label": int(verified(p["agreement_score"], llm, None)),
         "native": p["tool_id"] in required.get(p["query_id"], ()),
         "acceptable": p["tool_id"] in acceptable.get(p["query_id"], ()), "split": split_of[p["query_id"]],
         "view": view}
        for p, llm, view in scored
    ], schema=WORKFLOW_PAIR_SCHEMA).sort("view", "query_id", "tool_id")  # fmt: skip
    store.write_parquet(frame, LABEL_FILES.workflow_pairs)
    pairs = frame.filter(pl.col("view") == "task")
    review_rows = 0
    if store.protocol in ("file", "local") and cfg.workflows.review_sample:
        review_rows = _review_sample(config, store, ws, pairs, grade, catalog)
    kept = ws.kept
    return {
        "package": cfg.workflows.package,
        "queries": len(ws.queries),
        "queries_kept": len(kept),
        "queries_kept_with_exact_label": int((kept["gold_tools"].list.len() > 0).sum()),
        "queries_by_status": dict(sorted(ws.queries.group_by("status").len().iter_rows())),
        "splits": {s: int((kept["split"] == s).sum()) for s in ("train", "validation", "test")},
        "split_months": ws.report["split_months"],
        "cold_start": {
            "test_queries": int(kept["cold_start"].sum()),
            "tools": int(ws.qrels.filter(pl.col("cold_start"))["tool_id"].n_unique()),
        },
        "qrels": _qrel_counts(ws.qrels),
        "mapping": ws.report["totals"],
        "completion": ws.report["completion"],
        "templates_by_status": ws.report["templates_by_status"],
        "templates_dropped": ws.report["source"]["templates_dropped"],
        "review_sample_rows": review_rows,
        "evaluation": evaluate(config, plan, pairs, required, acceptable, verified),
        "evaluation_title_view": evaluate(config, plan, frame.filter(pl.col("view") == "title"), required,
                                          acceptable, verified, title_view=True) if plan.title_pairs else None,
    }


def _qrel_counts(qrels: pl.DataFrame) -> dict:
    """Exact labels by grade, a stripped node's alternatives, and the completed labels by resolution (both
    acceptable)."""
    exact = qrels.filter(~pl.col("alternative"))
    completed = qrels.filter(pl.col("resolution").is_in(list(completion.RESOLUTIONS)))
    return {"exact": len(exact), "alternative": len(qrels) - len(exact) - len(completed),
            "exact_by_grade": {str(g): n for g, n in sorted(exact.group_by("grade").len().iter_rows())},
            "completed": len(completed),
            "completed_by_resolution": dict(sorted(completed.group_by("resolution").len().iter_rows()))}  # fmt: skip


def native_truth(qrels: pl.DataFrame) -> tuple[dict[str, set[str]], dict[str, set[str]], dict[tuple[str, str], int]]:
    """(required: exact labels, acceptable: alternatives, grade of each pair) by query."""
    required: dict[str, set[str]] = {}
    acceptable: dict[str, set[str]] = {}
    grade: dict[tuple[str, str], int] = {}
    for query_id, tool_id, g, alternative in qrels.select("query_id", "tool_id", "grade", "alternative").iter_rows():
        (acceptable if alternative else required).setdefault(query_id, set()).add(tool_id)
        grade[(query_id, tool_id)] = g
    return required, acceptable, grade


def evaluate(config: Config, plan: WorkflowPlan, pairs: pl.DataFrame, required: dict[str, set[str]],
             acceptable: dict[str, set[str]], verified: Callable, title_view: bool = False) -> dict:  # fmt: skip
    """Every verifier that ran against the native labels, at the tool and at the node level (module docstring).
    The title view is measured with the agreement only: it is never sent to the LLM."""
    cfg = config.label
    ran = {"embedding": ("embedding",), "llm": ("embedding", "llm"), "both": ("embedding", "both")}[cfg.verifier]
    not_run = f"label.verifier={cfg.verifier}"
    if title_view:
        ran, not_run = ("embedding",), "the title view is never sent to the LLM"
    seed, resamples = config.seed, cfg.workflows.bootstrap_resamples
    queries = plan.measured
    split_of = dict(plan.workflows.queries.select("query_id", "split").iter_rows())
    nodes_required = {q: {node_of(t) for t in tools} for q, tools in required.items()}
    nodes_required.update({q: nodes_required.get(q, set()) | {node_of(t) for t in tools}
                           for q, tools in acceptable.items()})  # fmt: skip

    def predicted(verifier: str | None) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for row in pairs.iter_rows(named=True):
            if verifier is None or verified(row["agreement_score"], row["llm_score"], verifier):
                out.setdefault(row["query_id"], set()).add(row["tool_id"])
        return out

    def both_levels(verifier: str | None) -> dict:
        tools = predicted(verifier)
        nodes = {q: {node_of(t) for t in ts} for q, ts in tools.items()}
        tool = measure_by_tools(tools, required, acceptable, queries, seed=seed, resamples=resamples)
        return {"tool": tool, "node": measure_by_tools(nodes, nodes_required, {}, queries, seed=seed,
                                                       resamples=resamples)}  # fmt: skip

    return {
        "what": "the label stage's own path (retrieval top-k above the cosine floor over the whole catalog, then "
        "each verifier that ran, at the configured thresholds) on the task view of the kept workflow queries as "
        "if unlabeled; micro precision, recall and F1 with 95 % bootstrap intervals over queries. tool: against "
        "the exact labels (a stripped node's tools are acceptable, neither right nor wrong); node: a verified tool "
        "is right when the workflow runs its node (service level). No threshold is chosen on the workflows.",
        "queries": len(queries),
        "sampled": cfg.workflows.measure_sample is not None and len(queries) < len(plan.workflows.kept),
        "by_split": dict(sorted(Counter(split_of[q] for q in queries).items())),
        "decided_by": cfg.verifier,
        "candidates": both_levels(None),
        "verifiers": {v: both_levels(v) for v in ran},
        "not_run": {v: not_run for v in ("embedding", "llm", "both") if v not in ran},
        "tools_in_task": "by_tools: number of exact labels of the query (5+ together; 0: alternatives only)",
    }


def _review_sample(config: Config, store: ArtifactStore, ws: WorkflowSet, pairs: pl.DataFrame,
                   grade: dict[tuple[str, str], int], catalog: pl.DataFrame) -> int:  # fmt: skip
    """A blind sample of the native labels: each sampled query's exact labels beside its retrieved candidates that
    are no label, the label hidden in a key file; stratified by the number of labels (labeling.review)."""
    from labeling.review import export_review_sample

    exact = ws.qrels.filter(~pl.col("alternative")).select("query_id", "tool_id")
    retrieved = pairs.select("query_id", "tool_id", "retrieval_cosine")
    rows = exact.join(retrieved, on=["query_id", "tool_id"], how="full", coalesce=True)
    rows = rows.with_columns(
        pl.struct("query_id", "tool_id").map_elements(lambda k: grade.get((k["query_id"], k["tool_id"]), 0) / 2,
                                                      return_dtype=pl.Float64).alias("agreement_score"),
        pl.lit(None, dtype=pl.Float64).alias("llm_score"), pl.lit("embedding").alias("verifier"),
    ).with_columns((pl.col("agreement_score") > 0).cast(pl.Int8).alias("label"))  # fmt: skip
    labelled = ws.kept.filter(pl.col("gold_tools").list.len() > 0)
    strata = [f"workflows:{bucket(len(tools))} tools" for tools in labelled["gold_tools"].to_list()]
    queries = labelled.select("query_id", "text").with_columns(pl.Series("source", strata, dtype=pl.String))
    rows = rows.filter(pl.col("query_id").is_in(queries["query_id"].implode()))
    return export_review_sample(rows, queries, catalog, store.path(LABEL_FILES.workflow_review_sample),
                                size=config.label.workflows.review_sample, seed=config.seed,
                                blind_key=store.path(LABEL_FILES.workflow_review_key))  # fmt: skip
