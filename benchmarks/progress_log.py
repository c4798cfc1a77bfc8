"""Benchmark: how often a log written to a file hears from generation and verification (target: every 30 s or less).

Runs `ecoagent synth` and `ecoagent label` (the stages `make run` runs after the crawl and the score) on a scored
catalog with the embedded Gemma 3 270M and an empty LLM response cache, so every request really goes to the
model. Their output goes to a pipe, as `make run > run.log 2>&1` sends it to a file (no terminal: plain
progress lines, no bars); this script writes it to `<work>/<stage>.log` with the second each line arrived,
and reports the longest silence between two lines of each stage.

    .venv/bin/python benchmarks/progress_log.py --score data/score [--sample-size 8] [--max-queries 40]
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_stage(stage: str, args: list[str], log_path: Path) -> dict:
    """Run one stage, stamp each output line with its arrival time; the stage's exit code and longest silence."""
    cmd = [str(Path(sys.executable).with_name("ecoagent")), stage, *args]
    started = time.monotonic()
    stamps: list[float] = []
    eta_lines = 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's code, whatever the venv was installed from
    with log_path.open("w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            now = time.monotonic() - started
            stamps.append(now)
            eta_lines += ", ETA " in line
            log.write(f"{now:8.1f}s  {line}")
        code = proc.wait()
    end = time.monotonic() - started
    points = [0.0, *stamps, end]
    gaps = [b - a for a, b in itertools.pairwise(points)]
    return {"exit": code, "seconds": round(end, 1), "lines": len(stamps), "eta_lines": eta_lines,
            "longest_silence_s": round(max(gaps), 1)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--score", type=Path, required=True, help="a score stage folder (tools_scored.parquet)")
    parser.add_argument("--sample-size", type=int, default=8, help="tools sent to generation")
    parser.add_argument("--max-queries", type=int, default=40, help="real queries taken to verification")
    parser.add_argument("--keep", type=Path, help="keep the logs and outputs here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ecoagent-bench-progress-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        common = ["--in", str(args.score), "--set", f"llm.cache_path={work / 'llm.sqlite'}"]
        results = {
            "synth": run_stage(
                "synth", [*common, "--out", str(work / "synth"), "--set", f"synth.sample_size={args.sample_size}"],
                work / "synth.log",
            ),
            "label": run_stage(
                "label",
                [*common, "--out", str(work / "label"), "--set", "label.verifier=llm",
                 "--set", f"label.max_queries={args.max_queries}"],
                work / "label.log",
            ),
        }  # fmt: skip
        for stage, r in results.items():
            print(f"{stage}: exit {r['exit']}, {r['seconds']} s, {r['lines']} lines ({r['eta_lines']} with an ETA), "
                  f"longest silence {r['longest_silence_s']} s (target <= 30 s); log {work / stage}.log")  # fmt: skip
        if any(r["exit"] != 0 or r["longest_silence_s"] > 30 for r in results.values()):
            raise SystemExit(1)


if __name__ == "__main__":
    main()
