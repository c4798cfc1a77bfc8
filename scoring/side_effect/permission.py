"""Permission scope of a tool: ``<service>.<level>``, the level following the side-effect tier."""

from __future__ import annotations

from ecoagent.text.words import normalize_service
from scoring.side_effect.tiers import COMPENSABLE, EXTERNAL, IRREVERSIBLE, READ_ONLY, REVERSIBLE, UNKNOWN

SCOPE_LEVELS: dict[str, str] = {
    READ_ONLY: "read",
    REVERSIBLE: "write",
    COMPENSABLE: "write",
    IRREVERSIBLE: "delete",
    EXTERNAL: "send",
    UNKNOWN: "admin",
}


def scope_service(service: str | None, package: str | None) -> str:
    """The scope prefix: the normalized service, else the normalized package, else ``unknown``."""
    return normalize_service(service) or normalize_service(package) or "unknown"


def permission_scope(service: str | None, package: str | None, side_effect: str, arbitrary: bool = False) -> str:
    """``<service>.<level>``: read, write, delete, send, or admin for unknown tiers and arbitrary execution."""
    level = "admin" if arbitrary else SCOPE_LEVELS[side_effect]
    return f"{scope_service(service, package)}.{level}"
