"""Airflow as the benchmarks start it: ``airflow standalone`` in a session of its own, its REST API, a stop that
leaves no process behind, and the progress lines its task logs hold.

``benchmarks/airflow_scheduler.py`` runs the refresh and RATED under :class:`Standalone`; ``benchmarks/
celery_deployment.py`` subclasses it to start Airflow's components and two Celery workers instead, and keeps its
REST calls and its stop. Every process started here carries a tag in its environment and leads a session of its own,
so :meth:`Standalone.stop` finds them all, those that rename themselves included.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from benchmarking.checks import CheckFailed

ROOT = Path(__file__).resolve().parents[1]
DONE = {"success", "failed"}


def free_port() -> int:
    """A TCP port of 127.0.0.1 free at this moment."""
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
            send_signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while self.processes() and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.5)
        stubborn = self.processes()
        for pid in stubborn:
            send_signal(pid, signal.SIGKILL)
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


def send_signal(pid: int, sig: int) -> None:
    """``sig`` to process ``pid``, unless it has ended meanwhile."""
    with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
        os.kill(pid, sig)


def progress_lines(logs: Path, dag_id: str) -> int:
    """Progress lines (``done/total ... ETA``, ``running, elapsed``, ``done, ... in``) in the DAG's task logs."""
    count = 0
    for log in (logs / f"dag_id={dag_id}").rglob("*.log"):
        text = log.read_text(errors="replace")
        count += text.count(", ETA ") + text.count(": running, elapsed ")
    return count
