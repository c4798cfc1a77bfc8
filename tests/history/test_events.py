"""Tool events from the history's months (history/events.py): each kind found with its month and evidence, and the
absences that are no event (a package not read, an unchanged version) left out.

The last test runs the history step itself on a package index of the tests' own (as tests/history/test_history.py
does): two versions of a fixture package, the second of which drops one tool and marks the other deprecated.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from ecoagent.layout import HISTORY_FILES
from history.events import MonthTools, tool_events
from schemas.tool_event import EVENTS, ToolEvent
from schemas.tool_record import polars_schema
from tests.fixture_packages import LLAMAINDEX_SPEC

PKG = "@demo/server"


def _tool(symbol: str, version: str, *, description: str = "", deprecated: bool = False, flags: tuple = (),
          replacement: str | None = None, tool_id: str | None = None, package: str = PKG) -> dict:  # fmt: skip
    return {"tool_id": tool_id or f"mcp:{package}:{symbol}", "platform": "mcp", "package": package,
            "package_version": version, "source_symbol": symbol,
            "description": description or f"Do the {symbol} thing with the demo service, carefully.",
            "deprecated": deprecated, "replacement": replacement, "flags": list(flags),
            "content_hash": f"{symbol}:{description}:{deprecated}"}  # fmt: skip


def _month(month: str, version: str, *tools: dict, unread: bool = False, extra: dict | None = None) -> MonthTools:
    versions = {("mcp", PKG): version, **(extra or {})}
    return MonthTools(month, {t["tool_id"]: t for t in tools}, versions, {("mcp", PKG)} if unread else set())


def _events(months: list[MonthTools]) -> dict[tuple[str, str], dict]:
    frame, _ = tool_events(months)
    return {(row["tool_id"], row["event"]): row for row in frame.iter_rows(named=True)}


def test_a_tool_gone_from_a_newer_version_is_removed_with_its_last_month():
    months = [_month("2025-02", "1.0.0", _tool("a", "1.0.0"), _tool("b", "1.0.0")),
              _month("2025-03", "1.0.0", _tool("a", "1.0.0"), _tool("b", "1.0.0")),
              _month("2025-04", "1.1.0", _tool("a", "1.1.0"))]  # fmt: skip
    events = _events(months)
    removed = events[(f"mcp:{PKG}:b", "removed")]
    assert removed["month"] == "2025-04" and removed["last_seen"] == "2025-03" and removed["new_tool_id"] is None
    assert removed["evidence"] == f"{PKG}@1.1.0 holds no b; last in {PKG}@1.0.0"
    assert list(events) == [(f"mcp:{PKG}:b", "removed")]


def test_deprecation_from_the_source_and_from_the_registry():
    months = [_month("2025-02", "1.0.0", _tool("a", "1.0.0"), _tool("b", "1.0.0")),
              _month("2025-03", "2.0.0", _tool("a", "2.0.0", deprecated=True, flags=("legacy_operation",),
                                               replacement="a2"),
                     _tool("b", "2.0.0", deprecated=True, flags=("registry_deprecated", "inherited")))]  # fmt: skip
    events = _events(months)
    tool = events[(f"mcp:{PKG}:a", "deprecated")]
    assert tool["month"] == "2025-03"
    assert tool["evidence"] == f"{PKG}@2.0.0: deprecated flag (legacy_operation); use a2"
    package = events[(f"mcp:{PKG}:b", "package_deprecated")]
    assert package["evidence"] == f"{PKG}@2.0.0: the registry marks the package deprecated"
    assert len(events) == 2  # the content hash changed with the flag, the description did not: no other event


def test_renamed_by_source_symbol_then_by_description_and_restored():
    shared = "Send a message to a channel of the workspace."
    months = [_month("2025-02", "1.0.0", _tool("Slack.post", "1.0.0", tool_id="mcp:x:post"),
                     _tool("notify", "1.0.0", description=shared)),
              _month("2025-03", "1.1.0", _tool("Slack.post", "1.1.0", tool_id="mcp:x:post_message"),
                     _tool("notify_channel", "1.1.0", description=shared)),
              _month("2025-04", "1.2.0", _tool("Slack.post", "1.2.0", tool_id="mcp:x:post_message"),
                     _tool("notify_channel", "1.2.0", description=shared), _tool("notify", "1.2.0"))]  # fmt: skip
    events = _events(months)
    by_symbol = events[("mcp:x:post", "renamed")]
    assert by_symbol["new_tool_id"] == "mcp:x:post_message" and by_symbol["month"] == "2025-03"
    assert by_symbol["evidence"].startswith(f"{PKG}@1.1.0: same source symbol (Slack.post)")
    by_description = events[(f"mcp:{PKG}:notify", "renamed")]
    assert by_description["new_tool_id"] == f"mcp:{PKG}:notify_channel"
    assert by_description["evidence"].startswith(f"{PKG}@1.1.0: same description")
    restored = events[(f"mcp:{PKG}:notify", "restored")]
    assert restored["month"] == "2025-04" and restored["evidence"] == f"{PKG}@1.2.0 holds notify again"
    # it came back with another description than it had when it left
    assert (f"mcp:{PKG}:notify", "description_changed") not in events


def test_description_changed_names_both_versions():
    months = [_month("2025-02", "1.0.0", _tool("a", "1.0.0", description="Search the web for pages.")),
              _month("2025-03", "1.1.0", _tool("a", "1.1.0", description="Search the web for pages and news."))]
    row = _events(months)[(f"mcp:{PKG}:a", "description_changed")]
    assert row["month"] == "2025-03" and row["evidence"] == f"{PKG}@1.0.0 -> {PKG}@1.1.0: 25 -> 34 characters"


def test_absences_that_are_no_event():
    other = _tool("copy", "1.0.0", package="@other/server")
    months = [_month("2025-02", "1.0.0", _tool("a", "1.0.0"), _tool("b", "1.0.0"), _tool("c", "1.0.0")),
              # the package's new version could not be read: its tools are not removed
              _month("2025-03", "1.1.0", unread=True),
              # an unchanged version without b: the crawl's exact-duplicate rule kept another package's copy
              _month("2025-04", "1.0.0", _tool("a", "1.0.0"), _tool("c", "1.0.0")),
              # a newer version without c, whose content another package holds now
              _month("2025-05", "1.2.0", _tool("a", "1.2.0"), {**other, "content_hash": _tool("c", "1.0.0")[
                  "content_hash"]}, extra={("mcp", "@other/server"): "1.0.0"})]  # fmt: skip
    frame, summary = tool_events(months)
    # b: absent from 1.2.0, its content nowhere else
    assert frame["event"].to_list() == ["removed"] and frame["tool_id"].to_list() == [f"mcp:{PKG}:b"]
    assert frame["month"].to_list() == ["2025-05"] and frame["last_seen"].to_list() == ["2025-02"]
    assert summary["absences_not_counted"] == {"content_in_another_package": 1, "package_not_read": 3,
                                               "same_version": 1}  # fmt: skip
    assert summary["by_event"]["removed"] == 1 and set(summary["by_event"]) == set(EVENTS)


def test_months_before_any_package_and_a_first_month_give_no_event():
    frame, summary = tool_events([MonthTools("2025-01", {}, {}), _month("2025-02", "1.0.0", _tool("a", "1.0.0"))])
    assert frame.is_empty() and frame.schema == polars_schema(ToolEvent) and summary["events"] == 0


@pytest.fixture
def changing_index(tmp_path, monkeypatch):
    """The fixture package at 0.1.0 (search_notes, create_note) and 0.2.0 (create_note gone, the spec
    deprecated), on the tests' own index."""
    from tests.history.test_history import ONLY_SEARCH, served_versions

    deprecated = ONLY_SEARCH.replace("class NotesToolSpec(", '@deprecated(since="0.2.0", alternative="NotesV2ToolSpec")'
                                     "\nclass NotesToolSpec(")  # fmt: skip
    with served_versions(tmp_path, monkeypatch, {"0.1.0": LLAMAINDEX_SPEC, "0.2.0": deprecated}) as served:
        yield served


def test_the_history_step_writes_the_removal_and_the_deprecation(tmp_path: Path, changing_index):
    from pipeline.stages import HISTORY
    from tests.history.test_history import PACKAGE, _config

    config = _config(tmp_path, changing_index, "history.since=2025-03", "history.until=2025-06")
    result = HISTORY.run_on(config)
    events = pl.read_parquet(Path(result.out) / HISTORY_FILES.tool_events)
    assert events.schema == polars_schema(ToolEvent)
    rows = {(row["tool_id"], row["event"]): row for row in events.iter_rows(named=True)}
    prefix = f"llamaindex:{PACKAGE}:NotesToolSpec"
    assert set(rows) == {(f"{prefix}.create_note", "removed"), (f"{prefix}.search_notes", "deprecated")}
    removed, deprecated = rows[(f"{prefix}.create_note", "removed")], rows[(f"{prefix}.search_notes", "deprecated")]
    assert (removed["month"], removed["last_seen"]) == ("2025-05", "2025-04")
    assert removed["evidence"] == f"{PACKAGE}@0.2.0 holds no NotesToolSpec.create_note; last in {PACKAGE}@0.1.0"
    assert deprecated["month"] == "2025-05"
    assert deprecated["evidence"] == f"{PACKAGE}@0.2.0: deprecated flag; use NotesV2ToolSpec"
    assert result.summary["tool_events"]["by_event"]["removed"] == 1
    assert any(line.startswith("tool events: 2 (removed 1, ") for line in result.lines)

    # the release build reads the step's folder: the two events become the tool-events config (the release tests'
    # own catalog, first seen in the first month so that its queries stay out of the cold start)
    import dataclasses
    import shutil

    from release.build import build_release
    from tests.release.test_build import CONFIG, CREATED, V1_TOOLS, make_stage_outputs, tool_id

    history = shutil.copytree(result.out, tmp_path / "history_copy")
    pl.DataFrame({"tool_id": [tool_id(i) for i in V1_TOOLS], "first_seen": ["2025-03"] * len(V1_TOOLS)}).write_parquet(
        history / HISTORY_FILES.first_seen)  # fmt: skip
    inputs = dataclasses.replace(make_stage_outputs(tmp_path / "stages", V1_TOOLS), history_dirs=(str(history),))
    release = build_release(inputs, tmp_path / "release", version="1.0.0", config=CONFIG, created=CREATED)
    assert release.manifest["counts"]["tool-events"] == {"train": 2}
    released = pl.read_parquet(tmp_path / "release" / release.manifest["configs"]["tool-events"]["train"])
    assert released.equals(events.sort("month", "platform", "tool_id", "event"))
