"""What every platform extractor receives and returns.

An extractor is a plain function ``extract(package: PackageFiles) -> Extraction``. It reads only the
bytes in ``package.files`` (static parsing: ``ast`` for Python, ``json`` / a JS parser for npm) and
never imports or runs anything from the package. Normalization (tool ids, hashes, links, dedup) is
done once for all platforms in ``crawlers.normalize``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

AuthType = Literal["none", "api_key", "oauth2", "basic", "other"]


@dataclass(frozen=True)
class PackageFiles:
    """The safely read text members of one downloaded package archive."""

    name: str  # registry name, e.g. "langchain-community" or "@n8n/n8n-nodes-langchain"
    version: str
    registry: Literal["pypi", "npm"]
    files: dict[str, bytes]  # archive path (npm's leading "package/" stripped) -> content
    listing: str = "platform"

    def text(self, path: str) -> str:
        return self.files[path].decode("utf-8", errors="replace")


@dataclass
class ExtractedTool:
    """One tool as an extractor sees it, before normalization.

    ``local_id`` must be unique inside its package and stable across versions: the class name,
    ``Class.method``, ``Class:mode`` or ``node:resource:operation``. The final ``tool_id`` is
    ``platform:package:local_id``.
    """

    local_id: str
    name: str
    description: str
    source_path: str
    display_name: str = ""
    service: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    auth_type: AuthType | None = "none"  # None: the source cannot show it (named in unknown_fields)
    auth_env_vars: list[str] = field(default_factory=list)
    # where the env vars come from: declared by the source (CrewAI EnvVar, README) or read in code
    # (os.getenv, process.env); auth_env_vars is their union plus any the extractor cannot place
    env_vars_declared: list[str] = field(default_factory=list)
    env_vars_read: list[str] = field(default_factory=list)
    auth_credentials: list[str] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)
    http_methods: list[str] = field(default_factory=list)  # upper case, where the source says (n8n routing)
    doc_urls: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    package_dependencies: list[str] = field(default_factory=list)
    deprecated: bool = False
    replacement: str | None = None
    runtime_only: bool = False
    usable_as_tool: bool | None = None
    flags: list[str] = field(default_factory=list)
    # fields the source could not show (schemas.tool_record.UNKNOWN_FIELDS): a reduced copy of the description
    unknown_fields: list[str] = field(default_factory=list)


@dataclass
class Extraction:
    """An extractor's result for one package.

    ``errors`` are (source path, reason) pairs for parts that could not be read (a syntax error in
    one module, say): the rest of the package still counts. ``skipped`` counts things that were
    found but deliberately not emitted as tools, by reason (``trigger``, ``abstract_base``,
    ``runtime_only_no_name``...), so the summary can print the counting rule. ``tables``: rows of side
    tables the crawl writes beside the catalog, keyed by their ``CRAWL_FILES`` name (n8n: every node version's
    actions and defaults); a row's ``local_id`` becomes the catalog ``tool_id`` in the crawl stage.
    """

    tools: list[ExtractedTool] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    tables: dict[str, list[dict]] = field(default_factory=dict)
