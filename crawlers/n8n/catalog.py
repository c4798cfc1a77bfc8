"""The JSON catalogs an n8n package ships, and the readers of catalog values every part shares.

n8n's build ships the fully expanded node descriptions as ``dist/types/nodes.json``, the credential
types as ``dist/types/credentials.json`` and ``dist/known/*.json`` (name -> sourcePath).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from crawlers.base import Extraction, PackageFiles

NODES_JSON = "dist/types/nodes.json"
CREDENTIALS_JSON = "dist/types/credentials.json"
KNOWN_NODES_JSON = "dist/known/nodes.json"
KNOWN_CREDENTIALS_JSON = "dist/known/credentials.json"


def load_json(package: PackageFiles, path: str, out: Extraction, required: bool) -> Any:
    """A parsed catalog file, or None (missing or invalid JSON, recorded in ``out.errors``)."""
    if path not in package.files:
        if required:
            out.errors.append((path, "missing"))
        return None
    try:
        return json.loads(package.files[path])
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        out.errors.append((path, f"invalid JSON: {exc}"))
        return None


def is_named_dict(value: Any) -> bool:
    """A JSON object with a non-empty string ``name`` (nodes, credentials, properties)."""
    return isinstance(value, dict) and isinstance(value.get("name"), str) and bool(value["name"])


def package_json_node_paths(package_json: Any, kind: str = "nodes") -> list[str]:
    """The file paths package.json declares under ``n8n.nodes`` (``kind="credentials"``: ``n8n.credentials``)."""
    if not isinstance(package_json, dict) or not isinstance(package_json.get("n8n"), dict):
        return []
    paths = package_json["n8n"].get(kind)
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


_TAG_RE = re.compile(r"<[^>]+>")
_WS_RE = re.compile(r"\s+")


def clean_text(text: Any) -> str:
    """Catalog text as plain text: HTML tags and entities removed, whitespace collapsed."""
    if not isinstance(text, str):
        return ""
    return _WS_RE.sub(" ", html.unescape(_TAG_RE.sub("", text))).strip()


def add_new(items: list[str], value: str) -> None:
    """Append ``value`` unless it is empty or already there."""
    if value and value not in items:
        items.append(value)


def codex_categories(entry: dict) -> list[str]:
    """A node's codex categories, then its subcategories, in order, each once."""
    codex = entry.get("codex") if isinstance(entry.get("codex"), dict) else {}
    categories: list[str] = []
    for cat in codex.get("categories") or []:
        if isinstance(cat, str):
            add_new(categories, cat.strip())
    subcategories = codex.get("subcategories") if isinstance(codex.get("subcategories"), dict) else {}
    for values in subcategories.values():
        for sub in values if isinstance(values, list) else []:
            if isinstance(sub, str):
                add_new(categories, sub.strip())
    return categories
