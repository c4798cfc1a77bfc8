"""Node and credential descriptions read from compiled JavaScript: community packages ship no ``nodes.json``.

n8n builds ``dist/types/nodes.json`` for its own packages only; a community package (the n8n-nodes-starter
layout) ships the compiled classes: ``dist/nodes/<X>/<X>.node.js`` with ``this.description = {...}`` in the
constructor (tsc's CommonJS) or a ``description = {...}`` class field, and ``dist/credentials/<Y>.credentials.js``
with ``this.name = ...``, ``this.properties = [...]``, ``this.authenticate = {...}``. The descriptions are
evaluated as literals with tree-sitter (``crawlers.mcp.evaluate``: literals, identifiers and members bound to
literals in the package's own modules, spreads of literal arrays and objects); nothing is run.

What cannot be read is counted by reason (``Extraction.skipped``, prefix ``js_``): a versioned node whose
description is assembled by ``VersionedNodeType`` (``js_versioned_node``), a class with no description literal
(``js_no_description``), a description whose ``properties`` are computed at run time (an OpenAPI builder:
``js_properties_not_static``), a declared node file missing from the archive (``js_declared_file_missing``).
``js_partial_description``: read, but some values could not be evaluated (left out).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

from crawlers.base import Extraction, PackageFiles
from crawlers.mcp.evaluate import UNRESOLVED, eval_value
from crawlers.mcp.modules import Ctx, Module, build_module
from crawlers.mcp.syntax import named, node_text

_LANGUAGE = Language(tree_sitter_javascript.language())
_NODE_SUFFIX = ".node.js"
_CREDENTIAL_SUFFIX = ".credentials.js"
# NodeConnectionType.Main -> "main", .AiTool -> "ai_tool", .AiLanguageModel -> "ai_languageModel"
_CONNECTION_RE = re.compile(r"NodeConnectionTypes?\.(Ai)?([A-Z]\w*)$")


def connection_type(text: str) -> str | None:
    """The string value of n8n-workflow's ``NodeConnectionType`` member an expression names, or None."""
    match = _CONNECTION_RE.search(text)
    if match is None:
        return None
    rest = match.group(2)[0].lower() + match.group(2)[1:]
    return f"ai_{rest}" if match.group(1) else rest


def want_js(roots: tuple[str, ...]) -> Callable[[str], bool]:
    """Compiled JS under the package's node folders (not dependencies, source maps, typings or tests)."""

    def wanted(path: str) -> bool:
        if not path.startswith(roots) or "node_modules/" in path or not path.endswith(".js"):
            return False
        return not re.search(r"(^|/)(__tests__|__mocks__|test|tests)/|\.(test|spec)\.js$", path)

    return wanted


def js_roots(declared: list[str]) -> tuple[str, ...]:
    """Where a package's compiled node classes live: ``dist/``, and the top folders ``n8n.nodes`` names."""
    roots = {"dist/"}
    for path in declared:
        top = clean_path(path).split("/", 1)[0]
        if top and top != clean_path(path):
            roots.add(top + "/")
    return tuple(sorted(roots))


def clean_path(path: str) -> str:
    """A path from package.json as an archive member path (``./dist/x`` -> ``dist/x``)."""
    return posixpath.normpath(path.strip()).lstrip("./") if path.strip() else ""


def read_js_catalog(package: PackageFiles, declared_nodes: list[str], declared_credentials: list[str],
                    out: Extraction) -> tuple[list[dict], list[dict]]:  # fmt: skip
    """The node descriptions and credential descriptions of a package's compiled classes, as ``nodes.json`` and
    ``credentials.json`` would hold them; what cannot be read is counted in ``out.skipped``."""
    parser = Parser(_LANGUAGE)
    modules: dict[str, Module] = {}
    for path in sorted(package.files):
        if path.endswith(".js"):
            tree = parser.parse(package.files[path])
            if tree.root_node.has_error and path.endswith((_NODE_SUFFIX, _CREDENTIAL_SUFFIX)):
                out.errors.append((path, "js_syntax_error: the class may be read only in part"))
            modules[path] = build_module(path, tree.root_node)
    ctx = Ctx(modules, external=connection_type)
    nodes = [d for path in _class_files(modules, declared_nodes, _NODE_SUFFIX, out)
             if (d := _node_description(ctx, modules[path], out)) is not None]  # fmt: skip
    credentials = [d for path in _class_files(modules, declared_credentials, _CREDENTIAL_SUFFIX, out)
                   if (d := _credential_description(ctx, modules[path])) is not None]  # fmt: skip
    return nodes, credentials


def _class_files(modules: dict[str, Module], declared: list[str], suffix: str, out: Extraction) -> list[str]:
    """The files package.json declares (``n8n.nodes`` / ``n8n.credentials``), else every ``*<suffix>``."""
    if not declared:
        return [p for p in modules if p.endswith(suffix)]
    found = []
    for path in map(clean_path, declared):
        if path in modules:
            found.append(path)
        elif suffix == _NODE_SUFFIX:
            out.skipped["js_declared_file_missing"] += 1
    return found


def _classes(mod: Module) -> Iterator[Node]:
    for node in named(mod.root):
        target = node.child_by_field_name("declaration") if node.type == "export_statement" else node
        if target is not None and target.type in ("class_declaration", "class"):
            yield target


def _members(cls: Node) -> dict[str, Node]:
    """``this.K = V`` in the constructor and ``K = V`` class fields of one class: K -> V (the last one wins)."""
    body = cls.child_by_field_name("body")
    members: dict[str, Node] = {}
    for item in named(body) if body is not None else []:
        if item.type == "field_definition":
            key, value = item.child_by_field_name("property"), item.child_by_field_name("value")
            if key is not None and value is not None:
                members[node_text(key)] = value
        elif item.type == "method_definition" and node_text(item.child_by_field_name("name") or item) == "constructor":
            for stmt in named(item.child_by_field_name("body") or item):
                expr = named(stmt)[0] if stmt.type == "expression_statement" and named(stmt) else None
                if expr is None or expr.type != "assignment_expression":
                    continue
                left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
                if left is not None and right is not None and node_text(left).startswith("this."):
                    members[node_text(left)[len("this."):]] = right
    return members


def _node_description(ctx: Ctx, mod: Module, out: Extraction) -> dict | None:
    """The description literal of the node class in ``mod`` (None, counted by reason, when there is none)."""
    reason = "js_no_description"
    for cls in _classes(mod):
        members = _members(cls)
        if "description" not in members:
            if "VersionedNodeType" in node_text(cls.child_by_field_name("superclass") or cls)[:2000]:
                reason = "js_versioned_node"
            continue
        ctx.flags.clear()
        description = eval_value(members["description"], ctx, mod)
        if not isinstance(description, dict) or not isinstance(description.get("name"), str):
            continue
        if not isinstance(description.get("properties"), list):
            out.skipped["js_properties_not_static"] += 1
            return None
        if "partial_value" in ctx.flags:
            out.skipped["js_partial_description"] += 1
        return description
    out.skipped[reason] += 1
    return None


def _credential_description(ctx: Ctx, mod: Module) -> dict | None:
    """A credential class's ``name``, ``displayName``, ``properties``, ``authenticate``, ``extends``, ... as JSON."""
    for cls in _classes(mod):
        members = _members(cls)
        if "name" not in members:
            continue
        values = {k: eval_value(v, ctx, mod) for k, v in members.items()}
        described = {k: v for k, v in values.items() if v is not UNRESOLVED}
        if isinstance(described.get("name"), str) and described["name"]:
            return described
    return None
