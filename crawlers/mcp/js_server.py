"""MCP servers published on npm: compiled JavaScript read with tree-sitter, never run.

The packages ship compiled TypeScript (ESM or tsc's CommonJS) under ``dist/`` (the reference
servers), ``build/``, ``lib/`` or ``bin/`` (community servers). Tools appear in two shapes:

(a) object literals ``{name: "x", description: "..." + "...", inputSchema: {...}}``, usually
    returned from a ``ListToolsRequestSchema`` handler, where ``inputSchema`` is either a JSON
    Schema literal or ``zodToJsonSchema(SomeZodSchema)``;
(b) ``server.registerTool(name, {title, description, inputSchema}, handler)`` (and the older
    ``server.tool(name, [description], [shape], [annotations], handler)``), where the name and the
    config are often module constants and ``inputSchema`` is a zod raw shape or a ``z.object``; a call
    in a ``for (... of X)`` loop over a literal whose name uses the loop variable counts once per element.

The JS is evaluated only as far as literals, identifiers bound to literals (same module or imported
from a sibling module of the package) and zod builder chains go.

Env vars are package-wide (one server process serves every tool): ``env_vars_read`` are the
credential-like names (``crawlers.vocabulary.AUTH_ENV_VAR``) the code reads as ``process.env.X``,
``process.env["X"]`` or ``const {X} = process.env`` (what ``auth_env_vars`` holds); ``env_vars_declared``
are the credential-like names the README tells the user to set (``"env": {...}`` blocks of config
examples, ``-e NAME`` docker flags, ``export NAME=``). Config variables (``MEMORY_FILE_PATH``) count on
neither side.
"""

from __future__ import annotations

import json
import re
from typing import Any

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

from crawlers.base import Extraction, PackageFiles
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
from crawlers.mcp.records import Found, ServerFacts, add_tools
from crawlers.mcp.syntax import walk
from crawlers.mcp.tools import find_tools
from crawlers.vocabulary import AUTH_ENV_VAR, OAUTH_IMPORT

JS_SUFFIXES = (".js", ".mjs", ".cjs")
# where packages put compiled output; src/ holds sources that dist/ already compiles
COMPILED_DIRS = ("dist/", "build/", "lib/", "bin/")

_LANGUAGE = Language(tree_sitter_javascript.language())


def want_js(path: str) -> bool:
    """package.json, README.md and compiled JS (not source maps, typings, dependencies or tests)."""
    if path in ("package.json", "README.md") or path.lower() == "readme.md":
        return True
    if not path.startswith(COMPILED_DIRS) or "node_modules/" in path:
        return False
    if not path.endswith(JS_SUFFIXES):
        return False  # also drops *.js.map and *.d.ts
    return not _is_test_module(path)


def _is_test_module(path: str) -> bool:
    # server-everything ships its jest tests in dist/__tests__; they register mock tools
    parts = path.split("/")
    return "__tests__" in parts or "__mocks__" in parts or bool(re.search(r"\.(test|spec)\.[cm]?js$", path))


def extract_js(package: PackageFiles) -> Extraction:
    """Extract the MCP tools an npm server package registers, by static reading of its compiled JS."""
    result = Extraction()
    pkg = _package_json(package, result)
    modules, partial = _parse_modules(package, result)
    env, endpoints, oauth_import, found = _read_modules(modules, partial, result)
    add_tools(found, _server_facts(package, pkg, env, endpoints, oauth_import), result)
    return result


def _package_json(package: PackageFiles, result: Extraction) -> dict[str, Any]:
    """The package's ``package.json`` as a dict (empty when absent, not an object or invalid: that is reported)."""
    pkg: dict[str, Any] = {}
    if "package.json" in package.files:
        try:
            loaded = json.loads(package.text("package.json"))
            pkg = loaded if isinstance(loaded, dict) else {}
        except json.JSONDecodeError as exc:
            result.errors.append(("package.json", f"invalid_json: {exc}"))
    return pkg


def _parse_modules(package: PackageFiles, result: Extraction) -> tuple[dict[str, Module], set[str]]:
    """Every compiled JS module of the package, by path, and the paths that parsed only in part."""
    parser = Parser(_LANGUAGE)
    modules: dict[str, Module] = {}
    partial: set[str] = set()
    for path in sorted(package.files):
        if not want_js(path) or not path.endswith(JS_SUFFIXES):
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
    return modules, partial


def _read_modules(
    modules: dict[str, Module], partial: set[str], result: Extraction
) -> tuple[list[str], list[str], bool, list[Found]]:
    """What the modules read: env var names, endpoint URLs, whether one imports an OAuth library, and the tools."""
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
    return env, endpoints, oauth_import, found


def _server_facts(
    package: PackageFiles, pkg: dict[str, Any], env: list[str], endpoints: list[str], oauth_import: bool
) -> ServerFacts:
    """The package-wide facts every tool of the server shares: service, auth, env vars, links, notices."""
    auth_env = sorted({n for n in env if AUTH_ENV_VAR.search(n)})
    readme = next((package.text(p) for p in package.files if p.lower() == "readme.md"), "")
    readme_deprecated, readme_replacement = readme_notice(readme)
    return ServerFacts(
        service=service_name(package.name),
        auth_type=package_auth_type(auth_env, oauth_import),
        env_read=auth_env,
        # same credential-like filter as the reads, so config vars (MEMORY_FILE_PATH) count on neither side
        env_declared=[n for n in readme_env_declared(readme) if AUTH_ENV_VAR.search(n)],
        endpoints=sorted(set(endpoints)),
        doc_urls=[u for u in (repo_url(pkg.get("homepage")), repo_url(pkg.get("repository"))) if u],
        categories=[k for k in pkg.get("keywords") or [] if isinstance(k, str)],
        dependencies=sorted(deps) if isinstance(deps := pkg.get("dependencies"), dict) else [],
        registry_deprecated=pkg.get("deprecated"),
        readme_deprecated=readme_deprecated,
        readme_replacement=readme_replacement,
    )


def _first_error(root: Node) -> str:
    for node in walk(root):
        if node.type == "ERROR" or node.is_missing:
            row, col = node.start_point
            return f"line {row + 1}, column {col + 1}"
    return "unknown position"
