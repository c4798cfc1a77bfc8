"""Benchmark: the README's main job as a newcomer meets it, a cold ``make run`` on a fresh clone, stage by stage.

A fresh clone of this checkout (``--rev``, default HEAD) in a new folder, run with a new, empty home folder: no pip,
npm, Hugging Face or EcoAgent cache (packages, embeddings, the GGUF, tokenizers), no virtual environment. Only the
registry clients' own settings are copied into it (``~/.npmrc``, ``~/.config/pip``, ``~/.gitconfig``), since without
them this machine reaches no registry. Then, timed: ``make setup`` (the install the README's ``make run`` starts
with) and ``make run ARGS="--usage FILE"``, whose usage file (:mod:`ecoagent.runtime.usage`) gives each stage's wall
time. The figure is the whole ``make run`` (install included) against the target, 20 minutes on 2 cores.

With ``--encoders`` the same run then measures the pipeline's encoders against the raw loop on the run's own catalog
(``benchmarks/encoder_throughput.py`` of the clone), so both figures of issue 22's last acceptance item come from one
run.

    .venv/bin/python benchmarks/cold_run.py [--rev HEAD] [--work DIR] [--keep] [--encoders] [--record NAME]
    .venv/bin/python benchmarks/cold_run.py --install-only BASELINE_REV [--rev HEAD] [--record NAME]

``--install-only`` times only ``make setup``, cold, of an earlier commit (the baseline) and then of ``--rev``, in one
run: what a change to the install saves, as a ratio.

``--ci`` times the README's test command as CI runs it, ``bash .ci/run`` (the install with the test extras, ruff,
the docs build, every test) on a fresh clone with an empty home, against its target, 25 minutes on 2 cores.

    .venv/bin/python benchmarks/cold_run.py --ci [--rev HEAD] [--work DIR] [--keep] [--record NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.cold_run import catalog_line, fresh_home, minutes, pytest_summary, resolve
from benchmarking.measure import first_etas, print_report, timed
from benchmarking.record import add_record_option, write_record

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 20 * 60
CI_TARGET_S = 25 * 60


def interpreter() -> str:
    """The absolute path of the Python the Makefile builds the environment from (a version manager's shim would
    look for its own folder under the new home)."""
    found = shutil.which(os.environ.get("PYTHON", "python3.11"))
    if not found:
        raise SystemExit("python3.11 not found: set PYTHON to the interpreter the Makefile should use")
    return subprocess.run([found, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def timed_step(name: str, cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> float:
    """Run ``cmd`` with its output appended to ``log``; its wall seconds, or exit with the log's tail on failure."""
    print(f"{name}: {' '.join(cmd)}", flush=True)
    with log.open("a") as out:
        out.write(f"\n==== {name}: {' '.join(cmd)}\n")
        out.flush()
        proc, seconds = timed(subprocess.run, cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    code = proc.returncode
    print(f"{name}: {seconds:.0f} s (exit {code})", flush=True)
    if code != 0:
        tail = log.read_text(errors="replace").splitlines()[-30:]
        raise SystemExit(f"{name} failed with exit {code}; the last lines of {log}:\n" + "\n".join(tail))
    return seconds


def encoder_figures(clone: Path, env: dict[str, str], log: Path) -> dict:
    """The clone's encoder benchmark on the run's catalog: its one-line summary and figures."""
    out = clone / "encoders.json"
    timed_step("encoders vs the raw loop", [str(clone / ".venv/bin/python"), "benchmarks/encoder_throughput.py",
                                            "--rounds", "2", "--json", str(out)], clone, env, log)  # fmt: skip
    return json.loads(out.read_text())


def fresh_clone(rev: str, work: Path) -> tuple[Path, dict[str, str], Path]:
    """A clone of this checkout at ``rev`` and a new empty home, both under ``work``: the clone, the environment
    that uses the home (the Makefile's ``PYTHON`` set to :func:`interpreter`) and the log a run there writes."""
    clone, log = work / "clone", work / "cold_run.log"
    env = {**fresh_home(work / "home"), "PYTHON": interpreter()}
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "--quiet", rev], cwd=clone, check=True)
    return clone, env, log


def cold_install(rev: str, work: Path) -> tuple[float, Path, dict[str, str], Path]:
    """``make setup`` in a :func:`fresh_clone`: its seconds, and the clone, the environment and the log a run there
    goes on with."""
    clone, env, log = fresh_clone(rev, work)
    seconds = timed_step("install (make setup)", ["make", "setup", f"PYTHON={env['PYTHON']}"], clone, env, log)
    return seconds, clone, env, log


def cold_ci(rev: str, work: Path, args: argparse.Namespace) -> None:
    """``bash .ci/run`` on a :func:`fresh_clone`, timed against :data:`CI_TARGET_S`."""
    try:
        clone, env, log = fresh_clone(rev, work)
        seconds = timed_step("CI (bash .ci/run)", ["bash", ".ci/run"], clone, env, log)
        tests = pytest_summary(log)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    met = "met" if seconds <= CI_TARGET_S else "not met"
    figures = {"commit": rev[:12], "tests": tests,
               "cold .ci/run": f"{minutes(seconds)}: {met} (target {CI_TARGET_S // 60} min on 2 cores)"}  # fmt: skip
    print_report({"figures": figures}, f"cold .ci/run: {minutes(seconds)} ({seconds / CI_TARGET_S:.2f}x the "
                                       f"{CI_TARGET_S // 60}-min target), {tests}")  # fmt: skip
    if args.record:
        write_record(args.record, title="A cold `.ci/run` on a fresh clone", section="pipeline",
                     benchmark="a fresh clone, a new empty home (no pip, model or EcoAgent cache): `bash .ci/run` "
                               "(the README's test command: the install with the test extras, ruff, the docs build, "
                               "the tests), timed",
                     target=f"<= {CI_TARGET_S // 60} min on 2 cores", figures=figures)  # fmt: skip


def install_only(baseline: str, rev: str, work: Path, args: argparse.Namespace) -> None:
    """The install alone, the baseline commit's then ``rev``'s, each on a fresh clone and an empty home."""
    try:
        seconds = {name: cold_install(commit, work / name)[0]
                   for name, commit in (("baseline", baseline), ("rev", rev))}  # fmt: skip
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    ratio = seconds["baseline"] / seconds["rev"]
    figures = {"install at " + rev[:12]: minutes(seconds["rev"]),
               "install at " + baseline[:12] + " (the baseline)": minutes(seconds["baseline"]),
               "speed-up": f"{ratio:.2f}x the baseline's install, same run"}  # fmt: skip
    print_report({"figures": figures}, f"cold make setup: {minutes(seconds['rev'])}, {ratio:.2f}x the baseline")
    if args.record:
        write_record(args.record, title="A cold `make setup` on a fresh clone, against an earlier commit's",
                     section="pipeline",
                     benchmark="`make setup` (what `make run` installs first) on a fresh clone with a new empty home "
                               "(no pip cache), the baseline commit's first, then this one's, one after the other",
                     figures=figures, notes=["Both installs download every package: the registry's speed at the "
                                             "time is part of each figure."])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the commit to clone (default: HEAD of this checkout)")
    parser.add_argument("--work", type=Path, help="folder for the clone and the home (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and the home afterwards")
    parser.add_argument("--encoders", action="store_true", help="then the encoders vs the raw loop, same run")
    parser.add_argument("--install-only", metavar="BASELINE_REV",
                        help="only `make setup`, of --rev and of this earlier commit, each cold, in one run")
    parser.add_argument("--ci", action="store_true", help="time `bash .ci/run` (the tests) instead of make run")
    add_record_option(parser)
    args = parser.parse_args()
    rev = resolve(args.rev)
    work = args.work or Path(tempfile.mkdtemp(prefix="ecoagent-cold-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.install_only:
        install_only(resolve(args.install_only), rev, work, args)
        return
    if args.ci:
        cold_ci(rev, work, args)
        return
    cold_make_run(rev, work, args)


def cold_make_run(rev: str, work: Path, args: argparse.Namespace) -> None:
    """``make setup`` then ``make run`` on a :func:`fresh_clone`, per stage, against :data:`TARGET_S`."""
    usage = work / "usage.json"
    try:
        install, clone, env, log = cold_install(rev, work)
        command = ["make", "run", f"PYTHON={env['PYTHON']}", f"ARGS=--usage {usage}"]
        run = timed_step("the main job (make run)", command, clone, env, log)
        stages = json.loads(usage.read_text())
        catalog = catalog_line(clone)
        etas = first_etas(log.read_text(errors="replace").splitlines())
        encoders = encoder_figures(clone, env, log) if args.encoders else None
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    total = install + run
    rows = [["install (make setup: venv, torch, the project)", round(install, 1), minutes(install)]]
    rows += [[s["stage"], round(s["wall_s"], 1), minutes(s["wall_s"])] for s in stages.get("stages", stages)]
    staged = sum(s["wall_s"] for s in stages.get("stages", stages))
    rows.append(["the CLI's start, between stages", round(run - staged, 1), minutes(run - staged)])
    rows.append(["make run, install included", round(total, 1), minutes(total)])
    met = "met" if total <= TARGET_S else "not met"
    figures = {
        "commit": rev[:12],
        "catalog": f"{catalog['tools']:,} tools ({', '.join(f'{k} {v:,}' for k, v in catalog['per_listing'].items())})",
        "cold make run, install included": f"{minutes(total)}: {met} (target {TARGET_S // 60} min on 2 cores)",
        "install": minutes(install),
        "ecoagent run": minutes(run),
    }
    tables = [{"caption": "Per stage (wall time; the stages' from `ecoagent run --usage`)",
               "columns": ["step", "seconds", "time"], "rows": rows},
              {"caption": "Each phase's first ETA against the time it then took (seconds into the phase)",
               "columns": ["phase", "ETA said", "said at", "took from there"], "rows": etas}]  # fmt: skip
    if encoders:
        figures.update({f"encoders: {k}": v for k, v in encoders["figures"].items()
                        if re.search(r"pipeline encoder$|raw loop, best", k)})  # fmt: skip
        figures["encoders"] = encoders["summary"]
        tables.append({"caption": "The encoders vs the raw loop, same run, on the run's catalog",
                       "columns": ["model", "raw loop texts/s", "raw configuration", "pipeline texts/s",
                                   "pipeline / raw"], "rows": encoders["side_by_side"]})  # fmt: skip
    print_report({"figures": figures, "tables": tables},
                 f"cold make run: {minutes(total)} ({total / TARGET_S:.2f}x the {TARGET_S // 60}-min target), "
                 f"{catalog['tools']:,} tools")  # fmt: skip
    if args.record:
        write_record(args.record, title="A cold `make run` on a fresh clone", section="pipeline",
                     benchmark="a fresh clone, a new empty home (no pip, npm, model or EcoAgent cache): `make setup` "
                               "then `make run`, timed, stages from `--usage`",
                     target="<= 20 min on 2 cores, install included", figures=figures, tables=tables)  # fmt: skip


if __name__ == "__main__":
    main()
