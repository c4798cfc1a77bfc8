"""Static extractor for MCP servers: the npm reference servers and the community servers on npm and PyPI.

A server's tools are read from its registry archive, never run, by the reader for its kind:

* ``js_server``: an npm tarball's compiled JavaScript (tree-sitter): ``{name, description,
  inputSchema}`` literals of a ListTools handler, ``server.registerTool(...)`` / ``server.tool(...)``,
  zod or JSON-Schema inputs.
* ``py_server``: a PyPI wheel's Python modules (``ast``): ``@mcp.tool()`` / ``@server.tool()``
  decorated functions (FastMCP, the SDK's MCPServer), a package's own registering decorator, and
  low-level ``types.Tool(...)`` objects.

This module is the entry point (``want``, ``extract``, ``COUNTING_RULE``); import everything else from
where it is defined:

* ``records``: ``Found`` (a tool as a reader saw it), ``ServerFacts`` (package-wide credentials,
  endpoints, links, deprecation) and ``add_tools``, the one place tools are built and counted.
* ``syntax``: reading tree-sitter nodes (children, text, JS string literals and escapes, a walk).
* ``modules``: the package's compiled modules and name resolution across them (``build_module``, ``Ctx``).
* ``evaluate``: literal evaluation of JS (``eval_str``, ``eval_value``, ``object_entries``, ``UNRESOLVED``).
* ``zod``: zod builder chains turned into JSON Schema (``zod_to_schema``).
* ``tools``: JS input schemas and the two JS tool shapes (``find_tools``, ``input_schema``).
* ``metadata``: package-level env vars, endpoints, doc URLs, deprecation notices, service name.
"""

from __future__ import annotations

from crawlers.base import Extraction, PackageFiles
from crawlers.mcp.js_server import extract_js, want_js
from crawlers.mcp.py_server import extract_py, want_py

COUNTING_RULE = (
    "mcp: one tool per distinct tool name a server registers, read statically from its registry archive "
    "(npm: compiled JS under dist/, build/, lib/ or bin/; PyPI: the wheel's modules); the first of a repeated "
    "name counts; a name built from a loop variable over a literal (for ... of Object.entries(X)) counts once per "
    "element; a name that is not a literal (or a constant, enum member or imported constant) is skipped "
    "(unresolved_name); test modules are never read"
)


def want(path: str) -> bool:
    """Archive members either reader needs (the archive kind decides which reader runs)."""
    return want_js(path) or want_py(path)


def extract(package: PackageFiles) -> Extraction:
    """The package's MCP tools: a PyPI wheel goes to the Python reader, an npm tarball to the JS reader."""
    if package.registry == "pypi":
        return extract_py(package)
    return extract_js(package)
