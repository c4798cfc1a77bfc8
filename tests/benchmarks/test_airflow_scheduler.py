"""``benchmarks/airflow_scheduler.py`` starts ``airflow standalone`` and runs the refresh and RATED under the real
scheduler (15-45 minutes on 2 cores; the DAGs themselves run under ``dag.test()`` in tests/dags/), so here only its
parts run, which live in ``benchmarking/airflow_standalone.py`` and ``benchmarking/checks.py``: the stop that leaves
no process of the session behind (SIGTERM, then SIGKILL for what ignores it), the progress lines it counts in the task
logs, and a failed check that stops the benchmark with exit 1."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarking.airflow_standalone import Standalone, progress_lines
from benchmarking.checks import check, run_checked

# a session leader whose child ignores SIGTERM (what Airflow's task processes can do); the child says when it does
TREE = """
import signal, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import pathlib, signal, sys, time; signal.signal(signal.SIGTERM, "
                  "signal.SIG_IGN); pathlib.Path(sys.argv[1]).touch(); time.sleep(60)", sys.argv[1]])
time.sleep(60)
"""


def test_stop_terminates_then_kills_every_process_of_the_session(tmp_path: Path) -> None:
    airflow = Standalone(tmp_path, port=0, parallelism=1)
    airflow.log = (tmp_path / "standalone.log").open("w")
    ready = tmp_path / "ignoring-sigterm"
    airflow.proc = subprocess.Popen([sys.executable, "-c", TREE, str(ready)], env=airflow.env, start_new_session=True)
    deadline = time.monotonic() + 30
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(airflow.processes()) == 2  # the leader and its child, found by their session
    stopped = airflow.stop(grace_s=1)
    assert stopped["terminated"] == 2 and stopped["killed"] == 1 and stopped["left"] == [], stopped
    assert airflow.processes() == {} and airflow.proc.poll() is not None


def test_progress_lines_are_counted_in_the_dag_task_logs(tmp_path: Path) -> None:
    task = tmp_path / "dag_id=ecoagent_refresh" / "run_id=manual" / "task_id=score"
    task.mkdir(parents=True)
    (task / "attempt=1.log").write_text("score: embed 10/40 tools, ETA 12 s\nscore: running, elapsed 30 s\nother\n")
    (tmp_path / "dag_id=ecoagent_rated").mkdir()
    assert progress_lines(tmp_path, "ecoagent_refresh") == 2
    assert progress_lines(tmp_path, "ecoagent_rated") == 0


def test_a_failed_check_exits_1_and_a_report_is_printed(tmp_path: Path, capsys) -> None:
    args = argparse.Namespace(keep=tmp_path / "work")

    def failing(work: Path, _args) -> dict:
        check(work.is_dir(), "the work folder is there")
        check(False, "ecoagent_refresh succeeded")
        return {}

    with pytest.raises(SystemExit) as exited:
        run_checked("ecoagent-test-", args, failing)
    assert exited.value.code == 1
    captured = capsys.readouterr()
    assert "  ok: the work folder is there" in captured.out and "FAILED: ecoagent_refresh succeeded" in captured.err
    report = run_checked("ecoagent-test-", args, lambda work, _args: {"work": str(work)})
    assert report == {"work": str(tmp_path / "work")}
    assert json.loads(capsys.readouterr().out) == report
