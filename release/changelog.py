"""``CHANGELOG.md``: what changed since the previous release (tools added, removed, changed; query counts), above
the previous release's own changelog."""

from __future__ import annotations

import polars as pl


def tool_changes(current: pl.DataFrame, previous: pl.DataFrame) -> dict[str, list[str]]:
    """Tool ids added, removed and changed (same id, different content_hash) from ``previous`` to ``current``."""
    cur = dict(zip(current["tool_id"], current["content_hash"], strict=True))
    old = dict(zip(previous["tool_id"], previous["content_hash"], strict=True))
    return {
        "added": sorted(set(cur) - set(old)),
        "removed": sorted(set(old) - set(cur)),
        "changed": sorted(t for t in set(cur) & set(old) if cur[t] != old[t]),
    }


def _query_counts(counts: dict) -> dict[str, int]:
    return {c: sum(counts.get(c, {}).values()) for c in ("syn-queries", "real-queries", "syn-qrels", "real-qrels")}


def changelog(info: dict, tools: pl.DataFrame, prev: dict | None) -> str:
    """The new ``CHANGELOG.md``: this version's entry, then the previous release's entries."""
    lines = [f"## {info['version']} ({info['created'][:10]})", ""]
    now = _query_counts(info["counts"])
    if prev is None:
        lines += ["Initial release.", "", f"- tools: {info['tools']}"]
        lines += [f"- {k}: {v}" for k, v in now.items()]
    else:
        changes = tool_changes(tools, prev["tools"])
        before = _query_counts(prev["manifest"].get("counts", {}))
        lines += [f"Changes since {prev['version']}.", "", f"- tools: {len(prev['tools'])} -> {info['tools']}"]
        lines += [f"- {k}: {before.get(k, 0)} -> {v}" for k, v in now.items()]
        lines += [
            f"- cold_start queries (their positive tool is new): syn {info['stats']['syn_cold_start_queries']}, "
            f"real {info['stats']['real_cold_start_queries']}"
        ]
        for kind, ids in changes.items():
            lines += ["", f"### Tools {kind} ({len(ids)})", ""]
            lines += [f"- `{t}`" for t in ids] or ["- none"]
    body = "\n".join(lines) + "\n"
    older = (prev or {}).get("changelog", "")
    if older.startswith("# Changelog"):
        older = older.split("\n", 1)[1].lstrip("\n")
    return "# Changelog\n\n" + body + ("\n" + older if older else "")
