"""What every benchmark does around its own measurement: time a call, then print the figures and one summary line.

A benchmark prints its figures as JSON (what a reader or CI keeps) and then one line with the ratio it exists to
show, measured against a baseline in the same run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
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
