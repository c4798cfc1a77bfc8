"""Benchmark: the real Airflow scheduler end to end, started as the README's "Try it locally" section starts it.

1. ``airflow standalone`` (api-server, scheduler, dag-processor, triggerer; LocalExecutor, parallelism 2) in a
   temporary ``AIRFLOW_HOME``, in a session of its own (``setsid``), with ``.venv/bin`` first on the PATH (its
   components are started as ``airflow ...``) and this checkout on ``PYTHONPATH``;
2. both DAGs unpaused through the REST API; after ``--unpause-wait-s`` no ``ecoagent_refresh`` run exists and the
   next scheduled one is in the future (unpausing starts nothing);
3. ``ecoagent_refresh`` triggered through the REST API with the fixture conf of the DAG tests
   (``tests/dags/fixture_world.py``: a local package mirror, the real embedded Gemma 3 270M, tiny outputs), waited
   for, checked: success, a promoted release with a passed gate;
4. the ``ecoagent_rated`` run that the refresh's ``ecoagent/release`` asset event triggered, waited for, checked:
   success, an asset-triggered run, ``metrics.json`` under the refresh's root for the refresh's release with the
   refresh's profile; the task logs hold the plain progress lines;
5. everything stopped: SIGTERM to every process of the session (task processes run in process groups of their
   own, so a group kill misses them), SIGKILL to what is left after ``--stop-grace-s``, and a check that no
   process of the session is left.

Prints each step's time and the total; exits 1 when a check fails (after stopping everything).

    .venv/bin/python benchmarks/airflow_scheduler.py [--keep DIR] [--timeout-min 45]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a file: this checkout's packages and its tests/ (the fixture builders)

from benchmarking.airflow_standalone import Standalone, free_port, progress_lines  # noqa: E402
from benchmarking.checks import check, run_checked  # noqa: E402
from ecoagent.layout import RATED_FILES, RELEASE_FILES  # noqa: E402
from tests.dags.fixture_world import fixture_refresh_conf  # noqa: E402


def run(work: Path, args: argparse.Namespace) -> dict:
    timings: dict[str, float] = {}
    home = work / "airflow-home"
    home.mkdir(parents=True, exist_ok=True)
    conf = fixture_refresh_conf(work / "fixture")
    root = Path(conf["out"])
    airflow = Standalone(home, free_port(), args.parallelism)
    t0 = time.perf_counter()
    report: dict = {"home": str(home), "root": str(root)}
    try:
        start_and_parse(airflow, args, timings, t0)
        report["next_scheduled_run"] = unpause_and_stay_idle(airflow, args)
        refresh_run, release = refresh(airflow, conf, args, timings)
        report["release"] = str(release)
        rated_by_the_release_event(airflow, refresh_run, release, root, args, timings, report)
    finally:
        print(f"5. stop everything (SIGTERM, SIGKILL after {args.stop_grace_s:.0f} s)")
        stopped = airflow.stop(args.stop_grace_s)
        print(f"  {stopped}", flush=True)
        report["stop"] = stopped
        timings["total_s"] = round(time.perf_counter() - t0, 1)
        report["timings"] = timings
    check(not stopped["left"], f"no process left ({stopped['terminated']} terminated, {stopped['killed']} killed, "
                                f"{stopped['seconds']} s)")  # fmt: skip
    return report


def start_and_parse(airflow: Standalone, args: argparse.Namespace, timings: dict, t0: float) -> None:
    """1. ``airflow standalone`` healthy, logged in, the LLM pool made, both DAGs parsed."""
    print(f"1. airflow standalone in {airflow.home} (port {airflow.port}, LocalExecutor, parallelism "
          f"{args.parallelism})")  # fmt: skip
    airflow.start()
    airflow.wait_healthy(args.timeout_min * 60)
    airflow.login()
    # the LLM tasks run in the LLM endpoint's pool (dags/ecoagent_refresh.py): it must exist, or they wait forever
    airflow.call("POST", "/api/v2/pools", {"name": "ecoagent_llm", "slots": 1, "description": "the LLM endpoint"})
    for dag_id in ("ecoagent_refresh", "ecoagent_rated"):
        airflow.wait_dag(dag_id, 300)
    timings["start_to_healthy_and_parsed_s"] = round(time.perf_counter() - t0, 1)
    check(True, f"healthy, both DAGs parsed after {timings['start_to_healthy_and_parsed_s']} s")


def unpause_and_stay_idle(airflow: Standalone, args: argparse.Namespace) -> str:
    """2. Both DAGs unpaused: no run starts, the first scheduled one is the next tick; returns its time."""
    print(f"2. unpause both DAGs, wait {args.unpause_wait_s} s")
    for dag_id in ("ecoagent_refresh", "ecoagent_rated"):
        airflow.call("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": False})
    time.sleep(args.unpause_wait_s)
    refresh_dag = airflow.call("GET", "/api/v2/dags/ecoagent_refresh")
    check(not refresh_dag["is_paused"], "ecoagent_refresh is unpaused")
    check(airflow.runs("ecoagent_refresh") == [], f"no ecoagent_refresh run {args.unpause_wait_s} s after unpause")
    next_run = refresh_dag["next_dagrun_run_after"]
    check(bool(next_run) and next_run > time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()),
           f"the first scheduled run is the next tick: {next_run}")  # fmt: skip
    return next_run


def refresh(airflow: Standalone, conf: dict, args: argparse.Namespace, timings: dict) -> tuple[dict, Path]:
    """3. ``ecoagent_refresh`` triggered with the fixture conf and waited for: its run, and the release it promoted
    (its gate passed)."""
    print("3. trigger ecoagent_refresh with the fixture conf through the REST API")
    t = time.perf_counter()
    triggered = airflow.call("POST", "/api/v2/dags/ecoagent_refresh/dagRuns", {"logical_date": None, "conf": conf})
    refresh_run = airflow.wait_run("ecoagent_refresh", triggered["dag_run_id"], args.timeout_min * 60)
    timings["refresh_s"] = round(time.perf_counter() - t, 1)
    states = airflow.task_states("ecoagent_refresh", refresh_run["dag_run_id"])
    check(refresh_run["state"] == "success", f"ecoagent_refresh succeeded ({timings['refresh_s']} s): {states}")
    (release,) = (Path(conf["out"]) / "release").iterdir()
    manifest = json.loads((release / RELEASE_FILES.manifest).read_text())
    check(manifest["gate"]["success"], f"release {release.name} promoted to {release}, its gate passed")
    return refresh_run, release


def rated_by_the_release_event(airflow: Standalone, refresh_run: dict, release: Path, root: Path,
                               args: argparse.Namespace, timings: dict, report: dict) -> None:  # fmt: skip
    """4. The ``ecoagent_rated`` run the release's asset event triggered: waited for, its metrics checked, and the
    progress lines in both DAGs' task logs."""
    print("4. the ecoagent_rated run its asset event triggered")
    t = time.perf_counter()
    deadline = time.monotonic() + 300
    rated_runs = []
    while not rated_runs and time.monotonic() < deadline:
        rated_runs = airflow.runs("ecoagent_rated")
        time.sleep(1)
    check(len(rated_runs) == 1, "one ecoagent_rated run, created by the release event")
    rated_run = rated_runs[0]
    check(rated_run["run_type"] == "asset_triggered", f"its run type is {rated_run['run_type']}")
    if rated_run.get("queued_at") and refresh_run.get("end_date"):
        report["rated_queued_after_refresh_end"] = rated_run["queued_at"] + " vs " + refresh_run["end_date"]
    rated_run = airflow.wait_run("ecoagent_rated", rated_run["dag_run_id"], args.timeout_min * 60)
    timings["rated_s"] = round(time.perf_counter() - t, 1)
    states = airflow.task_states("ecoagent_rated", rated_run["dag_run_id"])
    check(rated_run["state"] == "success", f"ecoagent_rated succeeded ({timings['rated_s']} s): {states}")
    out = root / "rated" / release.name  # RATED.out_under: one folder per release
    metrics = json.loads((out / RATED_FILES.metrics).read_text())
    check(metrics["release"]["folder"] == str(release), f"it evaluated the refresh's release ({out})")
    check(metrics["profile"] == "fixture", "with the refresh's profile (fixture), under the refresh's root")
    check((out / RATED_FILES.report).is_file(), "and wrote report.md")
    lines = {d: progress_lines(airflow.home / "logs", d) for d in ("ecoagent_refresh", "ecoagent_rated")}
    check(all(lines.values()), f"progress lines in the task logs: {lines}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="work here (and keep it) instead of a temporary folder")
    parser.add_argument("--timeout-min", type=float, default=45, help="per wait: start, refresh, rated")
    parser.add_argument("--unpause-wait-s", type=float, default=60, help="how long unpaused DAGs must stay idle")
    parser.add_argument("--stop-grace-s", type=float, default=30, help="SIGTERM to SIGKILL")
    parser.add_argument("--parallelism", type=int, default=2)
    args = parser.parse_args()
    report = run_checked("ecoagent-bench-airflow-", args, run)
    t = report["timings"]
    print(
        f"real scheduler, fixture conf: start {t['start_to_healthy_and_parsed_s']} s, refresh {t['refresh_s']} s, "
        f"rated (asset-triggered) {t['rated_s']} s, stop {report['stop']['seconds']} s, total {t['total_s']} s"
    )


if __name__ == "__main__":
    main()
