"""``ecoagent_refresh`` end to end on the fixture profile, then ``ecoagent_rated`` on its release.

Nothing is faked: the real pip and npm clients fetch the fixture packages from a local mirror, the
real MiniLM / e5 embedders score and retrieve, and the real embedded Gemma 3 270M (llama.cpp)
generates the Syn queries and scores the Real pairs, with tiny outputs to stay fast. The run goes
through ``dag.test()`` (in process) and once more through ``airflow dags test`` (the CLI CI uses);
the second run finds every download, embedding and LLM answer in the caches under the same root.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from airflow.models import DagBag

from pipeline.orchestration import rated_settings
from rated.stage import without_timings
from tests.dags.conftest import AIRFLOW_ENV, DAGS_FOLDER, REPO
from tests.dags.fixture_world import fixture_refresh_conf


@pytest.fixture(scope="module")
def world(tmp_path_factory, airflow_db) -> dict:
    tmp = tmp_path_factory.mktemp("refresh")
    conf = fixture_refresh_conf(tmp)
    return {"tmp": tmp, "root": Path(conf["out"]), "conf": conf, "dagbag": DagBag(dag_folder=str(DAGS_FOLDER))}


def _runs(root: Path) -> set[str]:
    return {p.name for p in (root / "runs").iterdir()} if (root / "runs").exists() else set()


def test_refresh_end_to_end_with_dag_test(world) -> None:
    root = world["root"]
    dag = world["dagbag"].dags["ecoagent_refresh"]
    dr = dag.test(run_conf=world["conf"])
    assert dr.state == "success"

    (run,) = _runs(root)
    for stage in ("crawl_shards/n8n", "crawl", "score", "synth", "label"):
        assert (root / "runs" / run / stage).is_dir(), stage
    assert (root / "runs" / run / "score" / "scored_catalog_gate.json").exists()
    (release,) = (root / "release").iterdir()  # promoted only after the release gate passed
    manifest = json.loads((release / "manifest.json").read_text())
    assert manifest["gate"]["success"] is True
    assert manifest["counts"]["real-queries"]["test"] >= 1
    assert (root / "runs" / run / "release" / release.name / "manifest.json").exists()
    assert (world["tmp"] / "repo_releases" / release.name / "CHANGELOG.md").exists()
    assert (root / "llm" / "responses.sqlite").exists()  # shared across runs: a refresh only asks what is new

    # the asset event RATED is scheduled on names the promoted folder
    from airflow.models.asset import AssetEvent, AssetModel
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        query = select(AssetEvent.extra).join(AssetModel, AssetEvent.asset_id == AssetModel.id)
        extras = session.scalars(query.where(AssetModel.name == "ecoagent/release")).all()
    assert extras and extras[-1]["folder"] == str(release)
    # and the settings the refresh ran with, for the RATED run it triggers
    conf = world["conf"]
    assert extras[-1]["profile"] == "fixture" and extras[-1]["out"] == str(root)
    assert extras[-1]["overrides"] == [*conf["overrides"], f"synth.sample_size={conf['sample_size']}"]
    world["event_extra"] = extras[-1]


def test_rated_through_the_cli_then_the_dag_into_one_folder(world) -> None:
    """``ecoagent rated`` on the refresh's release, then the downstream DAG with the settings its asset event carries:
    both write the one folder the layout names for the release, ``<root>/rated/<version>`` (fixture profile, under the
    refresh's root), and the DAG's tasks, one per step, find the encoder the CLI trained and do not train again.

    ``dag.test()`` makes a manual run, which gets no asset event; the settings an event-triggered run's
    ``choose_release`` would compute from the real event are passed as that run's params instead (the event-triggered
    run itself, under the real scheduler, is ``benchmarks/airflow_scheduler.py``'s)."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    root = world["root"]
    dag = world["dagbag"].dags["ecoagent_rated"]
    event = SimpleNamespace(extra=world["event_extra"])  # the AssetEvent row's extra, read back from the DB
    settings = rated_settings(dict(dag.params), {"ecoagent/release": [event]})
    assert settings["profile"] == "fixture" and settings["out"] == str(root)
    sets = [arg for o in [*settings["overrides"], f"store={root}"] for arg in ("--set", o)]
    cli = CliRunner().invoke(app, ["rated", "--profile", "fixture", *sets])
    assert cli.exit_code == 0, cli.output
    (release,) = (root / "release").iterdir()
    out = root / "rated" / release.name
    by_cli = json.loads((out / "metrics.json").read_text())
    trained = (out / "model" / "rated_train.json").read_bytes()

    conf = {"profile": settings["profile"], "overrides": settings["overrides"], "out": settings["out"],
            "release": settings["folder"]}  # fmt: skip
    dr = dag.test(run_conf=conf)
    assert dr.state == "success"
    assert not list(root.glob("runs/*/rated"))  # no second folder per DAG run
    assert (out / "model" / "rated_train.json").read_bytes() == trained  # not trained again
    metrics = json.loads((out / "metrics.json").read_text())
    assert without_timings(metrics) == without_timings(by_cli)  # the same steps on the same release and settings
    assert metrics["release"]["folder"] == str(release)
    assert metrics["profile"] == "fixture" and metrics["settings"]["simulation"]["seeds"] == [0, 1]
    real = metrics["table1"]["real/test"]["RATED (Full)"]
    assert real["queries"] >= 1 and 0.0 <= real["recall@1"] <= real["recall@5"] <= 1.0
    stream = metrics["table2"][0]
    assert "RATED (Full)" in stream["results"] and stream["config"]["seeds"] == [0, 1]
    assert all((out / p).exists() for p in stream["plots"])
    report = (out / "report.md").read_text()
    assert "## Table 3" in report and "## Acceptance check" in report


def test_refresh_through_the_airflow_cli(world) -> None:
    root = world["root"]
    before = _runs(root)
    done = subprocess.run(
        [str(Path(sys.executable).with_name("airflow")), "dags", "test", "ecoagent_refresh",
         "-c", json.dumps(world["conf"])],
        cwd=REPO, env={**os.environ, **AIRFLOW_ENV}, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    (run,) = _runs(root) - before
    assert (root / "runs" / run / "label" / "real_queries.parquet").exists()


def test_a_failing_gate_fails_the_run_and_releases_nothing(world) -> None:
    root = world["root"]
    released = _released(root)
    conf = {**world["conf"], "overrides": [*world["conf"]["overrides"], "score.gate.min_tools=1000"]}
    dr = world["dagbag"].dags["ecoagent_refresh"].test(run_conf=conf)
    assert dr.state == "failed"
    states = {ti.task_id: ti.state for ti in dr.get_task_instances()}
    assert states["score_gate"] == "failed"
    assert states["build_release"] == "upstream_failed"
    assert {states["synth"], states["label"]} == {"upstream_failed"}
    assert _released(root) == released


def _released(root: Path) -> list[tuple[str, int]]:
    folder = root / "release"
    return sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir()) if folder.exists() else []
