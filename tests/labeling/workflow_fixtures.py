"""A small n8n world in the shipped formats: an ``n8n-nodes-base`` package (nodes.json) and an ``n8n-mcp`` tarball
whose ``data/nodes.db`` holds workflow templates (SQLite, gzip + base64 workflow JSON), made on the spot.

The node types copy the shapes that matter in n8n's build output: a node with two version entries whose default
operation changes with the version (Tabula, like Google Sheets: ``read`` at 3, ``append`` at 4) and an operation
only its first entry has; a ``usableAsTool`` node (Postino, used as ``postinoTool``); a node whose operation was
renamed between versions (Parla, ``message`` -> ``response``, both "Message a Model"); a four-operation node
(Clientele); a single-tool node (Nimbus); a trigger, a sticky note, a core node, a chat-model sub-node and an
agent tool that could serve any task.
"""

from __future__ import annotations

import base64
import gzip
import json
import sqlite3
import tempfile
from pathlib import Path

from tests.package_builders import build_npm_tgz

BASE = "n8n-nodes-base"
BASE_VERSION = "0.0.1"
WORKFLOWS_PACKAGE = "n8n-mcp"
WORKFLOWS_VERSION = "0.0.1"


def _options(*values: tuple[str, str, str]) -> list[dict]:
    return [{"name": name, "value": value, "action": action} for value, name, action in values]


def _op(default: str, options: list[dict], show: dict) -> dict:
    return {"displayName": "Operation", "name": "operation", "type": "options", "noDataExpression": True,
            "displayOptions": {"show": show}, "options": options, "default": default}  # fmt: skip


def _resource(*values: str, default: str) -> dict:
    return {"displayName": "Resource", "name": "resource", "type": "options", "noDataExpression": True,
            "options": [{"name": v.title(), "value": v} for v in values], "default": default}  # fmt: skip


def _node(name: str, display: str, version, properties: list[dict], **extra) -> dict:
    return {"displayName": display, "name": name, "group": ["transform"], "version": version, "description":
            f"Use {display}", "inputs": ["main"], "outputs": ["main"], "properties": properties, **extra}  # fmt: skip


SHEET_OPS = [("append", "Append", "Append row in sheet"), ("read", "Read", "Get row(s) in sheet")]
NODES = [
    _node("tabula", "Tabula", [1, 2], [
        _resource("sheet", "spreadsheet", default="sheet"),
        _op("read", _options(*SHEET_OPS, ("legacyRead", "Legacy Read", "Read the old way")), {"resource": ["sheet"]}),
        _op("create", _options(("create", "Create", "Create spreadsheet")), {"resource": ["spreadsheet"]}),
    ], defaultVersion=4, usableAsTool=True, codex={"categories": ["Data & Storage"]}),
    _node("tabula", "Tabula", [3, 4], [
        _resource("sheet", "spreadsheet", default="sheet"),
        _op("read", _options(*SHEET_OPS), {"resource": ["sheet"], "@version": [3]}),
        _op("append", _options(*SHEET_OPS, ("clear", "Clear", "Clear sheet")), {"resource": ["sheet"],
                                                                                "@version": [4]}),
        _op("create", _options(("create", "Create", "Create spreadsheet")), {"resource": ["spreadsheet"]}),
    ], defaultVersion=4, usableAsTool=True, codex={"categories": ["Data & Storage"]}),
    _node("postino", "Postino", 1, [
        _resource("message", default="message"),
        _op("send", _options(("send", "Send", "Send a message"), ("get", "Get", "Get a message")),
            {"resource": ["message"]}),
    ], usableAsTool=True, codex={"categories": ["Communication"]}),
    _node("clientele", "Clientele", 1, [
        _resource("contact", default="contact"),
        _op("create", _options(("create", "Create", "Create a contact"), ("get", "Get", "Get a contact"),
                               ("update", "Update", "Update a contact"), ("delete", "Delete", "Delete a contact")),
            {"resource": ["contact"]}),
    ], codex={"categories": ["Sales"]}),
    _node("nimbus", "Nimbus", 1, [{"displayName": "City", "name": "city", "type": "string", "default": ""}],
          codex={"categories": ["Miscellaneous"]}),
    _node("parla", "Parla", 1, [
        _resource("text", default="text"),
        _op("message", _options(("message", "Message a Model", "Message a model")), {"resource": ["text"]}),
    ], defaultVersion=2, codex={"categories": ["Miscellaneous"]}),
    _node("parla", "Parla", 2, [
        _resource("text", default="text"),
        _op("response", _options(("response", "Message a Model", "Message a model")), {"resource": ["text"]}),
    ], defaultVersion=2, codex={"categories": ["Miscellaneous"]}),
    {**_node("tabulaTrigger", "Tabula Trigger", 1, []), "group": ["trigger"], "inputs": []},
    {**_node("stickyNote", "Sticky Note", 1, []), "inputs": [], "outputs": []},
    _node("set", "Edit Fields", 1, [], codex={"categories": ["Core Nodes", "Data Transformation"]}),
    {**_node("lmChatFixture", "Fixture Chat Model", 1, []), "inputs": [], "outputs": ["ai_languageModel"]},
    {**_node("thinker", "Think Tool", 1, []), "inputs": [], "outputs": ["ai_tool"],
     "codex": {"categories": ["AI"], "subcategories": {"AI": ["Tools"]}}},
]  # fmt: skip
GENERIC = f"{BASE}.thinker"


def n(node: str, version: float | None = 1, name: str = "", **parameters) -> dict:
    """A workflow node of the fixture package (``node`` may carry another package's prefix)."""
    node_type = node if "." in node else f"{BASE}.{node}"
    out = {"name": name or node, "type": node_type, "parameters": parameters, "position": [0, 0]}
    if version is not None:
        out["typeVersion"] = version
    return out


STICKY = n("stickyNote", content="## Setup\nConnect your Nimbus key")
TRIGGER = n("tabulaTrigger")
# id, title, description, author, created_at, nodes
TEMPLATES = [
    (101, "Append new leads to Tabula and notify the team with Postino",
     "This workflow appends each new lead to a sheet and sends a short message to the sales team.",
     "alice", "2025-05-10T10:00:00.000Z",
     [TRIGGER, STICKY, n("tabula", 4), n("postinoTool", 1, resource="message", operation="send"), n("set"),
      n("lmChatFixture"), n("n8n-nodes-community.foo"), n(f"{BASE}.gone")]),
    (102, "Read rows from Tabula every morning",
     "Every morning the workflow reads the rows of the planning sheet and prepares a summary for the team.",
     "bob", "2025-06-01T10:00:00.000Z",
     [TRIGGER, n("tabula", 3), n("tabula", 9), n("tabula", 4, operation="bogus"), n("tabula", 4, resource="bogus"),
      n("tabula", 4, operation="={{ $json.op }}"), n("tabula", 1, operation="legacyRead"), n("thinker")]),
    (103, "Back up the Nimbus forecast to Tabula and mail it with Postino",
     "Fetches the forecast, appends it to a sheet and mails it.",
     "carol", "2025-07-01T10:00:00.000Z",
     [n("tabulaTrigger"), n("tabula", 4, name="Append row in sheet"), n("nimbus", name="Weather"),
      n("postino", name="Postino")]),
    (104, "Append new leads to Tabula and notify your team with Postino v2",
     "Leads from the web form land in a sheet; the sales team gets a short note about each one.",
     "alice", "2026-03-01T10:00:00.000Z",
     [TRIGGER, n("tabula", 4, operation="append"), n("postino", resource="message", operation="send")]),
    (105, "Weekly client digest",
     "## 🚀 How it works\n✨ Creates a contact in Clientele and emails a summary with Postino.\n"
     "Type: nimbus\nThe lines above run every Monday.\n\n## ⚙️ Setup\nConnect your Nimbus credentials.\n"
     "Paste your API key in the Nimbus node.\n\n## Need help?\nNeed help? Contact me on https://example.com",
     "dave", "2025-08-01T10:00:00.000Z",
     [TRIGGER, n("clientele", resource="contact", operation="create"), n("postino", operation="send"),
      n("nimbus")]),
    (106, "Clientele MCP server with all 4 operations",
     "Exposes every Clientele operation to AI agents.",
     "erin", "2025-09-01T10:00:00.000Z",
     [n("clientele", operation=op) for op in ("create", "get", "update", "delete")]),
    (107, "Translate chat messages with Parla",
     "This workflow automates veterinary clinic appointment scheduling for animal hospitals and their patients.",
     "frank", "2025-10-01T10:00:00.000Z",
     [TRIGGER, n("parla", 2, resource="text", operation="response")]),
    (108, "Answer customer questions with Parla",
     "Customer questions arrive by form and Parla writes a first answer for the support team to review.",
     "grace", "2026-02-01T10:00:00.000Z",
     [TRIGGER, n("parla", 1, resource="text", operation="message")]),
    (109, "Tidy up incoming records", "Renames the fields of each record.",
     "heidi", "2025-11-01T10:00:00.000Z", [TRIGGER, n("set", mode="manual"), STICKY]),
    (110, "Check the Nimbus forecast for outdoor events",
     "Looks up the forecast of the event city and flags rainy days.",
     "ivan", "2026-01-15T10:00:00.000Z", [TRIGGER, n("nimbus", city="Lisbon")]),
]  # fmt: skip


def encode_workflow(nodes: list[dict]) -> str:
    """A workflow as n8n-mcp stores it: base64 of gzip of its JSON."""
    return base64.b64encode(gzip.compress(json.dumps({"nodes": nodes, "connections": {}}).encode())).decode()


def template_db(templates=TEMPLATES, stored: dict[int, str] | None = None) -> bytes:
    """The bytes of an SQLite file with n8n-mcp's ``templates`` table holding ``templates``; ``stored``: template
    id -> the workflow_json_compressed value to store instead (a broken one)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nodes.db"
        con = sqlite3.connect(path)
        con.execute(
            "CREATE TABLE templates (id INTEGER PRIMARY KEY, workflow_id INTEGER UNIQUE NOT NULL, name TEXT NOT NULL, "
            "description TEXT, author_name TEXT, author_username TEXT, author_verified INTEGER DEFAULT 0, "
            "nodes_used TEXT, workflow_json TEXT, workflow_json_compressed TEXT, categories TEXT, views INTEGER, "
            "created_at DATETIME, updated_at DATETIME, url TEXT, metadata_json TEXT)"
        )
        for tid, title, description, author, created, nodes in templates:
            con.execute(
                "INSERT INTO templates (id, workflow_id, name, description, author_name, author_username, "
                "author_verified, nodes_used, workflow_json_compressed, views, created_at, updated_at, url) "
                "VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)",
                (tid, tid, title, description, author.title(), author, json.dumps([x["type"] for x in nodes]),
                 (stored or {}).get(tid, encode_workflow(nodes)), tid * 10, created, created,
                 f"https://n8n.io/workflows/{tid}"),
            )  # fmt: skip
        con.commit()
        con.close()
        return path.read_bytes()


def build_node_package(mirror: Path) -> Path:
    return build_npm_tgz(mirror, BASE, BASE_VERSION, {"dist/types/nodes.json": json.dumps(NODES)},
                         package_json={"n8n": {"nodes": []}})  # fmt: skip


def build_workflows_package(mirror: Path, templates=TEMPLATES) -> Path:
    return build_npm_tgz(mirror, WORKFLOWS_PACKAGE, WORKFLOWS_VERSION, {"data/nodes.db": template_db(templates)})


SOURCES = (f'sources:\n  - {{platform: n8n, registry: npm, name: "{BASE}", version: "{BASE_VERSION}", '
           "listing: platform}\n")
