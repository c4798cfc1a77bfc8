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
``http_methods`` come from declarative routing (``routing.request.method``; see
``auth.action_http_methods``), so programmatic nodes, which call their APIs from ``execute()``, have none;
n8n nodes declare no env vars.

This module is the entry point (``want``, ``extract``, ``COUNTING_RULE``); import everything else from
where it is defined: ``catalog`` (the JSON files, loading, shared readers of catalog values), ``versions``
(the node's default version), ``display`` (displayOptions), ``nodes`` (per node: tool or not, its
actions), ``tools`` (building the ExtractedTool), ``auth`` (credentials, endpoints, HTTP methods),
``parameters`` (properties -> JSON Schema).

Counting rule (``COUNTING_RULE``, kept in crawl_summary.json):
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from crawlers.base import Extraction, PackageFiles
from crawlers.n8n.action_table import action_rows
from crawlers.n8n.catalog import (
    CREDENTIALS_JSON,
    KNOWN_CREDENTIALS_JSON,
    KNOWN_NODES_JSON,
    NODES_JSON,
    is_named_dict,
    load_json,
    package_json_node_paths,
)
from crawlers.n8n.js_nodes import js_roots, read_js_catalog, want_js
from crawlers.n8n.nodes import extract_node, view_node
from crawlers.n8n.tools import Context
from ecoagent.layout import CRAWL_FILES

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
    "label says Legacy/deprecated are kept with deprecated=True. A package without nodes.json (community "
    "packages) is read from its compiled node classes (this.description / a description field, evaluated as "
    "literals; tools flagged 'read_from_js'); nodes that cannot be read so are counted as 'js_<reason>'."
)

__doc__ = (__doc__ or "") + COUNTING_RULE

_WANTED = {"package.json", NODES_JSON, CREDENTIALS_JSON, KNOWN_NODES_JSON, KNOWN_CREDENTIALS_JSON}


def want(path: str) -> bool:
    """The generated JSON catalogs and package.json (n8n's own packages: the JS is never opened)."""
    return path in _WANTED


def want_more(files: dict[str, bytes]) -> Callable[[str], bool] | None:
    """A package without ``nodes.json`` (a community package) is read from its compiled node and credential
    classes: the JS under ``dist/`` and the folders ``package.json``'s ``n8n.nodes`` names; None: nothing more."""
    if NODES_JSON in files:
        return None
    try:
        package_json = json.loads(files.get("package.json") or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        package_json = {}
    return want_js(js_roots(package_json_node_paths(package_json)))


def _catalog(package: PackageFiles, package_json: Any, out: Extraction) -> tuple[Any, Any]:
    """(node descriptions, credential descriptions): the JSON catalogs, else the compiled classes read statically."""
    nodes = load_json(package, NODES_JSON, out, required=False)
    if nodes is not None or any(path == NODES_JSON for path, _ in out.errors):
        return nodes, load_json(package, CREDENTIALS_JSON, out, required=False)
    declared = package_json_node_paths(package_json)
    if not declared and not any(p.endswith(".node.js") for p in package.files):
        out.errors.append((NODES_JSON, "no dist/types/nodes.json and no *.node.js: not an n8n node package"))
        return None, None
    nodes, credentials = read_js_catalog(package, declared, package_json_node_paths(package_json, "credentials"), out)
    if not nodes:
        reasons = ", ".join(f"{k}={v}" for k, v in sorted(out.skipped.items()) if k.startswith("js_")) or "none"
        out.errors.append(("package.json", f"no node description could be read statically from the JS ({reasons})"))
        return None, None
    return nodes, credentials


def extract(package: PackageFiles) -> Extraction:
    """Read nodes.json (+ credentials and known maps), or the compiled classes, into one tool per node x resource x
    operation."""
    out = Extraction()
    package_json = load_json(package, "package.json", out, required=False)
    nodes, credentials = _catalog(package, package_json, out)
    from_js = NODES_JSON not in package.files
    if nodes is None:
        return out
    if not isinstance(nodes, list):
        out.errors.append((NODES_JSON, f"expected a JSON list of node descriptions, got {type(nodes).__name__}"))
        return out

    known_nodes = load_json(package, KNOWN_NODES_JSON, out, required=False)
    ctx = Context(
        credentials={c["name"]: c for c in (credentials if isinstance(credentials, list) else []) if is_named_dict(c)},
        known_nodes=known_nodes if isinstance(known_nodes, dict) else {},
        declared_node_paths=package_json_node_paths(package_json),
    )

    groups: dict[str, list[dict]] = {}
    for index, entry in enumerate(nodes):
        if not is_named_dict(entry):
            out.errors.append((NODES_JSON, f"entry {index}: not a node description with a string 'name'"))
            continue
        groups.setdefault(entry["name"], []).append(entry)

    seen_ids: set[str] = set()
    table = out.tables.setdefault(CRAWL_FILES.n8n_actions, [])
    for name, entries in groups.items():
        try:
            tools = extract_node(name, entries, ctx, out.skipped)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            # One malformed node must not cost the rest of the catalog.
            out.errors.append((NODES_JSON, f"node {name}: {type(exc).__name__}: {exc}"))
            continue
        kept = []
        for tool in tools:
            if tool.local_id in seen_ids:
                # Two names with the same short form (prefixed and unprefixed); keep the first.
                out.skipped["duplicate_local_id"] += 1
                continue
            seen_ids.add(tool.local_id)
            kept.append(tool)
        if from_js:
            for tool in kept:
                tool.flags.append("read_from_js")
        out.tools.extend(kept)
        try:
            table.extend(action_rows(package.name, name, entries, view_node(name, entries), kept))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:  # the node's tools are still in the catalog
            out.errors.append((NODES_JSON, f"node {name}: action table: {type(exc).__name__}: {exc}"))
    return out
