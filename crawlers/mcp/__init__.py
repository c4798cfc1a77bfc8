"""Static extractor for the MCP reference servers on npm (``@modelcontextprotocol/server-*``).

The packages ship compiled TypeScript (ESM) under ``dist/``. Tools appear in two shapes:

(a) object literals ``{name: "x", description: "..." + "...", inputSchema: {...}}``, usually
    returned from a ``ListToolsRequestSchema`` handler, where ``inputSchema`` is either a JSON
    Schema literal or ``zodToJsonSchema(SomeZodSchema)``;
(b) ``server.registerTool(name, {title, description, inputSchema}, handler)`` (and the older
    ``server.tool(name, [description], [shape], [annotations], handler)``), where the name and the
    config are often module constants and ``inputSchema`` is a zod raw shape or a ``z.object``.

The JS is parsed with tree-sitter and evaluated only as far as literals, identifiers bound to
literals (same module or imported from a sibling ``dist`` module) and zod builder chains go.
Nothing from the package is ever executed.

Env vars are package-wide (one server process serves every tool): ``env_vars_read`` are the
credential-like names (``crawlers.vocabulary.AUTH_ENV_VAR``) the code reads as ``process.env.X``,
``process.env["X"]`` or ``const {X} = process.env`` (what ``auth_env_vars`` holds); ``env_vars_declared``
are the credential-like names the README tells the user to set (``"env": {...}`` blocks of config
examples, ``-e NAME`` docker flags, ``export NAME=``). Config variables (``MEMORY_FILE_PATH``) count on
neither side.

This module is the entry point (``want``, ``extract``); import everything else from where it is defined:

* ``syntax``: reading tree-sitter nodes (children, text, JS string literals and escapes, a walk).
* ``modules``: the package's compiled modules and name resolution across them (``build_module``, ``Ctx``).
* ``evaluate``: literal evaluation (``eval_str``, ``eval_value``, ``object_entries``, ``UNRESOLVED``).
* ``zod``: zod builder chains turned into JSON Schema (``zod_to_schema``).
* ``tools``: input schemas and the two tool shapes (``find_tools``, ``input_schema``).
* ``metadata``: package-level env vars, endpoints, doc URLs, deprecation notices, service name.
"""

from __future__ import annotations

import json
import re
from typing import Any

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

from crawlers.base import ExtractedTool, Extraction, PackageFiles
from crawlers.mcp.metadata import (
    endpoint_urls,
    env_vars,
    package_auth_type,
    readme_env_declared,
    readme_notice,
    repo_url,
    service_name,
)
from crawlers.mcp.modules import Ctx, Module, build_module
from crawlers.mcp.syntax import walk
from crawlers.mcp.tools import Found, find_tools
from crawlers.vocabulary import AUTH_ENV_VAR, OAUTH_IMPORT

_JS_SUFFIXES = (".js", ".mjs", ".cjs")

_LANGUAGE = Language(tree_sitter_javascript.language())

_DESC_DEPRECATED_RE = re.compile(r"\bdeprecated\b", re.I)
_DESC_REPLACEMENT_RE = re.compile(r"\buse\s+`?([A-Za-z0-9_\-]+)`?\s+instead", re.I)
_REGISTRY_REPLACEMENT_RE = re.compile(r"\b(?:use|moved to|replaced by|see)\s+`?([@\w./:-]+)`?", re.I)


def want(path: str) -> bool:
    """Members the extractor reads: package.json, README.md and compiled JS under dist/."""
    if path in ("package.json", "README.md") or path.lower() == "readme.md":
        return True
    if not path.startswith("dist/") or "node_modules/" in path:
        return False
    if not path.endswith(_JS_SUFFIXES):
        return False  # also drops *.js.map and *.d.ts
    return not _is_test_module(path)


def _is_test_module(path: str) -> bool:
    # server-everything ships its jest tests in dist/__tests__; they register mock tools
    parts = path.split("/")
    return "__tests__" in parts or "__mocks__" in parts or bool(re.search(r"\.(test|spec)\.[cm]?js$", path))


def extract(package: PackageFiles) -> Extraction:
    """Extract the MCP tools a reference server package registers, by static reading of dist/*.js."""
    result = Extraction()
    pkg: dict[str, Any] = {}
    if "package.json" in package.files:
        try:
            loaded = json.loads(package.text("package.json"))
            pkg = loaded if isinstance(loaded, dict) else {}
        except json.JSONDecodeError as exc:
            result.errors.append(("package.json", f"invalid_json: {exc}"))

    parser = Parser(_LANGUAGE)
    modules: dict[str, Module] = {}
    partial: set[str] = set()
    for path in sorted(package.files):
        if not want(path) or not path.endswith(_JS_SUFFIXES):
            continue
        source = package.files[path]
        if source.startswith(b"#!"):  # the bin shebang is not JS
            source = b"//" + source[2:]
        tree = parser.parse(source)
        if tree.root_node.has_error:
            # tree-sitter recovers locally: the module is reported, tools in intact regions still count
            result.errors.append((path, f"js_syntax_error: {_first_error(tree.root_node)}"))
            partial.add(path)
        modules[path] = build_module(path, tree.root_node)

    ctx = Ctx(modules)
    env: list[str] = []
    endpoints: list[str] = []
    oauth_import = False
    found: list[Found] = []
    for mod in modules.values():
        try:
            env.extend(env_vars(mod.root))
            endpoints.extend(endpoint_urls(mod.root))
            oauth_import = oauth_import or any(OAUTH_IMPORT.search(src) for src, _ in mod.imports.values())
            for item in find_tools(ctx, mod):
                if mod.path in partial:
                    item.flags.add("partial_parse")
                found.append(item)
        except (RecursionError, ValueError, UnicodeError) as exc:  # one odd module must not sink the package
            result.errors.append((mod.path, f"evaluation_failed: {type(exc).__name__}: {exc}"))

    auth_env = sorted({n for n in env if AUTH_ENV_VAR.search(n)})
    auth_type = package_auth_type(auth_env, oauth_import)
    endpoints = sorted(set(endpoints))
    doc_urls = [u for u in (repo_url(pkg.get("homepage")), repo_url(pkg.get("repository"))) if u]
    keywords = [k for k in pkg.get("keywords") or [] if isinstance(k, str)]
    deps = sorted((pkg.get("dependencies") or {}).keys()) if isinstance(pkg.get("dependencies"), dict) else []
    registry_deprecated = pkg.get("deprecated")
    readme = next((package.text(p) for p in package.files if p.lower() == "readme.md"), "")
    readme_deprecated, readme_replacement = readme_notice(readme)
    # same credential-like filter as the reads, so config vars (MEMORY_FILE_PATH) count on neither side
    declared_env = [n for n in readme_env_declared(readme) if AUTH_ENV_VAR.search(n)]
    service = service_name(package.name)

    seen: set[str] = set()
    for item in found:
        if "unresolved_name" in item.flags:
            result.skipped["unresolved_name"] += 1
            continue
        if item.name in seen:
            result.skipped["duplicate_name"] += 1
            continue
        seen.add(item.name)
        flags = set(item.flags) - {"partial_value"} | ({"partial_schema"} if "partial_value" in item.flags else set())
        deprecated, replacement = False, None
        if registry_deprecated:
            deprecated = True
            # npm's field is a free-text message; only a "use X instead" names a replacement
            hint = (
                _REGISTRY_REPLACEMENT_RE.search(registry_deprecated) if isinstance(registry_deprecated, str) else None
            )
            replacement = hint.group(1).rstrip(".,") if hint else None
        elif readme_deprecated:
            deprecated, replacement = True, readme_replacement
            flags.add("readme_deprecated")
        text = f"{item.title or ''} {item.description or ''}"
        if not deprecated and _DESC_DEPRECATED_RE.search(text):
            deprecated = True
            flags.add("description_deprecated")
            match = _DESC_REPLACEMENT_RE.search(item.description or "")
            replacement = match.group(1) if match else None
        if not item.description:
            flags.add("no_description")
        result.tools.append(
            ExtractedTool(
                local_id=item.name,
                name=item.name,
                description=(item.description or "").strip(),
                source_path=item.source_path,
                display_name=item.title or item.name,
                service=service,
                parameters=item.parameters,
                auth_type=auth_type,
                auth_env_vars=list(auth_env),
                env_vars_declared=list(declared_env),
                env_vars_read=list(auth_env),
                auth_credentials=list(auth_env),
                endpoints=list(endpoints),
                doc_urls=list(doc_urls),
                categories=list(keywords),
                package_dependencies=list(deps),
                deprecated=deprecated,
                replacement=replacement,
                flags=sorted(flags),
            )
        )
    return result


def _first_error(root: Node) -> str:
    for node in walk(root):
        if node.type == "ERROR" or node.is_missing:
            row, col = node.start_point
            return f"line {row + 1}, column {col + 1}"
    return "unknown position"
