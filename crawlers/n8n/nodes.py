"""One node of the catalog: which entry, whether it is a tool, and its resource x operation actions."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from crawlers.base import ExtractedTool
from crawlers.n8n.display import admits
from crawlers.n8n.tools import DYNAMIC_OPERATIONS, TOOL_MODE, Context, build_mode_tool, build_tool
from crawlers.n8n.versions import pick_default

# A node whose static output is one of these is a sub-node plugged into an AI root node, not a tool.
_SUB_NODE_OUTPUTS = {
    "ai_languageModel": "ai_language_model",
    "ai_embedding": "ai_embeddings",
    "ai_memory": "ai_memory",
    "ai_document": "ai_document_loader",
    "ai_textSplitter": "ai_text_splitter",
    "ai_outputParser": "ai_output_parser",
    "ai_retriever": "ai_retriever",
    "ai_reranker": "ai_reranker",
    "ai_vectorStore": "ai_vector_store",
    "ai_chain": "ai_chain",
    "ai_agent": "ai_agent",
}

# Codex "AI" subcategories, most specific first, used when the outputs are a JS expression.
_AI_SUBCATEGORY_REASONS = [
    ("Language Models", "ai_language_model"),
    ("Embeddings", "ai_embeddings"),
    ("Memory", "ai_memory"),
    ("Text Splitters", "ai_text_splitter"),
    ("Document Loaders", "ai_document_loader"),
    ("Output Parsers", "ai_output_parser"),
    ("Retrievers", "ai_retriever"),
    ("Rerankers", "ai_reranker"),
    ("Vector Stores", "ai_vector_store"),
    ("Chains", "ai_chain"),
    ("Agents", "ai_agent"),
]


def _short_name(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _is_trigger(entry: dict, short: str) -> bool:
    group = entry.get("group") or []
    groups = group if isinstance(group, list) else [group]
    return "trigger" in groups or short.endswith("Trigger")


def _static_connection_types(value: Any) -> list[str] | None:
    """Connection types of a static inputs/outputs list; None when it is a JS expression."""
    if not isinstance(value, list):
        return None
    types = []
    for item in value:
        if isinstance(item, str):
            types.append(item)
        elif isinstance(item, dict) and isinstance(item.get("type"), str):
            types.append(item["type"])
    return types


def _ai_subcategories(entry: dict) -> list[str]:
    codex = entry.get("codex") if isinstance(entry.get("codex"), dict) else {}
    categories = codex.get("categories") or []
    if "AI" not in [c.strip() for c in categories if isinstance(c, str)]:
        return []
    subs = codex.get("subcategories") if isinstance(codex.get("subcategories"), dict) else {}
    ai = subs.get("AI") or []
    return [s for s in ai if isinstance(s, str)] or ["(none)"]


def _not_a_tool_reason(entry: dict, outputs: list[str] | None, has_actions: bool) -> str | None:
    """Why an AI plumbing node (model, memory, splitter, chain...) is not an agent tool; None if it is one."""
    if outputs is not None:
        reason = next((_SUB_NODE_OUTPUTS[t] for t in outputs if t in _SUB_NODE_OUTPUTS), None)
        if reason is not None:
            return reason
    subcategories = _ai_subcategories(entry)
    # AI nodes exposing resource/operation actions (OpenAI, Anthropic vendor nodes) call a service: keep them.
    if subcategories and not has_actions:
        return next((r for label, r in _AI_SUBCATEGORY_REASONS if label in subcategories), "ai_other")
    return None


@dataclass
class NodeView:
    """What the catalog reads of one node: its default version and entry, and why it yields no tool (or None)."""

    short: str
    version: float
    entry: dict
    props: list[dict]  # the properties shown at the default version
    actions: list[tuple[str | None, str | None, str | None, dict | None]]
    native_tool: bool
    tool_mode: dict | None  # the 'retrieve-as-tool' option of a vector store that is called only in that mode
    skip: str | None  # trigger | ui_only | ai_<kind>: the node is no tool; None: it yields tools


def view_node(name: str, entries: list[dict]) -> NodeView:
    """The node as the catalog reads it (the counting rule), without building its tools."""
    short = _short_name(name)
    version, entry = pick_default(entries)
    view = NodeView(short, version, entry, [], [], False, None, None)
    if _is_trigger(entry, short):
        view.skip = "trigger"
        return view
    outputs = _static_connection_types(entry.get("outputs"))
    inputs = _static_connection_types(entry.get("inputs"))
    if outputs == [] and inputs == []:
        view.skip = "ui_only"
        return view
    properties = [p for p in entry.get("properties") or [] if isinstance(p, dict) and isinstance(p.get("name"), str)]
    view.props = [p for p in properties if admits(p.get("displayOptions"), {"@version": version})]
    view.actions = actions_at(view.props, version)
    has_actions = any(r is not None or o is not None for r, o, *_ in view.actions)
    view.native_tool = outputs is not None and "ai_tool" in outputs
    if not view.native_tool and entry.get("usableAsTool") is not True:
        view.tool_mode = _tool_mode_option(view.props)
        if view.tool_mode is None:
            view.skip = _not_a_tool_reason(entry, outputs, has_actions)
    return view


def extract_node(name: str, entries: list[dict], ctx: Context, skipped: Counter) -> list[ExtractedTool]:
    """The tools of one node (all its version entries), counting what is skipped and why in ``skipped``."""
    view = view_node(name, entries)
    short, version, entry, at_version = view.short, view.version, view.entry, view.props
    if len(entries) > 1:
        skipped["other_version_entry"] += len(entries) - 1
    if view.skip is not None:
        skipped[view.skip] += 1
        return []
    if view.tool_mode is not None:
        if _mode_count(at_version) > 1:
            skipped["non_tool_mode"] += _mode_count(at_version) - 1
        return [build_mode_tool(short, entry, version, at_version, view.tool_mode, ctx)]

    tools: list[ExtractedTool] = []
    by_key: dict[tuple[str | None, str | None], ExtractedTool] = {}
    for resource, operation, resource_label, option in view.actions:
        key = (resource, operation)
        if key in by_key:
            # Same action defined again for another API flavour: its parameters are already in the union.
            skipped["duplicate_operation"] += 1
            if "merged_duplicate_operation" not in by_key[key].flags:
                by_key[key].flags.append("merged_duplicate_operation")
            continue
        tool = build_tool(short, entry, version, at_version, resource, operation, resource_label, option, ctx)
        if view.native_tool:
            tool.flags.append("native_ai_tool")
            tool.usable_as_tool = True
        by_key[key] = tool
        tools.append(tool)
    return tools


def _option_label(option: dict) -> str:
    return str(option.get("name") or option.get("value") or "")


def actions_at(props: list[dict], version: float) -> list[tuple[str | None, str | None, str | None, dict | None]]:
    """(resource, operation, resource label, operation option) shown at ``version``, in catalog order;
    [(None, None, None, None)] if none."""
    base_selector: dict[str, Any] = {"@version": version}
    resources: dict[str, str | None] = {}
    for prop in props:
        if prop["name"] != "resource":
            continue
        for value, label in _choices(prop, base_selector):
            resources.setdefault(value, label)
    op_props = [p for p in props if p["name"] == "operation"]
    if not resources and not op_props:
        return [(None, None, None, None)]

    result: list[tuple[str | None, str | None, str | None, dict | None]] = []
    resource_props = [p for p in props if p["name"] == "resource"]
    if resources:
        # An operation shown only in a context where the resource selector is hidden (Discord's webhook
        # "sendLegacy") belongs to no resource, not to every resource.
        resourceless = [p for p in op_props if _hides_all(resource_props, p, base_selector)]
        op_props = [p for p in op_props if not any(p is q for q in resourceless)]
        for prop in resourceless:
            selector = {**base_selector, "resource": None}
            for value, _label, option in _choices_with_options(prop, selector):
                result.append((None, value, None, option))
    resource_items: list[tuple[str | None, str | None]] = list(resources.items()) or [(None, None)]
    for resource, label in resource_items:
        selector = dict(base_selector)
        if resource is not None:
            selector["resource"] = resource
        found = dynamic = False
        for prop in op_props:
            if not admits(prop.get("displayOptions"), selector):
                continue
            choices = _choices_with_options(prop, selector)
            dynamic = dynamic or (not choices and prop.get("type") == "options")
            for value, _label, option in choices:
                result.append((resource, value, label, option))
                found = True
        if not found:
            result.append((resource, None, label, DYNAMIC_OPERATIONS if dynamic else None))
    return result


def _show_of(prop: dict) -> dict:
    options = prop.get("displayOptions")
    show = options.get("show") if isinstance(options, dict) else None
    return show if isinstance(show, dict) else {}


def _context_of(prop: dict) -> dict[str, Any]:
    """The first plain value of each user-input key in a property's show conditions."""
    context: dict[str, Any] = {}
    for key, allowed in _show_of(prop).items():
        field = key.lstrip("/")
        if field in ("resource", "operation", "@version"):
            continue
        values = allowed if isinstance(allowed, list) else [allowed]
        plain = [v for v in values if not isinstance(v, dict)]
        if plain:
            context[field] = plain[0]
    return context


def _hides_all(resource_props: list[dict], op_prop: dict, base_selector: dict[str, Any]) -> bool:
    show = _show_of(op_prop)
    if show and any(k.lstrip("/") == "resource" for k in show):
        return False
    context = _context_of(op_prop)
    if not context:
        return False
    selector = {**base_selector, **context}
    return not any(admits(p.get("displayOptions"), selector) for p in resource_props)


def _choices(prop: dict, selector: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(value, label) for value, label, _ in _choices_with_options(prop, selector)]


def _choices_with_options(prop: dict, selector: dict[str, Any]) -> list[tuple[str, str | None, dict | None]]:
    """Static option values of a resource/operation property; a hidden/string one has its default only."""
    if prop.get("type") == "options" and isinstance(prop.get("options"), list):
        found = []
        for option in prop["options"]:
            if not isinstance(option, dict) or not isinstance(option.get("value"), str | int | float):
                continue
            if not admits(option.get("displayOptions"), selector):
                continue
            found.append((str(option["value"]), _option_label(option) or None, option))
        return found
    if prop.get("type") == "options":
        return []  # options loaded from the service at run time (theHive): not knowable statically
    default = prop.get("default")
    if isinstance(default, str) and default and not default.startswith("="):
        return [(default, None, None)]
    return []


def _tool_mode_option(props: list[dict]) -> dict | None:
    for prop in props:
        if prop["name"] == "mode" and isinstance(prop.get("options"), list):
            for option in prop["options"]:
                if isinstance(option, dict) and option.get("value") == TOOL_MODE:
                    return option
    return None


def mode_options(props: list[dict]) -> list[tuple[str, dict]]:
    """(value, option) of each choice of the first ``mode`` property (a vector store's modes)."""
    for prop in props:
        if prop["name"] == "mode" and isinstance(prop.get("options"), list):
            return [(str(o["value"]), o) for o in prop["options"] if isinstance(o, dict) and "value" in o]
    return []


def _mode_count(props: list[dict]) -> int:
    for prop in props:
        if prop["name"] == "mode" and isinstance(prop.get("options"), list):
            return len([o for o in prop["options"] if isinstance(o, dict)])
    return 1
