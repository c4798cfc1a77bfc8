"""``ecoagent_refresh``: crawl, score, gate, Syn, Real and the release build as one Airflow 3 DAG.

Every task calls the same stage function as the CLI (see dags/README.md) and writes under a
run-scoped partition ``<root>/runs/<run_id>/<stage>/``, so a rerun of a task overwrites its own
outputs and two runs never mix. XCom carries folder paths and small dicts only.

Parse time stays cheap: this module imports only ``airflow.sdk``, ``datetime``, ``os`` and
``ecoagent.orchestration`` (standard library only); every other project module (polars, torch,
great-expectations behind them) is imported inside a task.

Schedule: weekly by default; ``ECOAGENT_REFRESH_SCHEDULE`` overrides it with any Airflow schedule
string (a cron expression, ``@daily``, or ``none`` for manual runs only).
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from airflow.sdk import Asset, Param, dag, task

from ecoagent.orchestration import run_config, run_partition, run_root

# The release asset the downstream RATED DAG is scheduled on. A plain name without a scheme is a
# valid Asset URI in Airflow 3.3 (only the "airflow" scheme is reserved); its events carry the
# release folder in their extra.
RELEASE_ASSET = Asset("ecoagent/release")

_schedule = os.environ.get("ECOAGENT_REFRESH_SCHEDULE", "@weekly")
SCHEDULE = None if _schedule.strip().lower() in ("", "none", "null") else _schedule

# Only the tasks that talk to the outside (registries, the LLM server) retry: a failed gate or a
# bug would fail the same way again, so everything else fails the run at once.
NETWORK_RETRIES = {
    "retries": int(os.environ.get("ECOAGENT_NETWORK_RETRIES", "2")),
    "retry_delay": timedelta(seconds=int(os.environ.get("ECOAGENT_RETRY_DELAY_S", "60"))),
    "retry_exponential_backoff": 2.0,
}


# What a run can change (Trigger DAG w/ config, or `airflow dags test ecoagent_refresh -c '{...}'`).
PARAMS = {
    "profile": Param("default", type="string", description="config profile: default | production | fixture"),
    "sample_size": Param(
        None, type=["null", "integer"], minimum=1, description="synth.sample_size (tools sampled); null = the profile's"
    ),
    "shards": Param(2, type="integer", minimum=1, description="parallel LLM shards (generation, verification)"),
    "overrides": Param(
        [], type="array", items={"type": "string"}, description="extra section.key=value config overrides"
    ),
    "out": Param(
        None, type=["null", "string"], description="root folder; null = the profile's store. Runs go to <root>/runs/"
    ),
    "version": Param(
        None, type=["null", "string"], description="release version; null = release.version, else the UTC date"
    ),
}


def _promote(built: str, target: str) -> str:
    """Copy the gated build to ``target`` through a temporary sibling and a rename (replacing an older copy)."""
    import shutil
    import uuid
    from pathlib import Path

    target_path = Path(target)
    target_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = target_path.parent / f".{target_path.name}.tmp-{uuid.uuid4().hex[:8]}"
    shutil.copytree(built, tmp)
    if target_path.exists():
        old = target_path.parent / f".{target_path.name}.old-{uuid.uuid4().hex[:8]}"
        target_path.rename(old)
        tmp.rename(target_path)
        shutil.rmtree(old, ignore_errors=True)
    else:
        tmp.rename(target_path)
    return str(target_path)


@dag(
    dag_id="ecoagent_refresh",
    schedule=SCHEDULE,
    start_date=datetime(2026, 1, 1),
    catchup=False,
    max_active_runs=1,  # runs share the LLM response cache and the package cache
    tags=["ecoagent", "refresh", "dataset"],
    default_args={"owner": "ecoagent", "retries": 0},
    params=PARAMS,
    doc_md=__doc__,
)
def ecoagent_refresh():
    @task
    def platforms(params: dict | None = None) -> list[str]:
        return list(run_config(params).crawl.platforms)

    @task(**NETWORK_RETRIES, map_index_template="{{ task.op_kwargs['platform'] }}")
    def crawl_platform(platform: str, params: dict | None = None, run_id: str | None = None) -> str:
        from crawlers.crawl import crawl

        config = run_config(params, f"crawl.platforms=[{platform}]")
        out = run_partition(params, run_id, f"crawl_shards/{platform}")
        result = crawl(config, out=out)
        print(f"crawl {platform}: {result.summary['tools']} tools, status {result.summary['status']}")
        return out  # a partial crawl (exit 3) still wrote a catalog; StageFailed raises

    @task
    def merge_crawl(shard_dirs: list[str], params: dict | None = None, run_id: str | None = None) -> str:
        from crawlers.crawl import merge_crawl_shards

        out = run_partition(params, run_id, "crawl")
        result = merge_crawl_shards(run_config(params), list(shard_dirs[:]), out)  # [:] = one XCom request
        print(f"merged catalog: {result.summary['tools']} tools, status {result.summary['status']}")
        return out

    @task
    def score(crawl_dir: str, params: dict | None = None, run_id: str | None = None) -> str:
        from scoring.score import score as score_stage

        out = run_partition(params, run_id, "score")
        score_stage(run_config(params), in_dir=crawl_dir, out=out)
        return out

    @task
    def score_gate(score_dir: str, params: dict | None = None) -> str:
        """Fails the run (QualityGateFailed) before any LLM call when the scored catalog is bad."""
        from ecoagent.quality_gate import enforce
        from scoring.score import gate

        result = gate(run_config(params), in_dir=score_dir)
        print(f"scored-catalog gate: success={result.success}, report {result.report_path}")
        enforce(result)
        return score_dir

    @task
    def shard_ids(params: dict | None = None) -> list[int]:
        return list(range(int(params.get("shards") or 1)))

    @task(**NETWORK_RETRIES)
    def generate_shard(shard: int, score_dir: str, params: dict | None = None) -> dict:
        from synth.generate import generate_shard as generate

        return generate(run_config(params), score_dir, shard, int(params.get("shards") or 1))

    @task
    def synth(score_dir: str, shard_results: list[dict], params: dict | None = None, run_id: str | None = None) -> str:
        from synth.generate import synth as synth_stage

        failed = sum(r["failed"] for r in shard_results[:])
        print(f"generation shards done, {failed} failed requests (synth retries them once more)")
        out = run_partition(params, run_id, "synth")
        synth_stage(run_config(params), in_dir=score_dir, out=out)
        return out

    @task(**NETWORK_RETRIES)
    def verify_shard(shard: int, score_dir: str, params: dict | None = None) -> dict:
        from labeling.label import verify_shard as verify

        return verify(run_config(params), score_dir, shard, int(params.get("shards") or 1))

    @task
    def label(score_dir: str, shard_results: list[dict], params: dict | None = None, run_id: str | None = None) -> str:
        from labeling.label import label as label_stage

        failed = sum(r["failed"] for r in shard_results[:])
        print(f"verification shards done, {failed} failed requests (label retries them once more)")
        out = run_partition(params, run_id, "label")
        label_stage(run_config(params), in_dir=score_dir, out=out)
        return out

    @task(outlets=[RELEASE_ASSET])
    def build_release(
        crawl_dir: str,
        score_dir: str,
        synth_dir: str,
        label_dir: str,
        params: dict | None = None,
        run_id: str | None = None,
        outlet_events=None,
    ) -> str:
        """Build, gate and promote the release; returns ``<root>/release/<version>``.

        The build goes to the run's partition (``runs/<run_id>/release/<version>``, from that run's stage
        folders, with the tracked copy in the repo's ``releases/<version>/``); only once its gate passed is
        it copied to ``<root>/release/<version>``, where ``ecoagent release publish``, the next refresh (as
        ``previous``) and the RATED DAG look. A failing gate raises QualityGateFailed: the run fails,
        nothing is promoted and no asset event reaches RATED.
        """
        from pathlib import Path

        from ecoagent.release.pipeline import default_version, newest_release, release_run

        config = run_config(params)
        run_dir = run_partition(params, run_id, "")
        # release_run reads <run_dir>/{crawl,score,synth,label}: the folders the upstream tasks returned
        if any(Path(d).parent != Path(run_dir) for d in (crawl_dir, score_dir, synth_dir, label_dir)):
            raise ValueError(f"stage folders {crawl_dir}, {score_dir}, {synth_dir}, {label_dir} are not in {run_dir}")
        version = str(params.get("version") or config.release.version or default_version())
        releases = Path(run_root(params), "release")
        previous = config.release.previous or newest_release(releases, exclude=version)
        result = release_run(config, run_dir, version=version, previous=str(previous) if previous else None)
        folder = _promote(str(result.folder), str(releases / version))
        print(f"release {version} built in {result.folder}, promoted to {folder} (previous: {previous})")
        if outlet_events is not None:
            outlet_events[RELEASE_ASSET].extra = {"folder": folder, "version": version, "run_id": run_id}
        return folder

    crawl_dir = merge_crawl(crawl_platform.expand(platform=platforms()))
    gated = score_gate(score(crawl_dir))
    shards = shard_ids()
    synth_dir = synth(gated, generate_shard.partial(score_dir=gated).expand(shard=shards))
    label_dir = label(gated, verify_shard.partial(score_dir=gated).expand(shard=shards))
    build_release(crawl_dir, gated, synth_dir, label_dir)


ecoagent_refresh_dag = ecoagent_refresh()
