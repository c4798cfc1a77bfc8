"""What every benchmark does around its own measurement: time a call, then print the figures and one summary line.

A benchmark prints its figures as JSON (what a reader or CI keeps) and then one line with the ratio it exists to
show, measured against a baseline in the same run.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def timed(function: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, float]:
    """``(function(*args, **kwargs), wall seconds)``."""
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - started


def print_report(report: dict, summary: str) -> None:
    """The figures as indented JSON, then the one-line summary."""
    print(json.dumps(report, indent=2))
    print(summary)


def read_timed_lines(stream: Iterable[str], started: float, echo: bool = False) -> tuple[list[tuple[float, str]],
                                                                                      threading.Thread]:  # fmt: skip
    """A child process's output read on a thread of its own: ``(lines, thread)``, where ``lines`` fills with each
    line and its seconds since ``started`` (``time.perf_counter``) while the child runs; ``echo`` also prints each
    line to stderr, live. Join the thread once the child has ended."""
    lines: list[tuple[float, str]] = []

    def read() -> None:
        for line in stream:
            lines.append((time.perf_counter() - started, line.rstrip()))
            if echo:
                print(line, end="", file=sys.stderr, flush=True)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return lines, reader


# a progress line (ecoagent.runtime.progress.ProgressLog): "<phase>: 12/60 (20%), 0.41/s, elapsed 0:29, ETA 1:57", and
# its last one, "<phase>: done, 60/60 in 2:05, 0.48/s"
ETA_LINE = re.compile(r"^(.+?): \d+/\d+ \(\d+%\), [\d.]+/s, elapsed ([\d:]+), ETA ([\d:]+)$")
DONE_LINE = re.compile(r"^(.+?): done, \S+ in ([\d:]+)")


def clock_seconds(clock: str) -> float:
    """``M:SS`` or ``H:MM:SS`` (:func:`ecoagent.runtime.progress.format_seconds`: a progress line's elapsed time or
    ETA) in seconds."""
    seconds = 0.0
    for part in clock.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def first_etas(lines: Iterable[str]) -> list[list]:
    """``[phase, ETA said (s), said at (s into the phase), what it then took (s)]`` for each phase whose lines gave an
    ETA and an end: how far the first time left a person is told can be trusted. Read off the lines alone (their
    elapsed times), so a log file without timestamps will do."""
    said: dict[str, tuple[float, float]] = {}
    rows: dict[str, list] = {}
    for line in lines:
        if (found := ETA_LINE.search(line)) is not None:
            said.setdefault(found.group(1), (clock_seconds(found.group(3)), clock_seconds(found.group(2))))
        elif (found := DONE_LINE.search(line)) is not None and found.group(1) in said and found.group(1) not in rows:
            eta, at = said[found.group(1)]
            rows[found.group(1)] = [found.group(1), eta, at, clock_seconds(found.group(2)) - at]
    return list(rows.values())
