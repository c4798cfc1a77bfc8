"""``benchmarks/history_overlap.py`` on the tiny release with the workflow set and a history folder written here: a
task overlaps only with an event of one of its own tools after the month the task was written."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from ecoagent.layout import HISTORY_FILES
from ecoagent.release_format.reader import load_release
from tests.benchmarks.scripts import run_script
from tests.release.tiny_release import build_tiny_release


def _history(folder: Path, events: list[dict]) -> Path:
    folder.mkdir(parents=True)
    columns = ["tool_id", "platform", "package", "event", "month", "last_seen", "evidence", "new_tool_id"]
    frame = pl.DataFrame([{c: e.get(c) for c in columns} for e in events], schema=dict.fromkeys(columns, pl.String))
    frame.write_parquet(folder / HISTORY_FILES.tool_events)
    (folder / HISTORY_FILES.publish_times).write_text(json.dumps({}))
    return folder


def test_a_task_overlaps_with_a_later_event_of_its_own_tool_only(tmp_path: Path) -> None:
    folder = build_tiny_release(tmp_path / "store", workflows=True)
    release = load_release(folder)
    workflows = release.query_sets["workflows/test"]
    tool = release.corpus.ids[workflows.relevant[0][0]]
    later = "2099-01"  # after every task was written
    history = _history(tmp_path / "history", [
        {"tool_id": tool, "platform": "n8n", "event": "removed", "month": later},
        {"tool_id": tool, "platform": "n8n", "event": "description_changed", "month": later},  # not a failure
        {"tool_id": "n8n:nobody:uses:this", "platform": "n8n", "event": "removed", "month": later},
    ])  # fmt: skip
    ran = run_script("history_overlap", "--release", folder, "--history", history)
    assert ran.code == 0, ran
    line = next(row for row in ran.out.splitlines() if row.startswith("| workflows |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    tasks_with_the_tool = sum(release.corpus.ids.index(tool) in rows_ for split in release.query_sets
                              if split.startswith("workflows/") for rows_ in release.query_sets[split].relevant)
    assert cells[3] == str(tasks_with_the_tool) and cells[4] == f"removed {tasks_with_the_tool}" and cells[5] == "1"
    assert f"| workflows | {later} | n8n |" in ran.out

    earlier = _history(tmp_path / "earlier", [{"tool_id": tool, "platform": "n8n", "event": "removed",
                                               "month": "2000-01"}])  # fmt: skip
    ran = run_script("history_overlap", "--release", folder, "--history", earlier)
    assert "| workflows | " in ran.out and next(row for row in ran.out.splitlines()
                                                 if row.startswith("| workflows |")).split("|")[4].strip() == "0"
