"""``benchmarks/celery_deployment.py`` starts PostgreSQL, Redis (Debian's packages; ``apt-get install`` when missing),
moto's S3 server, Airflow's CeleryExecutor and two workers, then runs the refresh three ways (20-60 minutes on 2
cores, as root: ``runuser postgres``). None of that runs here: the store on S3 is ``tests/pipeline/
test_object_store.py``'s, the DAGs are ``tests/dags/``'s. What runs is the script's own logic, which lives in
``benchmarking/celery_deployment.py``, on fixture data: the refresh's conf, the release's data files and their hashes,
each worker's seeded caches, the tasks a worker's log names, the stage times from task instances, and the record it
writes."""

from __future__ import annotations

import hashlib
from pathlib import Path

from benchmarking import celery_deployment as celery
from release.build import GOLD_MAPPING, WORKFLOW_MAPPING
from tests.benchmarks.scripts import record_written

WORLD = {"profile": "fixture", "sample_size": 5, "overrides": [
    "crawl.cache_dir=/w/packages", "embedding.cache_dir=/w/embeddings", "llm.backend=embedded", "synth.max_tokens=32",
    "label.source=bfcl"]}  # fmt: skip


def test_the_refresh_conf_leaves_every_cache_to_the_workers(tmp_path: Path) -> None:
    fixture = celery.refresh_conf(WORLD, "http://127.0.0.1:9/v1", "s3://ecoagent/refresh", tmp_path)
    assert fixture["profile"] == "fixture" and fixture["out"] == "s3://ecoagent/refresh" and fixture["shards"] == 2
    # no cache folder of this machine's (each worker has its own), the embedded backend replaced by the stand-in
    assert not [o for o in fixture["overrides"] if o.startswith(("crawl.cache_dir", "embedding.cache_dir"))]
    assert "llm.backend=embedded" not in fixture["overrides"]
    assert {"llm.backend=server", "llm.base_url=http://127.0.0.1:9/v1", "label.verifier=llm", "synth.sample_size=5",
            f"release.version={celery.VERSION}", "synth.max_tokens=32"} <= set(fixture["overrides"])  # fmt: skip
    default = celery.refresh_conf(None, "http://127.0.0.1:9/v1", "s3://ecoagent/refresh", tmp_path)
    assert default["profile"] == "default" and "crawl.workers=1" in default["overrides"]
    assert f"release.repo_releases_dir={tmp_path / 'repo_releases'}" in default["overrides"]


def test_the_release_data_files_are_its_parquet_and_mappings(tiny_release: Path) -> None:
    files = celery.data_files(str(tiny_release))
    parquet = {p.relative_to(tiny_release).as_posix() for p in tiny_release.rglob("*.parquet")}
    mappings = {m for m in (GOLD_MAPPING, WORKFLOW_MAPPING) if (tiny_release / m).exists()}
    assert set(files) == parquet | mappings and parquet
    some = sorted(files)[0]
    assert files[some] == hashlib.sha256((tiny_release / some).read_bytes()).hexdigest()


def test_a_fresh_worker_gets_its_own_copy_of_each_seeded_cache(tmp_path: Path) -> None:
    (tmp_path / "seed" / "packages" / "pypi").mkdir(parents=True)
    (tmp_path / "seed" / "packages" / "pypi" / "a.whl").write_bytes(b"wheel")
    (tmp_path / "seed" / "responses.sqlite").write_bytes(b"sqlite")
    seeds = {"ECOAGENT__CRAWL__CACHE_DIR": tmp_path / "seed" / "packages",
             "ECOAGENT__LLM__CACHE_PATH": tmp_path / "seed" / "responses.sqlite"}  # fmt: skip
    worker = tmp_path / "w1"
    env = {key: str(worker / rel) for key, rel in celery.WORKER_CACHES.items()}
    celery.seed_caches(seeds, env)
    assert (worker / "packages" / "pypi" / "a.whl").read_bytes() == b"wheel"
    assert (worker / "llm" / "responses.sqlite").read_bytes() == b"sqlite"
    assert not (worker / "embeddings").exists()  # not seeded: the worker starts it empty


def test_the_tasks_of_a_run_a_worker_received_and_the_stage_times() -> None:
    run = "manual__2026-12-01T00:00:00+00:00"
    log = (
        f"[..] log_path='/logs/dag_id=ecoagent_refresh/run_id={run}/task_id=crawl_platform/map_index=1/attempt=1.log'\n"
        f"[..] log_path='/logs/dag_id=ecoagent_refresh/run_id={run}/task_id=merge_crawl/attempt=1.log'\n"
        "[..] log_path='/logs/dag_id=ecoagent_refresh/run_id=other/task_id=score/attempt=1.log'\n")  # a worker's log
    assert celery.tasks_in_worker_log(log, run) == ["crawl_platform[1]", "merge_crawl"]
    instances = [
        {"task_id": "verify_shard", "start_date": "2026-12-01T00:01:00Z", "end_date": "2026-12-01T00:01:30Z",
         "try_number": 1},
        {"task_id": "verify_shard", "start_date": "2026-12-01T00:01:10Z", "end_date": "2026-12-01T00:02:05Z",
         "try_number": 2},
        {"task_id": "merge_crawl", "start_date": "2026-12-01T00:00:00Z", "end_date": "2026-12-01T00:00:12.5Z"},
        {"task_id": "label", "start_date": None, "end_date": None},  # never started: left out
    ]  # fmt: skip
    assert celery.stage_times(instances) == {
        "merge_crawl": {"seconds": 12.5, "tasks": 1, "tries": 1},
        "verify_shard": {"seconds": 65.0, "tasks": 2, "tries": 2},
    }


def test_the_stand_in_answers_and_the_record(tmp_path: Path, results_dir: Path) -> None:
    assert celery.reply({"response_format": {}}, "<query>q</query><tool>t</tool>") == '{"score": 0.9}'
    assert "Tool: next example" in celery.reply({}, "Tool: weather_lookup\nDescription: d\nRequests:\n-")
    stop = {"seconds": 3.2, "terminated": 14, "killed": 0, "left": []}
    report = {"profile": "fixture", "timings": {"services_and_airflow_up_s": 40.0, "reference_run_s": 300.0,
              "celery_refresh_s": 500.0, "killed_refresh_s": 600.0}, "reference": {"release": "r", "built": "now"},
              "data_files": 31, "reference_llm": {"requests": 24}, "celery_llm": {"requests": 24},
              "kill": {"in_flight_at_kill": 2, "sent_again": 2, "tries": {"verify_shard[0]": 2}},
              "loaded_from_s3": {"rows": {"train": 4}}, "stop": stop, "seeded_caches": {},
              "stages": {"crawl_platform": {"tasks": 5, "tries": 1, "seconds": 20.0}}, "task_hosts": ["w1", "w2"],
              "tasks_by_worker": {"w1": ["crawl_platform[0]"], "w2": ["merge_crawl"]}}  # fmt: skip
    celery.write_deployment_record("smoke-celery", report)
    record = record_written(results_dir, "smoke-celery")
    assert record["section"] == "pipeline" and record["figures"]["LLM requests (reference / Celery)"] == (
        "24 / 24, none answered twice")
    assert "kill -9 of a worker during verify_shard" in record["figures"]
    assert record["tables"][0]["rows"] == [["crawl_platform", 5, 1, 20.0]]
