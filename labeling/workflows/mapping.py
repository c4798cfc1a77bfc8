"""Each node of a workflow template -> the catalog tools it runs, or the rule that sets it apart, or why not.

The crawl writes what a node definition says (``CRAWL_FILES.n8n_actions``, :mod:`crawlers.n8n.action_table`):
every (node, version, resource, operation) with that version's defaults and the catalog tool. This module only
reads a template's node against it:

1. The node type: ``<package>.<node>``. An AI-agent tool variant (``n8n-nodes-base.googleSheetsTool``, n8n's
   ``tool_variant_of``) is read as the node it wraps, at the same version. A type of a package the crawl did not
   read is ``package_not_in_catalog`` (community nodes); an unknown type of a crawled package is
   ``unknown_node_type`` (a removed or renamed node); a version the package does not describe is
   ``unknown_version``.
2. :data:`NON_GOLD_RULE` sets nodes apart before any tool is looked up; they are counted by reason, never gold.
3. The resource and the operation (``mode`` for a vector store) are read from the node's parameters; an absent one
   takes **that version's** default (``default_resource``, ``default_operation`` of the table), resolution
   ``read`` or ``default``. A value that is an n8n expression (``={{...}}``) is ``expression_value``; one the
   version does not offer is ``unknown_resource`` / ``unknown_operation``; an action whose catalog tool is missing
   keeps the table's reason (``absent_from_default_version``, ``not_in_catalog``).
4. In a **stripped** template (:attr:`labeling.workflows.reader.Template.stripped`) an absent value is unknown, never
   the default: a node whose version has one catalog tool is still exact (``stripped_single_tool``); a node whose
   name is exactly the name n8n gives a new node for one action ("Append row in sheet", the table's
   ``action_text``) is that action (``stripped_node_name``); any other node is dropped with the reason
   ``stripped_parameters`` (its tools are listed in the mapping report, never labelled).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

import polars as pl

from labeling.workflows.reader import WorkflowNode

# The non-gold rule, in order (the first that applies names the reason); stated in the mapping report and the card.
NON_GOLD_RULE = (
    "A node is not gold when (1) it is a sticky note or another node without inputs and outputs (ui_only); (2) it "
    "is a trigger (n8n's trigger group, or a type named ...Trigger) (trigger); (3) it is an AI sub-node or AI root "
    "node that is no agent tool: chat and text models, embeddings, memory, output parsers, text splitters, document "
    "loaders, retrievers, rerankers, chains, agents, and vector stores in a mode other than retrieve-as-tool "
    "(ai_sub_node); (4) n8n's codex files it under 'Core Nodes': flow control, data shaping, files, code, HTTP "
    "Request, Execute Workflow, Send Email and the other built-in utilities that serve any task (core_node); (5) it "
    "is an AI-agent tool listed in label.workflows.generic_nodes, which could serve any task (Code, HTTP Request, "
    "Call Workflow, Think, Calculator, agent-as-tool, MCP client) (generic_tool). Tool variants (...Tool) follow "
    "the node they wrap. Every other node is an app node: its catalog tool is gold."
)
CORE_CATEGORY = "Core Nodes"
_TOOL_VARIANT = "Tool"
_NAME_TAIL = re.compile(r"\s*\d+$")  # n8n numbers copies of a node: "Append row in sheet1"


@dataclass(frozen=True)
class NodeMapping:
    """One node occurrence read against the table."""

    node_type: str  # as the workflow names it
    base_type: str  # a tool variant's wrapped node, else node_type
    version: float | None
    non_gold: str | None = None  # the rule's reason: ui_only | trigger | ai_sub_node | core_node | generic_tool
    tool_id: str | None = None
    resolution: str | None = None  # read | default | stripped_single_tool | stripped_node_name
    unmapped: str | None = None  # why an app node has no tool
    alternatives: tuple[str, ...] = ()  # a stripped node's catalog tools (never labelled)

    @property
    def is_app(self) -> bool:
        return self.non_gold is None


@dataclass
class _Node:
    """The table's rows of one node type, by version."""

    package: str
    status_by_version: dict[float, str] = field(default_factory=dict)
    categories: tuple[str, ...] = ()
    rows: dict[float, list[dict]] = field(default_factory=lambda: defaultdict(list))


class ActionTable:
    """The crawl's n8n action table, queried per node occurrence (module docstring)."""

    def __init__(self, frame: pl.DataFrame, generic_nodes: set[str]) -> None:
        self.generic_nodes = set(generic_nodes)
        self.nodes: dict[str, _Node] = {}
        for row in frame.iter_rows(named=True):
            node = self.nodes.setdefault(row["node_type"], _Node(row["package"]))
            node.categories = tuple(row["categories"] or ())
            node.status_by_version.setdefault(row["version"], row["status"])
            if row["status"] != "tool" and row["key"] != "mode":
                continue
            node.rows[row["version"]].append(row)
        self.packages = {node.package for node in self.nodes.values()}

    def base_type(self, node_type: str) -> str:
        """The node a tool variant wraps (``googleSheetsTool`` -> ``googleSheets``), else the type itself."""
        if node_type not in self.nodes and node_type.endswith(_TOOL_VARIANT):
            wrapped = node_type[: -len(_TOOL_VARIANT)]
            if wrapped in self.nodes:
                return wrapped
        return node_type

    def map_node(self, node: WorkflowNode, stripped: bool) -> NodeMapping:
        """The node's tool (module docstring)."""
        base = self.base_type(node.type)
        version = node.version if node.version is not None else 1.0  # n8n reads a missing typeVersion as 1
        head = {"node_type": node.type, "base_type": base, "version": version}
        known = self.nodes.get(base)
        if known is None:
            if base.rsplit(".", 1)[-1].endswith("Trigger"):
                return NodeMapping(**head, non_gold="trigger")
            package = base.rsplit(".", 1)[0]
            return NodeMapping(**head, unmapped="unknown_node_type" if package in self.packages
                               else "package_not_in_catalog")  # fmt: skip
        status = known.status_by_version.get(version) or next(iter(known.status_by_version.values()))
        reason = self._non_gold(base, status, known)
        if reason is not None:
            return NodeMapping(**head, non_gold=reason)
        if version not in known.rows:
            return NodeMapping(**head, unmapped="unknown_version")
        rows = known.rows[version]
        if stripped:
            return _stripped(head, rows, node.name)
        return _read(head, rows, node.parameters)

    def _non_gold(self, base: str, status: str, known: _Node) -> str | None:
        if status == "ui_only" or status == "trigger":
            return status
        if status.startswith("ai_"):
            return "ai_sub_node"
        if CORE_CATEGORY in known.categories:
            return "core_node"
        if base in self.generic_nodes:
            return "generic_tool"
        return None


def _value(parameters: dict, name: str) -> tuple[str | None, bool]:
    """(the parameter's value, whether it is an expression); (None, False) when absent."""
    value = parameters.get(name)
    if value is None:
        return None, False
    if isinstance(value, dict) and "value" in value:  # a resource locator {"__rl": true, "value": ...}
        value = value["value"]
    text = str(value)
    return text, text.startswith("=")


def _read(head: dict, rows: list[dict], parameters: dict) -> NodeMapping:
    key = rows[0]["key"]
    resources = {r["resource"] for r in rows}
    resource, how = None, "read"
    if resources != {None}:
        resource, expression = _value(parameters, "resource")
        if expression:
            return NodeMapping(**head, unmapped="expression_value")
        if resource is None:
            resource, how = rows[0]["default_resource"], "default"
        if resource not in resources:
            return NodeMapping(**head, unmapped="unknown_resource")
    of_resource = [r for r in rows if r["resource"] == resource]
    operation, expression = _value(parameters, key)
    if expression:
        return NodeMapping(**head, unmapped="expression_value")
    if operation is None:
        defaults = [r for r in of_resource if r["default_operation"]] or (of_resource if len(of_resource) == 1 else [])
        if not defaults:
            return NodeMapping(**head, unmapped="no_default_operation")
        row, how = defaults[0], "default"
    else:
        found = [r for r in of_resource if r["operation"] == operation] or [
            r for r in of_resource if r["operation"] is None  # operations loaded at run time: the resource's tool
        ]
        if not found:
            return NodeMapping(**head, unmapped="unknown_operation")
        row = found[0]
    if row["status"] != "tool":
        return NodeMapping(**head, non_gold="ai_sub_node")  # a vector store in a mode that is no tool
    if row["tool_id"] is None:
        return NodeMapping(**head, unmapped=row["reason"] or "absent_from_default_version")
    return NodeMapping(**head, tool_id=row["tool_id"], resolution=how)


def normalize_name(text: str) -> str:
    return " ".join(_NAME_TAIL.sub("", text).lower().split())


def _stripped(head: dict, rows: list[dict], node_name: str) -> NodeMapping:
    tools = sorted({r["tool_id"] for r in rows if r["status"] == "tool" and r["tool_id"]})
    if len(tools) == 1 and all(r["status"] == "tool" for r in rows):
        return NodeMapping(**head, tool_id=tools[0], resolution="stripped_single_tool")
    name = normalize_name(node_name)
    named = [r for r in rows if r["action_text"] and normalize_name(r["action_text"]) == name]
    if len({r["tool_id"] for r in named}) == 1:
        row = named[0]
        if row["status"] != "tool":
            return NodeMapping(**head, non_gold="ai_sub_node")
        if row["tool_id"] is None:
            return NodeMapping(**head, unmapped=row["reason"] or "absent_from_default_version")
        return NodeMapping(**head, tool_id=row["tool_id"], resolution="stripped_node_name")
    return NodeMapping(**head, unmapped="stripped_parameters", alternatives=tuple(tools))


def node_of(tool_id: str) -> str:
    """The n8n node a catalog tool belongs to (``n8n:<package>:<node>:...`` -> ``<package>.<node>``), else itself."""
    parts = tool_id.split(":")
    return f"{parts[1]}.{parts[2]}" if parts[0] == "n8n" and len(parts) >= 5 else tool_id
