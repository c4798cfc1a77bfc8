"""``ecoagent_refresh``: crawl, score, gate, Syn, Real and the release build as one Airflow 3 DAG.

Every task calls the same stage function as the CLI (see dags/README.md) and writes under a
run-scoped partition ``<root>/runs/<run_id>/<stage>/``, so a rerun of a task overwrites its own
outputs and two runs never mix. XCom carries folder paths and small dicts only.

Parse time stays cheap: this module imports only ``airflow.sdk``, ``datetime``, ``os`` and
``pipeline.orchestration`` (standard library only); every other project module (polars, torch,
great-expectations behind them) is imported inside a task. Each task loads the run's config once
(``run_context``) and takes its folders from the run's ``RunLayout``.

Schedule: weekly (Sunday 00:00 UTC) by default; ``ECOAGENT_REFRESH_SCHEDULE`` sets any cron expression or
preset (``@daily``), or ``none`` for manual runs only. Unpausing the DAG starts nothing: the first scheduled
run is the next tick after it was unpaused. A full refresh takes a while and calls the registries and the
LLM, so running the tick that already passed needs ``ECOAGENT_REFRESH_RUN_ON_UNPAUSE=true``.
"""

from __future__ import annotations

import os
from datetime import timedelta

from airflow.sdk import Asset, CronTriggerTimetable, Param, dag, task

from pipeline.orchestration import heartbeat, release_event_extra, run_context

# The release asset the downstream RATED DAG is scheduled on. A plain name without a scheme is a
# valid Asset URI in Airflow 3.3 (only the "airflow" scheme is reserved); its events carry the
# release folder and the settings it was built with in their extra.
RELEASE_ASSET = Asset("ecoagent/release")


def refresh_schedule(schedule: str, run_on_unpause: bool = False) -> CronTriggerTimetable | None:
    """The refresh's timetable: runs at each cron tick, never at unpause unless ``run_on_unpause``.

    The DAG has no start_date, on purpose: with one in the past, Airflow runs the latest tick that already
    passed as soon as the DAG is unpaused, even with catchup=False, and a full refresh would start at once.
    Without one, the first run is decided by ``run_immediately``: Airflow's default (False) still runs the
    past tick when it was less than a tenth of the period ago (16.8 hours for a weekly schedule), so the
    DAG passes a zero window instead, which means the next tick.
    """
    if schedule.strip().lower() in ("", "none", "null"):
        return None
    return CronTriggerTimetable(schedule, timezone="UTC", run_immediately=True if run_on_unpause else timedelta(0))


SCHEDULE = refresh_schedule(
    os.environ.get("ECOAGENT_REFRESH_SCHEDULE", "@weekly"),
    os.environ.get("ECOAGENT_REFRESH_RUN_ON_UNPAUSE", "").strip().lower() in ("1", "true", "yes"),
)

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
    """Copy the gated build to ``target`` as a whole (a hidden sibling renamed into place, replacing an older copy)."""
    import shutil

    from ecoagent.store import StageFolder

    with StageFolder(target).replace() as store:
        shutil.copytree(built, store.root, dirs_exist_ok=True)
    return target


@dag(
    dag_id="ecoagent_refresh",
    schedule=SCHEDULE,
    start_date=None,  # see refresh_schedule: no start date, so unpausing does not start a run
    catchup=False,  # a scheduler that was down runs the latest missed tick once, not every one of them
    max_active_runs=1,  # runs share the LLM response cache and the package cache
    tags=["ecoagent", "refresh", "dataset"],
    default_args={"owner": "ecoagent", "retries": 0},
    params=PARAMS,
    doc_md=__doc__,
)
def ecoagent_refresh():
    @task
    def platforms(params: dict | None = None) -> list[str]:
        return list(run_context(params).config.crawl.platforms)

    @task(**NETWORK_RETRIES, map_index_template="{{ task.op_kwargs['platform'] }}")
    def crawl_platform(platform: str, params: dict | None = None, run_id: str | None = None) -> str:
        from crawlers.crawl import crawl
        from ecoagent.runtime.progress import phase_progress

        run = run_context(params, run_id, f"crawl.platforms=[{platform}]")
        out = run.run.crawl_shard(platform)
        interval = run.config.progress_interval_s
        with phase_progress(f"crawl {platform}: {{phase}} packages", interval_s=interval) as progress:
            result = crawl(run.config, out=out, progress=progress)
        print(f"crawl {platform}: {result.summary['tools']} tools, status {result.summary['status']}")
        return out  # a partial crawl (exit 3) still wrote a catalog; StageFailed raises

    @task
    def merge_crawl(shard_dirs: list[str], params: dict | None = None, run_id: str | None = None) -> str:
        from crawlers.crawl import merge_crawl_shards

        run = run_context(params, run_id)
        result = merge_crawl_shards(run.config, list(shard_dirs[:]), run.run.crawl)  # [:] = one XCom request
        print(f"merged catalog: {result.summary['tools']} tools, status {result.summary['status']}")
        return run.run.crawl

    @task
    def score(crawl_dir: str, params: dict | None = None, run_id: str | None = None) -> str:
        from scoring.score import score as score_stage

        run = run_context(params, run_id)
        with heartbeat("score the catalog", run.config):
            score_stage(run.config, in_dir=crawl_dir, out=run.run.score)
        return run.run.score

    @task
    def score_gate(score_dir: str, params: dict | None = None, run_id: str | None = None) -> str:
        """Fails the run (QualityGateFailed) before any LLM call when the scored catalog is bad."""
        from ecoagent.runtime.quality_gate import enforce
        from scoring.score import gate

        run = run_context(params, run_id)  # the drop counts are in this run's crawl folder (merge_crawl wrote it)
        result = gate(run.config, in_dir=score_dir, crawl_dir=run.run.crawl)
        print(f"scored-catalog gate: success={result.success}, report {result.report_path}")
        enforce(result)
        return score_dir

    @task
    def shard_ids(params: dict | None = None) -> list[int]:
        return list(range(int(params.get("shards") or 1)))

    @task(**NETWORK_RETRIES)
    def llm_shard(stage: str, shard: int, score_dir: str, params: dict | None = None) -> dict:
        """One shard of an LLM stage's requests (generation or verification), answered into the response cache."""
        from pipeline.orchestration import answer_stage_shard

        config = run_context(params).config
        return answer_stage_shard(stage, config, score_dir, shard, int(params.get("shards") or 1))

    def assemble(stage: str, score_dir: str, shard_results: list[dict], params: dict, run_id: str) -> str:
        from pipeline.orchestration import assemble_stage

        failed = sum(r["failed"] for r in shard_results[:])  # [:] = one XCom request
        print(f"{stage} shards done, {failed} failed requests ({stage} retries them once more)")
        run = run_context(params, run_id)
        with heartbeat(f"{stage}: assemble from the cached answers", run.config):
            assemble_stage(stage, run.config, score_dir, run.run.folder(stage))
        return run.run.folder(stage)

    @task
    def synth(score_dir: str, shard_results: list[dict], params: dict | None = None, run_id: str | None = None) -> str:
        return assemble("synth", score_dir, shard_results, params, run_id)

    @task
    def label(score_dir: str, shard_results: list[dict], params: dict | None = None, run_id: str | None = None) -> str:
        return assemble("label", score_dir, shard_results, params, run_id)

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

        The build goes to the run's partition (``runs/<run_id>/release/<version>``, from the stage folders the
        upstream tasks returned, with the tracked copy in the repo's ``releases/<version>/``); only once its gate
        passed is it copied to ``<root>/release/<version>``, where ``ecoagent release publish``, the next refresh
        (as ``previous``) and the RATED DAG look. A failing gate raises QualityGateFailed: the run fails, nothing
        is promoted and no asset event reaches RATED.
        """
        from pipeline.release_run import release_run
        from release.build import ReleaseInputs

        run = run_context(params, run_id)
        inputs = ReleaseInputs(crawl_dir, score_dir, synth_dir, label_dir)
        with heartbeat("build and gate the release", run.config):
            result = release_run(run.config, inputs, run.run, version=params.get("version"), previous_root=run.root)
        version = result.version
        folder = _promote(str(result.folder), run.root.release(version))
        print(f"release {version} built in {result.folder}, promoted to {folder} (previous: {result.previous})")
        if outlet_events is not None:
            # the settings travel with the event, so ecoagent_rated reads this release with this config
            outlet_events[RELEASE_ASSET].extra = release_event_extra(params, run, folder, version, run_id)
        return folder

    crawl_dir = merge_crawl(crawl_platform.expand(platform=platforms()))
    gated = score_gate(score(crawl_dir))
    shards = shard_ids()
    # one task definition, mapped per shard for each LLM stage
    generated = llm_shard.override(task_id="generate_shard").partial(stage="synth", score_dir=gated)
    verified = llm_shard.override(task_id="verify_shard").partial(stage="label", score_dir=gated)
    generated, verified = generated.expand(shard=shards), verified.expand(shard=shards)
    build_release(crawl_dir, gated, synth(gated, generated), label(gated, verified))


ecoagent_refresh_dag = ecoagent_refresh()
