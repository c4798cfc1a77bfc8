"""The selector as a small HTTP service: POST /select, /authorize, /search_tools; GET /health.

Bad input is a 4xx with a message that says what is wrong, never a 500, and never the offending input echoed
back (:class:`BodyGuard`, in front of everything):

- a body over ``max_body_bytes`` gets 413, whether the client declared its length or streams it chunked: the
  guard counts bytes as they arrive and stops reading at the limit (the connection is then closed, since the
  rest of the body is never read);
- JSON that Python would accept but JSON does not (``NaN``, ``Infinity``, numbers that overflow to infinity, an
  integer of thousands of digits), text with an unpaired surrogate (``"\\ud800"``: not Unicode, cannot be
  encoded), nesting too deep to parse, or a body that is not JSON at all gets 422 naming the field;
- field limits (query length, budget > 0, list sizes) give 422 through pydantic, without the input in the reply,
  and unknown scopes, tenants or an empty query give 422 from the library's own errors.

A 4xx other than 413 keeps the connection open for the client's next request. The OpenAPI spec is at
/openapi.json.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from starlette import types as asgi

from selector.authorize import Authorizer, Decision, Policy
from selector.batching import QueryBatcher, search_async, select_async
from selector.meta_tool import DEFAULT_LIMIT, MAX_LIMIT, SearchTools
from selector.registry import UnknownTenant, UnknownTool
from selector.scopes import UnknownScope
from selector.select import EmptyQuery, TaskState, ToolSelector

MAX_QUERY_CHARS = 8000
MAX_BODY_BYTES = 256 * 1024

Query = Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS, pattern=r"\S")]
Scope = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Text = Annotated[str, StringConstraints(max_length=MAX_QUERY_CHARS)]
Id = Annotated[str, StringConstraints(min_length=1, max_length=500)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskStateIn(Strict):
    goal: Text = ""
    plan: list[Text] = Field(default_factory=list, max_length=50)
    history: list[Text] = Field(default_factory=list, max_length=50, description="earlier messages, oldest first")
    recent_tools: list[Id] = Field(default_factory=list, max_length=100, description="tool ids already called")


class SelectRequest(Strict):
    query: Query = Field(description="the last user message (non-blank)")
    task_state: TaskStateIn | None = None
    caller_scopes: list[Scope] = Field(default_factory=list, max_length=500,
                                       description="'svc.action', 'svc.*', '*.action' or '*'")
    token_budget: int | None = Field(None, gt=0, le=10_000_000, description="prompt tokens for tool definitions")
    tenant: Id | None = None


class SelectResponse(BaseModel):
    tool_ids: list[str]
    tokens: int
    query: str
    core: list[str]
    selection_id: str | None = None


class AuthorizeRequest(Strict):
    tool_id: Id
    caller_scopes: list[Scope] = Field(default_factory=list, max_length=500)
    policy: Policy = Policy.VETO
    consent: bool = False
    tenant: Id | None = None
    selection_id: Annotated[str, StringConstraints(max_length=64)] | None = Field(
        None, description="the selection this call came from, for the evaluation log")


class SearchToolsRequest(Strict):
    query: Query
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT)
    caller_scopes: list[Scope] = Field(default_factory=list, max_length=500)
    tenant: Id | None = None


class SearchToolsResponse(BaseModel):
    tools: list[dict]


class Error(BaseModel):
    detail: str


ERRORS = {413: {"model": Error, "description": "request body too large"},
          422: {"description": "invalid input: unknown scope or tenant, empty query, a field out of range, "
                               "NaN or Infinity, text that is not valid Unicode, a body that is not JSON"}}


class BadBody(ValueError):
    """A request body the service refuses before any handler sees it; the message names the field."""


def _check_values(value: Any, where: str) -> None:
    """Every number of the parsed body must be finite, every string (keys too) encodable Unicode."""
    if isinstance(value, float) and not math.isfinite(value):
        raise BadBody(f"{where}: NaN and Infinity are not JSON numbers (nor is a number that overflows to "
                      "infinity); send a finite number")  # fmt: skip
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BadBody(f"{where}: text is not valid Unicode (an unpaired UTF-16 surrogate escape)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_values(key, f"{where}: a key")
            _check_values(item, f"{where}.{key[:60]}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_values(item, f"{where}[{i}]")


def check_json_body(body: bytes) -> None:
    """Raise :class:`BadBody` unless ``body`` is strict JSON (RFC 8259) whose text is all valid Unicode."""
    try:
        parsed = json.loads(body)  # Python's parser takes NaN / Infinity and 1e400 (= inf): checked below
    except json.JSONDecodeError as exc:
        raise BadBody(f"body is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise BadBody("body is nested too deeply") from None
    except ValueError as exc:  # not UTF-8/16/32, or an integer past Python's digit limit
        what = "a number has too many digits" if "digits" in str(exc) else "it is not UTF-8 text"
        raise BadBody(f"body is not valid JSON: {what}") from None
    _check_values(parsed, "body")


class BodyGuard:
    """ASGI middleware: bounds every request body while it streams in, and refuses what is not strict JSON.

    The body is read here, chunk by chunk, up to ``max_body_bytes`` (a declared Content-Length over the limit
    is refused before reading anything; a chunked body is refused as soon as the count passes it), checked with
    :func:`check_json_body` when it is JSON, and handed to the app as one message. At most ``max_body_bytes``
    plus one chunk is ever held in memory.
    """

    def __init__(self, app: asgi.ASGIApp, max_body_bytes: int = 256 * 1024) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: asgi.Scope, receive: asgi.Receive, send: asgi.Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body_bytes):
            await self._refuse(send, 413, f"request body over {self.max_body_bytes} bytes", close=True)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:  # stop reading: the rest of a 60 MB body is never taken in
                await self._refuse(send, 413, f"request body over {self.max_body_bytes} bytes", close=True)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and "json" in headers.get("content-type", "application/json"):
            try:
                check_json_body(body)
            except BadBody as exc:
                await self._refuse(send, 422, str(exc))
                return
        replayed = False

        async def replay() -> asgi.Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _refuse(send: asgi.Send, status: int, detail: str, close: bool = False) -> None:
        payload = json.dumps({"detail": detail}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        if close:
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
    # FastAPI's own handler echoes each bad value back ("input"); the client has it, and echoing hostile text
    # is how a 422 turned into a 500. Location, message and type say what to fix.
    errors = [{k: e[k] for k in ("loc", "msg", "type") if k in e} for e in exc.errors()]
    return JSONResponse({"detail": jsonable_encoder(errors)}, status_code=422)


def create_app(
    selector: ToolSelector,
    authorizer: Authorizer | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    batcher: QueryBatcher | None = None,
) -> FastAPI:
    """The service over one selector; ``batcher`` encodes concurrent requests' queries together (None: each
    request encodes its own, inline)."""
    app = FastAPI(title="EcoAgent tool selector", version=selector.registry.version or "0",
                  description="Permission-filtered hybrid tool selection with a token budget, and "
                              "execution-time authorization with a reversibility policy.")
    authorizer = authorizer or Authorizer(selector.registry)
    search = SearchTools(selector)
    app.add_middleware(BodyGuard, max_body_bytes=max_body_bytes)
    app.add_exception_handler(RequestValidationError, _validation_error)

    def unprocessable(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    for error in (UnknownScope, UnknownTenant, EmptyQuery):
        app.add_exception_handler(error, unprocessable)

    @app.get("/health")
    def health() -> dict:
        return {"status": "ok", "tools": len(selector.registry), "version": selector.registry.version,
                "rankers": list(selector.settings.rankers)}

    # async handlers: checking, ranking and packing take well under a millisecond and run on the event loop; the
    # query encoding is awaited from the batcher's thread, so a request waiting for it holds no worker thread
    @app.post("/select", response_model=SelectResponse, responses=ERRORS)
    async def select(body: SelectRequest) -> SelectResponse:
        state = TaskState(**body.task_state.model_dump()) if body.task_state else None
        result = await select_async(selector, batcher, body.query, state, body.caller_scopes, body.token_budget,
                                    body.tenant)  # fmt: skip
        return SelectResponse(tool_ids=result.tool_ids, tokens=result.tokens, query=result.query, core=result.core,
                              selection_id=result.selection_id)

    @app.post("/authorize", response_model=Decision, responses={**ERRORS, 404: {"model": Error}})
    def authorize(body: AuthorizeRequest):
        if body.tool_id not in selector.registry.row_of:
            return JSONResponse({"detail": str(UnknownTool(body.tool_id))}, status_code=404)
        decision = authorizer.authorize(body.tool_id, body.caller_scopes, body.policy, body.consent, body.tenant)
        if selector.log is not None:
            selector.log.record_call(body.selection_id, body.tool_id)
        return decision

    @app.post("/search_tools", response_model=SearchToolsResponse, responses=ERRORS)
    async def search_tools(body: SearchToolsRequest) -> SearchToolsResponse:
        tools = await search_async(search, batcher, {"query": body.query, "limit": body.limit}, body.caller_scopes,
                                   body.tenant)  # fmt: skip
        return SearchToolsResponse(tools=tools)

    @app.get("/search_tools/definition")
    def search_tools_definition() -> dict:
        from selector.meta_tool import SEARCH_TOOLS_DEFINITION

        return SEARCH_TOOLS_DEFINITION

    return app
