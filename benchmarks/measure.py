"""What every benchmark does around its own measurement: time a call, then print the figures and one summary line.

A benchmark prints its figures as JSON (what a reader or CI keeps) and then one line with the ratio it exists to
show, measured against a baseline in the same run.
"""

from __future__ import annotations

import json
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
