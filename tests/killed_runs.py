"""Run a stage in a child process that SIGKILLs itself at a chosen point, and check what it leaves behind.

A kill at a named point (after a given file is written, at the first extraction result, after the first LLM
reply) makes the test deterministic; the timed kills at arbitrary moments are in ``benchmarks/kill_resume.py``.
The child imports this checkout (cwd and PYTHONPATH are the repository root).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]

# Imported by every child: the kill itself, and a record of the child's own child processes just before it.
PRELUDE = """
import json, os, signal, sys
import psutil

def die(pids_file=None):
    if pids_file:
        with open(pids_file, "w") as fh:
            json.dump([p.pid for p in psutil.Process().children(recursive=True)], fh)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def run_killed(code: str, *args: object, timeout: float = 600) -> None:
    """Run ``PRELUDE + code`` with ``args`` as ``sys.argv[1:]``; it must end by SIGKILL.

    Its output goes to a file, not a pipe: a grandchild that survives the kill would hold a pipe open and make
    the wait hang, where the test should fail on the grandchild instead.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    with tempfile.TemporaryFile() as log:
        proc = subprocess.run([sys.executable, "-c", PRELUDE + code, *map(str, args)], cwd=ROOT, env=env,
                              stdout=log, stderr=log, timeout=timeout)  # fmt: skip
        log.seek(0)
        tail = log.read()[-3000:].decode(errors="replace")
    assert proc.returncode == -signal.SIGKILL, f"the child was not killed (exit {proc.returncode}): {tail}"


def still_alive(pids_file: Path, within_s: float = 10.0) -> list[int]:
    """The recorded child processes still running after ``within_s`` seconds (zombies count as gone).

    Survivors are then killed, so a failing test leaves no process behind either.
    """
    pids = json.loads(pids_file.read_text())
    deadline = time.monotonic() + within_s
    while True:
        alive = [p for p in pids if _running(p)]
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return alive


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def hidden_entries(folder: Path) -> list[str]:
    """Leftovers beside stage folders: ``.<name>.tmp-*`` / ``.<name>.old-*``."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def file_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def without_timings(summary_path: Path, *keys: str) -> dict:
    """A stage summary minus what depends on the clock or the caches' state."""
    summary = json.loads(summary_path.read_text())
    for key in ("seconds", *keys):
        summary.pop(key, None)
    return summary
