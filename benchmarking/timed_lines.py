"""What a benchmarked run's printed lines say, each kept with its time (:func:`benchmarking.measure.read_timed_lines`):
the phases it counted, and how long a person watching it waited without a line.

``benchmarks/selector_start.py`` reads the selector's first start this way (its counted phases, the longest stretch
without any line); ``benchmarks/rated_cold.py`` reads ``ecoagent rated`` (each phase's ``done`` line, and the
stretches without a line that counts something: a line that says only "running" does not).
"""

from __future__ import annotations

import itertools
import re

from benchmarking.measure import clock_seconds

# "<prefix> selector start: <phase>: 12/40 ...": a counted line of the selector's start
SELECTOR_PROGRESS = re.compile(r"selector start: (.+?): (\d+)/(\d+)")
# "<phase>: done, 51/51 in 0:45, ...": a phase's last line (ecoagent.runtime.progress.ProgressLog)
PHASE_DONE = re.compile(r"^(?P<phase>.+?): done, (?P<count>\d+(?:/\d+)?) in (?P<clock>[\d:]+)")
# "<phase>: running, elapsed 0:15": a line that counts nothing
UNCOUNTED = re.compile(r": running, elapsed [\d:]+$")


def selector_phases(lines: list[tuple[float, str]]) -> list[list]:
    """Each counted phase of the selector's start at its last line: its name, its count and when it ended."""
    last: dict[str, tuple[float, str, str]] = {}
    for t, line in lines:
        if (found := SELECTOR_PROGRESS.search(line)) is not None:
            last[found.group(1)] = (t, found.group(2), found.group(3))
    return [[name, f"{done}/{total}", round(t, 1)] for name, (t, done, total) in last.items()]


def longest_silence(lines: list[tuple[float, str]], seconds: float) -> float:
    """The longest stretch of the start without a line, in seconds."""
    times = [0.0, *(t for t, _ in lines if t <= seconds), seconds]
    return max(b - a for a, b in itertools.pairwise(times))


def finished_phases(lines: list[tuple[float, str]]) -> list[list]:
    """Each finished phase: its name, its count, its duration in seconds, when it ended (seconds into the run)."""
    found = []
    for at, line in lines:
        if (done := PHASE_DONE.search(line)) is not None:
            found.append([done["phase"], done["count"], clock_seconds(done["clock"]), round(at, 1)])
    return found


def uncounted_stretches(lines: list[tuple[float, str]], seconds: float) -> list[tuple[float, float, str]]:
    """Every stretch of the run between two lines that count something: its length, when it ended (seconds into the
    run) and the line that ended it, longest first."""
    counted = [(at, line) for at, line in lines if not UNCOUNTED.search(line)]
    marks = [(0.0, "(start)"), *counted, (seconds, "(end)")]
    stretches = [(round(b[0] - a[0], 1), round(b[0], 1), b[1]) for a, b in itertools.pairwise(marks)]
    return sorted(stretches, key=lambda stretch: -stretch[0])


def longest_uncounted(lines: list[tuple[float, str]], seconds: float) -> tuple[float, str]:
    """The longest stretch of the run without a line that counts something, and the line that ended it."""
    gap, _, ended = uncounted_stretches(lines, seconds)[0]
    return gap, ended
