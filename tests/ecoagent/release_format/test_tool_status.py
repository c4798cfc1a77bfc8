"""A tool's status at a month from the history's tool events, and its strings kept equal to the release contract's."""

from __future__ import annotations

import polars as pl
import pytest

from ecoagent.release_format import tool_status
from ecoagent.release_format.tool_status import check_month, months_between, statuses
from schemas import tool_event


def _events(*rows: tuple[str, str, str]) -> pl.DataFrame:
    return pl.DataFrame([{"tool_id": t, "event": e, "month": m} for t, e, m in rows])


def test_the_strings_are_the_release_contracts() -> None:
    assert (tool_status.ACTIVE, tool_status.DEPRECATED, tool_status.REMOVED_SINCE) == (
        tool_event.ACTIVE, tool_event.DEPRECATED, tool_event.REMOVED_SINCE)  # fmt: skip
    assert tool_status.GONE_EVENTS == tool_event.GONE_EVENTS and tool_status.RESTORED == tool_event.RESTORED
    assert set(tool_status.DEPRECATION_EVENTS) <= set(tool_event.EVENTS)


def test_a_status_follows_the_events_up_to_the_month() -> None:
    events = _events(("a", "removed", "2025-04"), ("a", "restored", "2025-06"), ("b", "renamed", "2025-05"),
                     ("c", "deprecated", "2025-05"), ("d", "description_changed", "2025-03"))  # fmt: skip
    ids, flags = ["a", "b", "c", "d", "e"], [False, False, True, False, True]
    assert statuses(ids, flags, events, "2025-03") == ["active", "active", "active", "active", "deprecated"]
    assert statuses(ids, flags, events, "2025-05") == ["removed since 2025-04", "removed since 2025-05",
                                                       "deprecated", "active", "deprecated"]  # fmt: skip
    assert statuses(ids, flags, events, "2025-06")[0] == "active"  # restored
    # the release's own status (no month): the catalog's flag, after every event
    assert statuses(ids, flags, events) == ["active", "removed since 2025-05", "deprecated", "active", "deprecated"]
    assert statuses(ids, flags, None) == ["active", "active", "deprecated", "active", "deprecated"]


def test_months_and_a_bad_month() -> None:
    assert months_between("2025-11", "2026-02") == ["2025-11", "2025-12", "2026-01", "2026-02"]
    assert months_between("2026-02", "2025-11") == []
    with pytest.raises(ValueError, match=r"rated.x: '2025-13' is not a month; write YYYY-MM"):
        check_month("2025-13", "rated.x")
