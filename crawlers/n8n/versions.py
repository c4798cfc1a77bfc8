"""Which version of a node the catalog describes: the one n8n puts on a new node."""

from __future__ import annotations


def entry_versions(entry: dict) -> list[float]:
    """The versions one nodes.json entry describes (its ``version``: a number or a list)."""
    raw = entry.get("version", 1)
    values = raw if isinstance(raw, list) else [raw]
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def pick_default(entries: list[dict]) -> tuple[float, dict]:
    """The version n8n puts on a new node, and the entry that describes it."""
    defaults = [
        float(e["defaultVersion"])
        for e in entries
        if isinstance(e.get("defaultVersion"), int | float) and not isinstance(e.get("defaultVersion"), bool)
    ]
    all_versions = [v for e in entries for v in entry_versions(e)]
    version = max(defaults) if defaults else (max(all_versions) if all_versions else 1.0)
    for entry in entries:
        if version in entry_versions(entry):
            return version, entry
    # defaultVersion outside every entry's list: fall back to the newest entry.
    best = max(entries, key=lambda e: max(entry_versions(e), default=0.0))
    return max(entry_versions(best), default=version), best
