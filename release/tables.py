"""The release's tables, one per config and split, from the stage outputs (see :mod:`release.build` for the
layout, the Syn split and the temporal cold start).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl

from ecoagent.config import Config
from ecoagent.hashing import sha256_file
from ecoagent.release_format.tool_status import statuses
from ecoagent.release_format.views import FIRST_SEEN_NOT_SEEN, FIRST_SEEN_UNKNOWN
from ecoagent.text.dedup import DisjointSets
from release.workflows_disjoint import disjoint_view, service_splits, service_uses, view_counts
from schemas.tool_event import ACTIVE, DEPRECATED, REMOVED_SINCE

SPLITS = ("train", "validation", "test")
COLD_START = "cold_start"
DISJOINT = "disjoint"  # the tool-disjoint view: subsets syn-disjoint and real-disjoint
NOT_SEEN = "9999-99"  # the first-seen month of a tool no month of the history holds: newer than any
# ... of a tool whose package the history does not follow (a community listing's): not known, so never new by it
UNTRACKED = FIRST_SEEN_UNKNOWN
ALL_SPLITS = (*SPLITS, COLD_START)
REQUIRED_VIEW_SPLITS = ("train", "test")  # the release gate's required splits: a view without one is not released
CORPUS_SPLIT = "corpus"  # MTEB reads a corpus config's only split, whatever its name; "corpus" is the convention
TOOLS_SPLIT = "train"  # HF's split name for a dataset that is one table
GOLD_SPLIT = "test"  # the gold set is an evaluation set only
WORKFLOWS = "workflows"  # the task view (title + cleaned description) of the n8n workflow templates
WORKFLOWS_TITLE = "workflows-title"  # the title view of the same templates: an underspecified second track
WORKFLOWS_DISJOINT = f"{WORKFLOWS}-{DISJOINT}"  # the task view split by service: no test tool is a train tool
PACKAGE_REQUESTS = "package-requests"  # the packages' own example requests, split by package (tool-disjoint)
TOOL_EVENTS = "tool-events"  # the history's tool events, one row per event (a single table, split train)
REMOVED = REMOVED_SINCE.removesuffix(" since")  # every "removed since <month>" status, counted together
# the syn-queries and real-queries columns beside _id (and split)
SYN_QUERY_COLUMNS = ("text", "intent_type", "on_topic")
REAL_QUERY_COLUMNS = ("text", "source", "category")
# the workflows-queries columns beside _id and text, as the label stage writes them (attribution kept per row)
WORKFLOW_QUERY_COLUMNS = ("title", "template_id", "views", "created_at", "author_name", "author_username",
                          "author_verified", "url", "stripped")  # fmt: skip
# the package-requests-queries columns beside _id and text: where each request is written, and how it was labelled
PACKAGE_REQUEST_COLUMNS = ("platform", "package", "version", "license", "member", "line", "heading", "tie",
                           "label_level")  # fmt: skip
# the text that may carry personal data (ecoagent.text.personal_data), scrubbed by the build and checked by the gate:
# every query's text and title, the corpus documents and the tools' prose and parameter schema (compact JSON, one
# line: no row of it is ever dropped). Attribution (a template's author_name, author_username, url) stays on purpose.
QUERY_TEXT_COLUMNS = ("text", "title")
CORPUS_TEXT_COLUMNS = ("title", "text")
TOOL_TEXT_COLUMNS = ("display_name", "description", "doc_summary", "parameters")


def personal_text_columns(config_name: str) -> tuple[str, ...]:
    """The columns of ``config_name`` whose text is scrubbed of personal data and checked for it (none: no text)."""
    if config_name == "tools":
        return TOOL_TEXT_COLUMNS
    if config_name.endswith("-queries"):
        return QUERY_TEXT_COLUMNS
    if config_name.endswith("-corpus"):
        return CORPUS_TEXT_COLUMNS
    return ()


def release_tables(
    stage: dict, config: Config, prev: dict | None
) -> tuple[dict[tuple[str, str], pl.DataFrame], dict]:
    """``{(config, split): table}`` and the split statistics (new tools, cold-start queries, dropped Real queries)."""
    tools = stage["tools"]
    new_since_previous = set(tools["tool_id"]) - set(prev["tools"]["tool_id"]) if prev else set()
    first_seen = _first_seen(tools, stage.get("history"))
    since = config.release.cold_start_since or ((stage.get("history") or {}).get("table") or {}).get("until")
    first_seen_new = {t for t, m in first_seen.items() if since and m != UNTRACKED and m >= since}
    new_tools = new_since_previous | first_seen_new
    syn, syn_positive = _syn_split(stage["syn_queries"], config, new_tools)
    real, real_positive = _real_split(stage, config, new_tools)
    corpus = _corpus(tools)
    events = (stage.get("history") or {}).get("tool_events")
    tables: dict[tuple[str, str], pl.DataFrame] = {("tools", TOOLS_SPLIT):
                                                   with_first_seen(with_status(tools, events), first_seen)}
    if events is not None:  # an empty table is not written: no event, no config
        tables[(TOOL_EVENTS, TOOLS_SPLIT)] = events.sort("month", "platform", "tool_id", "event")
    tables |= _syn_real_tables(stage["syn_pairs"], syn, syn_positive, real, real_positive, corpus)
    tables |= _gold_tables(stage, tools, corpus)
    disjoint = tool_disjoint_splits(tools, first_seen, config)
    syn_view, syn_dropped = _disjoint_view(syn, syn_positive, disjoint)
    real_view, real_dropped = _disjoint_view(real, real_positive, disjoint)
    tables |= _disjoint_tables(syn_view, syn_positive, real_view, real_positive, corpus)
    workflow_tables, workflow_stats = _workflow_tables(stage, tools, corpus, new_tools, config)
    tables |= workflow_tables
    request_tables, request_stats = _package_request_tables(stage, tools, corpus)
    tables |= request_tables
    stats = {
        "new_tools": sorted(new_tools),
        "new_tools_since_previous": len(new_since_previous),
        "first_seen_new_tools": len(first_seen_new),
        "cold_start_since": since if first_seen else None,
        "first_seen_months": dict(sorted(_count(first_seen.values()).items())) if first_seen else {},
        "disjoint_tools": {split: sum(s == split for s in disjoint.values()) for split in SPLITS},
        "disjoint_dropped_queries": {"syn": syn_dropped, "real": real_dropped},
        "real_queries_without_verified_tool": len(stage["real_queries"]) - len(real),
        "syn_cold_start_queries": int((syn["split"] == COLD_START).sum()),
        "real_cold_start_queries": int((real["split"] == COLD_START).sum()),
        "tool_status": status_counts(tables[("tools", TOOLS_SPLIT)], events),
    }
    stats |= workflow_stats  # only with workflows: a release without them keeps its manifest byte for byte
    stats |= request_stats  # likewise
    return tables, stats


def with_status(tools: pl.DataFrame, events: pl.DataFrame | None) -> pl.DataFrame:
    """The catalog with its ``status`` column (:func:`ecoagent.release_format.tool_status.statuses` after the last
    event): ``removed since <month>`` when the history's newest gone event of the tool (removed, renamed) is not
    followed by its return (restored), else ``deprecated`` or ``active`` by the catalog's own ``deprecated`` flag,
    the only source without a history's tool events."""
    status = statuses(tools["tool_id"].to_list(), tools["deprecated"].to_list(), events)
    return tools.with_columns(pl.Series("status", status, dtype=pl.String))


def with_first_seen(tools: pl.DataFrame, first_seen: dict[str, str]) -> pl.DataFrame:
    """The catalog with its ``first_seen`` column when there is a history (what the ``as_of`` view reads): the first
    month that holds the tool, ``unknown`` for a tool whose package the history does not follow, ``not seen`` for one
    of a followed package that no month holds (newer than the history)."""
    if not first_seen:
        return tools
    # UNTRACKED is already the column's word; NOT_SEEN sorts after every month inside the build, the column spells it
    months = [FIRST_SEEN_NOT_SEEN if first_seen[t] == NOT_SEEN else first_seen[t] for t in tools["tool_id"].to_list()]
    return tools.with_columns(pl.Series("first_seen", months, dtype=pl.String))


def status_counts(tools: pl.DataFrame, events: pl.DataFrame | None) -> dict:
    """Where the status came from (the history's tool events, or the catalog's deprecated flag alone) and how many
    tools have each (``removed``: every ``removed since <month>``)."""
    kinds = tools["status"].str.replace(r" since .*$", "")
    return {"source": "history" if events is not None else "catalog",
            "counts": {kind: int((kinds == kind).sum()) for kind in (ACTIVE, DEPRECATED, REMOVED)}}  # fmt: skip


def _syn_real_tables(
    syn_pairs: pl.DataFrame,
    syn: pl.DataFrame,
    syn_positive: pl.DataFrame,
    real: pl.DataFrame,
    real_positive: pl.DataFrame,
    corpus: pl.DataFrame,
) -> dict[tuple[str, str], pl.DataFrame]:
    """The Syn and Real configs: the corpus, and the queries, qrels (and Syn's pairs) of every split."""
    syn_split = syn.select("query_id", "split")
    syn_pairs = (
        syn_pairs
        .join(syn_split, on="query_id", how="inner")
        .select("query_id", "tool_id", "label", "negative_type", "split")
        .sort("query_id", "label", "negative_type", "tool_id", descending=[False, True, False, False])
    )
    syn_qrels = _qrels(syn_positive.join(syn_split, on="query_id"))
    real_qrels = _qrels(real_positive.join(real.select("query_id", "split"), on="query_id"))
    syn_q = syn.select(pl.col("query_id").alias("_id"), *SYN_QUERY_COLUMNS, "split")
    real_q = real.select(pl.col("query_id").alias("_id"), *REAL_QUERY_COLUMNS, "split")

    tables: dict[tuple[str, str], pl.DataFrame] = {}
    tables[("syn-corpus", CORPUS_SPLIT)] = corpus
    tables[("real-corpus", CORPUS_SPLIT)] = corpus
    for split in ALL_SPLITS:
        tables[("syn-queries", split)] = _split(syn_q, split, "_id")
        tables[("syn-qrels", split)] = _split(syn_qrels, split, "query-id", "corpus-id")
        tables[("syn-pairs", split)] = syn_pairs.filter(pl.col("split") == split)
        tables[("real-queries", split)] = _split(real_q, split, "_id")
        tables[("real-qrels", split)] = _split(real_qrels, split, "query-id", "corpus-id")
    return tables


def _disjoint_tables(
    syn_view: pl.DataFrame,
    syn_positive: pl.DataFrame,
    real_view: pl.DataFrame,
    real_positive: pl.DataFrame,
    corpus: pl.DataFrame,
) -> dict[tuple[str, str], pl.DataFrame]:
    """The tool-disjoint view's configs: the corpus, and the queries and qrels of train, validation and test."""
    syn_q = syn_view.select("_id", *SYN_QUERY_COLUMNS, "split")
    real_q = real_view.select("_id", *REAL_QUERY_COLUMNS, "split")
    tables: dict[tuple[str, str], pl.DataFrame] = {}
    tables[("syn-disjoint-corpus", CORPUS_SPLIT)] = corpus
    tables[("real-disjoint-corpus", CORPUS_SPLIT)] = corpus
    for split in SPLITS:
        tables[("syn-disjoint-queries", split)] = _split(syn_q, split, "_id")
        tables[("syn-disjoint-qrels", split)] = _split(_qrels(syn_positive.join(
            syn_view.select(pl.col("_id").alias("query_id"), "split"), on="query_id")), split, "query-id", "corpus-id")
        tables[("real-disjoint-queries", split)] = _split(real_q, split, "_id")
        tables[("real-disjoint-qrels", split)] = _split(_qrels(real_positive.join(
            real_view.select(pl.col("_id").alias("query_id"), "split"), on="query_id")), split, "query-id", "corpus-id")
    return tables


def _count(values) -> dict:
    from collections import Counter

    return dict(Counter(values))


def _first_seen(tools: pl.DataFrame, history: dict | None) -> dict[str, str]:
    """Every catalog tool's first month in the history; empty without one. A tool no month holds is
    :data:`NOT_SEEN` (newer than the history) when the history follows its package (some month holds a tool of it),
    else :data:`UNTRACKED`: the history never crawls the community listings, so their tools' first month is unknown,
    not new."""
    if not history:
        return {}
    months = dict(history["first_seen"].select("tool_id", "first_seen").iter_rows())
    ids, packages = tools["tool_id"].to_list(), tools["package"].to_list()
    tracked = {package for tool_id, package in zip(ids, packages, strict=True) if tool_id in months}
    return {tool_id: months.get(tool_id, NOT_SEEN if package in tracked else UNTRACKED)
            for tool_id, package in zip(ids, packages, strict=True)}  # fmt: skip


def tool_disjoint_splits(tools: pl.DataFrame, first_seen: dict[str, str], config: Config) -> dict[str, str]:
    """``{tool_id: split}``: the tools in order of their first month (then a seeded hash), the first share (by
    ``release.syn_split_ratios``) train, then validation, then test: test tools are the newest and none is a train
    tool. Without a history every tool's month is the same, so the order is the seeded hash alone."""
    import hashlib

    def order(tool_id: str) -> tuple[str, str]:
        return first_seen.get(tool_id, ""), hashlib.sha256(f"{config.seed}:{tool_id}".encode()).hexdigest()

    ordered = sorted(tools["tool_id"].to_list(), key=order)
    train, validation, _ = config.release.syn_split_ratios
    cut_train = round(len(ordered) * train)
    cut_validation = cut_train + round(len(ordered) * validation)
    return {t: "train" if i < cut_train else "validation" if i < cut_validation else "test"
            for i, t in enumerate(ordered)}  # fmt: skip


def _disjoint_view(queries: pl.DataFrame, positives: pl.DataFrame, splits: dict[str, str]) -> tuple[pl.DataFrame, int]:
    """The queries of the tool-disjoint view (``_id``, their columns, ``split``) and how many were left out.

    A query takes the split of its positive tools when they all share one; a query whose tools are split apart is
    left out, and so is a validation or test query whose near-duplicate group also holds a train query of the view.
    """
    tool_split = positives.with_columns(pl.col("tool_id").replace_strict(splits, default=None).alias("tool_split"))
    one = tool_split.group_by("query_id").agg(pl.col("tool_split").n_unique().alias("n"),
                                              pl.col("tool_split").first().alias("view_split"))  # fmt: skip
    one = one.filter((pl.col("n") == 1) & pl.col("view_split").is_not_null()).select("query_id", "view_split")
    view = queries.drop("split").join(one, on="query_id", how="inner").rename({"view_split": "split"})
    train_groups = view.filter(pl.col("split") == "train")["group_id"].implode()
    view = view.filter((pl.col("split") == "train") | ~pl.col("group_id").is_in(train_groups))
    return view.rename({"query_id": "_id"}), len(queries) - len(view)


def _syn_split(syn_queries: pl.DataFrame, config: Config, new_tools: set[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Syn, split here (the synth stage does not), grouped by text/near-duplicates and by synth's dedup_cluster;
    returns the queries with their split and the (query, tool) positives."""
    from ecoagent.text.splits import assign_splits

    syn = _merge_dedup_clusters(
        assign_splits(syn_queries.sort("query_id"), ratios=tuple(config.release.syn_split_ratios), seed=config.seed,
                      dedup_threshold=config.label.dedup_threshold, setting="release.syn_split_ratios")
    )  # fmt: skip
    syn_positive = syn.select("query_id", "tool_id")
    return _cold_start(syn, syn_positive, new_tools), syn_positive


def _real_split(stage: dict, config: Config, new_tools: set[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Real keeps the label stage's split; queries without a verified tool cannot be scored, so they leave. Returns
    the kept queries and their verified (query, tool) positives."""
    from ecoagent.text.splits import assign_splits

    real_pairs = stage["real_pairs"]
    real_positive = real_pairs.filter(pl.col("label") == 1).select("query_id", "tool_id").unique().sort(pl.all())
    real = stage["real_queries"].sort("query_id").filter(pl.col("query_id").is_in(real_positive["query_id"].implode()))
    if "group_id" not in real.columns:  # the label stage's groups (with its paraphrase rule) when it wrote them
        # only the group ids are used (the split stays the label stage's), so the ratios are label's own
        groups = assign_splits(
            real.select("query_id", "text"), ratios=tuple(config.label.split_ratios), seed=config.seed,
            dedup_threshold=config.label.dedup_threshold, setting="label.split_ratios",
        )["group_id"]  # fmt: skip
        real = real.with_columns(groups)
    return _cold_start(real, real_positive, new_tools), real_positive


def _corpus(tools: pl.DataFrame) -> pl.DataFrame:
    """The MTEB corpus of every subset: the whole catalog, its description as the text (else summary, else name)."""
    return tools.select(
        pl.col("tool_id").alias("_id"),
        pl.col("name").alias("title"),
        pl.when(pl.col("description").str.strip_chars() != "")
        .then(pl.col("description"))
        .otherwise(pl.coalesce(pl.col("doc_summary"), pl.col("name")))
        .alias("text"),
        "platform",
        "r_static",
        "reliable",
    )


def _gold_tables(stage: dict, tools: pl.DataFrame, corpus: pl.DataFrame) -> dict[tuple[str, str], pl.DataFrame]:
    """The gold configs (test only), when the label stage wrote a gold set with a query that has a required tool.

    ``gold-qrels`` carries ``alternative``: a same-named tool of another server (``labeling.gold``), acceptable, not
    required, written with ``score`` 0 so that a reader of the MTEB columns alone never counts it as relevant. A
    query whose tools on this catalog are all alternatives has nothing to recall and is left out, with its qrels.
    """
    gold_q, gold_r = stage["gold_queries"], stage["gold_qrels"]
    if gold_q is None or gold_r is None or not len(gold_q):
        return {}
    gold_r = gold_r.filter(pl.col("tool_id").is_in(tools["tool_id"].implode()))  # mapped onto this very catalog
    if "alternative" not in gold_r.columns:  # a label stage from before alternatives: every qrel was required
        gold_r = gold_r.with_columns(pl.lit(False).alias("alternative"))
    with_required = gold_r.filter(~pl.col("alternative"))["query_id"].implode()
    gold_r = gold_r.filter(pl.col("query_id").is_in(with_required))
    gold_q = gold_q.filter(pl.col("query_id").is_in(with_required))
    if not len(gold_q):
        return {}
    qrels = gold_r.select(
        pl.col("query_id").alias("query-id"),
        pl.col("tool_id").alias("corpus-id"),
        pl.when(pl.col("alternative")).then(0).otherwise(1).cast(pl.Int32).alias("score"),
        "alternative",
    )
    return {
        ("gold-corpus", CORPUS_SPLIT): corpus,
        ("gold-queries", GOLD_SPLIT): gold_q.select(
            pl.col("query_id").alias("_id"), "text", "category", "complete", "ambiguous"
        ).sort("_id"),
        ("gold-qrels", GOLD_SPLIT): qrels.unique().sort("query-id", "corpus-id"),
    }


def _workflow_tables(stage: dict, tools: pl.DataFrame, corpus: pl.DataFrame, new_tools: set[str],
                     config: Config) -> tuple[dict[tuple[str, str], pl.DataFrame], dict]:  # fmt: skip
    """The workflows configs (task and title view, and the tool-disjoint view) and their counts for the card, when
    the label stage wrote a workflow set: the kept queries with at least one label on this catalog, in the label
    stage's split (grouped and temporal), the groups with a tool new since the previous release moved to
    ``cold_start`` as Real's are."""
    queries, qrels = stage["workflow_queries"], stage["workflow_qrels"]
    if queries is None or qrels is None:
        return {}, {}
    qrels = qrels.filter(pl.col("tool_id").is_in(tools["tool_id"].implode()))
    kept = (queries.filter((pl.col("status") == "kept") & pl.col("query_id").is_in(qrels["query_id"].implode()))
            .sort("query_id"))  # fmt: skip
    if not len(kept):
        return {}, {}
    kept = _cold_start(kept, qrels.select("query_id", "tool_id"), new_tools)
    qrels = qrels.join(kept.select("query_id", "split"), on="query_id", how="inner").select(
        pl.col("query_id").alias("query-id"), pl.col("tool_id").alias("corpus-id"),
        # an alternative scores 0 as in gold-qrels: MTEB and the reader count it as not relevant
        pl.when(pl.col("alternative")).then(0).otherwise(pl.col("grade")).cast(pl.Int32).alias("score"),
        "alternative", "split",
    )  # fmt: skip
    task = kept.select(pl.col("query_id").alias("_id"), "text", *WORKFLOW_QUERY_COLUMNS,
                       pl.col("cold_start").alias("test_cold_start"), "split")  # fmt: skip
    title = kept.select(pl.col("query_id").alias("_id"), pl.col("title").alias("text"), "split")
    tables: dict[tuple[str, str], pl.DataFrame] = {
        (f"{WORKFLOWS}-corpus", CORPUS_SPLIT): corpus,
        (f"{WORKFLOWS_TITLE}-corpus", CORPUS_SPLIT): corpus,
    }
    for split in ALL_SPLITS:
        for subset, view in ((WORKFLOWS, task), (WORKFLOWS_TITLE, title)):
            tables[(f"{subset}-queries", split)] = _split(view, split, "_id")
            tables[(f"{subset}-qrels", split)] = _split(qrels, split, "query-id", "corpus-id")
    exact = qrels.filter(~pl.col("alternative"))
    by_grade = {f"grade_{g}": int((exact["score"] == g).sum()) for g in (2, 1)}
    disjoint_tables, disjoint_stats = _workflow_disjoint_tables(kept, task, qrels, tools, corpus, config)
    return tables | disjoint_tables, {
        "workflows_cold_start_queries": int((kept["split"] == COLD_START).sum()),
        "workflows_queries_stripped": int(kept["stripped"].sum()),
        "workflows_qrels": {**by_grade, "alternative": len(qrels) - len(exact)},
        "workflows_disjoint": disjoint_stats,
    }


def _workflow_disjoint_tables(
    kept: pl.DataFrame, task: pl.DataFrame, qrels: pl.DataFrame, tools: pl.DataFrame, corpus: pl.DataFrame,
    config: Config,
) -> tuple[dict[tuple[str, str], pl.DataFrame], dict]:  # fmt: skip
    """The ``workflows-disjoint`` configs (:mod:`release.workflows_disjoint`): the task view's queries and qrels,
    re-split by service, and the view's counts. A view without train or test queries is not released (the gate
    requires both, and a view of a tiny workflow set may have neither); its counts say so."""
    pairs = qrels.select(pl.col("query-id").alias("query_id"), pl.col("corpus-id").alias("tool_id"))
    uses = service_uses(pairs, tools)
    view, dropped = disjoint_view(kept, uses, service_splits(uses, config.release.syn_split_ratios, config.seed))
    stats = {**view_counts(view, pairs, uses), "dropped_queries": dropped}
    if not all(stats["queries"][split] for split in REQUIRED_VIEW_SPLITS):
        return {}, {**stats, "released": False}
    split_of = view.rename({"query_id": "_id"})
    view_qrels = qrels.drop("split").join(split_of.rename({"_id": "query-id"}), on="query-id")
    view_task = task.drop("split", "test_cold_start").join(split_of, on="_id")
    tables = {(f"{WORKFLOWS_DISJOINT}-corpus", CORPUS_SPLIT): corpus}
    for split in SPLITS:
        tables[(f"{WORKFLOWS_DISJOINT}-queries", split)] = _split(view_task, split, "_id")
        tables[(f"{WORKFLOWS_DISJOINT}-qrels", split)] = _split(view_qrels, split, "query-id", "corpus-id")
    return tables, {**stats, "released": True}


def _package_request_tables(stage: dict, tools: pl.DataFrame,
                            corpus: pl.DataFrame) -> tuple[dict[tuple[str, str], pl.DataFrame], dict]:  # fmt: skip
    """The ``package-requests`` configs (:mod:`labeling.package_requests`) and their counts, when the label stage
    wrote the set: the requests with a tool on this catalog, in the label stage's split by package. Released when it
    has train and test queries, as a workflows view is."""
    queries, qrels = stage.get("package_request_queries"), stage.get("package_request_qrels")
    if queries is None or qrels is None:
        return {}, {}
    qrels = qrels.filter(pl.col("tool_id").is_in(tools["tool_id"].implode()))
    kept = queries.filter(pl.col("query_id").is_in(qrels["query_id"].implode())).sort("query_id")
    counts = {split: int((kept["split"] == split).sum()) for split in SPLITS}
    stats = {"queries": counts, "by_platform": dict(sorted(Counter(kept["platform"].to_list()).items())),
             "by_label_level": dict(sorted(Counter(kept["label_level"].to_list()).items()))}  # fmt: skip
    if not all(counts[split] for split in REQUIRED_VIEW_SPLITS):
        return {}, {"package_requests": {**stats, "released": False}}
    view = kept.select(pl.col("query_id").alias("_id"), "text", *PACKAGE_REQUEST_COLUMNS, "split")
    view_qrels = qrels.join(kept.select("query_id", "split"), on="query_id").select(
        pl.col("query_id").alias("query-id"), pl.col("tool_id").alias("corpus-id"), pl.lit(1, pl.Int32).alias("score"),
        "split",
    )  # fmt: skip
    tables = {(f"{PACKAGE_REQUESTS}-corpus", CORPUS_SPLIT): corpus}
    for split in SPLITS:
        tables[(f"{PACKAGE_REQUESTS}-queries", split)] = _split(view, split, "_id")
        tables[(f"{PACKAGE_REQUESTS}-qrels", split)] = _split(view_qrels, split, "query-id", "corpus-id")
    return tables, {"package_requests": {**stats, "released": True}}


def _merge_dedup_clusters(frame: pl.DataFrame) -> pl.DataFrame:
    """Join assign_splits groups that share a synth ``dedup_cluster``; a merged group takes its smallest id's split."""
    groups = DisjointSets()  # the smallest group id represents a merged component
    first_of_cluster: dict[str, str] = {}
    for gid, cluster in zip(frame["group_id"], frame["dedup_cluster"], strict=True):
        groups.find(gid)
        if cluster is not None:
            groups.union(gid, first_of_cluster.setdefault(cluster, gid))
    find = groups.find
    split_of = dict(zip(frame["group_id"], frame["split"], strict=True))
    roots = [find(g) for g in frame["group_id"]]
    return frame.with_columns(
        pl.Series("group_id", roots, dtype=pl.String),
        pl.Series("split", [split_of[r] for r in roots], dtype=pl.String),
    )


def _cold_start(queries: pl.DataFrame, positives: pl.DataFrame, new_tools: set[str]) -> pl.DataFrame:
    """Move every group holding a query with a new positive tool into the cold_start split."""
    if not new_tools:
        return queries
    cold_queries = set(positives.filter(pl.col("tool_id").is_in(sorted(new_tools)))["query_id"])
    cold_groups = set(queries.filter(pl.col("query_id").is_in(sorted(cold_queries)))["group_id"])
    return queries.with_columns(
        pl.when(pl.col("group_id").is_in(sorted(cold_groups)))
        .then(pl.lit(COLD_START))
        .otherwise("split")
        .alias("split")
    )


def _qrels(positive: pl.DataFrame) -> pl.DataFrame:
    return positive.select(
        pl.col("query_id").alias("query-id"),
        pl.col("tool_id").alias("corpus-id"),
        pl.lit(1, pl.Int32).alias("score"),
        "split",
    )


def _split(frame: pl.DataFrame, split: str, *sort: str) -> pl.DataFrame:
    return frame.filter(pl.col("split") == split).drop("split").sort(*sort)


def file_table(folder: Path, layout: dict[str, dict[str, str]], tables: dict) -> dict[str, dict]:
    """``{path: sha256, bytes, rows}`` of every data file written into ``folder``, sorted by path."""
    files: dict[str, dict] = {}
    for (config_name, split), frame in tables.items():
        path = layout.get(config_name, {}).get(split)
        if path and path not in files:
            files[path] = {
                "sha256": sha256_file(folder / path),
                "bytes": (folder / path).stat().st_size,
                "rows": len(frame),
            }
    return dict(sorted(files.items()))
