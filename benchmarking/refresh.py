"""The refresh benchmark's parts (``benchmarks/refresh.py``): one ``ecoagent run`` in a fresh process, as the README
runs it, and the source list with one package at another version, which the third refresh crawls.

The script runs three refreshes of the default profile (the registries, the embedded model: about an hour on 2
cores); its test runs these parts alone (``tests/benchmarks/test_refresh.py``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def run_refresh(out: Path, overrides: list[str]) -> float:
    """``ecoagent run --out OUT --set ...`` in a fresh process, its output kept in ``OUT.log``: its wall seconds, or
    exit naming the log when it fails (a partial crawl, exit 3, is a run that went through)."""
    cmd = [str(Path(sys.executable).with_name("ecoagent")), "run", "--out", str(out)]
    for item in overrides:
        cmd += ["--set", item]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    (out.parent / f"{out.name}.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"`ecoagent run` failed ({proc.returncode}); see {out.parent / (out.name + '.log')}")
    return seconds


def bump_sources(sources: Path, name: str, version: str, out: Path) -> Path:
    """The source list ``sources`` with package ``name`` at ``version``, written to ``out``."""
    listed = yaml.safe_load(sources.read_text())
    for row in listed["sources"]:
        if row["name"] == name:
            row["version"] = version
    out.write_text(yaml.safe_dump(listed, sort_keys=False))
    return out
