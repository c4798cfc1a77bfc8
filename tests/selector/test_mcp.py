"""The MCP server through the official SDK's own client, over stdio and streamable HTTP, in real processes.

Each test serves a real release folder (the release builder's tiny releases: 1.0.0 with 8 tools, 1.1.0 with 10),
lists the tools, calls ``search_tools`` and ``authorize``, checks that no tool outside the caller's scopes comes
back, then drops the newer release beside the served one and waits for ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from ecoagent.runtime.processes import tied_command
from tests.release.tampering import TOOLS_FILE, make_first_tool_harmless
from tests.release.tiny_release import build_release_pair

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
SERVE = [sys.executable, "-m", "selector", "mcp", "--rankers", "bm25", "--watch-interval", "0.5"]
INVOICE, REPOSITORY = "mcp:@modelcontextprotocol/server-demo:tool_0", "mcp:@modelcontextprotocol/server-demo:tool_3"
WAIT_S = 120  # a safety net against a hang, not a timing check


@pytest.fixture(scope="module")
def staging(tmp_path_factory) -> Path:
    """Release 1.0.0 (tools 0-7) and 1.1.0 (tools 0-9) under staging/release/."""
    root = tmp_path_factory.mktemp("staging")
    build_release_pair(root)
    return root / "release"


@pytest.fixture
def served(staging, tmp_path) -> Path:
    """A releases folder holding 1.0.0 only; returns the folder of 1.0.0 (the one to serve)."""
    shutil.copytree(staging / "1.0.0", tmp_path / "release" / "1.0.0")
    return tmp_path / "release" / "1.0.0"


def scopes_of(result) -> set[str]:
    return {t["_meta"]["ecoagent/permission_scope"] for t in result.structured_content["tools"]}


async def check_session(client: Client, scopes: set[str], staging: Path, served: Path) -> None:
    """List, search, authorize, then swap in 1.1.0 and hear list_changed; ``scopes``: what the caller holds."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"search_tools", "authorize"} and "release 1.0.0" in tools["search_tools"].description
    assert tools["search_tools"].input_schema["properties"]["query"]["type"] == "string"

    for query in ("manage invoice records", "repository records", "create list delete"):
        found = await client.call_tool("search_tools", {"query": query, "limit": 5})
        assert not found.is_error and found.structured_content["release"] == "1.0.0"
        assert scopes_of(found) <= scopes  # nothing the caller's scopes forbid, whatever the query
        for tool in found.structured_content["tools"]:
            assert {"name", "description", "inputSchema"} <= set(tool)
    best = (await client.call_tool("search_tools", {"query": "manage invoice records"})).structured_content["tools"]
    assert best and best[0]["name"] == "invoice_tool"

    allowed = (await client.call_tool("authorize", {"tool_id": INVOICE})).structured_content
    denied = (await client.call_tool("authorize", {"tool_id": REPOSITORY, "policy": "advisory"})).structured_content
    assert allowed["allowed"] is True
    assert denied["allowed"] is ("*" in scopes or "repository.read" in scopes)

    with anyio.fail_after(WAIT_S):
        async with client.listen(tools_list_changed=True) as changes:
            shutil.copytree(staging / "1.1.0", served.parent / "1.1.0")
            async for event in changes:
                assert type(event).__name__ == "ToolsListChanged"
                break
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert "release 1.1.0" in tools["search_tools"].description
    found = await client.call_tool("search_tools", {"query": "manage webhook records"})  # a tool new in 1.1.0
    assert found.structured_content["release"] == "1.1.0" and scopes_of(found) <= scopes


def test_stdio_search_authorize_and_list_changed(staging, served):
    params = StdioServerParameters(command=SERVE[0], args=[*SERVE[1:], "--release", str(served),
                                                           "--scope", "invoice.read,calendar.read"],
                                   env=ENV, cwd=str(REPO))  # fmt: skip

    async def session() -> None:
        async with Client(params) as client:
            await check_session(client, {"invoice.read", "calendar.read"}, staging, served)

    anyio.run(session)


def test_a_handshake_era_client_gets_list_changed_on_its_session(staging, served):
    """A client on the initialize handshake (2025-11-25) has no listen stream: the notification comes unasked."""
    params = StdioServerParameters(command=SERVE[0], args=[*SERVE[1:], "--release", str(served), "--scope", "*"],
                                   env=ENV, cwd=str(REPO))  # fmt: skip

    async def session() -> None:
        changed = anyio.Event()

        async def on_message(message) -> None:
            if getattr(message, "method", None) == "notifications/tools/list_changed":
                changed.set()

        async with Client(params, mode="legacy", message_handler=on_message) as client:
            assert client.protocol_version < "2026"
            assert (await client.call_tool("search_tools", {"query": "invoice"})).structured_content["tools"]
            shutil.copytree(staging / "1.1.0", served.parent / "1.1.0")
            with anyio.fail_after(WAIT_S):
                await changed.wait()
            assert "release 1.1.0" in {t.name: t for t in (await client.list_tools()).tools}["search_tools"].description

    anyio.run(session)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen) -> None:
    for _ in range(WAIT_S * 10):
        if process.poll() is not None:
            raise AssertionError(f"the MCP server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the MCP server did not listen")


def test_http_takes_the_scopes_of_the_bearer_token(staging, served):
    port = _free_port()
    tokens = {"invoice-agent": ["invoice.read"], "admin": ["*"]}
    command = [*SERVE, "--release", str(served), "--transport", "http", "--port", str(port)]
    process = subprocess.Popen(tied_command(command), env={**ENV, "ECOAGENT_SELECTOR_TOKENS": json.dumps(tokens)},
                               cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"

    def client(token: str | None) -> Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=60)))

    async def sessions() -> None:
        async with client("admin") as admin:
            everything = await admin.call_tool("search_tools", {"query": "records", "limit": 20})
            assert len(everything.structured_content["tools"]) == 8  # all of 1.0.0
        with pytest.raises(Exception):  # noqa: B017 -- no token: the SDK's bearer middleware answers 401
            async with client(None) as anonymous:
                await anonymous.list_tools()
        async with client("invoice-agent") as agent:
            await check_session(agent, {"invoice.read"}, staging, served)

    try:
        _wait_for_port(port, process)
        anyio.run(sessions)
    finally:
        process.terminate()
        process.wait(30)


def test_a_tampered_release_is_refused_at_start_and_when_it_would_replace_the_served_one(staging, served, capsys):
    from selector.__main__ import main
    from selector.mcp_server import McpSettings, SelectorMcp
    from selector.select import SelectorConfig

    tampered = served.parent / "1.1.0"
    shutil.copytree(staging / "1.1.0", tampered)
    make_first_tool_harmless(tampered)
    assert main(["mcp", "--release", str(tampered), "--rankers", "bm25"]) == 1
    err = capsys.readouterr().err
    assert TOOLS_FILE in err and "does not match its manifest" in err

    server = SelectorMcp(McpSettings(served, SelectorConfig(rankers=("bm25",)), watch_interval=0))
    assert anyio.run(server.check_for_release) is False  # refused: 1.0.0 stays
    assert server.served.version == "1.0.0" and len(server.refused) == 1
    assert anyio.run(server.check_for_release) is False  # and not read again until it changes


def test_a_release_in_the_store_on_object_storage_is_served_and_swapped(staging, tmp_path, monkeypatch):
    """``--release`` takes the store's URL (an S3 server the test starts, moto on 127.0.0.1): the release is read from
    there, and a newer one counts once its manifest (the file that commits it, uploaded last) is there."""
    from ecoagent.layout import RELEASE_FILES
    from ecoagent.store import ArtifactStore
    from selector.mcp_server import McpSettings, SelectorMcp
    from selector.select import SelectorConfig
    from tests.object_store import BUCKET, s3_server

    monkeypatch.setenv("ECOAGENT_RELEASE_CACHE", str(tmp_path / "release-copies"))
    releases = f"s3://{BUCKET}/eco/release"
    with s3_server():
        store = ArtifactStore(releases)
        for rel in ArtifactStore(str(staging / "1.0.0")).files():
            store.fs.put_file(str(staging / "1.0.0" / rel), store.path("1.0.0", rel))
        server = SelectorMcp(McpSettings(f"{releases}/1.0.0", SelectorConfig(rankers=("bm25",)), watch_interval=0))
        assert (server.served.version, server.served.folder) == ("1.0.0", f"{releases}/1.0.0")
        newer = sorted(ArtifactStore(str(staging / "1.1.0")).files(), key=lambda rel: rel == RELEASE_FILES.manifest)
        for rel in newer[:-1]:
            store.fs.put_file(str(staging / "1.1.0" / rel), store.path("1.1.0", rel))
        assert anyio.run(server.check_for_release) is False  # 1.1.0 has no manifest yet: not committed
        store.fs.put_file(str(staging / "1.1.0" / newer[-1]), store.path("1.1.0", newer[-1]))
        assert anyio.run(server.check_for_release) is True
        assert (server.served.version, server.served.folder) == ("1.1.0", f"{releases}/1.1.0")
        assert len(server.served.selector.registry) == 10
