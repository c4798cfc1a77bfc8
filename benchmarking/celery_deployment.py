"""What ``benchmarks/celery_deployment.py`` reads and writes around the deployment it runs: the refresh's conf for the
workers, each worker's own caches, the release's data files compared by their bytes, the stage times read from the
task instances, the tasks a worker's log names, the stand-in LLM's answers, and the record.

The script starts PostgreSQL, Redis, moto's S3 server, Airflow's CeleryExecutor and two workers (20-60 minutes, as
root); none of that can run in a test. These parts can, on fixture data (``tests/benchmarks/
test_celery_deployment.py``), so they live here.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

from benchmarking.record import write_record
from ecoagent.store import ArtifactStore
from release.build import GOLD_MAPPING, WORKFLOW_MAPPING

VERSION = "2026.12.1"
# per worker, set in its environment: caches on its own disk (the run's conf names none of them)
WORKER_CACHES = {"ECOAGENT__CRAWL__CACHE_DIR": "packages", "ECOAGENT__EMBEDDING__CACHE_DIR": "embeddings",
                 "ECOAGENT__LLM__CACHE_PATH": "llm/responses.sqlite", "ECOAGENT_RELEASE_CACHE": "releases",
                 "TMPDIR": "tmp"}  # fmt: skip
LOCAL_ONLY = ("crawl.cache_dir", "embedding.cache_dir", "llm.backend")


def reply(body: dict, content: str) -> str:
    """Generation: the Syn tests' answers; verification: a score above the kept threshold."""
    from tests.synth.test_generate import _respond

    return '{"score": 0.9}' if "response_format" in body else _respond(body, content)


def seed_caches(seeds: dict[str, Path], env: dict[str, str]) -> None:
    """Copy each seed to the cache path ``env`` names for it (a fresh worker's own copy)."""
    for key, source in seeds.items():
        target = Path(env[key])
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copyfile(source, target)


def refresh_conf(world: dict | None, llm_url: str, out: str, work: Path) -> dict:
    """The refresh's conf, the stand-in as the LLM endpoint, no cache folder named (each worker has its own), the
    store ``out``. ``world``: the DAG tests' fixture conf (``fixture_refresh_conf``), the LLM verifier on; None: the
    default profile as it is (its verifier), the tracked release files written under ``work``, not the checkout."""
    common = ["llm.backend=server", f"llm.base_url={llm_url}", "llm.concurrency=1", f"release.version={VERSION}"]
    if world is None:
        # crawl.workers=1: a task process of a Celery (prefork) worker is daemonic and may not start the crawl's
        # extraction pool ("daemonic processes are not allowed to have children"); the catalog is the same
        overrides = [*common, "crawl.workers=1", f"release.repo_releases_dir={work / 'repo_releases'}"]
        return {"profile": "default", "shards": 2, "overrides": overrides, "out": out}
    overrides = [o for o in world["overrides"] if not o.startswith(LOCAL_ONLY)]
    overrides += [*common, "label.verifier=llm", f"synth.sample_size={world['sample_size']}"]
    return {"profile": "fixture", "shards": 2, "overrides": overrides, "out": out}


def data_files(release: str) -> dict[str, str]:
    """The release's data files, the sha256 of their bytes as read from ``release`` (a local folder or a store URL):
    every Parquet file and the gold and workflow mappings (what a user loads; the card, Croissant and manifest carry
    dates, the backend's name and the previous version)."""
    store = ArtifactStore(release)
    kept = [rel for rel in store.files() if rel.endswith(".parquet") or rel in (GOLD_MAPPING, WORKFLOW_MAPPING)]
    return {rel: hashlib.sha256(store.fs.cat(store.path(rel))).hexdigest() for rel in kept}


def stage_times(instances: list[dict]) -> dict[str, dict]:
    """Per task: tries, and the seconds from the first start to the last end (mapped tasks: over their shards)."""
    times: dict[str, dict] = {}
    for ti in instances:
        if not ti.get("start_date") or not ti.get("end_date"):
            continue
        entry = times.setdefault(ti["task_id"], {"start": ti["start_date"], "end": ti["end_date"], "tasks": 0,
                                                 "tries": 0})  # fmt: skip
        entry["start"], entry["end"] = min(entry["start"], ti["start_date"]), max(entry["end"], ti["end_date"])
        entry["tasks"] += 1
        entry["tries"] = max(entry["tries"], ti.get("try_number") or 1)
    from datetime import datetime

    def seconds(entry: dict) -> float:
        start, end = (datetime.fromisoformat(entry[k].replace("Z", "+00:00")) for k in ("start", "end"))
        return round((end - start).total_seconds(), 1)

    order = sorted(times, key=lambda t: times[t]["start"])
    return {t: {"seconds": seconds(times[t]), "tasks": times[t]["tasks"], "tries": times[t]["tries"]} for t in order}


def tasks_in_worker_log(log: str, run_id: str) -> list[str]:
    """The tasks of ``run_id`` that a worker received (``task[map_index]``), from the log paths its log names."""
    found = re.findall(rf"log_path='[^']*run_id={re.escape(run_id)}/task_id=(\w+)/(?:map_index=(\d+)/)?", log)
    return [f"{task}[{index}]" if index else task for task, index in found]


def write_deployment_record(name: str, report: dict) -> None:
    """The run's record (``--record NAME``): the timings, the byte-identical release, the LLM requests, the kill, and
    the time of each stage's tasks."""
    t, profile, ref = report["timings"], report["profile"], report["reference"]
    figures = {"services and Airflow up": f"{t['services_and_airflow_up_s']} s"}
    if "reference_run_s" in t:
        figures["reference `ecoagent run` (one process, local store)"] = f"{t['reference_run_s']:.0f} s"
    else:
        figures["reference `ecoagent run` (one process, local store)"] = f"built beforehand: {ref['release']}"
    figures["ecoagent_refresh on CeleryExecutor (2 workers, store on S3)"] = f"{t['celery_refresh_s']:.0f} s"
    figures[f"release data files byte-identical to the reference ({report['data_files']}: Parquet and mappings)"] = (
        "yes (both runs, with and without the kill)" if "kill" in report else "yes")
    celery = report["celery_llm"]
    if "reference_llm" in report:
        figures["LLM requests (reference / Celery)"] = (f"{report['reference_llm']['requests']} / "
                                                        f"{celery['requests']}, none answered twice")  # fmt: skip
    else:
        figures["LLM requests at the server (those not in the seeded caches)"] = f"{celery['requests']}"
    if "kill" in report:
        kill = report["kill"]
        figures["kill -9 of a worker during verify_shard"] = (
            f"{kill['in_flight_at_kill']} requests in flight, {kill['sent_again']} sent again; "
            f"tries {kill['tries']}; refresh {t['killed_refresh_s']:.0f} s")  # fmt: skip
    figures["datasets.load_dataset from S3 (real-queries)"] = json.dumps(report["loaded_from_s3"]["rows"])
    figures["stop"] = f"{report['stop']['seconds']} s, {report['stop']['terminated']} processes, 0 left"
    if "rated" in report:
        figures["ecoagent_rated on the gpu queue"] = f"{report['rated']['seconds']:.0f} s"
    rows = [[task, s["tasks"], s["tries"], s["seconds"]] for task, s in report["stages"].items()]
    killed = "; a killed shard's retry resends only what was in flight" if "kill" in report else ""
    notes = [f"tasks ran on {', '.join(report['task_hosts'])}; by worker: " + "; ".join(
        f"{name}: {', '.join(tasks)}" for name, tasks in report.get("tasks_by_worker", {}).items())]  # fmt: skip
    if report["seeded_caches"]:
        notes.append("each worker's caches started as its own copy of " + ", ".join(
            f"{key} = {path}" for key, path in report["seeded_caches"].items()) + "; the LLM server therefore counts "
            "only the requests not in the seeded response cache (expected 0)")  # fmt: skip
    write_record(
        name, title=f"The refresh on Airflow's CeleryExecutor, the store on S3 ({profile} profile)", section="pipeline",
        benchmark="PostgreSQL + Redis (Debian packages) + moto's S3 server + the stand-in LLM server, started by the "
                  f"script; Airflow 3 CeleryExecutor with two workers sharing no disk but the store; the {profile} "
                  "refresh against one `ecoagent run` process"
                  + ("; then a worker killed with kill -9 during verification" if "kill" in report else ""),
        figures=figures, target=f"byte-identical release; no request sent twice{killed}",
        tables=[{"caption": "Stage by stage (the first Celery run): each task's first start to last end",
                 "columns": ["task", "tasks", "tries", "seconds"], "rows": rows}],
        notes=notes,
    )  # fmt: skip
