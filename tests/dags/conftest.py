"""Airflow test environment for the DAG tests: one throwaway AIRFLOW_HOME per session.

The environment must be set before anything imports ``airflow`` (its settings are read once at
import), so it is set at module import time of this conftest, which pytest loads before the test
modules of this folder. ``dag.test()`` needs a migrated metadata DB and the DAG file inside the
configured dags folder (otherwise: "dag is not serialized"), hence DAGS_FOLDER = the repo's dags/.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DAGS_FOLDER = REPO / "dags"
AIRFLOW_HOME = Path(tempfile.mkdtemp(prefix="ecoagent-airflow-"))
atexit.register(shutil.rmtree, AIRFLOW_HOME, True)  # the metadata DB and task logs of this session only

AIRFLOW_ENV = {
    "AIRFLOW_HOME": str(AIRFLOW_HOME),
    "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS_FOLDER),
    "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
    # a 2-core box: never fork a worker per core, and keep the logs to warnings
    "AIRFLOW__CORE__PARALLELISM": "2",
    "AIRFLOW__CORE__MAX_ACTIVE_TASKS_PER_DAG": "2",
    "AIRFLOW__LOGGING__LOGGING_LEVEL": "WARNING",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
os.environ.update(AIRFLOW_ENV)


@pytest.fixture(scope="session")
def airflow_db() -> Path:
    """Migrate the session's SQLite metadata DB once (``dag.test()`` fails on an empty one)."""
    subprocess.run(
        [str(Path(sys.executable).with_name("airflow")), "db", "migrate"],
        check=True,
        env={**os.environ, **AIRFLOW_ENV},
        capture_output=True,
        timeout=300,
    )
    return AIRFLOW_HOME
