"""The DAG files parse cleanly, have the intended shape, and stay cheap to parse.

No metadata DB is needed: DagBag only imports the files. The heavy-import check parses in a fresh
interpreter, because this test process has long imported polars and friends through other tests.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys

import pytest
from airflow.models import DagBag

from tests.dags.conftest import AIRFLOW_ENV, DAGS_FOLDER, REPO

HEAVY = ("torch", "polars", "sentence_transformers", "great_expectations", "transformers", "xllamacpp", "datasets")
NETWORK_TASKS = {"ecoagent_refresh": ("crawl_platform", "generate_shard", "verify_shard")}


@pytest.fixture(scope="module")
def dagbag() -> DagBag:
    return DagBag(dag_folder=str(DAGS_FOLDER))


def test_no_import_errors(dagbag: DagBag) -> None:
    assert dagbag.import_errors == {}, dagbag.import_errors


def test_both_dags_present_tagged_and_acyclic(dagbag: DagBag) -> None:
    assert {"ecoagent_refresh", "ecoagent_rated"} <= set(dagbag.dag_ids)
    for dag_id in ("ecoagent_refresh", "ecoagent_rated"):
        dag = dagbag.dags[dag_id]
        dag.check_cycle()  # DagBag reports cycles as import errors too; this makes the intent explicit
        assert "ecoagent" in dag.tags
        assert dag.catchup is False


def test_refresh_structure(dagbag: DagBag) -> None:
    dag = dagbag.dags["ecoagent_refresh"]
    assert set(dag.task_dict) == {
        "platforms", "crawl_platform", "merge_crawl", "score", "score_gate", "shard_ids",
        "plan_synth", "generate_shard", "synth", "plan_label", "verify_shard", "label", "build_release",
    }  # fmt: skip
    up = {t: set(dag.task_dict[t].upstream_task_ids) for t in dag.task_dict}
    assert up["crawl_platform"] == {"platforms"}
    assert up["score_gate"] == {"score"}
    # nothing that calls the LLM or builds the release runs before the scored-catalog gate passed
    assert "score_gate" in up["plan_synth"] and "score_gate" in up["plan_label"]
    # each LLM stage is planned once; its shards answer that plan, then the stage assembles
    assert up["generate_shard"] == {"plan_synth", "shard_ids"} and up["verify_shard"] == {"plan_label", "shard_ids"}
    assert {"generate_shard", "score_gate"} <= up["synth"] and {"verify_shard", "score_gate"} <= up["label"]
    assert {"synth", "label", "merge_crawl", "score_gate"} <= up["build_release"]
    assert [a.name for a in dag.task_dict["build_release"].outlets] == ["ecoagent/release"]
    assert set(dag.params) >= {"profile", "sample_size", "shards", "overrides", "out"}
    assert dag.params["profile"] == "default"


def _dag_module(name: str):
    """A DAG file imported as a module of its own (dags/ is a folder of files, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"{name}_file", DAGS_FOLDER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_llm_task_uses_the_llm_pool(dagbag: DagBag) -> None:
    """The shards and the LLM stages' own tasks (which ask again what a shard could not answer), found from the stage
    list, run in the LLM endpoint's pool; nothing else does."""
    from pipeline.stages import llm_stages

    LLM_POOL = _dag_module("ecoagent_refresh").LLM_POOL

    dag = dagbag.dags["ecoagent_refresh"]
    llm_tasks = {t for s in llm_stages() for t in (s.shard_task, s.task_id)}
    assert llm_tasks == {"generate_shard", "synth", "verify_shard", "label"}
    for task_id, task in dag.task_dict.items():
        if task_id in llm_tasks:
            assert (task.pool, task.pool_slots) == (LLM_POOL["pool"], LLM_POOL["pool_slots"]), task_id
        else:
            assert task.pool != LLM_POOL["pool"], task_id
    assert LLM_POOL["pool"] == "ecoagent_llm"


def test_training_and_evaluation_carry_the_gpu_queue(dagbag: DagBag) -> None:
    GPU_QUEUE = _dag_module("ecoagent_rated").GPU_QUEUE
    dag = dagbag.dags["ecoagent_rated"]
    assert GPU_QUEUE == {"queue": "gpu"}  # ECOAGENT_GPU_QUEUE unset
    for step in ("train", "table1", "table2", "replay", "paper_scale", "table3"):  # every step that runs the encoder
        assert dag.task_dict[step].queue == "gpu", step
    assert all(dag.task_dict[t].queue != "gpu" for t in ("choose_release", "report", "card"))


def test_the_queue_and_the_pool_are_settings(tmp_path) -> None:
    """ECOAGENT_GPU_QUEUE and ECOAGENT_LLM_POOL(_SLOTS) set them when the DAG files are parsed (a fresh interpreter)."""
    code = (
        f"import json; from airflow.models import DagBag; b = DagBag(dag_folder={str(DAGS_FOLDER)!r});"
        "r, t = b.dags['ecoagent_rated'], b.dags['ecoagent_refresh'];"
        "print(json.dumps([r.task_dict['table2'].queue, t.task_dict['verify_shard'].pool,"
        " t.task_dict['verify_shard'].pool_slots]))"
    )
    env = {**os.environ, **AIRFLOW_ENV, "ECOAGENT_GPU_QUEUE": "a100", "ECOAGENT_LLM_POOL": "vllm",
           "ECOAGENT_LLM_POOL_SLOTS": "4", "PYTHONPATH": str(REPO)}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["a100", "vllm", 4]


def test_retries_only_on_network_facing_tasks(dagbag: DagBag) -> None:
    dag = dagbag.dags["ecoagent_refresh"]
    for task_id, task in dag.task_dict.items():
        if task_id in NETWORK_TASKS["ecoagent_refresh"]:
            assert task.retries >= 1 and task.retry_delay.total_seconds() > 0, task_id
        else:
            assert task.retries == 0, f"{task_id} would rerun a deterministic failure (a gate, a bug)"


def test_rated_is_scheduled_on_the_release_asset(dagbag: DagBag) -> None:
    dag = dagbag.dags["ecoagent_rated"]
    assert [a.name for a in dag.timetable.asset_condition.objects] == ["ecoagent/release"]
    from pipeline.stages import DOWNSTREAM

    # one task per step of the stage, in its declared order, after the release is chosen
    (rated,) = DOWNSTREAM
    order = ["choose_release", *(step.name for step in rated.steps)]
    assert set(dag.task_dict) == set(order)
    for before, after in itertools.pairwise(order):
        assert dag.task_dict[after].upstream_task_ids in ({before}, {before, "choose_release"}), after


def _first_run(timetable, start_date=None):
    """When the scheduler would start the first run of a DAG just unpaused (catchup off), with Airflow's own logic."""
    from airflow.serialization.decoders import decode_timetable
    from airflow.serialization.encoders import encode_timetable
    from airflow.timetables.base import TimeRestriction

    core = decode_timetable(encode_timetable(timetable))  # the scheduler's side of the authored timetable
    restriction = TimeRestriction(earliest=start_date, latest=None, catchup=False)
    return core.next_dagrun_info(last_automated_data_interval=None, restriction=restriction).run_after


def test_unpausing_the_refresh_starts_nothing_unless_asked(dagbag: DagBag) -> None:
    import importlib.util
    from datetime import UTC, datetime

    dag = dagbag.dags["ecoagent_refresh"]
    assert dag.start_date is None and dag.catchup is False
    now = datetime.now(UTC)
    assert _first_run(dag.timetable) > now  # the next weekly tick, never the one that already passed

    spec = importlib.util.spec_from_file_location("refresh_dag_file", DAGS_FOLDER / "ecoagent_refresh.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # what the DAG had before: a start date in the past runs the latest tick at once, catchup off or not
    assert _first_run(module.refresh_schedule("@weekly"), datetime(2026, 1, 1, tzinfo=UTC)) <= now
    # ECOAGENT_REFRESH_RUN_ON_UNPAUSE=true asks for that run
    assert _first_run(module.refresh_schedule("@weekly", run_on_unpause=True)) <= now
    assert module.refresh_schedule("none") is None


def test_parsing_imports_no_heavy_module() -> None:
    code = f"""
import json, sys
before = set(sys.modules)
from airflow.models import DagBag
bag = DagBag(dag_folder={str(DAGS_FOLDER)!r})
assert not bag.import_errors, bag.import_errors
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules and m not in before)))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, **AIRFLOW_ENV})  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_history_is_its_own_manual_dag(dagbag: DagBag) -> None:
    dag = dagbag.dags["ecoagent_history"]
    assert type(dag.timetable).__name__ == "NullTimetable"  # schedule=None: a maintainer triggers it
    assert set(dag.task_dict) == {"history"} and dag.task_dict["history"].retries >= 1  # it talks to the registries
    assert {"since", "until", "fresh", "out", "profile"} <= set(dag.params)
    assert "history" not in dagbag.dags["ecoagent_refresh"].task_dict  # not part of every refresh
