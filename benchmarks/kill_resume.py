"""kill -9 at timed moments of crawl, score, synth (small sample) and release build, then rerun.

    .venv/bin/python benchmarks/kill_resume.py --run data [--work DIR] [--at 0.25 0.5 0.8]

For each stage, on the real inputs of a finished run (``--run``: a run root with crawl/, score/, synth/, label/):

1. an uninterrupted reference run into a folder of its own, timed (T);
2. for each fraction f of ``--at``: the output folder is set to a *previous generation* that differs from the
   new one (the ``--run`` folder's own output for that stage; for the crawl, a crawl of one platform), the stage
   is started as the CLI does it (``ecoagent <stage>``), and SIGKILLed after f x T seconds (for the release, the
   previous generation is a build of the same stages with other Syn split ratios). Then:
   - **generation**: the folder must hold the previous generation byte for byte, or a complete new one equal to the
     reference; anything else is a mix (the score folder may also be the new catalog without its gate report yet,
     when the kill fell in the gate step: reported as ``new, not gated``);
   - **stray processes**: the killed command's descendants (extraction workers, pip, the embedded llama.cpp
     server) must all be gone within 5 s;
   - the stage is rerun to completion: its outputs must equal the reference's, and no hidden ``.tmp-``/``.old-``
     folder or ``*.tmp-*`` file may remain.

Outputs are compared byte for byte, except what records the clock or the caches' state, removed first: the
summaries' ``seconds`` and cache counters, great-expectations' run times and random ids in the gate reports. The
release's ``created`` time comes from ``SOURCE_DATE_EPOCH`` (set here), so its manifest and card compare as they
are. The synth stage runs on a small sample (``--synth-tools``) with the embedded model, each
killed run on an empty response cache of its own, so the kill lands while the model is generating and the rerun
resumes from what the killed run had cached. Prints one line per kill and a verdict; exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
ECOAGENT = [sys.executable, "-m", "pipeline.cli"]
_CLOCK_KEYS = re.compile(r"(time|seconds|run_id|run_name|cached_before|cache|_new$)", re.I)
_TIMESTAMP = re.compile(r"\d{4}-?\d{2}-?\d{2}T\d{2}:?\d{2}:?\d{2}[0-9.:+Z-]*")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")  # great-expectations' run ids


@dataclass
class Stage:
    name: str
    command: Callable[[Path], list[str]]  # the ecoagent arguments that write this stage into a folder
    previous: Path  # an earlier generation of the folder that differs from the new one
    fresh: list[Path] = field(default_factory=list)  # emptied before each run (the synth's response cache)


def _without_clock(value):
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if not _CLOCK_KEYS.search(k)}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    if isinstance(value, str):
        return _UUID.sub("<id>", _TIMESTAMP.sub("<time>", value))
    return value


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file of a folder by relative path, with clock-dependent content normalized."""
    files: dict[str, bytes] = {}
    if not folder.is_dir():
        return files
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.suffix == ".json":
            data = json.dumps(_without_clock(json.loads(data)), sort_keys=True).encode()
        elif path.suffix in (".md", ".yaml"):
            data = _UUID.sub("<id>", _TIMESTAMP.sub("<time>", data.decode())).encode()
        files[str(path.relative_to(folder))] = data
    return files


def leftovers(folder: Path) -> list[str]:
    hidden = [p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.")]
    inside = [p.name for p in folder.rglob("*.tmp-*")] if folder.is_dir() else []
    return sorted(hidden + inside)


def run(args: list[str], env: dict) -> float:
    started = time.perf_counter()
    with tempfile.TemporaryFile() as log:  # a file, not a pipe: a stray grandchild must not make the wait hang
        proc = subprocess.run([*ECOAGENT, *args], env=env, stdout=subprocess.DEVNULL, stderr=log)
        log.seek(0)
        tail = log.read()[-2000:].decode(errors="replace")
    if proc.returncode not in (0, 3):  # 3: a partial crawl, still a complete catalog
        raise SystemExit(f"ecoagent {' '.join(args[:2])} failed ({proc.returncode}): {tail}")
    return time.perf_counter() - started


def set_generation(folder: Path, source: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(source, folder)


def kill_at(args: list[str], env: dict, after_s: float) -> tuple[list[int], bool]:
    """Start the command, SIGKILL it after ``after_s`` seconds; (its descendants just before, whether it had
    already finished)."""
    proc = subprocess.Popen([*ECOAGENT, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + after_s
    descendants: set[int] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        try:  # sampled all along: a pip or a worker may come and go before the kill
            descendants |= {p.pid for p in psutil.Process(proc.pid).children(recursive=True)}
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    finished = proc.poll() is not None
    if not finished:
        with contextlib.suppress(psutil.NoSuchProcess):
            descendants |= {p.pid for p in psutil.Process(proc.pid).children(recursive=True)}
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return sorted(descendants), finished


def strays(pids: list[int], within_s: float = 5.0) -> list[int]:
    deadline = time.monotonic() + within_s
    while True:
        alive = []
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for pid in alive:  # report them, and leave nothing behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return alive


def classify(state: dict, previous: dict, reference: dict) -> str:
    if state == previous:
        return "previous"
    if state == reference:
        return "new"
    gate_reports = {k for k in reference if "gate" in k}
    if gate_reports and {k: v for k, v in reference.items() if k not in gate_reports} == state:
        return "new, not gated"
    return "MIXED"


def _sets(items: list[str]) -> list[str]:
    return [a for item in items for a in ("--set", item)]


def stages(run_root: Path, work: Path, args, env: dict) -> list[Stage]:
    """The four stages, chained on the reference outputs so each previous generation differs from the new one."""
    ref = work / "reference"
    cache = work / "synth-cache.sqlite"
    synth_sets = [f"synth.sample_size={args.synth_tools}", f"synth.max_tokens={args.synth_tokens}",
                  f"llm.cache_path={cache}"]  # fmt: skip

    def release(out: Path, *extra: str) -> list[str]:
        # the build writes <root>/release/<version> from <root>/{crawl,score,synth,label}: the run's own stages
        root = out.parent.parent
        root.mkdir(parents=True, exist_ok=True)
        for name in ("crawl", "score", "synth", "label"):
            if not (root / name).exists():
                (root / name).symlink_to(run_root / name)
        return ["release", "build", "--in", str(root), "--version", args.version,
                "--set", f"release.repo_releases_dir={work / 'tracked'}", *extra]  # fmt: skip

    # the release's previous generation: the same inputs with other Syn split ratios (other split files)
    previous_release = work / "previous-release" / "release" / args.version
    if "release" in args.stages and not previous_release.exists():
        run(release(previous_release, "--set", "release.syn_split_ratios=[0.5,0.2,0.3]"), env)

    platforms = _sets([f"crawl.platforms=[{','.join(args.platforms)}]"])
    return [
        Stage("crawl", lambda out: ["crawl", "--out", str(out), *platforms], work / "previous-crawl"),
        Stage("score", lambda out: ["score", "--in", str(ref / "crawl"), "--out", str(out)], run_root / "score"),
        Stage(
            "synth",
            lambda out: ["synth", "--in", str(run_root / "score"), "--out", str(out), *_sets(synth_sets)],
            run_root / "synth",
            fresh=[cache],
        ),
        Stage("release", release, previous_release),
    ]


def _folders(stage: Stage, work: Path, version: str) -> tuple[Path, Path]:
    """(the reference folder, the folder the kills hit)."""
    if stage.name == "release":
        return work / "reference-release" / "release" / version, work / "killed-release" / "release" / version
    return work / "reference" / stage.name, work / "killed" / stage.name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="a finished run root: crawl/ score/ synth/ label/")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--at", type=float, nargs="+", default=[0.25, 0.5, 0.8], help="kill moments, share of T")
    parser.add_argument("--stages", nargs="+", default=["crawl", "score", "synth", "release"])
    parser.add_argument("--platforms", nargs="+", default=["langchain", "crewai", "mcp", "n8n"],
                        help="platforms the crawl covers (all five: a longer run)")  # fmt: skip
    parser.add_argument("--synth-tools", type=int, default=4)
    parser.add_argument("--synth-tokens", type=int, default=48)
    parser.add_argument("--version", default=None, help="release version (default: the one under --run/release)")
    args = parser.parse_args()
    run_root = args.run.resolve()
    if args.version is None:
        args.version = sorted(p.name for p in (run_root / "release").iterdir() if not p.name.startswith("."))[-1]
    work = (args.work or Path(tempfile.mkdtemp(prefix="kill-resume-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    # SOURCE_DATE_EPOCH: the release's `created` time, fixed, so its manifest and card are reproducible too
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "SOURCE_DATE_EPOCH": "1796083200"}
    print(f"run {run_root}, scratch {work}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, kills at {args.at}")
    run(["crawl", "--out", str(work / "previous-crawl"), *_sets(["crawl.platforms=[mcp]"])], env)

    violations = 0
    for stage in (s for s in stages(run_root, work, args, env) if s.name in args.stages):
        reference_out, out = _folders(stage, work, args.version)
        for fresh in stage.fresh:
            fresh.unlink(missing_ok=True)
        reference_out.parent.mkdir(parents=True, exist_ok=True)
        seconds = run(stage.command(reference_out), env)
        reference, previous = snapshot(reference_out), snapshot(stage.previous)
        assert reference != previous, f"{stage.name}: the previous generation must differ from the new one"
        print(f"{stage.name}: uninterrupted {seconds:.1f} s, {len(reference)} files")
        for share in args.at:
            out.parent.mkdir(parents=True, exist_ok=True)
            set_generation(out, stage.previous)
            for fresh in stage.fresh:
                fresh.unlink(missing_ok=True)
            pids, finished = kill_at(stage.command(out), env, share * seconds)
            state = classify(snapshot(out), previous, reference)
            alive = strays(pids)
            rerun_s = run(stage.command(out), env)
            identical = snapshot(out) == reference
            left = leftovers(out)
            ok = state != "MIXED" and not alive and identical and not left
            violations += not ok
            print(f"  kill at {share * seconds:5.1f} s ({share:.0%}{', it had finished' if finished else ''}): "
                  f"folder {state}; {len(pids)} child processes, {len(alive)} alive after 5 s; rerun {rerun_s:.1f} s "
                  f"{'identical to' if identical else 'DIFFERS from'} the reference; leftovers {left or 'none'}"
                  f"{'' if ok else '  <-- VIOLATION'}")  # fmt: skip
    print("all kills: one generation at a time, no stray process, reruns identical, no leftovers" if not violations
          else f"{violations} violation(s)")  # fmt: skip
    return 1 if violations else 0


if __name__ == "__main__":
    raise SystemExit(main())
