"""The history's calendar: months as ``YYYY-MM`` strings, and where each month's catalog lives."""

from __future__ import annotations

from datetime import UTC, datetime

from ecoagent.release_format.tool_status import months_between

MONTHS_FOLDER = "history_months"  # beside the step's own folder: <root>/history_months/<YYYY-MM>/<stage>/


def month_range(since: str, until: str | None, now: datetime | None = None) -> list[str]:
    """``YYYY-MM`` from ``since`` to ``until`` (default: the newest complete month before ``now``)."""
    now = now or datetime.now(UTC)
    last = until or (f"{now.year}-{now.month - 1:02d}" if now.month > 1 else f"{now.year - 1}-12")
    out = months_between(since, last)
    if not out:
        raise ValueError(f"no month from {since} to {last} (settings history.since / history.until)")
    return out


def month_end(month: str) -> datetime:
    """The first instant after ``month`` (UTC): a version published before it was there by the month's end."""
    year, mon = map(int, month.split("-"))
    return datetime(year + (mon == 12), 1 if mon == 12 else mon + 1, 1, tzinfo=UTC)


def add_months(month: str, n: int) -> str:
    """``YYYY-MM`` ``n`` months after ``month``."""
    year, mon = map(int, month.split("-"))
    index = year * 12 + mon - 1 + n
    return f"{index // 12}-{index % 12 + 1:02d}"
