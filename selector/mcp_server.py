"""The selector as an MCP server: ``python -m selector mcp --release DIR|URL [--transport stdio|http]``.

Two tools, over stdio or streamable HTTP (the official ``mcp`` SDK):

- ``search_tools(query, limit=5)``: the seed's on-demand variant. The same permission filter, hybrid ranking and token
  budget as ``POST /select``; the chosen catalog tools come back as MCP tool descriptions (``name``,
  ``description``, ``inputSchema``, annotations from the side-effect tier, the catalog id, scope and tier under
  ``_meta``), in ``structuredContent.tools`` and as JSON text.
- ``authorize(tool_id, policy="veto", consent=False)``: the execution-time decision (scope, then the POLAR tier).

The caller's scopes: over HTTP with bearer tokens (``ECOAGENT_SELECTOR_TOKENS``, a JSON object ``{token: [scope,
...]}`` in the environment) the scopes of the request's token, a request without a valid token being refused
(401); otherwise the server's ``--scope`` list (stdio: the one local caller). A tool the caller may not use is
filtered out before scoring, as everywhere in the selector.

Release swaps: the release's parent folder (a local folder or the store's ``release/`` on object storage, where a
release is there once its manifest is) is polled every ``--watch-interval`` seconds. A newer version that
verifies against its manifest replaces the served one (tool vectors from the embedding cache, the query encoder kept)
and every client is sent ``notifications/tools/list_changed`` (the ``search_tools`` description names the release,
so the list did change); a tampered one is refused with one log line and the current release stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Literal
from weakref import WeakKeyDictionary

from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as McpTool
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from ecoagent.layout import RELEASE_FILES
from ecoagent.release_format.integrity import ReleaseIntegrityError
from ecoagent.release_format.reader import ReleaseUnreadable
from ecoagent.store import ArtifactStore
from selector.authorize import IRREVERSIBLE_BAND, Authorizer
from selector.batching import QueryBatcher, batcher_for, select_async
from selector.meta_tool import DEFAULT_LIMIT, MAX_LIMIT
from selector.registry import Tool, UnknownTenant
from selector.scopes import UnknownScope
from selector.select import EmptyQuery, SelectorConfig, ToolSelector

logger = logging.getLogger(__name__)

TOKENS_ENV = "ECOAGENT_SELECTOR_TOKENS"
MAX_QUERY_CHARS = 8000


@dataclass
class Served:
    """The release being served: swapped whole, so a request sees one release from start to end."""

    folder: str  # a local path or the store's URL
    version: str
    selector: ToolSelector
    authorizer: Authorizer


@dataclass
class McpSettings:
    release: str | Path  # a release folder or its store URL
    selector: SelectorConfig = field(default_factory=SelectorConfig)  # the selector's settings
    scopes: tuple[str, ...] = ()  # the caller's scopes when no token gives them
    dense_model: str | None = None  # None: the selector's default
    cache_dir: Path | None = None
    encoder_threads: int = 1
    watch_interval: float = 30.0  # seconds between looks for a newer release; 0: never look


def mcp_tool(tool: Tool) -> dict:
    """A catalog tool as an MCP tool description (what ``tools/list`` would show for it)."""
    schema = tool.definition()["function"]["parameters"]
    if schema.get("type") != "object":
        schema = {"type": "object", "properties": {}}
    annotations = ToolAnnotations(read_only_hint=tool.side_effect == "read_only",
                                  destructive_hint=tool.side_effect in IRREVERSIBLE_BAND)  # fmt: skip
    meta = {"ecoagent/tool_id": tool.tool_id, "ecoagent/permission_scope": tool.permission_scope,
            "ecoagent/side_effect": tool.side_effect}  # fmt: skip
    described = McpTool(name=tool.name, description=tool.description, input_schema=schema, annotations=annotations,
                        _meta=meta)  # fmt: skip
    return described.model_dump(by_alias=True, exclude_none=True, mode="json")


def tokens_from_environment() -> dict[str, list[str]] | None:
    """``{bearer token: scopes}`` from ``ECOAGENT_SELECTOR_TOKENS``; None when it is not set."""
    raw = os.environ.get(TOKENS_ENV)
    if not raw:
        return None
    try:
        tokens = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{TOKENS_ENV} is not JSON ({exc.msg}): expected {{\"token\": [\"scope\", ...]}}") from None
    if not isinstance(tokens, dict) or not all(isinstance(s, list) for s in tokens.values()):
        raise ValueError(f'{TOKENS_ENV} must be a JSON object {{"token": ["scope", ...]}}')
    return {str(token): [str(s) for s in scopes] for token, scopes in tokens.items()}


class StaticTokens:
    """The SDK's ``TokenVerifier`` over a fixed token table: a token's scopes are the caller's permission scopes."""

    def __init__(self, tokens: dict[str, list[str]]):
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        scopes = self.tokens.get(token)
        return None if scopes is None else AccessToken(token=token, client_id="selector-client", scopes=scopes)


def release_version(folder: str | Path) -> str:
    release = ArtifactStore(str(folder))
    return str(release.read_json(RELEASE_FILES.manifest).get("version", release.url().rsplit("/", 1)[-1]))


def manifest_key(folder: str) -> tuple[str, int]:
    """A release as it is now (its URL, its manifest's version token): a refused release is looked at again once it
    is written again."""
    return folder, ArtifactStore(folder).checksum(RELEASE_FILES.manifest)


def _version_key(version: str) -> tuple:
    from packaging.version import InvalidVersion, Version

    try:
        return (1, Version(version.removeprefix("v")))
    except InvalidVersion:
        return (0, version)


def newer_release(current: Served, refused: set[tuple[str, int]]) -> str | None:
    """The newest release beside the served one whose version is above it, unless refused already (hidden folders
    are copies being promoted, a folder without its manifest is not committed yet)."""
    served = ArtifactStore(current.folder).url()
    releases = ArtifactStore(served.rsplit("/", 1)[0])
    best = None
    for name in releases.folders():
        folder = releases.url(name)
        if folder == served or name.startswith(".") or not releases.exists(name, RELEASE_FILES.manifest):
            continue
        try:
            if manifest_key(folder) in refused:
                continue
            version = release_version(folder)
        except (OSError, ValueError):
            continue
        if _version_key(version) > _version_key(current.version) and (
                best is None or _version_key(version) > _version_key(best[1])):  # fmt: skip
            best = (folder, version)
    return best[0] if best else None


class SelectorMcp:
    """The MCP server over a served release, with the release watcher and the query batcher."""

    def __init__(self, settings: McpSettings, tokens: dict[str, list[str]] | None = None):
        self.settings = settings
        self.tokens = tokens
        self.refused: set[tuple[str, float]] = set()
        self.sessions: WeakKeyDictionary = WeakKeyDictionary()  # handshake-era clients: connection -> session
        self.served = self._load(settings.release, encoder=None)
        self.batcher: QueryBatcher | None = batcher_for(self.served.selector)
        self.server = self._build()

    def _load(self, folder: str | Path, encoder) -> Served:
        s = self.settings
        kwargs = {"dense_model": s.dense_model} if s.dense_model else {}
        selector = ToolSelector.from_release(folder, s.selector, cache_dir=s.cache_dir, encoder=encoder,
                                             encoder_threads=s.encoder_threads, **kwargs)  # fmt: skip
        return Served(str(folder), selector.registry.version or release_version(folder), selector,
                      Authorizer(selector.registry))  # fmt: skip

    def search_description(self) -> str:
        return (f"Search the {len(self.served.selector.registry):,} tools of EcoAgent release {self.served.version} "
                "for tools that can do a task, and get their definitions. Describe the task in a few words (e.g. "
                "'post a message to a Slack channel'). Only tools your scopes allow are searched.")  # fmt: skip

    def caller_scopes(self) -> list[str]:
        token = get_access_token()
        return list(token.scopes) if token is not None else list(self.settings.scopes)

    def _build(self) -> MCPServer:
        self.bus = InMemorySubscriptionBus()
        auth = {}
        if self.tokens is not None:
            url = "http://127.0.0.1"
            auth = {"token_verifier": StaticTokens(self.tokens),
                    "auth": AuthSettings(issuer_url=url, resource_server_url=f"{url}/mcp")}  # fmt: skip
        server = MCPServer("ecoagent-tool-selector", version=self.served.version, subscriptions=self.bus,
                           instructions="Call search_tools to find the tools for a task; call authorize before "
                                        "running one.", **auth)  # fmt: skip
        server.add_tool(self._search_tools, name="search_tools", description=self.search_description())
        server.add_tool(self._authorize, name="authorize",
                        description="Decide whether the caller may run a catalog tool now: its scope first, then "
                                    "the reversibility policy (veto, escalate with consent, advisory).")  # fmt: skip
        return server

    def _remember_session(self, ctx: Context | None) -> None:
        """A handshake-era client's session, kept per connection (the request's session proxy can still notify on
        the connection's own stream after the request); 2026-07-28 clients hear of changes on their listen streams."""
        with contextlib.suppress(TypeError, ValueError, AttributeError):  # no request context (in-process calls)
            request = ctx.request_context
            if request.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                self.sessions[getattr(request.session, "_connection", request.session)] = request.session

    async def _search_tools(
        self,
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="what the tool should do")],
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="how many tools at most")] = DEFAULT_LIMIT,
        ctx: Context | None = None,
    ):
        self._remember_session(ctx)
        served = self.served
        try:
            selection = await select_async(served.selector, self.batcher, query, None, self.caller_scopes(),
                                           max_tools=limit)
        except (UnknownScope, UnknownTenant, EmptyQuery, ValueError) as exc:
            return CallToolResult(content=[TextContent(text=str(exc))], is_error=True)
        chosen = [served.selector.registry.tool(t) for t in selection.tool_ids]
        payload = {"release": served.version, "tokens": selection.tokens, "tools": [mcp_tool(t) for t in chosen]}
        return CallToolResult(content=[TextContent(text=json.dumps(payload))], structured_content=payload)

    async def _authorize(
        self,
        tool_id: Annotated[str, Field(min_length=1, max_length=500, description="the catalog id (_meta)")],
        policy: Literal["veto", "escalate", "advisory"] = "veto",
        consent: bool = False,
        ctx: Context | None = None,
    ):
        self._remember_session(ctx)
        try:
            decision = asdict(self.served.authorizer.authorize(tool_id, self.caller_scopes(), policy, consent))
        except (UnknownScope, UnknownTenant) as exc:
            return CallToolResult(content=[TextContent(text=str(exc))], is_error=True)
        return CallToolResult(content=[TextContent(text=json.dumps(decision))], structured_content=decision)

    # -- release swaps -------------------------------------------------------------------------------------------

    async def check_for_release(self) -> bool:
        """Swap in a newer verified release if there is one; True when the served release changed."""
        folder = await asyncio.to_thread(newer_release, self.served, self.refused)
        if folder is None:
            return False
        try:
            served = await asyncio.to_thread(self._load, folder, self.served.selector.encoder)
        except (ReleaseIntegrityError, ReleaseUnreadable, ValueError) as exc:
            self.refused.add(manifest_key(folder))
            logger.warning("release %s refused, still serving %s: %s", folder, self.served.version, exc)
            return False
        self.served = served
        self.server.remove_tool("search_tools")
        self.server.add_tool(self._search_tools, name="search_tools", description=self.search_description())
        logger.info("now serving release %s (%s); telling clients the tool list changed", served.version, folder)
        await self.notify_tools_changed()
        return True

    async def notify_tools_changed(self) -> None:
        await self.bus.publish(ToolsListChanged())  # 2026-07-28 clients: their subscriptions/listen streams
        for connection, session in list(self.sessions.items()):  # handshake-era clients: on their connection
            try:
                await session.send_tool_list_changed()
            except Exception as exc:  # a closed connection: it will not hear about it, the others still do
                logger.info("list_changed not delivered to a closed connection: %s", exc)
                self.sessions.pop(connection, None)

    async def watch(self) -> None:
        while self.settings.watch_interval > 0:
            await asyncio.sleep(self.settings.watch_interval)
            try:
                await self.check_for_release()
            except OSError as exc:  # the releases folder went away for a moment: look again next time
                logger.warning("looking for a newer release failed: %s", exc)

    # -- running --------------------------------------------------------------------------------------------------

    async def run_stdio(self) -> None:
        watcher = asyncio.create_task(self.watch())
        try:
            await self.server.run_stdio_async()
        finally:
            watcher.cancel()

    async def run_http(self, host: str, port: int, path: str = "/mcp") -> None:
        import uvicorn

        app = self.server.streamable_http_app(streamable_http_path=path, host=host)
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
        watcher = asyncio.create_task(self.watch())
        try:
            await server.serve()
        finally:
            watcher.cancel()


def scopes_argument(values: Sequence[str]) -> tuple[str, ...]:
    """``--scope a,b --scope c`` -> ``("a", "b", "c")``."""
    return tuple(s.strip() for value in values for s in value.split(",") if s.strip())
