"""Benchmark: ``ecoagent rated`` on a release as a newcomer meets it, phase by phase.

    .venv/bin/python benchmarks/rated_cold.py --release data/release/<version> --home DIR [--out DIR]
        [--set section.key=value ...] [--record NAME]

Runs ``ecoagent rated --release R --out O --usage O/usage.json`` with ``HOME`` set to ``--home``: a new empty home
for a first run on a machine (no embedding cache, no ONNX graph), or the home a cold ``make run`` left
(``benchmarks/cold_run.py --keep``: the catalog's MiniLM vectors are there, as on a newcomer's machine after the
README's first command). Every line the run prints is kept with its time; the figures are the whole run against the
README's reading (minutes), each counted phase's duration (its ``done`` line), and the longest stretch without a
counted line: a line that says only "running" does not count (the target: none longer than 30 s).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report, read_timed_lines
from benchmarking.record import add_record_option, write_record
from benchmarking.timed_lines import finished_phases, longest_uncounted, uncounted_stretches

ROOT = Path(__file__).resolve().parents[1]
SILENCE_TARGET_S = 30.0


def ecoagent() -> str:
    local = ROOT / ".venv" / "bin" / "ecoagent"
    return str(local) if local.exists() else shutil.which("ecoagent") or "ecoagent"


def run_rated(release: str, out: Path, home: Path, overrides: list[str], timeout_s: float) -> dict:
    """One ``ecoagent rated`` run: exit code, wall seconds, every printed line with its time, the usage record."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ECOAGENT", "XDG_CACHE", "HF_HOME"))}
    env.update(HOME=str(home), HF_HUB_OFFLINE="1")
    usage = out / "usage.json"
    command = [ecoagent(), "rated", "--release", release, "--out", str(out), "--usage", str(usage),
               *(f"--set={value}" for value in overrides)]  # fmt: skip
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, reader = read_timed_lines(proc.stdout, started, echo=True)  # the run's own lines, live, beside the figures
    try:
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = -9
    reader.join(timeout=10)
    seconds = time.perf_counter() - started
    recorded = json.loads(usage.read_text()) if usage.exists() else None
    return {"code": code, "seconds": seconds, "lines": lines, "usage": recorded}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", required=True, help="a release folder")
    parser.add_argument("--home", type=Path, required=True, help="the HOME the run uses (its caches)")
    parser.add_argument("--out", type=Path, help="where the run writes (default: <home>/rated-out, made anew)")
    parser.add_argument("--set", action="append", default=[], dest="overrides", help="section.key=value (repeat)")
    parser.add_argument("--timeout", type=float, default=4 * 3600)
    add_record_option(parser)
    args = parser.parse_args()
    args.home.mkdir(parents=True, exist_ok=True)
    out = args.out or args.home / "rated-out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    ran = run_rated(args.release, out, args.home, args.overrides, args.timeout)
    if ran["code"] != 0:
        tail = "\n".join(line for _, line in ran["lines"][-30:])
        raise SystemExit(f"ecoagent rated exited with {ran['code']}:\n{tail}")
    gap, ended = longest_uncounted(ran["lines"], ran["seconds"])
    minutes = ran["seconds"] / 60
    usage = (ran["usage"] or {}).get("stages", ran["usage"]) or {}
    figures = {
        "ecoagent rated": f"{minutes:.1f} min ({ran['seconds']:.0f} s)",
        "longest stretch without a counted line": f"{gap:.1f} s (ended by: {ended[:120]}): "
                                                  f"{'met' if gap <= SILENCE_TARGET_S else 'not met'} "
                                                  f"(target <= {SILENCE_TARGET_S:.0f} s)",
        "usage": usage,
        "settings changed": args.overrides or "none (the default profile)",
        "cpu": os.cpu_count(),
    }  # fmt: skip
    table = {"caption": "Each counted phase: its count and duration", "columns": ["phase", "count", "s", "ended at s"],
             "rows": finished_phases(ran["lines"])}  # fmt: skip
    over = [[gap, at, line[:120]] for gap, at, line in uncounted_stretches(ran["lines"], ran["seconds"])
            if gap > SILENCE_TARGET_S]  # fmt: skip
    silent = {"caption": f"Every stretch without a counted line over {SILENCE_TARGET_S:.0f} s",
              "columns": ["s", "ended at s", "the line that ended it"], "rows": over}  # fmt: skip
    print_report({"figures": figures, "tables": [table, silent]},
                 f"ecoagent rated: {minutes:.1f} min, longest stretch without counts {gap:.0f} s")  # fmt: skip
    if args.record:
        write_record(args.record, title="`ecoagent rated` as a newcomer meets it", section="rated",
                     benchmark=f"`ecoagent rated --release {args.release}` with HOME={args.home}, every printed line "
                               "timed; a phase's duration is its `done` line's",
                     target="no phase without counts for more than 30 s; the whole run in the docs, per phase",
                     figures=figures, tables=[table, silent])  # fmt: skip


if __name__ == "__main__":
    main()
