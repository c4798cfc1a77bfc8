"""The ToolRecord contract: one row of ``tools.parquet``.

The pydantic model is the source of truth; the polars schema and the checked-in JSON Schema
(``tool_record.schema.json``, written by ``python -m schemas``) are derived from it and tested to
stay in sync.
"""

from __future__ import annotations

from typing import Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field

Platform = Literal["langchain", "crewai", "llamaindex", "n8n", "mcp"]
AuthType = Literal["none", "api_key", "oauth2", "basic", "other"]
# official: an official listing (the MCP reference servers); platform: the platform's own or partner packages;
# community-verified: a third-party package the platform verified (n8n's verified community nodes); community:
# any other third-party package. The score stage's w_src follows the listing (scoring/reliability.py).
Listing = Literal["official", "platform", "community-verified", "community"]
LISTINGS: tuple[str, ...] = Listing.__args__
# the flag a tool carries when the registry metadata the crawl reads marks its package deprecated (npm's
# ``deprecated`` field, a wheel's "Inactive" status); the history's package_deprecated events read it
REGISTRY_DEPRECATED_FLAG = "registry_deprecated"
LinkKind = Literal["doc", "endpoint", "placeholder"]
LinkStatus = Literal["unknown", "ok", "redirect", "client_error", "server_error", "dns_error", "timeout"]
# The fields a reduced copy of a tool's description may not show (n8n-mcp's listing copy keeps only the resource and
# operation options of a node: no other parameter, no credential, no codex, no routing). A field named in a tool's
# ``unknown_fields`` was not shown by its source: ``auth_type`` is then null (and the auth_* lists say nothing),
# the other fields are left empty and mean "not known", never "none" (an unknown ``parameters`` says nothing of
# ``required_parameters`` either). Unknown is not absent.
UnknownField = Literal["auth_type", "parameters", "doc_urls", "endpoints", "http_methods", "categories"]
UNKNOWN_FIELDS: tuple[str, ...] = UnknownField.__args__


class Link(BaseModel):
    """A URL found in a tool's metadata, classified before any network check."""

    model_config = ConfigDict(extra="forbid")

    url: str
    kind: LinkKind
    link_status: LinkStatus = "unknown"
    reason: str = Field("not_checked", description="why the status is what it is, e.g. offline, templated")


class ToolRecord(BaseModel):
    """One agent tool, normalized across platforms."""

    model_config = ConfigDict(extra="forbid")

    tool_id: str = Field(description="platform:package:symbol; stable across runs and version bumps")
    platform: Platform
    listing: Listing = Field(
        description="official listing, the platform's own packages, community verified by the platform, or community"
    )
    package: str
    package_version: str
    source_path: str = Field(description="file inside the package the tool was read from")
    source_symbol: str = Field(description="class, Class.method, toolkit mode or node:resource:operation")
    service: str = Field(description="the external service or integration the tool belongs to, e.g. slack")
    name: str
    display_name: str
    description: str
    parameters: str = Field(description="JSON Schema object (as a JSON string) of the tool's input")
    required_parameters: list[str]
    auth_type: AuthType | None = Field(description="null where the source cannot show it (named in unknown_fields)")
    auth_env_vars: list[str] = Field(description="every environment variable the tool needs (declared or read)")
    auth_env_vars_declared: list[str] = Field(description="env vars the source declares (CrewAI EnvVar, README, ...)")
    auth_env_vars_read: list[str] = Field(description="env vars the code reads (os.getenv, process.env, ...)")
    auth_credentials: list[str] = Field(description="credential types or constructor fields holding secrets")
    endpoints: list[str]
    http_methods: list[str] = Field(description="HTTP methods the tool is known to call (n8n routing), upper case")
    doc_urls: list[str]
    links: list[Link]
    categories: list[str]
    package_dependencies: list[str]
    deprecated: bool
    replacement: str | None = Field(None, description="what the source says to use instead, when deprecated")
    runtime_only: bool = Field(description="the real name or description exists only at run time")
    usable_as_tool: bool | None = Field(None, description="n8n's usableAsTool flag; null elsewhere")
    flags: list[str] = Field(description="how the text was obtained: fstring, inherited, constant_ref, ...")
    unknown_fields: list[UnknownField] = Field(
        default_factory=list,
        description="fields the source could not show (a reduced copy of the tool's description): null or empty "
        "there means unknown, not none",
    )
    listing_npm_downloads: int | None = Field(None, description="the community listing's npm download count")
    listing_author: str | None = Field(None, description="the package's author, as the community listing names it")
    listing_fetched_at: str | None = Field(None, description="when the community listing last read the package")
    duplicate_group: str | None = Field(None, description="shared by tools whose normalized description is equal")
    service_group: str | None = Field(
        None, description="shared by the tools of one service (normalized name) offered by more than one package"
    )
    content_hash: str = Field(description="sha256 of the tool's content, independent of package version")


_SCALARS: dict[str, pl.DataType] = {
    "string": pl.String(),
    "boolean": pl.Boolean(),
    "number": pl.Float64(),
    "integer": pl.Int64(),
}


def _polars_type(prop: dict, defs: dict) -> pl.DataType:
    if "$ref" in prop:
        ref = defs[prop["$ref"].rsplit("/", 1)[-1]]
        return pl.Struct({k: _polars_type(v, defs) for k, v in ref["properties"].items()})
    if "anyOf" in prop:  # Optional[X]: polars columns are nullable anyway
        (inner,) = [p for p in prop["anyOf"] if p.get("type") != "null"]
        return _polars_type(inner, defs)
    if prop.get("type") == "array":
        return pl.List(_polars_type(prop["items"], defs))
    if "enum" in prop or "const" in prop:
        return pl.String()
    return _SCALARS[prop["type"]]


def polars_schema(model: type[BaseModel]) -> pl.Schema:
    """The polars schema of a record model, in field order (derived from its JSON Schema)."""
    js = model.model_json_schema()
    defs = js.get("$defs", {})
    return pl.Schema({name: _polars_type(prop, defs) for name, prop in js["properties"].items()})


def tool_record_json_schema() -> dict:
    return ToolRecord.model_json_schema()


def tool_record_polars_schema() -> pl.Schema:
    """The polars schema of ``tools.parquet``."""
    return polars_schema(ToolRecord)


def records_to_frame(records: list[BaseModel], model: type[BaseModel] = ToolRecord) -> pl.DataFrame:
    return pl.DataFrame([r.model_dump() for r in records], schema=polars_schema(model), orient="row")
