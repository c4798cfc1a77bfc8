"""The history's tool events in a release: the ``tool-events`` config (one row per event, read with
``datasets.load_dataset``, described in Croissant), ``tools.status`` from the events and the catalog's deprecated
flag, the card's counts per platform and month, and the gate's status check."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import polars as pl
import pytest

from ecoagent.layout import HISTORY_FILES
from history.failure import failure_prediction, load_history
from pipeline.stages import SCORE
from release.build import build_release
from release.gate import release_metrics
from schemas.tool_event import ToolEvent
from schemas.tool_record import polars_schema
from tests.history.failure_fixtures import build_history
from tests.release.test_build import CONFIG, CREATED, V1_TOOLS, _history_folder, _load, make_stage_outputs, tool_id

GONE = "mcp:@modelcontextprotocol/server-demo:tool_old"  # a tool the catalog no longer holds
EVENTS = [  # (tool, event, month, last_seen, evidence, new_tool_id)
    (GONE, "renamed", "2025-04", "2025-03", "@modelcontextprotocol/server-demo@1.1.0: same source symbol (old); "
     "last as tool_old in @modelcontextprotocol/server-demo@1.0.0", tool_id(6)),
    (tool_id(7), "removed", "2025-05", "2025-04", "@modelcontextprotocol/server-demo@1.2.0 holds no tool_7; last in "
     "@modelcontextprotocol/server-demo@1.1.0", None),
    (tool_id(5), "removed", "2025-04", "2025-03", "@modelcontextprotocol/server-demo@1.1.0 holds no tool_5", None),
    (tool_id(5), "restored", "2025-06", None, "@modelcontextprotocol/server-demo@1.3.0 holds tool_5 again", None),
    (tool_id(2), "deprecated", "2025-06", None, "@modelcontextprotocol/server-demo@1.3.0: deprecated flag", None),
    (tool_id(1), "description_changed", "2025-05", None, "@modelcontextprotocol/server-demo@1.1.0 -> "
     "@modelcontextprotocol/server-demo@1.2.0: 40 -> 52 characters", None),
]  # fmt: skip


def _events() -> pl.DataFrame:
    package = "@modelcontextprotocol/server-demo"
    rows = [{"tool_id": t, "platform": "n8n" if t == tool_id(2) else "mcp", "package": package, "event": e,
             "month": m, "last_seen": last, "evidence": ev, "new_tool_id": new}
            for t, e, m, last, ev, new in EVENTS]  # fmt: skip
    return pl.DataFrame(rows, schema=polars_schema(ToolEvent), orient="row")


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("events")
    history = _history_folder(root / "history", {tool_id(i): "2025-02" for i in V1_TOOLS})
    _events().write_parquet(history / "tool_events.parquet")
    report, plot = failure_prediction(load_history(build_history(root / "months"), SCORE.name), 2, 50, 0)
    (history / HISTORY_FILES.failure).write_text(json.dumps(report))  # as the history step writes them
    (history / HISTORY_FILES.failure_plot).write_bytes(plot)
    inputs = dataclasses.replace(make_stage_outputs(root / "stages", V1_TOOLS), history_dirs=(str(history),))
    scored = Path(inputs.score_dir) / "tools_scored.parquet"  # tool 2 is deprecated in this catalog
    pl.read_parquet(scored).with_columns(deprecated=pl.col("tool_id") == tool_id(2)).write_parquet(scored)
    build_release(inputs, root / "release" / "v1.0.0", version="v1.0.0", config=CONFIG, created=CREATED)
    return root / "release" / "v1.0.0"


def test_the_tool_events_config_loads_with_one_row_per_event(release: Path):
    import datasets

    assert "tool-events" in datasets.get_dataset_config_names(str(release))
    loaded = _load(release, "tool-events")["train"]
    assert loaded.column_names == list(polars_schema(ToolEvent))
    rows = {(r["tool_id"], r["event"]): r for r in loaded}
    assert len(rows) == len(EVENTS) == loaded.num_rows
    renamed = rows[(GONE, "renamed")]
    assert renamed["new_tool_id"] == tool_id(6) and renamed["month"] == "2025-04"
    assert renamed["evidence"].startswith("@modelcontextprotocol/server-demo@1.1.0: same source symbol")
    assert rows[(tool_id(7), "removed")]["last_seen"] == "2025-04"
    manifest = json.loads((release / "manifest.json").read_text())
    assert manifest["counts"]["tool-events"] == {"train": len(EVENTS)}
    assert manifest["stats"]["tool_status"] == {"source": "history",
                                                "counts": {"active": 6, "deprecated": 1, "removed": 1}}  # fmt: skip


def test_tools_status_reads_the_events_and_the_catalog_flag(release: Path):
    tools = _load(release, "tools")["train"]
    status = dict(zip(tools["tool_id"], tools["status"], strict=True))
    assert status[tool_id(7)] == "removed since 2025-05"  # its newest event: removed, not followed by a return
    assert status[tool_id(5)] == "active"  # removed, then restored
    assert status[tool_id(2)] == "deprecated"  # the catalog's own flag
    assert status[tool_id(1)] == "active"  # a changed description changes no status
    assert GONE not in status  # events of tools the catalog no longer holds are in tool-events only


def test_the_card_and_croissant_show_the_events(release: Path):
    import mlcroissant as mlc

    card = (release / "README.md").read_text()
    assert "### Tool status and events" in card
    assert "This release: active 6, deprecated 1, removed 1." in card
    assert "6 events: removed 2, renamed 1, restored 1, deprecated 1, package deprecated 0, description changed 1." \
        in card  # fmt: skip
    assert "| month | mcp | n8n | events |" in card and "| 2025-04 | 2 | 0 | 2 |" in card
    assert "| 2025-06 | 1 | 1 | 2 |" in card
    records = list(mlc.Dataset(jsonld=str(release / "croissant.json")).records("tool-events"))
    assert len(records) == len(EVENTS)


def test_the_gate_reads_every_status_and_event(release: Path):
    frame, _, _ = release_metrics(release)
    assert frame.filter(pl.col("table") == "tools")["tool_status"].null_count() == 0
    assert frame.filter(pl.col("table") == "tool-events")["tool_event"].sort().to_list() == sorted(e[1] for e in EVENTS)


def test_a_history_without_events_gives_no_config(tmp_path: Path):
    history = _history_folder(tmp_path / "history", {tool_id(i): "2025-02" for i in V1_TOOLS})
    _events().clear().write_parquet(history / "tool_events.parquet")
    inputs = dataclasses.replace(make_stage_outputs(tmp_path / "stages", V1_TOOLS), history_dirs=(str(history),))
    result = build_release(inputs, tmp_path / "v1.0.0", version="v1.0.0", config=CONFIG, created=CREATED)
    assert "tool-events" not in result.manifest["configs"]
    assert result.manifest["stats"]["tool_status"]["counts"] == {"active": len(V1_TOOLS), "deprecated": 0,
                                                                 "removed": 0}  # fmt: skip
    assert "0 events: removed 0" in (tmp_path / "v1.0.0" / "README.md").read_text()
    assert "this release has no `tool-events` config" in (tmp_path / "v1.0.0" / "README.md").read_text()


def test_the_cards_first_lines_say_whether_r_static_predicts_failure(release: Path):
    from huggingface_hub import DatasetCard

    failure = json.loads((release / "manifest.json").read_text())["failure_prediction"]
    text = DatasetCard.load(release / "README.md").text
    first_lines = text.split("EcoAgent is a benchmark")[0]
    assert f"**Does r_static predict failure?** {failure['finding']}" in first_lines
    assert "r_static predicts failure (AUC CI above 0.5)" in first_lines
    assert "### Does r_static predict failure?" in text and "![Failure rate by r_static decile]" in text
    assert "| r_static | all | " in text and "| r_static | langchain | " in text
    assert (release / HISTORY_FILES.failure_plot).read_bytes().startswith(b"\x89PNG")
    assert HISTORY_FILES.failure_plot in json.loads((release / "manifest.json").read_text())["files"]
