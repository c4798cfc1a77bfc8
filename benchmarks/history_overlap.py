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
from collections import Counter
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.record import add_record_option, write_record
from ecoagent.layout import HISTORY_FILES
from ecoagent.release_format.reader import Release, load_release
from ecoagent.release_format.tool_status import DEPRECATION_EVENTS, GONE_EVENTS
from ecoagent.text.markdown import markdown_table
from rated.replay import real_task_overlap
from rated.replay_table import OVERLAP_COLUMNS

GONE = (*GONE_EVENTS, *DEPRECATION_EVENTS)  # what makes a tool fail or be avoided later

def publish_months(history: Path) -> dict[tuple[str, str], str]:
    """``{(registry:package, version): YYYY-MM}`` from the history's publish times."""
    months: dict[tuple[str, str], str] = {}
    for packages in json.loads((history / HISTORY_FILES.publish_times).read_text()).values():
        for package, (version, published) in packages.items():
            months.setdefault((package, version), published[:7])
    return months


def gone_tools(history: Path) -> int:
    """Tool ids with a removed, renamed (both ids) or deprecated event."""
    events = pl.read_parquet(history / HISTORY_FILES.tool_events).filter(pl.col("event").is_in(GONE))
    renamed = events.filter(pl.col("event") == "renamed")["new_tool_id"].drop_nulls()
    return len(set(events["tool_id"].to_list()) | set(renamed.to_list()))


def overlap(release: Release, history: Path) -> tuple[list[list], Counter]:
    """:func:`rated.replay.real_task_overlap` with the history's events and publish months."""
    events = pl.read_parquet(history / HISTORY_FILES.tool_events)
    return real_task_overlap(release, events, publish_months(history))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, required=True)
    parser.add_argument("--history", type=Path, required=True, help="the history step's folder (<store>/history)")
    add_record_option(parser)
    args = parser.parse_args()
    release = load_release(args.release)
    rows, cells = overlap(release, args.history)
    header = OVERLAP_COLUMNS
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
                              gone_tools(args.history)},
                     tables=[{"caption": "Per set", "columns": header, "rows": rows},
                             {"caption": "Overlapping tasks per event month and platform", "columns": month_header,
                              "rows": by_month}])  # fmt: skip


if __name__ == "__main__":
    main()
