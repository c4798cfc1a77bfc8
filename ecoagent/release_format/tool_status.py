"""A catalog tool's status at a month, from the catalog history's tool events: what ``tools.status`` holds for the
release's own month and what the ``as_of`` view (:func:`ecoagent.release_format.views.as_of_view`) gives for an
earlier one.

For a tool and a month ``m`` (``None``: after the last event, the release's status):

- ``removed since <month>`` when its newest ``removed`` or ``renamed`` event up to ``m`` is not followed by a
  ``restored`` one up to ``m``;
- else ``deprecated`` when it carries a ``deprecated`` or ``package_deprecated`` event up to ``m`` or, with none in
  the history (a tool the history does not follow, or one deprecated since before it), the catalog's own
  ``deprecated`` flag;
- else ``active``.

With ``m = None`` a deprecated event counts only through the catalog flag, as it always has: the flag is today's.
The strings are the release contract's (``schemas.tool_event``; the ground floor cannot import it, a test keeps the
two equal).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import polars as pl

ACTIVE, DEPRECATED, REMOVED_SINCE = "active", "deprecated", "removed since"
GONE_EVENTS = ("removed", "renamed")
RESTORED = "restored"
DEPRECATION_EVENTS = ("deprecated", "package_deprecated")
MONTH_PATTERN = re.compile(r"^\d{4}-(?:0[1-9]|1[0-2])$")


def check_month(month: str, setting: str) -> str:
    """``month`` when it is ``YYYY-MM``, else a ValueError naming ``setting``."""
    if not isinstance(month, str) or not MONTH_PATTERN.match(month):
        raise ValueError(f"{setting}: {month!r} is not a month; write YYYY-MM, e.g. 2025-06")
    return month


def months_between(first: str, last: str) -> list[str]:
    """``YYYY-MM`` from ``first`` to ``last``, both included (empty when ``last`` is earlier)."""
    year, month = map(int, first.split("-"))
    out = []
    while f"{year}-{month:02d}" <= last:
        out.append(f"{year}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def statuses(tool_ids: Sequence[str], deprecated: Sequence[bool], events: pl.DataFrame | None,
             month: str | None = None) -> list[str]:  # fmt: skip
    """Each tool's status at ``month`` (see the module docstring); ``events`` is the ``tool-events`` table."""
    gone: dict[str, str] = {}
    deprecated_since: dict[str, str] = {}
    if events is not None:
        for tool_id, event, when in events.sort("month").select("tool_id", "event", "month").iter_rows():
            if month is not None and when > month:
                continue
            if event in GONE_EVENTS:
                gone[tool_id] = when
            elif event == RESTORED:
                gone.pop(tool_id, None)
            elif event in DEPRECATION_EVENTS and month is not None:
                deprecated_since.setdefault(tool_id, when)
    with_event = set() if events is None or month is None else set(
        events.filter(pl.col("event").is_in(DEPRECATION_EVENTS))["tool_id"].to_list())  # fmt: skip
    out = []
    for tool_id, flag in zip(tool_ids, deprecated, strict=True):
        if tool_id in gone:
            out.append(f"{REMOVED_SINCE} {gone[tool_id]}")
        elif tool_id in deprecated_since or (bool(flag) and tool_id not in with_event):
            out.append(DEPRECATED)
        else:
            out.append(ACTIVE)
    return out
