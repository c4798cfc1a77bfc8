"""The selector as a small HTTP service: POST /select, /authorize, /search_tools; GET /health.

Bad input is a 4xx with a message that says what is wrong, never a 500: request bodies over
``max_body_bytes`` are refused with 413 before they are parsed, field limits (query length, budget
> 0, list sizes) give 422 through pydantic, and unknown scopes, tenants or an empty query give 422
from the library's own errors. The OpenAPI spec is at /openapi.json.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from selector.authorize import Authorizer, Decision, Policy
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
          422: {"description": "invalid input: unknown scope or tenant, empty query, a field out of range"}}


def create_app(
    selector: ToolSelector, authorizer: Authorizer | None = None, max_body_bytes: int = MAX_BODY_BYTES
) -> FastAPI:
    app = FastAPI(title="EcoAgent tool selector", version=selector.registry.version or "0",
                  description="Permission-filtered hybrid tool selection with a token budget, and "
                              "execution-time authorization with a reversibility policy.")
    authorizer = authorizer or Authorizer(selector.registry)
    search = SearchTools(selector)

    @app.middleware("http")
    async def limit_body(request: Request, call_next):
        # refuse before parsing: a 1 MB query should cost a header check, not a JSON parse
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > max_body_bytes):
            return JSONResponse({"detail": f"request body over {max_body_bytes} bytes"}, status_code=413)
        return await call_next(request)

    def unprocessable(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    for error in (UnknownScope, UnknownTenant, EmptyQuery):
        app.add_exception_handler(error, unprocessable)

    @app.get("/health")
    def health() -> dict:
        return {"status": "ok", "tools": len(selector.registry), "version": selector.registry.version,
                "rankers": list(selector.config.rankers)}

    @app.post("/select", response_model=SelectResponse, responses=ERRORS)
    def select(body: SelectRequest) -> SelectResponse:
        state = TaskState(**body.task_state.model_dump()) if body.task_state else None
        result = selector.select_detailed(body.query, state, body.caller_scopes, body.token_budget, body.tenant)
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
    def search_tools(body: SearchToolsRequest) -> SearchToolsResponse:
        tools = search({"query": body.query, "limit": body.limit}, body.caller_scopes, body.tenant)
        return SearchToolsResponse(tools=tools)

    @app.get("/search_tools/definition")
    def search_tools_definition() -> dict:
        from selector.meta_tool import SEARCH_TOOLS_DEFINITION

        return SEARCH_TOOLS_DEFINITION

    return app
