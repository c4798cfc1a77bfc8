"""Benchmark: how many real tasks need a tool that the catalog's history removes, renames or deprecates after the task
was written (issue 45, item 1): the overlap a replay of Table 2 on the real history would stand on.

    .venv/bin/python benchmarks/history_overlap.py --release <store>/release/<version> --history <store>/history
        [--record NAME]

For every task of the release's real sets (``workflows``, ``gold``, ``package-requests``; every split), its required
tools (the qrels) are looked up in the history step's ``tool_events.parquet``: a task overlaps when one of them has a
``removed``, ``renamed`` (as the old id or the new one), ``deprecated`` or ``package_deprecated`` event in a month
after the task's own. A task's month: a workflow template's ``created_at``; a package request's package version's
publish month (the history's ``publish_times.json``); gold (LiveMCPBench) carries no date, so any event counts, and
the table says so. Prints a table per set and one per event month and platform.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.record import add_record_option, write_record
from ecoagent.layout import HISTORY_FILES
from ecoagent.release_format.reader import Release, load_release
from ecoagent.text.markdown import markdown_table

GONE = ("removed", "renamed", "deprecated", "package_deprecated")  # what makes a tool fail or be avoided later
SETS = ("workflows", "gold", "package-requests")
REGISTRY = {"mcp": "pypi", "langchain": "pypi", "llamaindex": "pypi", "crewai": "pypi", "n8n": "npm"}


def gone_events(history: Path) -> dict[str, list[tuple[str, str, str]]]:
    """``{tool id: [(month, event, platform)]}`` of the events in :data:`GONE`; a rename under both its ids."""
    events = pl.read_parquet(history / HISTORY_FILES.tool_events).filter(pl.col("event").is_in(GONE))
    by_tool: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for row in events.iter_rows(named=True):
        by_tool[row["tool_id"]].append((row["month"], row["event"], row["platform"]))
        if row["event"] == "renamed" and row["new_tool_id"]:
            by_tool[row["new_tool_id"]].append((row["month"], "renamed (new id)", row["platform"]))
    return by_tool


def publish_months(history: Path) -> dict[tuple[str, str], str]:
    """``{(registry:package, version): YYYY-MM}`` from the history's publish times."""
    months: dict[tuple[str, str], str] = {}
    for packages in json.loads((history / HISTORY_FILES.publish_times).read_text()).values():
        for package, (version, published) in packages.items():
            months.setdefault((package, version), published[:7])
    return months


def _rows(release: Release, config_name: str) -> pl.DataFrame:
    """Every split of one query config of the release as one frame (``split`` added)."""
    files = release.layout.get(config_name, {})
    return pl.concat([pl.read_parquet(release.folder / path).with_columns(pl.lit(split).alias("split"))
                      for split, path in files.items()], how="diagonal_relaxed")  # fmt: skip


def task_months(release: Release, name: str, published: dict[tuple[str, str], str]) -> dict[str, str | None]:
    """``{query id: its month}``; None where the set carries no date."""
    rows = _rows(release, f"{name}-queries")
    if name == "workflows":
        return {r["_id"]: (r["created_at"] or "")[:7] or None for r in rows.iter_rows(named=True)}
    if name == "package-requests":
        return {r["_id"]: published.get((f"{REGISTRY.get(r['platform'], 'pypi')}:{r['package']}", r["version"]))
                for r in rows.iter_rows(named=True)}  # fmt: skip
    return dict.fromkeys(rows["_id"].to_list())


def overlap(release: Release, history: Path) -> tuple[list[list], Counter]:
    """One row per set (tasks, dated, overlapping, by kind, tools involved) and the overlapping tasks per (set, event
    month, platform)."""
    events, published = gone_events(history), publish_months(history)
    rows, cells = [], Counter()
    for name in SETS:
        splits = [s for s in release.query_sets if s.split("/")[0] == name]
        if not splits:
            continue
        months = task_months(release, name, published)
        tasks = overlapping = 0
        kinds, tools = Counter(), set()
        for split in splits:
            queries = release.query_sets[split]
            for query_id, relevant in zip(queries.ids, queries.relevant, strict=True):
                tasks += 1
                month = months.get(query_id)
                later = [(tool, e) for tool in (release.corpus.ids[r] for r in relevant) for e in events.get(tool, ())
                         if month is None or e[0] > month]  # fmt: skip
                if not later:
                    continue
                overlapping += 1
                tools |= {tool for tool, _ in later}
                kinds.update({e[1] for _, e in later})
                cells.update({(name, e[0], e[2]) for _, e in later})
        ids = {query_id for split in splits for query_id in release.query_sets[split].ids}
        span = sorted(months[i] for i in ids if months.get(i))
        dated = len(span)
        rows.append([name, tasks, f"{dated} ({span[0]} to {span[-1]})" if span else "0 (no date: any event counts)",
                     overlapping, ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "-", len(tools)])
    return rows, cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, required=True)
    parser.add_argument("--history", type=Path, required=True, help="the history step's folder (<store>/history)")
    add_record_option(parser)
    args = parser.parse_args()
    release = load_release(args.release)
    rows, cells = overlap(release, args.history)
    header = ["set", "tasks", "dated", "tasks needing a tool gone later", "by event (tasks)", "tools involved"]
    print("\n".join(markdown_table(header, rows, right_align_from=1)))
    by_month = [[name, month, platform, n] for (name, month, platform), n in sorted(cells.items())]
    month_header = ["set", "event month", "platform", "tasks"]
    print("\n".join(markdown_table(month_header, by_month, right_align_from=3)))
    if args.record:
        write_record(args.record, title=f"Real tasks whose tools the history later removes ({release.version})",
                     section="rated",
                     benchmark="every task of the real sets against the history's removed / renamed / deprecated "
                               "events after the task's month (gold: no date, any event)",
                     figures={"tool ids with a removed, renamed or deprecated event (a rename: both ids)":
                              len(gone_events(args.history))},
                     tables=[{"caption": "Per set", "columns": header, "rows": rows},
                             {"caption": "Overlapping tasks per event month and platform", "columns": month_header,
                              "rows": by_month}])  # fmt: skip


if __name__ == "__main__":
    main()
