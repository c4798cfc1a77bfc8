"""Building one ``ExtractedTool`` per action: names, descriptions, service, docs, source path, auth."""

from __future__ import annotations

import re
from typing import Any

from crawlers.base import AuthType, ExtractedTool
from crawlers.n8n.auth import (
    action_endpoints,
    action_http_methods,
    add_credential_endpoints,
    admitted_credentials,
    credential_docs,
    credential_kind,
)
from crawlers.n8n.catalog import NODES_JSON, add_new, clean_text, codex_categories
from crawlers.n8n.parameters import parameters_schema

TOOL_MODE = "retrieve-as-tool"
# Marks a resource whose operation list is loaded at run time (loadOptionsMethod), so it is one tool.
DYNAMIC_OPERATIONS: dict = {}
_CAMEL_PREFIXES = ("chatHubVectorStore", "vectorStore", "tool")
_LEGACY_RE = re.compile(r"legacy|deprecated", re.IGNORECASE)


class Context:
    """One package's credential types and known node paths, with credential kinds cached."""

    def __init__(self, credentials: dict[str, dict], known_nodes: dict, declared_node_paths: list[str]) -> None:
        self.credentials = credentials
        self.known_nodes = known_nodes
        self.declared_node_paths = declared_node_paths
        self._kind_cache: dict[str, AuthType] = {}

    def credential_kind(self, name: str) -> AuthType:
        if name not in self._kind_cache:
            self._kind_cache[name] = credential_kind(name, self.credentials, set())
        return self._kind_cache[name]


def local_id_of(short: str, resource: str | None, operation: str | None) -> str:
    """The catalog's id of an action inside its package: ``node:resource:operation``, ``-`` for an absent part."""
    return f"{short}:{resource if resource is not None else '-'}:{operation if operation is not None else '-'}"


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".").strip()
    return f"{text}." if text else ""


def _compose_description(node_description: str, action: str, detail: str) -> str:
    parts = [_sentence(node_description), _sentence(action)]
    if detail and detail.rstrip(".").lower() != action.rstrip(".").lower():
        parts.append(_sentence(detail))
    return " ".join(p for p in parts if p)


def _service(short: str) -> str:
    """Lowercase alphanumerics of the node name (googleSheets -> googlesheets), tool wrappers unwrapped."""
    base = short
    for prefix in _CAMEL_PREFIXES:
        if base.startswith(prefix) and len(base) > len(prefix) and base[len(prefix)].isupper():
            base = base[len(prefix) :]
            break
    if base.endswith("Tool") and len(base) > 4:
        base = base[: -len("Tool")]
    return re.sub(r"[^a-z0-9]", "", base.lower())


def _node_common(short: str, entry: dict, ctx: Context) -> dict[str, Any]:
    codex = entry.get("codex") if isinstance(entry.get("codex"), dict) else {}
    resources = codex.get("resources") if isinstance(codex.get("resources"), dict) else {}
    doc_urls: list[str] = []
    for key in ("primaryDocumentation", "credentialDocumentation"):
        for item in resources.get(key) or []:
            if isinstance(item, dict) and isinstance(item.get("url"), str):
                add_new(doc_urls, item["url"])
    if isinstance(entry.get("documentationUrl"), str) and entry["documentationUrl"].startswith("http"):
        add_new(doc_urls, entry["documentationUrl"])
    categories = codex_categories(entry)
    display = clean_text(entry.get("displayName")) or short
    hidden = entry.get("hidden") is True
    flags = ["hidden"] if hidden else []
    deprecated = hidden or bool(_LEGACY_RE.search(display))
    return {
        "display_name": display,
        "service": _service(short),
        "doc_urls": doc_urls,
        "categories": categories,
        "deprecated": deprecated,
        "usable_as_tool": entry.get("usableAsTool") is True,
        "source_path": _source_path(short, ctx),
        "flags": flags,
    }


def _source_path(short: str, ctx: Context) -> str:
    known = ctx.known_nodes.get(short)
    if isinstance(known, dict) and isinstance(known.get("sourcePath"), str):
        return known["sourcePath"]
    # Community packages may lack dist/known: match package.json's n8n.nodes by file name.
    target = f"{short.lower()}.node.js"
    for path in ctx.declared_node_paths:
        if path.rsplit("/", 1)[-1].lower() == target:
            return path
    return NODES_JSON


def _action_text(resource: str | None, operation: str | None, resource_label: str | None, option: dict | None,
                 flags: list[str]) -> tuple[str, str, bool]:  # fmt: skip
    """(action, detail, legacy) of one action, its flags appended to ``flags``."""
    if resource is None and operation is None:
        flags.append("node_level")
        return "", "", False
    if option is DYNAMIC_OPERATIONS:
        flags.append("dynamic_operations")
    option = option or {}
    op_label = clean_text(option.get("name")) or (operation or "")
    action = clean_text(option.get("action"))
    if operation is None:
        action = f"{clean_text(resource_label) or resource} operations"
    elif not option and resource is None:
        action = ""  # the single value of a hidden 'operation' property: the node itself is the action
    elif not action:
        # A bare "Create" is ambiguous between resources: say what is created.
        action = " ".join(x for x in (op_label, clean_text(resource_label) or resource or "") if x)
    detail = clean_text(option.get("description"))
    legacy = bool(_LEGACY_RE.search(f"{operation or ''} {option.get('name') or ''} {option.get('description') or ''}"))
    if legacy:
        flags.append("legacy_operation")
    if resource is None or operation is None:
        flags.append("resource_only" if operation is None else "operation_only")
    return action, detail, legacy


def build_tool(
    short: str,
    entry: dict,
    version: float,
    props: list[dict],
    resource: str | None,
    operation: str | None,
    resource_label: str | None,
    option: dict | None,
    ctx: Context,
) -> ExtractedTool:
    """The tool of one action (node x resource x operation) at the node's default version."""
    common = _node_common(short, entry, ctx)
    display = common["display_name"]
    node_description = clean_text(entry.get("description"))
    selector: dict[str, Any] = {"@version": version}
    if resource is not None or any(p["name"] == "resource" for p in props):
        # resource=None explicitly: properties of some resource must not leak into a resourceless action.
        selector["resource"] = resource
    if operation is not None:
        selector["operation"] = operation

    flags = list(common["flags"])
    action, detail, legacy = _action_text(resource, operation, resource_label, option, flags)
    deprecated = common["deprecated"] or legacy

    name = f"{display}: {action}" if action else display
    description = _compose_description(node_description, action, detail)
    endpoints = action_endpoints(entry, option, [])
    http_methods, default_method = action_http_methods(entry, props, selector, resource, option)
    if default_method:
        flags.append("http_method_default")
    credentials, auth_by_default = admitted_credentials(entry, props, selector)
    for cred in credentials:
        add_credential_endpoints(ctx.credentials.get(cred), endpoints)
    if any(c not in ctx.credentials for c in credentials):
        flags.append("external_credentials")
    if credentials and not auth_by_default:
        flags.append("auth_optional")

    return ExtractedTool(
        local_id=local_id_of(short, resource, operation),
        name=name,
        description=description,
        source_path=common["source_path"],
        display_name=display,
        service=common["service"],
        parameters=parameters_schema(props, selector, exclude={"resource", "operation"}),
        auth_type=ctx.credential_kind(credentials[0]) if auth_by_default else "none",
        auth_credentials=credentials,
        endpoints=endpoints,
        http_methods=http_methods,
        doc_urls=common["doc_urls"]
        + [u for c in credentials for u in credential_docs(ctx.credentials.get(c)) if u not in common["doc_urls"]],
        categories=common["categories"],
        deprecated=deprecated,
        usable_as_tool=common["usable_as_tool"],
        flags=flags,
    )


def build_mode_tool(
    short: str, entry: dict, version: float, props: list[dict], option: dict, ctx: Context
) -> ExtractedTool:
    """A vector store's 'retrieve-as-tool' mode: the only form in which an agent calls it."""
    tool = build_tool(short, entry, version, props, None, None, None, None, ctx)
    selector = {"@version": version, "mode": TOOL_MODE}
    action = clean_text(option.get("action")) or clean_text(option.get("name")) or TOOL_MODE
    tool.local_id = local_id_of(short, None, TOOL_MODE)
    tool.name = f"{tool.display_name}: {action}"
    tool.description = _compose_description(
        clean_text(entry.get("description")), action, clean_text(option.get("description"))
    )
    tool.parameters = parameters_schema(props, selector, exclude={"resource", "operation", "mode"})
    credentials, auth_by_default = admitted_credentials(entry, props, selector)
    tool.auth_credentials = credentials
    tool.auth_type = ctx.credential_kind(credentials[0]) if auth_by_default else "none"
    tool.flags = [f for f in tool.flags if f not in ("node_level", "auth_optional")] + ["tool_mode", "native_ai_tool"]
    if credentials and not auth_by_default:
        tool.flags.append("auth_optional")
    tool.usable_as_tool = True
    return tool
