"""A benchmark that runs a whole deployment checks each step as it goes: one line per check that held, and the first
that fails stops the benchmark with exit 1 once everything it started is stopped.

``benchmarks/airflow_scheduler.py`` (the real scheduler) and ``benchmarks/celery_deployment.py`` (the production
deployment) both run this way: :func:`check` inside their steps, :func:`run_checked` around them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path


class CheckFailed(RuntimeError):
    """A check of the benchmark did not hold (the message says which)."""


def check(condition: bool, message: str) -> None:
    """``  ok: MESSAGE`` when ``condition`` holds, else :class:`CheckFailed` with ``message``."""
    if not condition:
        raise CheckFailed(message)
    print(f"  ok: {message}", flush=True)


def run_checked(prefix: str, args: argparse.Namespace, run_in: Callable[[Path, argparse.Namespace], dict],
                mode: int = 0o700) -> dict:  # fmt: skip
    """``run_in(work, args)`` in ``--keep DIR`` or a temporary folder (``mode``), its report printed; a failed check
    exits 1 (``run_in`` has stopped everything by then)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        os.chmod(work, mode)
        try:
            report = run_in(work, args)
        except CheckFailed as exc:
            print(f"FAILED: {exc}", file=sys.stderr)
            raise SystemExit(1) from exc
    print(json.dumps(report, indent=2))
    return report
