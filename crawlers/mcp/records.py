"""Package-level facts of one MCP server and the tools built from what a reader found.

Both readers (``js_server`` for npm tarballs, ``py_server`` for PyPI wheels) find ``Found`` tools and
the package-wide ``ServerFacts`` (one server process serves every tool, so credentials, endpoints and
links are the package's); ``add_tools`` turns them into ``ExtractedTool``s with one set of rules:
unresolved names and repeated names are skipped by reason, deprecation comes from the registry, the
README or the tool's own description.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from crawlers.base import AuthType, ExtractedTool, Extraction
from schemas.tool_record import REGISTRY_DEPRECATED_FLAG

_DESC_DEPRECATED_RE = re.compile(r"\bdeprecated\b", re.I)
_DESC_REPLACEMENT_RE = re.compile(r"\buse\s+`?([A-Za-z0-9_\-]+)`?\s+instead", re.I)
_REGISTRY_REPLACEMENT_RE = re.compile(r"\b(?:use|moved to|replaced by|see)\s+`?([@\w./:-]+)`?", re.I)


@dataclass
class Found:
    """A tool as read from the source, before package-level metadata is added."""

    name: str
    title: str | None
    description: str | None
    parameters: dict[str, Any]
    source_path: str
    flags: set[str]


@dataclass
class ServerFacts:
    """What holds for every tool of one server package."""

    service: str
    auth_type: AuthType = "none"
    env_read: list[str] = field(default_factory=list)  # credential-like names the code reads
    env_declared: list[str] = field(default_factory=list)  # credential-like names the README declares
    endpoints: list[str] = field(default_factory=list)
    doc_urls: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)
    registry_deprecated: Any = None  # npm's free-text ``deprecated`` field, or a wheel's "Inactive" status
    readme_deprecated: bool = False
    readme_replacement: str | None = None


def add_tools(found: list[Found], facts: ServerFacts, result: Extraction) -> None:
    """Append one ExtractedTool per found tool to ``result``; the first of a repeated name wins."""
    seen: set[str] = set()
    for item in found:
        if "unresolved_name" in item.flags:
            result.skipped["unresolved_name"] += 1
            continue
        if item.name in seen:
            result.skipped["duplicate_name"] += 1
            continue
        seen.add(item.name)
        flags = set(item.flags) - {"partial_value"} | ({"partial_schema"} if "partial_value" in item.flags else set())
        deprecated, replacement = False, None
        if facts.registry_deprecated:
            deprecated = True
            flags.add(REGISTRY_DEPRECATED_FLAG)  # package-level, from the registry: the history tells it apart
            # npm's field is a free-text message; only a "use X instead" names a replacement
            hint = (
                _REGISTRY_REPLACEMENT_RE.search(facts.registry_deprecated)
                if isinstance(facts.registry_deprecated, str)
                else None
            )
            replacement = hint.group(1).rstrip(".,") if hint else None
        elif facts.readme_deprecated:
            deprecated, replacement = True, facts.readme_replacement
            flags.add("readme_deprecated")
        text = f"{item.title or ''} {item.description or ''}"
        if not deprecated and _DESC_DEPRECATED_RE.search(text):
            deprecated = True
            flags.add("description_deprecated")
            match = _DESC_REPLACEMENT_RE.search(item.description or "")
            replacement = match.group(1) if match else None
        if not item.description:
            flags.add("no_description")
        result.tools.append(
            ExtractedTool(
                local_id=item.name,
                name=item.name,
                description=(item.description or "").strip(),
                source_path=item.source_path,
                display_name=item.title or item.name,
                service=facts.service,
                parameters=item.parameters,
                auth_type=facts.auth_type,
                auth_env_vars=list(facts.env_read),
                env_vars_declared=list(facts.env_declared),
                env_vars_read=list(facts.env_read),
                auth_credentials=list(facts.env_read),
                endpoints=list(facts.endpoints),
                doc_urls=list(facts.doc_urls),
                categories=list(facts.categories),
                package_dependencies=list(facts.dependencies),
                deprecated=deprecated,
                replacement=replacement,
                flags=sorted(flags),
            )
        )
