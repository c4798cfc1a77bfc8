"""Tool events: what happened to each tool from one month of the history to the next, with the month and the
evidence (``package@version``, the flag or the message), written as ``tool_events.parquet``.

Each month's scored catalog is compared with what the months before it held (the last month each tool was seen):

- ``removed``: a tool the package's newer version no longer holds (``month``: the first month without it,
  ``last_seen``: the last month with it);
- ``renamed``: the same, when a new tool of the same package takes its place: the same source symbol, else the
  same description (at least :data:`MIN_DESCRIPTION_CHARS` characters), else the same content hash, one new tool
  for one old (``new_tool_id``);
- ``restored``: a removed or renamed tool id that a later month holds again;
- ``deprecated``: the tool's deprecated flag appears (the extractor's reading: ``@deprecated``, a legacy or hidden
  n8n node, a README or description notice);
- ``package_deprecated``: the flag appears because the registry metadata the crawl reads marks the package so
  (npm's ``deprecated`` field, a wheel's "Inactive" status: the crawl's ``registry_deprecated`` flag);
- ``description_changed``: the tool's description differs from the one it had the month before.

Yanked versions leave no event: the publish-time look-up skips yanked files (pip's finder), so no month ever takes a
yanked version and nothing records one (:mod:`ecoagent.packages.publish_times`).

An absence is only an event when the month read the tool's package without a recorded error and took a newer
version of it than the month the tool was last seen; a tool whose package was not read, whose package version did
not change (the crawl's exact-duplicate rule dropped it for a copy in another package) or whose content another
package now holds is still counted as present (``absences_not_counted``, by reason, once per tool and month).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import polars as pl

from schemas.tool_event import EVENTS, RESTORED, ToolEvent
from schemas.tool_record import REGISTRY_DEPRECATED_FLAG, polars_schema

EVENT_SCHEMA = polars_schema(ToolEvent)
# the columns of a month's scored catalog the comparison reads
TOOL_COLUMNS = ("tool_id", "platform", "package", "package_version", "source_symbol", "description", "deprecated",
                "replacement", "flags", "content_hash")  # fmt: skip
MIN_DESCRIPTION_CHARS = 20  # a shorter description ("Search", "Get a record") names no one tool
_DEPRECATION_FLAGS = ("deprecat", "legacy", "hidden")  # the flags that say why a tool is deprecated

Package = tuple[str, str]  # (platform, package name)


@dataclass
class MonthTools:
    """One month of the history as the comparison reads it."""

    month: str
    tools: dict[str, dict]  # tool_id -> its row (:data:`TOOL_COLUMNS`)
    versions: dict[Package, str]  # the version of each package the month took
    unread: set[Package] = field(default_factory=set)  # packages whose month version has a recorded read error


@dataclass
class _Seen:
    """A tool as last seen: its row and month."""

    row: dict
    month: str


@dataclass
class _State:
    """What the months so far hold: the tools present (as last seen), the ids gone, the events, the absences."""

    present: dict[str, _Seen] = field(default_factory=dict)
    gone: set[str] = field(default_factory=set)
    rows: list[dict] = field(default_factory=list)
    not_counted: Counter = field(default_factory=Counter)


def tool_events(months: list[MonthTools]) -> tuple[pl.DataFrame, dict]:
    """Every tool event over ``months`` (in order) and a summary: events by kind, absences not counted by reason."""
    state = _State()
    for month in months:
        if not month.tools and not month.versions:
            continue  # before any pinned package was published
        _absences(state, month)
        _arrivals(state, month)
    frame = pl.DataFrame(state.rows, schema=EVENT_SCHEMA, orient="row")
    frame = frame.sort("month", "platform", "tool_id", "event")
    summary = {
        "events": len(frame),
        "by_event": {e: int((frame["event"] == e).sum()) for e in EVENTS},
        "absences_not_counted": dict(sorted(state.not_counted.items())),
    }
    return frame, summary


def _package(row: dict) -> Package:
    return row["platform"], row["package"]


def _at(row: dict, version: str | None = None) -> str:
    """``package@version``: the evidence's reference to a package version."""
    return f"{row['package']}@{version or row['package_version']}"


def _absence_reason(seen: _Seen, month: MonthTools, holders: dict[str, set[Package]]) -> str | None:
    """Why the tool's absence from ``month`` is no event (None: it is one); ``holders``: the packages holding each
    content hash this month."""
    package = _package(seen.row)
    if package in month.unread or package not in month.versions:
        return "package_not_read"
    if month.versions[package] == seen.row["package_version"]:
        return "same_version"
    if holders.get(seen.row["content_hash"], set()) - {package}:
        return "content_in_another_package"
    return None


def _absences(state: _State, month: MonthTools) -> None:
    """The tools present so far that ``month`` does not hold: removed, renamed, or not counted."""
    missing = [tid for tid in state.present if tid not in month.tools]
    if not missing:
        return
    arriving = [t for t in month.tools if t not in state.present and t not in state.gone]
    candidates = _Candidates(month, arriving)
    holders: dict[str, set[Package]] = {}
    for row in month.tools.values():
        holders.setdefault(row["content_hash"], set()).add(_package(row))
    for tool_id in sorted(missing):
        seen = state.present[tool_id]
        reason = _absence_reason(seen, month, holders)
        if reason:
            state.not_counted[reason] += 1
            continue
        del state.present[tool_id]
        state.gone.add(tool_id)
        version = month.versions[_package(seen.row)]
        match = candidates.claim(seen.row)
        if match:
            new_id, how = match
            evidence = f"{_at(seen.row, version)}: {how}; last as {tool_id} in {_at(seen.row)}"
        else:
            new_id, evidence = None, f"{_at(seen.row, version)} holds no {seen.row['source_symbol']}; last in " \
                                     f"{_at(seen.row)}"  # fmt: skip
        state.rows.append(_event(seen.row, "renamed" if new_id else "removed", month.month, evidence,
                                 last_seen=seen.month, new_tool_id=new_id))  # fmt: skip


class _Candidates:
    """The tools a month holds for the first time, by package: each may take the place of one tool gone."""

    def __init__(self, month: MonthTools, arriving: list[str]) -> None:
        self.by_package: dict[Package, list[dict]] = {}
        for tool_id in sorted(arriving):
            row = month.tools[tool_id]
            self.by_package.setdefault(_package(row), []).append(row)

    def claim(self, old: dict) -> tuple[str, str] | None:
        """The new tool of ``old``'s package with its source symbol, else its description, else its content hash
        (one match only), and what matched; the match is taken (no other old tool gets it)."""
        rows = self.by_package.get(_package(old), [])
        description = (old["description"] or "").strip()
        tests = (("source_symbol", old["source_symbol"], "same source symbol"),
                 ("description", description if len(description) >= MIN_DESCRIPTION_CHARS else None,
                  "same description"),
                 ("content_hash", old["content_hash"], "same content"))  # fmt: skip
        for column, value, how in tests:
            if value is None:
                continue
            found = [r for r in rows if ((r[column] or "").strip() if column == "description" else r[column]) == value]
            if len(found) == 1:
                rows.remove(found[0])
                return found[0]["tool_id"], f"{how} ({value})" if column == "source_symbol" else how
        return None


def _arrivals(state: _State, month: MonthTools) -> None:
    """The tools ``month`` holds: changes of the ones present, restored ids, new ones; each now seen this month."""
    for tool_id in sorted(month.tools):
        row = month.tools[tool_id]
        seen = state.present.get(tool_id)
        if seen is not None:
            state.rows += _changes(seen, row, month.month)
        elif tool_id in state.gone:
            state.gone.discard(tool_id)
            state.rows.append(_event(row, RESTORED, month.month, f"{_at(row)} holds {row['source_symbol']} again"))
        state.present[tool_id] = _Seen(row, month.month)


def _changes(seen: _Seen, row: dict, month: str) -> list[dict]:
    """The deprecation and description events between the tool as last seen and ``row``."""
    out = []
    if row["deprecated"] and not seen.row["deprecated"]:
        out.append(_deprecation(row, month))
    before, after = (seen.row["description"] or "").strip(), (row["description"] or "").strip()
    if before != after:
        out.append(_event(row, "description_changed", month,
                          f"{_at(seen.row)} -> {_at(row)}: {len(before)} -> {len(after)} characters"))  # fmt: skip
    return out


def _deprecation(row: dict, month: str) -> dict:
    """A ``deprecated`` or ``package_deprecated`` event, with the flags and the replacement the source names."""
    flags = [f for f in row["flags"] or [] if any(word in f for word in _DEPRECATION_FLAGS)]
    registry = REGISTRY_DEPRECATED_FLAG in flags
    said = "the registry marks the package deprecated" if registry else "deprecated flag"
    if flags and not registry:
        said += f" ({', '.join(flags)})"
    if row["replacement"]:
        said += f"; use {row['replacement']}"
    return _event(row, "package_deprecated" if registry else "deprecated", month, f"{_at(row)}: {said}")


def _event(row: dict, event: str, month: str, evidence: str, *, last_seen: str | None = None,
           new_tool_id: str | None = None) -> dict:  # fmt: skip
    return {"tool_id": row["tool_id"], "platform": row["platform"], "package": row["package"], "event": event,
            "month": month, "last_seen": last_seen, "evidence": evidence, "new_tool_id": new_tool_id}  # fmt: skip

