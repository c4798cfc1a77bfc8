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
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a file: this checkout's packages and its tests/ (the fixture builders)

from ecoagent.layout import RATED_FILES, RELEASE_FILES, safe_run_id  # noqa: E402
from tests.dags.fixture_world import fixture_refresh_conf  # noqa: E402

DONE = {"success", "failed"}


class CheckFailed(RuntimeError):
    pass


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)
    print(f"  ok: {message}", flush=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Standalone:
    """``airflow standalone`` in its own session, its REST API, and a stop that leaves nothing behind."""

    def __init__(self, home: Path, port: int, parallelism: int):
        self.home, self.port = home, port
        self.tag = f"ecoagent-bench-{uuid.uuid4().hex[:12]}"  # every process it starts inherits this variable
        venv_bin = str(Path(sys.executable).parent)
        self.env = {
            **os.environ,
            "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(ROOT),
            "AIRFLOW_HOME": str(home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(ROOT / "dags"),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__PARALLELISM": str(parallelism),
            "AIRFLOW__CORE__MAX_ACTIVE_TASKS_PER_DAG": str(parallelism),
            "AIRFLOW__API__HOST": "127.0.0.1",
            "AIRFLOW__API__PORT": str(port),
            # the task processes talk to the api-server's execution API (default: :8080, maybe taken here)
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{port}/execution/",
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "ECOAGENT_BENCH_SESSION": self.tag,
        }
        self.proc: subprocess.Popen | None = None
        self.token: str | None = None

    # ---------------------------------------------------------------- processes

    def start(self) -> None:
        self.log = (self.home / "standalone.log").open("w")
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("airflow")), "standalone"],
            env=self.env, cwd=self.home, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def sessions(self) -> set[int]:
        """The sessions this started (each process started with ``start_new_session`` leads one)."""
        return {self.proc.pid}

    def processes(self, sessions: set[int] | None = None) -> dict[int, str]:
        """``{pid: state}`` of every live process started here: in one of its sessions, or carrying the tag (a
        process that renames itself, as Airflow's components do, may hide its environment: the session finds it).
        With ``sessions``: the processes of those sessions only."""
        only = sessions is not None
        sessions = self.sessions() if sessions is None else sessions
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
                state, session = fields[0], int(fields[3])
                tagged = session in sessions or (not only and self.tag.encode() in (entry / "environ").read_bytes())
            except (OSError, ValueError):
                continue  # gone meanwhile, or not ours to read
            if tagged and state != "Z":  # a zombie runs nothing; its parent (or init) reaps it
                found[int(entry.name)] = state
        return found

    def stop(self, grace_s: float) -> dict:
        """SIGTERM every process started here, SIGKILL what is left after ``grace_s``; the counts, and what survived."""
        started = time.perf_counter()
        if self.proc is None:
            return {"seconds": 0.0, "terminated": 0, "killed": 0, "left": []}
        first = self.processes()
        for pid in first:
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while self.processes() and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.5)
        stubborn = self.processes()
        for pid in stubborn:
            _signal(pid, signal.SIGKILL)
        deadline = time.monotonic() + 15
        while self.processes() and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.2)
        self._reap()
        self.log.close()
        return {
            "seconds": round(time.perf_counter() - started, 1),
            "terminated": len(first),
            "killed": len(stubborn),
            "left": sorted(self.processes()),
        }

    def _reap(self) -> None:
        if self.proc is not None:
            self.proc.poll()

    # ---------------------------------------------------------------- REST API

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers=headers,
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"{}")

    def wait_healthy(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                log = self.home / "standalone.log"
                raise CheckFailed(f"airflow standalone exited ({self.proc.returncode}); see {log}")
            try:
                health = self.call("GET", "/api/v2/monitor/health")
                parts = ("metadatabase", "scheduler", "triggerer", "dag_processor")
                if all((health.get(p) or {}).get("status") == "healthy" for p in parts):
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                pass
            time.sleep(2)
        raise CheckFailed(f"not healthy after {timeout_s:.0f} s; see {self.home / 'standalone.log'}")

    def login(self) -> None:
        passwords = self.home / "simple_auth_manager_passwords.json.generated"
        password = json.loads(passwords.read_text())["admin"]
        self.token = self.call("POST", "/auth/token", {"username": "admin", "password": password})["access_token"]

    def wait_dag(self, dag_id: str, timeout_s: float) -> dict:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                return self.call("GET", f"/api/v2/dags/{dag_id}")
            except urllib.error.HTTPError as exc:
                if exc.code != 404:
                    raise
            time.sleep(2)
        raise CheckFailed(f"{dag_id} was not parsed within {timeout_s:.0f} s; see {self.home / 'logs'}")

    def runs(self, dag_id: str) -> list[dict]:
        return self.call("GET", f"/api/v2/dags/{dag_id}/dagRuns?order_by=-run_after")["dag_runs"]

    def wait_run(self, dag_id: str, run_id: str, timeout_s: float) -> dict:
        deadline = time.monotonic() + timeout_s
        last = None
        while time.monotonic() < deadline:
            run = self.call("GET", f"/api/v2/dags/{dag_id}/dagRuns/{urllib.request.quote(run_id, safe='')}")
            if run["state"] != last:
                print(f"  {dag_id} {run_id}: {run['state']}", flush=True)
                last = run["state"]
            if run["state"] in DONE:
                return run
            time.sleep(5)
        raise CheckFailed(f"{dag_id} run {run_id} did not finish within {timeout_s:.0f} s")

    def task_states(self, dag_id: str, run_id: str) -> dict[str, str]:
        path = f"/api/v2/dags/{dag_id}/dagRuns/{urllib.request.quote(run_id, safe='')}/taskInstances?limit=100"
        instances = self.call("GET", path)["task_instances"]
        return {f"{t['task_id']}[{t['map_index']}]" if t["map_index"] >= 0 else t["task_id"]: t["state"]
                for t in instances}  # fmt: skip


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
        os.kill(pid, sig)


def _progress_lines(logs: Path, dag_id: str) -> int:
    """Progress lines (``done/total ... ETA``, ``running, elapsed``, ``done, ... in``) in the DAG's task logs."""
    count = 0
    for log in (logs / f"dag_id={dag_id}").rglob("*.log"):
        text = log.read_text(errors="replace")
        count += text.count(", ETA ") + text.count(": running, elapsed ")
    return count


def run(work: Path, args: argparse.Namespace) -> dict:
    timings: dict[str, float] = {}
    home = work / "airflow-home"
    home.mkdir(parents=True, exist_ok=True)
    conf = fixture_refresh_conf(work / "fixture")
    root = Path(conf["out"])
    airflow = Standalone(home, _free_port(), args.parallelism)
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
    _check(not stopped["left"], f"no process left ({stopped['terminated']} terminated, {stopped['killed']} killed, "
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
    _check(True, f"healthy, both DAGs parsed after {timings['start_to_healthy_and_parsed_s']} s")


def unpause_and_stay_idle(airflow: Standalone, args: argparse.Namespace) -> str:
    """2. Both DAGs unpaused: no run starts, the first scheduled one is the next tick; returns its time."""
    print(f"2. unpause both DAGs, wait {args.unpause_wait_s} s")
    for dag_id in ("ecoagent_refresh", "ecoagent_rated"):
        airflow.call("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": False})
    time.sleep(args.unpause_wait_s)
    refresh_dag = airflow.call("GET", "/api/v2/dags/ecoagent_refresh")
    _check(not refresh_dag["is_paused"], "ecoagent_refresh is unpaused")
    _check(airflow.runs("ecoagent_refresh") == [], f"no ecoagent_refresh run {args.unpause_wait_s} s after unpause")
    next_run = refresh_dag["next_dagrun_run_after"]
    _check(bool(next_run) and next_run > time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()),
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
    _check(refresh_run["state"] == "success", f"ecoagent_refresh succeeded ({timings['refresh_s']} s): {states}")
    (release,) = (Path(conf["out"]) / "release").iterdir()
    manifest = json.loads((release / RELEASE_FILES.manifest).read_text())
    _check(manifest["gate"]["success"], f"release {release.name} promoted to {release}, its gate passed")
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
    _check(len(rated_runs) == 1, "one ecoagent_rated run, created by the release event")
    rated_run = rated_runs[0]
    _check(rated_run["run_type"] == "asset_triggered", f"its run type is {rated_run['run_type']}")
    if rated_run.get("queued_at") and refresh_run.get("end_date"):
        report["rated_queued_after_refresh_end"] = rated_run["queued_at"] + " vs " + refresh_run["end_date"]
    rated_run = airflow.wait_run("ecoagent_rated", rated_run["dag_run_id"], args.timeout_min * 60)
    timings["rated_s"] = round(time.perf_counter() - t, 1)
    states = airflow.task_states("ecoagent_rated", rated_run["dag_run_id"])
    _check(rated_run["state"] == "success", f"ecoagent_rated succeeded ({timings['rated_s']} s): {states}")
    out = root / "runs" / safe_run_id(rated_run["dag_run_id"]) / "rated"
    metrics = json.loads((out / RATED_FILES.metrics).read_text())
    _check(metrics["release"]["folder"] == str(release), f"it evaluated the refresh's release ({out})")
    _check(metrics["profile"] == "fixture", "with the refresh's profile (fixture), under the refresh's root")
    _check((out / RATED_FILES.report).is_file(), "and wrote report.md")
    lines = {d: _progress_lines(airflow.home / "logs", d) for d in ("ecoagent_refresh", "ecoagent_rated")}
    _check(all(lines.values()), f"progress lines in the task logs: {lines}")


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
