"""Static extractor for n8n node packages (``n8n-nodes-base``, ``@n8n/n8n-nodes-langchain``, community ``n8n-nodes-*``).

n8n's build ships the fully expanded node descriptions as JSON (``dist/types/nodes.json``, one entry per
node version group) plus ``dist/types/credentials.json`` and ``dist/known/*.json`` (name -> sourcePath).
The compiled JS assembles the same descriptions from spreads across modules, so only the JSON is read:
nothing is executed and the 29k JS files of the base package are never opened.

Field choices: ``local_id`` is ``node:resource:operation`` with the node's short name (the part after the
last dot) and ``-`` for an absent part. ``service`` is the lowercase alphanumerics of the short name
(googleSheets -> googlesheets), with langchain wrappers unwrapped (toolWikipedia -> wikipedia,
vectorStorePinecone -> pinecone). ``auth_type`` is the kind of the credential used with the node's default
settings (e.g. the default ``authentication`` choice); "none" with flag ``auth_optional`` when credentials
exist but none is on by default. Credentials from another package (the langchain package reuses base
credentials) are judged by name and flagged ``external_credentials``. Endpoints keep templates verbatim.
``http_methods`` come from declarative routing (``routing.request.method``; see ``_http_methods``), so
programmatic nodes, which call their APIs from ``execute()``, have none; n8n nodes declare no env vars.

Counting rule (``COUNTING_RULE``, printed by the summary):
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from typing import Any

from crawlers.base import AuthType, ExtractedTool, Extraction, PackageFiles

COUNTING_RULE = (
    "n8n: one tool per node x resource x operation at the node's default version (the nodes.json entry whose "
    "version list holds defaultVersion, else the highest version); properties, operations and credentials are "
    "gated by displayOptions show/hide on resource, operation and @version (incl. _cnd conditions), other "
    "displayOptions keys depend on user input and are treated as satisfiable (parameters are the superset). "
    "Nodes without resource/operation options give one node-level tool (local_id node:-:-); a resource without "
    "operations gives node:resource:-. Excluded and counted in skipped: triggers (group 'trigger' or name "
    "ending in 'Trigger') -> 'trigger'; UI-only nodes with no inputs and no outputs (sticky note) -> 'ui_only'; "
    "AI sub-nodes and root nodes that are not agent tools (chat/text models, embeddings, memory, text "
    "splitters, document loaders, output parsers, retrievers, rerankers, chains, agents, ...) -> 'ai_<kind>'; "
    "the other version entries of a node -> 'other_version_entry'; a (node, resource, operation) defined "
    "twice (ghost, storyblok) is merged into the first definition -> 'duplicate_operation'. Kept AI nodes: "
    "native tool nodes (static output 'ai_tool': toolWikipedia, toolCode, agentTool, mcpClientTool...), "
    "usableAsTool nodes, AI nodes exposing resource/operation actions (vendor nodes: OpenAI, Anthropic...), "
    "and vector stores with a 'retrieve-as-tool' mode (one tool node:-:retrieve-as-tool; their other modes -> "
    "'non_tool_mode'). Hidden nodes are kept, flagged 'hidden' and deprecated=True; operations whose value or "
    "label says Legacy/deprecated are kept with deprecated=True."
)

__doc__ = (__doc__ or "") + COUNTING_RULE

NODES_JSON = "dist/types/nodes.json"
CREDENTIALS_JSON = "dist/types/credentials.json"
KNOWN_NODES_JSON = "dist/known/nodes.json"
KNOWN_CREDENTIALS_JSON = "dist/known/credentials.json"

_WANTED = {"package.json", NODES_JSON, CREDENTIALS_JSON, KNOWN_NODES_JSON, KNOWN_CREDENTIALS_JSON}

# Property types that are UI decoration, fixed internal values or credential pickers: never a call input.
_UI_ONLY_PARAM_TYPES = {
    "notice",
    "callout",
    "button",
    "curlImport",
    "hidden",
    "icon",
    "credentials",
    "credentialsSelect",
}

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

_TOOL_MODE = "retrieve-as-tool"
# Marks a resource whose operation list is loaded at run time (loadOptionsMethod), so it is one tool.
_DYNAMIC_OPERATIONS: dict = {}
_OAUTH2_BASES = {"oAuth2Api"}
_TAG_RE = re.compile(r"<[^>]+>")
_WS_RE = re.compile(r"\s+")
_CAMEL_PREFIXES = ("chatHubVectorStore", "vectorStore", "tool")
# Field-name fragments of a static secret (API key, token, signature) as opposed to a login or OAuth.
_KEYISH = ("token", "key", "secret", "authcode", "signature")
_LEGACY_RE = re.compile(r"legacy|deprecated", re.IGNORECASE)


def want(path: str) -> bool:
    """Only the generated JSON catalogs and package.json; never the JS."""
    return path in _WANTED


def extract(package: PackageFiles) -> Extraction:
    """Read nodes.json (+ credentials and known maps) into one tool per node x resource x operation."""
    out = Extraction()
    package_json = _load_json(package, "package.json", out, required=False)
    nodes = _load_json(package, NODES_JSON, out, required=False)
    if nodes is None:
        if not any(path == NODES_JSON for path, _ in out.errors):
            declared = isinstance(package_json, dict) and isinstance(package_json.get("n8n"), dict)
            reason = (
                "no dist/types/nodes.json: the package declares n8n nodes only as JS (static JS parsing not supported)"
                if declared
                else "no dist/types/nodes.json: not an n8n node package"
            )
            out.errors.append((NODES_JSON, reason))
        return out
    if not isinstance(nodes, list):
        out.errors.append((NODES_JSON, f"expected a JSON list of node descriptions, got {type(nodes).__name__}"))
        return out

    credentials = _load_json(package, CREDENTIALS_JSON, out, required=False)
    known_nodes = _load_json(package, KNOWN_NODES_JSON, out, required=False)
    ctx = _Context(
        credentials={c["name"]: c for c in (credentials if isinstance(credentials, list) else []) if _is_named_dict(c)},
        known_nodes=known_nodes if isinstance(known_nodes, dict) else {},
        declared_node_paths=_declared_node_paths(package_json),
    )

    groups: dict[str, list[dict]] = {}
    for index, entry in enumerate(nodes):
        if not _is_named_dict(entry):
            out.errors.append((NODES_JSON, f"entry {index}: not a node description with a string 'name'"))
            continue
        groups.setdefault(entry["name"], []).append(entry)

    seen_ids: set[str] = set()
    for name, entries in groups.items():
        try:
            tools = _extract_node(name, entries, ctx, out.skipped)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            # One malformed node must not cost the rest of the catalog.
            out.errors.append((NODES_JSON, f"node {name}: {type(exc).__name__}: {exc}"))
            continue
        for tool in tools:
            if tool.local_id in seen_ids:
                # Two names with the same short form (prefixed and unprefixed); keep the first.
                out.skipped["duplicate_local_id"] += 1
                continue
            seen_ids.add(tool.local_id)
            out.tools.append(tool)
    return out


# ---------------------------------------------------------------------------------------------- loading


class _Context:
    def __init__(self, credentials: dict[str, dict], known_nodes: dict, declared_node_paths: list[str]) -> None:
        self.credentials = credentials
        self.known_nodes = known_nodes
        self.declared_node_paths = declared_node_paths
        self._kind_cache: dict[str, AuthType] = {}

    def credential_kind(self, name: str) -> AuthType:
        if name not in self._kind_cache:
            self._kind_cache[name] = _credential_kind(name, self.credentials, set())
        return self._kind_cache[name]


def _load_json(package: PackageFiles, path: str, out: Extraction, required: bool) -> Any:
    if path not in package.files:
        if required:
            out.errors.append((path, "missing"))
        return None
    try:
        return json.loads(package.files[path])
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        out.errors.append((path, f"invalid JSON: {exc}"))
        return None


def _is_named_dict(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("name"), str) and bool(value["name"])


def _declared_node_paths(package_json: Any) -> list[str]:
    if not isinstance(package_json, dict) or not isinstance(package_json.get("n8n"), dict):
        return []
    paths = package_json["n8n"].get("nodes")
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


# --------------------------------------------------------------------------------------------- versions


def _versions(entry: dict) -> list[float]:
    raw = entry.get("version", 1)
    values = raw if isinstance(raw, list) else [raw]
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def _pick_default(entries: list[dict]) -> tuple[float, dict]:
    """The version n8n puts on a new node, and the entry that describes it."""
    defaults = [
        float(e["defaultVersion"])
        for e in entries
        if isinstance(e.get("defaultVersion"), int | float) and not isinstance(e.get("defaultVersion"), bool)
    ]
    all_versions = [v for e in entries for v in _versions(e)]
    version = max(defaults) if defaults else (max(all_versions) if all_versions else 1.0)
    for entry in entries:
        if version in _versions(entry):
            return version, entry
    # defaultVersion outside every entry's list: fall back to the newest entry.
    best = max(entries, key=lambda e: max(_versions(e), default=0.0))
    return max(_versions(best), default=version), best


# ------------------------------------------------------------------------------------- displayOptions


def _cond_match(actual: Any, cond: Any) -> bool:
    if isinstance(cond, dict) and isinstance(cond.get("_cnd"), dict):
        return all(_cnd_op(actual, op, arg) for op, arg in cond["_cnd"].items())
    return actual == cond


def _cnd_op(actual: Any, op: str, arg: Any) -> bool:
    try:
        if op == "eq":
            return actual == arg
        if op == "not":
            return actual != arg
        if op == "gte":
            return actual >= arg
        if op == "lte":
            return actual <= arg
        if op == "gt":
            return actual > arg
        if op == "lt":
            return actual < arg
        if op == "between":
            return arg["from"] <= actual <= arg["to"]
        if op == "startsWith":
            return str(actual).startswith(str(arg))
        if op == "endsWith":
            return str(actual).endswith(str(arg))
        if op == "includes":
            return str(arg) in str(actual)
        if op == "regex":
            return re.search(str(arg), str(actual)) is not None
        if op == "exists":
            return actual is not None
    except (TypeError, KeyError, re.error):
        return False
    return False  # an unknown operator: do not pretend it matches


def _admits(display_options: Any, selector: dict[str, Any]) -> bool:
    """Whether displayOptions let the property show for the selector (keys not in it are user input)."""
    if not isinstance(display_options, dict):
        return True
    for side, wanted in (("show", True), ("hide", False)):
        conditions = display_options.get(side)
        if not isinstance(conditions, dict):
            continue
        for key, allowed in conditions.items():
            field = key.lstrip("/")
            if field not in selector:
                continue
            values = allowed if isinstance(allowed, list) else [allowed]
            hit = any(_cond_match(selector[field], c) for c in values)
            if hit != wanted:
                return False
    return True


# ------------------------------------------------------------------------------------------ per node


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


def _extract_node(name: str, entries: list[dict], ctx: _Context, skipped: Counter) -> list[ExtractedTool]:
    short = _short_name(name)
    version, entry = _pick_default(entries)
    if len(entries) > 1:
        skipped["other_version_entry"] += len(entries) - 1
    if _is_trigger(entry, short):
        skipped["trigger"] += 1
        return []
    outputs = _static_connection_types(entry.get("outputs"))
    inputs = _static_connection_types(entry.get("inputs"))
    if outputs == [] and inputs == []:
        skipped["ui_only"] += 1
        return []

    properties = [p for p in entry.get("properties") or [] if isinstance(p, dict) and isinstance(p.get("name"), str)]
    at_version = [p for p in properties if _admits(p.get("displayOptions"), {"@version": version})]
    actions = _actions(at_version, version)
    has_actions = any(r is not None or o is not None for r, o, *_ in actions)
    native_tool = outputs is not None and "ai_tool" in outputs
    tool_mode = _tool_mode_option(at_version)

    if not native_tool and entry.get("usableAsTool") is not True:
        if tool_mode is not None:
            if _mode_count(at_version) > 1:
                skipped["non_tool_mode"] += _mode_count(at_version) - 1
            return [_build_mode_tool(short, entry, version, at_version, tool_mode, ctx)]
        reason = _not_a_tool_reason(entry, outputs, has_actions)
        if reason is not None:
            skipped[reason] += 1
            return []

    tools: list[ExtractedTool] = []
    by_key: dict[tuple[str | None, str | None], ExtractedTool] = {}
    for resource, operation, resource_label, option in actions:
        key = (resource, operation)
        if key in by_key:
            # Same action defined again for another API flavour: its parameters are already in the union.
            skipped["duplicate_operation"] += 1
            if "merged_duplicate_operation" not in by_key[key].flags:
                by_key[key].flags.append("merged_duplicate_operation")
            continue
        tool = _build_tool(short, entry, version, at_version, resource, operation, resource_label, option, ctx)
        if native_tool:
            tool.flags.append("native_ai_tool")
            tool.usable_as_tool = True
        by_key[key] = tool
        tools.append(tool)
    return tools


def _option_label(option: dict) -> str:
    return str(option.get("name") or option.get("value") or "")


def _actions(props: list[dict], version: float) -> list[tuple[str | None, str | None, str | None, dict | None]]:
    """(resource, operation, resource label, operation option) in catalog order; [(None, None, ...)] if none."""
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
            if not _admits(prop.get("displayOptions"), selector):
                continue
            choices = _choices_with_options(prop, selector)
            dynamic = dynamic or (not choices and prop.get("type") == "options")
            for value, _label, option in choices:
                result.append((resource, value, label, option))
                found = True
        if not found:
            result.append((resource, None, label, _DYNAMIC_OPERATIONS if dynamic else None))
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
    return not any(_admits(p.get("displayOptions"), selector) for p in resource_props)


def _choices(prop: dict, selector: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(value, label) for value, label, _ in _choices_with_options(prop, selector)]


def _choices_with_options(prop: dict, selector: dict[str, Any]) -> list[tuple[str, str | None, dict | None]]:
    """Static option values of a resource/operation property; a hidden/string one has its default only."""
    if prop.get("type") == "options" and isinstance(prop.get("options"), list):
        found = []
        for option in prop["options"]:
            if not isinstance(option, dict) or not isinstance(option.get("value"), str | int | float):
                continue
            if not _admits(option.get("displayOptions"), selector):
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
                if isinstance(option, dict) and option.get("value") == _TOOL_MODE:
                    return option
    return None


def _mode_count(props: list[dict]) -> int:
    for prop in props:
        if prop["name"] == "mode" and isinstance(prop.get("options"), list):
            return len([o for o in prop["options"] if isinstance(o, dict)])
    return 1


# ------------------------------------------------------------------------------------- tool building


def _clean(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    return _WS_RE.sub(" ", html.unescape(_TAG_RE.sub("", text))).strip()


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


def _node_common(short: str, entry: dict, ctx: _Context) -> dict[str, Any]:
    codex = entry.get("codex") if isinstance(entry.get("codex"), dict) else {}
    resources = codex.get("resources") if isinstance(codex.get("resources"), dict) else {}
    doc_urls: list[str] = []
    for key in ("primaryDocumentation", "credentialDocumentation"):
        for item in resources.get(key) or []:
            if isinstance(item, dict) and isinstance(item.get("url"), str):
                _add(doc_urls, item["url"])
    if isinstance(entry.get("documentationUrl"), str) and entry["documentationUrl"].startswith("http"):
        _add(doc_urls, entry["documentationUrl"])
    categories: list[str] = []
    for cat in codex.get("categories") or []:
        if isinstance(cat, str):
            _add(categories, cat.strip())
    subcategories = codex.get("subcategories") if isinstance(codex.get("subcategories"), dict) else {}
    for values in subcategories.values():
        for sub in values if isinstance(values, list) else []:
            if isinstance(sub, str):
                _add(categories, sub.strip())
    display = _clean(entry.get("displayName")) or short
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


def _source_path(short: str, ctx: _Context) -> str:
    known = ctx.known_nodes.get(short)
    if isinstance(known, dict) and isinstance(known.get("sourcePath"), str):
        return known["sourcePath"]
    # Community packages may lack dist/known: match package.json's n8n.nodes by file name.
    target = f"{short.lower()}.node.js"
    for path in ctx.declared_node_paths:
        if path.rsplit("/", 1)[-1].lower() == target:
            return path
    return NODES_JSON


def _build_tool(
    short: str,
    entry: dict,
    version: float,
    props: list[dict],
    resource: str | None,
    operation: str | None,
    resource_label: str | None,
    option: dict | None,
    ctx: _Context,
) -> ExtractedTool:
    common = _node_common(short, entry, ctx)
    display = common["display_name"]
    node_description = _clean(entry.get("description"))
    selector: dict[str, Any] = {"@version": version}
    if resource is not None or any(p["name"] == "resource" for p in props):
        # resource=None explicitly: properties of some resource must not leak into a resourceless action.
        selector["resource"] = resource
    if operation is not None:
        selector["operation"] = operation

    flags = list(common["flags"])
    deprecated = common["deprecated"]
    if resource is None and operation is None:
        action = ""
        detail = ""
        flags.append("node_level")
    else:
        if option is _DYNAMIC_OPERATIONS:
            flags.append("dynamic_operations")
        option = option or {}
        op_label = _clean(option.get("name")) or (operation or "")
        action = _clean(option.get("action"))
        if operation is None:
            action = f"{_clean(resource_label) or resource} operations"
        elif not option and resource is None:
            action = ""  # the single value of a hidden 'operation' property: the node itself is the action
        elif not action:
            # A bare "Create" is ambiguous between resources: say what is created.
            action = " ".join(x for x in (op_label, _clean(resource_label) or resource or "") if x)
        detail = _clean(option.get("description"))
        legacy_text = f"{operation or ''} {option.get('name') or ''} {option.get('description') or ''}"
        if _LEGACY_RE.search(legacy_text):
            deprecated = True
            flags.append("legacy_operation")
        if resource is None or operation is None:
            flags.append("resource_only" if operation is None else "operation_only")

    name = f"{display}: {action}" if action else display
    description = _compose_description(node_description, action, detail)
    endpoints = _endpoints(entry, option, [])
    http_methods, default_method = _http_methods(entry, props, selector, resource, option)
    if default_method:
        flags.append("http_method_default")
    credentials, auth_by_default = _admitted_credentials(entry, props, selector)
    for cred in credentials:
        _add_credential_endpoints(ctx.credentials.get(cred), endpoints)
    if any(c not in ctx.credentials for c in credentials):
        flags.append("external_credentials")
    if credentials and not auth_by_default:
        flags.append("auth_optional")

    return ExtractedTool(
        local_id=f"{short}:{resource if resource is not None else '-'}:{operation if operation is not None else '-'}",
        name=name,
        description=description,
        source_path=common["source_path"],
        display_name=display,
        service=common["service"],
        parameters=_parameters(props, selector, exclude={"resource", "operation"}),
        auth_type=ctx.credential_kind(credentials[0]) if auth_by_default else "none",
        auth_credentials=credentials,
        endpoints=endpoints,
        http_methods=http_methods,
        doc_urls=common["doc_urls"]
        + [u for c in credentials for u in _credential_docs(ctx.credentials.get(c)) if u not in common["doc_urls"]],
        categories=common["categories"],
        deprecated=deprecated,
        usable_as_tool=common["usable_as_tool"],
        flags=flags,
    )


def _build_mode_tool(
    short: str, entry: dict, version: float, props: list[dict], option: dict, ctx: _Context
) -> ExtractedTool:
    """A vector store's 'retrieve-as-tool' mode: the only form in which an agent calls it."""
    tool = _build_tool(short, entry, version, props, None, None, None, None, ctx)
    selector = {"@version": version, "mode": _TOOL_MODE}
    action = _clean(option.get("action")) or _clean(option.get("name")) or _TOOL_MODE
    tool.local_id = f"{short}:-:{_TOOL_MODE}"
    tool.name = f"{tool.display_name}: {action}"
    tool.description = _compose_description(_clean(entry.get("description")), action, _clean(option.get("description")))
    tool.parameters = _parameters(props, selector, exclude={"resource", "operation", "mode"})
    credentials, auth_by_default = _admitted_credentials(entry, props, selector)
    tool.auth_credentials = credentials
    tool.auth_type = ctx.credential_kind(credentials[0]) if auth_by_default else "none"
    tool.flags = [f for f in tool.flags if f not in ("node_level", "auth_optional")] + ["tool_mode", "native_ai_tool"]
    if credentials and not auth_by_default:
        tool.flags.append("auth_optional")
    tool.usable_as_tool = True
    return tool


def _add(items: list[str], value: str) -> None:
    if value and value not in items:
        items.append(value)


# ------------------------------------------------------------------------------------ auth, endpoints


def _admitted_credentials(entry: dict, props: list[dict], selector: dict[str, Any]) -> tuple[list[str], bool]:
    """Credential types this action accepts, those used with default settings first.

    The flag says whether any is used with the node's default settings: HTTP Request lists an SSL
    credential behind a toggle that is off by default, and GraphQL's authentication defaults to 'none'.
    """
    admitted: list[tuple[str, dict]] = []
    for cred in entry.get("credentials") or []:
        known = [n for n, _ in admitted]
        if _is_named_dict(cred) and cred["name"] not in known and _admits(cred.get("displayOptions"), selector):
            admitted.append((cred["name"], cred))
    defaults: dict[str, Any] = {}
    for prop in props:
        name = prop["name"]
        if name in selector or name in defaults or not _admits(prop.get("displayOptions"), selector):
            continue
        if _literal(prop.get("default")):
            defaults[name] = prop["default"]
    with_defaults = {**selector, **defaults}
    active = [n for n, c in admitted if _admits(c.get("displayOptions"), with_defaults)]
    ordered = active + [n for n, _ in admitted if n not in active]
    return ordered, bool(active)


def _credential_kind(name: str, credentials: dict[str, dict], seen: set[str]) -> AuthType:
    if name in _OAUTH2_BASES or "oauth2" in name.lower():
        return "oauth2"
    cred = credentials.get(name)
    if cred is None or name in seen:
        # Credential shipped by another package (the langchain package reuses base credentials): by name only.
        lowered = name.lower()
        if "basic" in lowered:
            return "basic"
        if lowered.endswith("api") and "oauth1" not in lowered:
            return "api_key"
        return "other"
    seen = seen | {name}
    for parent in cred.get("extends") or []:
        if not isinstance(parent, str):
            continue
        if parent == "oAuth1Api":
            return "other"
        if parent in credentials or parent in _OAUTH2_BASES or "oauth2" in parent.lower():
            return _credential_kind(parent, credentials, seen)
    authenticate = cred.get("authenticate") if isinstance(cred.get("authenticate"), dict) else {}
    injected = authenticate.get("properties") if isinstance(authenticate.get("properties"), dict) else {}
    if "auth" in injected:  # n8n's request option for HTTP basic auth
        return "basic"
    fields = [p for p in cred.get("properties") or [] if isinstance(p, dict) and isinstance(p.get("name"), str)]
    secret = [
        p["name"].lower() for p in fields if isinstance(p.get("typeOptions"), dict) and p["typeOptions"].get("password")
    ]
    names = [p["name"].lower() for p in fields]
    userish = any(k in n for n in names for k in ("user", "login", "email", "binddn"))
    if any("password" in s for s in secret) and userish:
        return "basic"
    if any(k in s for s in secret for k in _KEYISH):
        return "api_key"
    if any("password" in s for s in secret):
        return "basic"
    if any(k in injected for k in ("headers", "qs", "body")):
        return "api_key"
    if any(k in n for n in names for k in _KEYISH):
        return "api_key"
    return "other"


def _endpoints(entry: dict, option: dict | None, endpoints: list[str]) -> list[str]:
    defaults = entry.get("requestDefaults")
    if isinstance(defaults, dict) and isinstance(defaults.get("baseURL"), str):
        _add(endpoints, defaults["baseURL"])
    routing = option.get("routing") if isinstance(option, dict) else None
    request = routing.get("request") if isinstance(routing, dict) else None
    if isinstance(request, dict):
        if isinstance(request.get("baseURL"), str):
            _add(endpoints, request["baseURL"])
        url = request.get("url")
        if isinstance(url, str) and url.lstrip("=").strip().startswith(("http://", "https://")):
            _add(endpoints, url)
    return endpoints


_HTTP_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}


def _routing_request(item: Any) -> dict | None:
    routing = item.get("routing") if isinstance(item, dict) else None
    request = routing.get("request") if isinstance(routing, dict) else None
    return request if isinstance(request, dict) else None


def _http_methods(
    entry: dict, props: list[dict], selector: dict[str, Any], resource: str | None, option: dict | None
) -> tuple[list[str], bool]:
    """HTTP methods a declarative (routing) action sends, and whether the method is n8n's default.

    n8n's RoutingNode starts from ``requestDefaults`` and merges the ``routing.request`` of every
    displayed property and of the selected option of an options property, a later ``method``
    overriding an earlier one. So the candidates are: the selected operation option, the selected
    resource option, and the top-level properties displayed for this action (the operation property
    itself, or e.g. the n8n node's ``workflowId`` with ``method: POST``), else ``requestDefaults``.
    Properties gated on user input are taken as displayed, so an action can list more than one
    method. When the action has a routing request and a URL (its own or ``requestDefaults.url``) but
    no method anywhere, the request goes out as GET: ``IHttpRequestOptions.method`` is optional and
    core's ``convertN8nRequestToAxios`` passes it through to axios, whose default is GET (core's
    ``removeEmptyBody`` also reads a missing method as GET). Programmatic nodes have no routing:
    no methods.
    """
    requests: list[dict] = []
    if (request := _routing_request(option)) is not None:
        requests.append(request)
    for prop in props:
        if not _admits(prop.get("displayOptions"), selector):
            continue
        if (request := _routing_request(prop)) is not None:
            requests.append(request)
        if prop["name"] == "resource" and resource is not None and isinstance(prop.get("options"), list):
            for res in prop["options"]:
                request = _routing_request(res) if isinstance(res, dict) and res.get("value") == resource else None
                if request is not None:
                    requests.append(request)
    methods: list[str] = []
    for request in requests:
        method = request.get("method")
        if isinstance(method, str) and method.upper() in _HTTP_METHODS:
            _add(methods, method.upper())
    if methods or not requests:
        return methods, False
    defaults = entry.get("requestDefaults") if isinstance(entry.get("requestDefaults"), dict) else {}
    method = defaults.get("method")
    if isinstance(method, str) and method.upper() in _HTTP_METHODS:
        return [method.upper()], False
    if any(isinstance(r.get("url"), str) and r["url"] for r in [*requests, defaults]):
        return ["GET"], True
    return [], False


def _add_credential_endpoints(cred: dict | None, endpoints: list[str]) -> None:
    if not isinstance(cred, dict):
        return
    test = cred.get("test")
    request = test.get("request") if isinstance(test, dict) else None
    if isinstance(request, dict) and isinstance(request.get("baseURL"), str):
        _add(endpoints, request["baseURL"])
    http_node = cred.get("httpRequestNode")
    if isinstance(http_node, dict) and isinstance(http_node.get("apiBaseUrl"), str):
        _add(endpoints, http_node["apiBaseUrl"])


def _credential_docs(cred: dict | None) -> list[str]:
    # documentationUrl is usually a slug ("slack") whose URL form is a convention, not data: keep absolute ones only.
    if isinstance(cred, dict) and isinstance(cred.get("documentationUrl"), str):
        url = cred["documentationUrl"]
        if url.startswith(("http://", "https://")):
            return [url]
    return []


# ------------------------------------------------------------------------------------------ parameters


def _parameters(props: list[dict], selector: dict[str, Any], exclude: set[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    required: list[str] = []
    for prop in props:
        name = prop["name"]
        if name in exclude or prop.get("type") in _UI_ONLY_PARAM_TYPES or name in schema["properties"]:
            continue
        if not _admits(prop.get("displayOptions"), selector):
            continue
        schema["properties"][name] = _property_schema(prop, depth=0)
        if prop.get("required") is True:
            required.append(name)
    if required:
        schema["required"] = required
    return schema


def _literal(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value) and not value.startswith("=")
    return isinstance(value, bool | int | float)


def _property_schema(prop: dict, depth: int) -> dict[str, Any]:
    kind = prop.get("type")
    schema: dict[str, Any] = {}
    if kind in ("string", "color", "resourceLocator", "workflowSelector"):
        schema["type"] = "string"
    elif kind == "number":
        schema["type"] = "number"
    elif kind == "boolean":
        schema["type"] = "boolean"
    elif kind == "dateTime":
        schema.update(type="string", format="date-time")
    elif kind == "json":
        schema.update(type="string", contentMediaType="application/json")
    elif kind == "options":
        schema.update(_enum_schema(prop))
    elif kind == "multiOptions":
        schema.update(type="array", items=_enum_schema(prop))
    elif kind == "collection":
        children = [p for p in prop.get("options") or [] if _is_named_dict(p)]
        schema.update(type="object", properties=_children(children, depth))
    elif kind == "fixedCollection":
        groups: dict[str, Any] = {}
        for group in prop.get("options") or []:
            if not _is_named_dict(group):
                continue
            values = [p for p in group.get("values") or [] if _is_named_dict(p)]
            group_schema: dict[str, Any] = {"type": "object", "properties": _children(values, depth)}
            if _clean(group.get("displayName")):
                group_schema["title"] = _clean(group.get("displayName"))
            groups[group["name"]] = group_schema
        schema.update(type="object", properties=groups)
    elif kind in ("resourceMapper", "assignmentCollection", "filter"):
        schema["type"] = "object"
    type_options = prop.get("typeOptions") if isinstance(prop.get("typeOptions"), dict) else {}
    if type_options.get("multipleValues") and kind not in ("multiOptions",):
        schema = {"type": "array", "items": schema}
    if _clean(prop.get("displayName")):
        schema["title"] = _clean(prop.get("displayName"))
    if _clean(prop.get("description")):
        schema["description"] = _clean(prop.get("description"))
    default = prop.get("default")
    if _literal(default) or (isinstance(default, list) and default and all(_literal(v) for v in default)):
        schema["default"] = default
    schema["x-n8n-type"] = kind
    return schema


def _children(children: list[dict], depth: int) -> dict[str, Any]:
    if depth >= 4:  # deep fixedCollections are rare; the top levels carry what retrieval needs
        return {}
    out: dict[str, Any] = {}
    for child in children:
        if child.get("type") in _UI_ONLY_PARAM_TYPES or child["name"] in out:
            continue
        out[child["name"]] = _property_schema(child, depth + 1)
    return out


def _enum_schema(prop: dict) -> dict[str, Any]:
    values = [o["value"] for o in prop.get("options") or [] if isinstance(o, dict) and "value" in o]
    values = [v for v in values if isinstance(v, str | int | float | bool)]
    type_options = prop.get("typeOptions") if isinstance(prop.get("typeOptions"), dict) else {}
    if not values or type_options.get("loadOptionsMethod") or type_options.get("loadOptions"):
        # Choices loaded from the service at run time: only the type is known statically.
        return {"type": "string"}
    if all(isinstance(v, bool) for v in values):
        kind = "boolean"
    elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        kind = "number"
    elif all(isinstance(v, str) for v in values):
        kind = "string"
    else:
        return {"enum": values}
    return {"type": kind, "enum": values}
