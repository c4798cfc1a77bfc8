"""The label stage's workflow files for the release tests, in the stage's own schemas: the fixture templates of
:mod:`tests.labeling.workflow_fixtures` (titles, descriptions, authors, dates, nodes) labelled with the release
fixture's tools, their text cleaned and their split made by the label stage's own code (:mod:`labeling.workflows`).

The label stage itself needs the crawl's n8n action table and two embedders (``tests/labeling/test_label_workflows.py``
runs it); the release only reads its files, so they are written here directly, as ``make_stage_outputs`` writes the
other stages' files.
"""

from __future__ import annotations

import polars as pl

from ecoagent.config import Config
from ecoagent.layout import LABEL_FILES
from ecoagent.store import ArtifactStore
from labeling.workflows import cleaning
from labeling.workflows.build import WORKFLOW_QREL_SCHEMA, WORKFLOW_QUERY_SCHEMA
from labeling.workflows.groups import cold_start_tools, temporal_splits, workflow_groups
from labeling.workflows.mapping import NON_GOLD_RULE
from tests.labeling import workflow_fixtures as wf
from tests.release.test_build import tool_id

# the fixture nodes -> the release fixture's tools (index); tool 9 is outside an 8-tool catalog; ledger and relay run
# only in the templates of MORE_TEMPLATES
NODE_TOOLS = {"tabula": 0, "postino": 1, "nimbus": 2, "clientele": 3, "parla": 4, "ledger": 6, "relay": 7}
# templates whose tools no other template runs (add_workflows(more_templates=True)): services enough for a
# tool-disjoint view with train and test queries (release.workflows_disjoint)
MORE_TEMPLATES = [
    (201, "Log each shop order in Ledger", "Every new shop order is written to the Ledger book for the accountants.",
     "kim", "2025-09-10T10:00:00.000Z", [wf.TRIGGER, wf.n("ledger")]),
    (202, "Forward server alerts with Relay", "Each server alert goes to the engineer on call through Relay.",
     "liam", "2025-10-10T10:00:00.000Z", [wf.TRIGGER, wf.n("relay")]),
    (203, "Book the day's refunds in Ledger", "At the end of each day the refunds of the shop are booked in Ledger.",
     "mia", "2025-12-01T10:00:00.000Z", [wf.TRIGGER, wf.n("ledger")]),
]  # fmt: skip
STATUS = {106: "all_operations", 107: "off_topic_description"}  # set apart by the label stage
NO_QUERY = {109}  # no app node: no query at all
STRIPPED = {102: 5}  # a stripped template: its node's other tool is an acceptable alternative
OFF_CATALOG = (111, "Sync Vellum drafts to the shared archive", "Copies each Vellum draft into the archive folder.",
               "judy", "2025-06-15T10:00:00.000Z", 9)  # fmt: skip
EXTRA_LABEL = {103: 9}  # a second label outside the catalog: it leaves, the query stays
EVALUATION = {
    "queries": 8, "sampled": False, "decided_by": "embedding",
    "candidates": {"tool": {"precision": 0.21, "precision_ci95": [0.1, 0.33], "recall": 0.8, "recall_ci95": [0.6, 1.0],
                            "f1": 0.33, "f1_ci95": [0.18, 0.47]}},
    "verifiers": {"embedding": {"tool": {"precision": 0.5, "precision_ci95": [0.25, 0.75], "recall": 0.6,
                                         "recall_ci95": [0.4, 0.8], "f1": 0.55, "f1_ci95": [0.3, 0.7]}}},
}  # fmt: skip


def _tools(title: str, nodes: list[dict]) -> dict[int, int]:
    """{tool index: grade}: 2 when the title names the node, else 1."""
    out: dict[int, int] = {}
    for node in nodes:
        name = node["type"].rsplit(".", 1)[-1].removesuffix("Tool")
        if name in NODE_TOOLS:
            out[NODE_TOOLS[name]] = 2 if name in title.lower() else 1
    return out


def workflow_frames(config: Config, templates: list[tuple] = wf.TEMPLATES) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The workflow queries and qrels of ``templates`` as the label stage writes them."""
    rows, labels = [], []
    for tid, title, description, author, created, nodes in templates:
        if tid not in NO_QUERY:
            rows.append((tid, title, description, author, created))
            labels.append({**_tools(title, nodes), **({EXTRA_LABEL[tid]: 1} if tid in EXTRA_LABEL else {})})
    rows.append(OFF_CATALOG[:5])
    labels.append({OFF_CATALOG[5]: 2})
    texts = [cleaning.task_text(t, cleaning.clean_description(d, set(NODE_TOOLS), 1500, 250)) for _, t, d, *_ in rows]
    exact = [frozenset(tool_id(i) for i in tools) for tools in labels]
    cfg = config.label.workflows
    groups = workflow_groups(texts, [r[1] for r in rows], [r[3] for r in rows], exact,
                             dedup_threshold=config.label.dedup_threshold, title_similarity=cfg.title_similarity)
    splits = temporal_splits(groups, [r[4] for r in rows], cfg.split_shares)
    cold = cold_start_tools(splits, [sorted(e) for e in exact])
    queries, qrels = [], []
    for (tid, title, _, author, created), text, tools, split, group in zip(rows, texts, labels, splits, groups,
                                                                           strict=True):  # fmt: skip
        qid = f"workflows:{tid}"
        gold = sorted(tool_id(i) for i in tools)
        queries.append({
            "query_id": qid, "text": text, "title": title, "source": "workflows", "status": STATUS.get(tid, "kept"),
            "template_id": tid, "author_name": author.title(), "author_username": author, "author_verified": True,
            "views": tid * 10, "created_at": created, "url": f"https://n8n.io/workflows/{tid}",
            "stripped": tid in STRIPPED, "gold_tools": gold, "alternative_nodes": ["n8n-nodes-base.tabula"]
            if tid in STRIPPED else [], "split": split, "group_id": group,
            "cold_start": split == "test" and bool(set(gold) & cold),
        })  # fmt: skip
        alternatives = {STRIPPED[tid]: 2} if tid in STRIPPED else {}
        for alternative, pairs in ((False, tools), (True, alternatives)):
            qrels += [{"query_id": qid, "tool_id": tool_id(i), "grade": g, "alternative": alternative,
                       "resolution": "stripped_parameters" if alternative else "read", "node_types": ["x"],
                       "cold_start": tool_id(i) in cold and split == "test"} for i, g in pairs.items()]  # fmt: skip
    return (pl.DataFrame(queries, schema=WORKFLOW_QUERY_SCHEMA).sort("query_id"),
            pl.DataFrame(qrels, schema=WORKFLOW_QREL_SCHEMA).sort("query_id", "tool_id"))  # fmt: skip


def mapping_report() -> dict:
    """A mapping report in the label stage's shape (the parts the release reads)."""
    return {
        "source": {"package": "n8n-mcp@0.0.1", "registry": "npm", "file": "data/nodes.db", "license":
                   "MIT (the n8n-mcp package); the templates' own terms are n8n.io's", "attribution":
                   "each template by its author (author_name, author_username), at its n8n.io link (url)",
                   "templates_read": 11, "templates_dropped": {}, "templates_stripped": 1},
        "non_gold_rule": NON_GOLD_RULE,
        "mapping_rule": "each node -> its catalog tool at the node's own typeVersion",
        "grade_rule": "- **2**: the title names the tool's service;",
        "templates_by_status": {"all_operations": 1, "kept": 8, "no_app_node": 1, "off_topic_description": 1},
        "totals": {"node_occurrences": 40, "app_occurrences": 25, "mapped": 22, "unmapped_by_reason":
                   {"community_package": 1, "removed_node": 1, "stripped_parameters": 1},
                   "official_packages": {"packages": ["n8n-nodes-base", "@n8n/n8n-nodes-langchain"],
                                         "app_occurrences": 24, "mapped_exact": 21, "mapped_node_level": 1,
                                         "mapped_share": 0.9167, "mapped_exact_share": 0.875, "goal_share": 0.9}},
        "by_node_type": [{"node_type": "n8n-nodes-base.tabula", "occurrences": 10, "mapped": 8}],
    }  # fmt: skip


def as_alternatives(queries: pl.DataFrame, qrels: pl.DataFrame,
                    alternatives: dict[int, set[int]]) -> tuple[pl.DataFrame, pl.DataFrame]:  # fmt: skip
    """The frames with the qrels ``{template id: tool indices}`` turned into alternatives, as a template stored without
    its parameters gives them (all of a template's tools: a query with alternatives only, nothing required)."""
    marked = {(f"workflows:{tid}", tool_id(i)) for tid, tools in alternatives.items() for i in tools}
    pairs = list(zip(qrels["query_id"], qrels["tool_id"], strict=True))
    flags = pl.Series("alternative", [(pair in marked) for pair in pairs])
    qrels = qrels.with_columns(
        pl.col("alternative") | flags,
        pl.when(flags).then(pl.lit("stripped_parameters")).otherwise("resolution").alias("resolution"),
    )
    stripped = [f"workflows:{tid}" for tid in alternatives]
    return queries.with_columns(pl.col("stripped") | pl.col("query_id").is_in(stripped)), qrels


def add_workflows(inputs, config: Config, alternatives: dict[int, set[int]] | None = None,
                  more_templates: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:  # fmt: skip
    """Write the workflow files into the label folder of ``inputs`` and its summary section; returns the frames.

    ``alternatives``: qrels turned into alternatives (:func:`as_alternatives`); None: the fixture's own (one).
    ``more_templates``: the fixture's templates and :data:`MORE_TEMPLATES`."""
    label = ArtifactStore(inputs.label_dir)
    queries, qrels = workflow_frames(config, wf.TEMPLATES + (MORE_TEMPLATES if more_templates else []))
    if alternatives:
        queries, qrels = as_alternatives(queries, qrels, alternatives)
    label.write_parquet(queries, LABEL_FILES.workflow_queries)
    label.write_parquet(qrels, LABEL_FILES.workflow_qrels)
    label.write_json(mapping_report(), LABEL_FILES.workflow_mapping)
    summary = label.read_json(LABEL_FILES.summary)
    kept = queries.filter(pl.col("status") == "kept")
    summary["workflows"] = {
        "package": "n8n-mcp@0.0.1", "queries": len(queries), "queries_kept": len(kept),
        "splits": {s: int((kept["split"] == s).sum()) for s in ("train", "validation", "test")},
        "review_sample_rows": 4, "evaluation": EVALUATION,
    }  # fmt: skip
    label.write_json(summary, LABEL_FILES.summary)
    return queries, qrels
