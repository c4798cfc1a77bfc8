"""Every version of every node, with the defaults a workflow leaves out and the catalog tool of each action.

A workflow stores each node with its ``typeVersion`` and only the parameters that differ from that version's
defaults: a Google Sheets node at version 4.5 with no ``operation`` runs that version's default operation. The
label stage resolves the nodes of n8n workflow templates to catalog tools with this table
(``CRAWL_FILES.n8n_actions``), so the rules that read a node definition live here, in the extractor, once:

- one row per (node, version, resource, operation) the version's properties offer (``actions_at`` of the catalog,
  at that version), with the option's ``action`` (its name, "Append") and ``action_text`` ("Append row in
  sheet", the name n8n gives a new node), ``default_resource`` (the default of the version's ``resource`` property) and
  ``default_operation`` (the row's operation is the default of its resource's ``operation`` property);
- ``key``: the parameter that names the operation: ``operation``, or ``mode`` for a vector store, which is a tool
  only in its ``retrieve-as-tool`` mode (the other modes are rows with ``status`` ``non_tool_mode``);
- ``local_id``: the catalog tool of the action, read at the node's default version (the catalog's): the same
  (resource, operation) (``match`` ``same``), else the action of that resource with the same name (an operation
  renamed between versions: OpenAI's ``text:message`` and ``text:response`` are both "Message a model",
  ``match`` ``same_name``), else the resource's one tool when its operations load at run time
  (``dynamic_operations``); none: ``reason`` ``absent_from_default_version``;
- a node that yields no tool (``status``: ``trigger``, ``ui_only``, ``ai_<kind>``) has one row per version
  without an action; ``status`` is ``tool`` otherwise;
- ``categories``: the node's codex categories, as the catalog's tools carry them.

The crawl stage turns ``local_id`` into the catalog ``tool_id`` (``n8n:<package>:<local_id>``).
"""

from __future__ import annotations

from typing import Any

from crawlers.base import ExtractedTool
from crawlers.n8n.catalog import clean_text, codex_categories
from crawlers.n8n.display import admits
from crawlers.n8n.nodes import NodeView, actions_at, mode_options
from crawlers.n8n.tools import DYNAMIC_OPERATIONS, TOOL_MODE, local_id_of
from crawlers.n8n.versions import entry_versions

STATUS_TOOL = "tool"
STATUS_NON_TOOL_MODE = "non_tool_mode"
ABSENT = "absent_from_default_version"


def _default_of(props: list[dict], name: str, selector: dict[str, Any]) -> str | None:
    """The default of the first ``name`` property shown for ``selector`` (what a workflow that omits it runs)."""
    for prop in props:
        if prop["name"] == name and admits(prop.get("displayOptions"), selector):
            default = prop.get("default")
            return str(default) if isinstance(default, str | int | float) and not isinstance(default, bool) else None
    return None


def _shown(entry: dict, version: float) -> list[dict]:
    props = [p for p in entry.get("properties") or [] if isinstance(p, dict) and isinstance(p.get("name"), str)]
    return [p for p in props if admits(p.get("displayOptions"), {"@version": version})]


class _CatalogActions:
    """The default version's tools of one node, found by (resource, operation) or by the action's name."""

    def __init__(self, view: NodeView, tools: list[ExtractedTool]) -> None:
        built = {t.local_id for t in tools}
        keys = [(r, o) for r, o, *_ in view.actions] + [(None, TOOL_MODE)]
        self.by_key = {key: local_id_of(view.short, *key) for key in keys if local_id_of(view.short, *key) in built}
        self.by_name: dict[tuple[str | None, str], str] = {}
        for resource, operation, _label, option in view.actions:
            name = _action_name(option)
            local_id = self.by_key.get((resource, operation))
            if name and local_id:
                self.by_name.setdefault((resource, name), local_id)
        self.dynamic = {resource: self.by_key.get((resource, None)) for resource, operation, _l, option in view.actions
                        if operation is None and option is DYNAMIC_OPERATIONS}  # fmt: skip

    def find(self, resource: str | None, operation: str | None, option: dict | None) -> tuple[str | None, str | None]:
        """(local_id, match) of an action of some version; (None, None) when the default version lacks it."""
        if (resource, operation) in self.by_key:
            return self.by_key[(resource, operation)], "same"
        name = _action_name(option)
        if name and (resource, name) in self.by_name:
            return self.by_name[(resource, name)], "same_name"
        if self.dynamic.get(resource):
            return self.dynamic[resource], "dynamic_operations"
        return None, None


def _action_name(option: dict | None) -> str:
    if not isinstance(option, dict) or option is DYNAMIC_OPERATIONS:
        return ""
    return clean_text(option.get("name")).lower()


def action_rows(package: str, name: str, entries: list[dict], view: NodeView, tools: list[ExtractedTool]) -> list[dict]:
    """The table's rows of one node (module docstring), every version of every entry, in version order."""
    base = {"node_type": f"{package}.{view.short}", "package": package, "node": view.short,
            "default_version": view.version, "categories": codex_categories(view.entry)}  # fmt: skip
    versions = sorted({(v, i) for i, e in enumerate(entries) for v in entry_versions(e)}, key=lambda vi: vi[0])
    catalog = _CatalogActions(view, tools)
    rows: list[dict] = []
    seen: set[float] = set()
    for version, index in versions:
        if version in seen:  # two entries listing one version: the first (as n8n's loader keeps it)
            continue
        seen.add(version)
        head = {**base, "version": version}
        if view.skip is not None:
            rows.append(_row(head, view.skip, "operation", None, None, None, False, None, None, None))
            continue
        props = _shown(entries[index], version)
        if view.tool_mode is not None:
            rows.extend(_mode_rows(head, props, version, catalog))
            continue
        default_resource = _default_of(props, "resource", {"@version": version})
        for resource, operation, _label, option in actions_at(props, version):
            selector = {"@version": version, "resource": resource} if resource is not None else {"@version": version}
            is_default = operation is not None and operation == _default_of(props, "operation", selector)
            local_id, match = catalog.find(resource, operation, option)
            rows.append(_row(head, STATUS_TOOL, "operation", default_resource, resource, operation, is_default,
                             option, local_id, match))  # fmt: skip
    return rows


def _mode_rows(head: dict, props: list[dict], version: float, catalog: _CatalogActions) -> list[dict]:
    """A vector store: one row per mode; only ``retrieve-as-tool`` is a catalog tool."""
    default_mode = _default_of(props, "mode", {"@version": version})
    rows = []
    for value, option in mode_options(props):
        tool = value == TOOL_MODE
        local_id = catalog.by_key.get((None, TOOL_MODE)) if tool else None
        rows.append(_row(head, STATUS_TOOL if tool else STATUS_NON_TOOL_MODE, "mode", None, None, value,
                         value == default_mode, option, local_id, "same" if local_id else None))  # fmt: skip
    return rows


def _row(head: dict, status: str, key: str, default_resource: str | None, resource: str | None,
         operation: str | None, default_operation: bool, option: dict | None, local_id: str | None,
         match: str | None) -> dict:  # fmt: skip
    reason = ABSENT if status == STATUS_TOOL and local_id is None else None
    named = isinstance(option, dict) and option is not DYNAMIC_OPERATIONS
    return {**head, "status": status, "key": key, "default_resource": default_resource, "resource": resource,
            "operation": operation, "default_operation": default_operation,
            "action": clean_text(option.get("name")) or None if named else None,
            "action_text": clean_text(option.get("action")) or None if named else None,
            "local_id": local_id, "match": match, "reason": reason}  # fmt: skip
