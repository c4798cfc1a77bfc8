"""Permission scope of a tool: ``<service>.<level>``, the level following the side-effect tier."""

from __future__ import annotations

import re

from scoring.side_effect.tiers import COMPENSABLE, EXTERNAL, IRREVERSIBLE, READ_ONLY, REVERSIBLE, UNKNOWN

SCOPE_LEVELS: dict[str, str] = {
    READ_ONLY: "read",
    REVERSIBLE: "write",
    COMPENSABLE: "write",
    IRREVERSIBLE: "delete",
    EXTERNAL: "send",
    UNKNOWN: "admin",
}


def normalize_service(service: str | None, package: str | None = None) -> str:
    """A lowercase ``[a-z0-9_]`` identifier for the scope prefix; the package when service is empty."""
    for raw in (service, package):
        norm = re.sub(r"[^a-z0-9]+", "_", (raw or "").lower()).strip("_")
        if norm:
            return norm
    return "unknown"


def permission_scope(service: str | None, package: str | None, side_effect: str, arbitrary: bool = False) -> str:
    """``<service>.<level>``: read, write, delete, send, or admin for unknown tiers and arbitrary execution."""
    level = "admin" if arbitrary else SCOPE_LEVELS[side_effect]
    return f"{normalize_service(service, package)}.{level}"
