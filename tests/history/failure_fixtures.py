"""A small ``ecoagent history`` output folder with known events, for the failure benchmark and its helpers.

Four months (2025-01 to 2025-04), two packages: ``pkg-a`` (MCP, an official listing) and ``pkg-b`` (LangChain,
platform), six tools each. Within two months ahead of 2025-01 or 2025-02 these fail: ``a0`` (removed 2025-02),
``a1`` (deprecated 2025-03), ``b0`` (renamed 2025-03), ``b1`` (its package deprecated 2025-03) and ``a3`` (removed
2025-04: a failure ahead of 2025-02, not of 2025-01). ``a2``'s description changes (no failure). r_static is
planted as a perfect predictor: every tool-month with a failure ahead scores below every one without (``a3`` scored
0.8 in 2025-01 and 0.35 in 2025-02: each month's own score counts).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from history.failure import SCORED_COLUMNS
from pipeline.stages import SCORE

MONTHS = ("2025-01", "2025-02", "2025-03", "2025-04")
VERSIONS = {  # month -> package -> (version, published: the day, midnight UTC)
    "2025-01": {"npm:pkg-a": ("1.0.0", "2024-11-01"), "pypi:pkg-b": ("0.1.0", "2025-01-10")},
    "2025-02": {"npm:pkg-a": ("1.1.0", "2025-02-20"), "pypi:pkg-b": ("0.1.0", "2025-01-10")},
    "2025-03": {"npm:pkg-a": ("1.2.0", "2025-03-05"), "pypi:pkg-b": ("0.2.0", "2025-03-01")},
    "2025-04": {"npm:pkg-a": ("1.3.0", "2025-04-02"), "pypi:pkg-b": ("0.2.0", "2025-03-01")},
}
EVENTS = [  # tool, event, month
    ("a0", "removed", "2025-02"), ("a1", "deprecated", "2025-03"), ("b0", "renamed", "2025-03"),
    ("b1", "package_deprecated", "2025-03"), ("a3", "removed", "2025-04"), ("a2", "description_changed", "2025-02"),
]  # fmt: skip
FAILING = {"2025-01": {"a0", "a1", "b0", "b1"}, "2025-02": {"a1", "b0", "b1", "a3"}}  # two months ahead
TEXTS = {
    "a": ("search_notes", "Search the notes for a phrase and return the matching ones."),
    "b": ("wikipedia_lookup", "Look up a page on Wikipedia and return its summary."),
}


def tool_id(short: str) -> str:
    platform, package = ("mcp", "pkg-a") if short[0] == "a" else ("langchain", "pkg-b")
    return f"{platform}:{package}:{short}"


def _present(month: str) -> list[str]:
    gone = {s for s, event, at in EVENTS if event in ("removed", "renamed") and at <= month}
    return [f"{p}{i}" for p in "ab" for i in range(6) if f"{p}{i}" not in gone]


def _r_static(short: str, month: str) -> float:
    """Below 0.5 for a tool-month with a failure ahead, above it otherwise (month-specific, so a3 moves)."""
    failing = short in FAILING.get(month, set())
    return (0.3 if failing else 0.7) + 0.01 * int(short[1])


def month_frame(month: str) -> pl.DataFrame:
    rows = []
    for short in _present(month):
        key = "npm:pkg-a" if short[0] == "a" else "pypi:pkg-b"
        name, description = TEXTS[short[0]]
        rows.append({
            "tool_id": tool_id(short), "platform": tool_id(short).split(":")[0],
            "listing": "official" if short[0] == "a" else "platform", "package": key.split(":")[1],
            "package_version": VERSIONS[month][key][0], "name": f"{name}_{short}", "display_name": name,
            "description": description, "doc_summary": None, "categories": [], "r_static": _r_static(short, month),
            "r_cons": 0.5, "w_src": 1.0 if short[0] == "a" else 0.9, "r_qual": 0.1 * int(short[1]),
        })  # fmt: skip
    schema = {c: pl.String for c in SCORED_COLUMNS} | {
        "categories": pl.List(pl.String), **dict.fromkeys(("r_static", "r_cons", "w_src", "r_qual"), pl.Float64)}
    return pl.DataFrame(rows, schema=schema)


def build_history(root: Path, reference: str | None = "platform_official") -> Path:
    """``root/history/`` (publish times, tool events) and ``root/history_months/<month>/score/``; the folder."""
    folder = root / "history"
    folder.mkdir(parents=True)
    times = {m: {k: [version, f"{day}T00:00:00+00:00"] for k, (version, day) in packages.items()}
             for m, packages in VERSIONS.items()}  # fmt: skip
    (folder / "publish_times.json").write_text(json.dumps(times))
    events = pl.DataFrame(
        {"tool_id": [tool_id(s) for s, _, _ in EVENTS], "platform": [tool_id(s).split(":")[0] for s, _, _ in EVENTS],
         "package": [tool_id(s).split(":")[1] for s, _, _ in EVENTS], "event": [e for _, e, _ in EVENTS],
         "month": [m for _, _, m in EVENTS], "last_seen": [None] * len(EVENTS), "evidence": ["fixture"] * len(EVENTS),
         "new_tool_id": [None] * len(EVENTS)},
        schema_overrides={"last_seen": pl.String, "new_tool_id": pl.String},
    )  # fmt: skip
    events.write_parquet(folder / "tool_events.parquet")
    for month in MONTHS:
        scored = root / "history_months" / month / SCORE.name
        scored.mkdir(parents=True)
        month_frame(month).write_parquet(scored / "tools_scored.parquet")
        summary = {"tools": len(_present(month))} | ({"r_qual_reference": reference} if reference else {})
        (scored / "score_summary.json").write_text(json.dumps(summary))
    return folder
