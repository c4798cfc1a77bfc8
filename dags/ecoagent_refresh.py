"""``ecoagent_refresh``: every stage of ``pipeline.stages.STAGES`` (crawl, score + gate, Syn, Real, the release
build) as one Airflow 3 DAG, built from that list.

Each stage becomes the tasks its capabilities call for (:mod:`ecoagent.stage`): a partitioned stage one task per
partition and a merge, a gated stage a gate task, an LLM stage a plan task (once per run, written to the store),
parallel shards that answer the planned requests into the store (in the LLM pool) and its own task that assembles
from there, a published stage an asset event once promoted. Tasks meet only through the store (a local folder or
object storage), so they may run on workers that share nothing else (CeleryExecutor: docs/orchestration.md).
Every task runs the same stage object as the CLI (see dags/README.md) and writes under a run-scoped partition
``<root>/runs/<run_id>/<stage>/``, so a rerun of a task overwrites its own outputs and two runs never mix. XCom
carries folder paths and small dicts only.

Parse time stays cheap: this module imports ``airflow.sdk``, ``datetime``, ``os``, ``pipeline.orchestration``
(standard library only) and ``pipeline.stages`` (the stage objects, whose modules import polars, torch or
great-expectations only inside their methods). Each task loads the run's config once (``run_context``).

Schedule: weekly (Sunday 00:00 UTC) by default; ``ECOAGENT_REFRESH_SCHEDULE`` sets any cron expression or
preset (``@daily``), or ``none`` for manual runs only. Unpausing the DAG starts nothing: the first scheduled
run is the next tick after it was unpaused. A full refresh takes a while and calls the registries and the
LLM, so running the tick that already passed needs ``ECOAGENT_REFRESH_RUN_ON_UNPAUSE=true``.
"""

from __future__ import annotations

import os
from datetime import timedelta

from airflow.sdk import Asset, CronTriggerTimetable, Param, dag, task

from ecoagent.stage import Gated, LLMStage, Partitioned, Published
from pipeline.orchestration import (
    answer_stage_shard,
    plan_stage,
    release_event_extra,
    run_context,
    run_stage,
)
from pipeline.runner import Runner
from pipeline.stages import STAGES, stage_named


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


# Every task that talks to the LLM endpoint (the shards, and the stage task that asks again what a shard could not
# answer) runs in one Airflow pool, so shards x llm.concurrency never exceeds what the server takes: size the pool
# as (concurrent requests the server serves well, e.g. vLLM's --max-num-seqs) / llm.concurrency, with
# `airflow pools set ecoagent_llm <slots> "the LLM endpoint"`. ECOAGENT_LLM_POOL names another pool and
# ECOAGENT_LLM_POOL_SLOTS the slots one LLM task takes (default 1).
LLM_POOL = {
    "pool": os.environ.get("ECOAGENT_LLM_POOL", "ecoagent_llm"),
    "pool_slots": int(os.environ.get("ECOAGENT_LLM_POOL_SLOTS", "1")),
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


# A published stage's asset (the release's: "ecoagent/release", which the downstream RATED DAG is scheduled on). A
# plain name without a scheme is a valid Asset URI in Airflow 3.3; its events carry the folder and the settings.
def stage_asset(stage: Published) -> Asset:
    return Asset(stage.asset)


@task
def shard_ids(params: dict | None = None) -> list[int]:
    return list(range(int(params.get("shards") or 1)))


@task
def partitions(stage: str, params: dict | None = None) -> list[str]:
    return stage_named(stage).partitions(run_context(params).config)


@task
def run_partition(stage: str, partition: str, params: dict | None = None, run_id: str | None = None) -> str:
    """One partition of a partitioned stage (the crawl of one platform) into its own folder."""
    run = run_context(params, run_id)
    return run_stage(stage_named(stage), run, {}, run.run.partition(stage, partition), partition=partition).out


@task
def merge_partitions(stage: str, partition_folders: list[str], params: dict | None = None,
                     run_id: str | None = None) -> str:  # fmt: skip
    run = run_context(params, run_id)
    merged = stage_named(stage)
    folders = list(partition_folders[:])  # [:]: one XCom request
    result = Runner(run.config).run(merged, {}, run.run.folder(stage), lambda ctx: merged.merge(ctx, folders))
    return result.out  # a partial crawl (exit 3) still wrote a catalog; a failed one raises


@task
def gate_stage(stage: str, folder: str, params: dict | None = None, run_id: str | None = None) -> str:
    """Fails the run (QualityGateFailed) when the gate fails, before anything reads the folder."""
    run = run_context(params, run_id)
    gated = stage_named(stage)
    Runner(run.config).gate(gated, folder, {name: run.run.folder(name) for name in gated.inputs})
    return folder


@task
def plan_llm_stage(stage: str, inputs: dict, params: dict | None = None, run_id: str | None = None) -> dict:
    """An LLM stage's plan, computed once for the run and written to its exchange folder in the store."""
    return plan_stage(stage_named(stage), run_context(params, run_id), dict(inputs))


@task
def llm_shard(stage: str, shard: int, plan: dict, params: dict | None = None, run_id: str | None = None) -> dict:
    """One shard of an LLM stage's planned requests (generation or verification), its answers written to the
    run's exchange folder in the store as they arrive."""
    return answer_stage_shard(stage_named(stage), run_context(params, run_id), shard, int(params.get("shards") or 1))


@task
def run_stage_task(stage: str, inputs: dict, shard_results: list[dict] | None = None, params: dict | None = None,
                   run_id: str | None = None, outlet_events=None) -> str:  # fmt: skip
    """The stage on this run's input folders (an LLM stage reads its plan and its shards' answers from the store
    and only assembles); a published stage's result is then promoted to the run root and announced."""
    if shard_results is not None:
        failed = sum(r["failed"] for r in shard_results[:])  # [:] = one XCom request
        print(f"{stage} shards done, {failed} failed requests ({stage} retries them once more)")
    run = run_context(params, run_id)
    the_stage = stage_named(stage)
    result = run_stage(the_stage, run, dict(inputs), run.run.folder(stage), planned=shard_results is not None)
    if isinstance(the_stage, Published):
        result = the_stage.promote(run.config, result, run.root)
        print(result.lines[-1])
        if outlet_events is not None:
            # the settings travel with the event, so the downstream DAG reads this result with this config
            event = release_event_extra(params, run, result.out, result.summary["version"], run_id)
            outlet_events[stage_asset(the_stage)].extra = event
    return result.out


def refresh_dag(stages=STAGES, dag_id: str = "ecoagent_refresh"):
    """The refresh DAG over ``stages``, in order; each stage's inputs are the folders its upstream tasks return."""

    @dag(
        dag_id=dag_id,
        schedule=SCHEDULE,
        start_date=None,  # see refresh_schedule: no start date, so unpausing does not start a run
        catchup=False,  # a scheduler that was down runs the latest missed tick once, not every one of them
        max_active_runs=1,  # runs share the package cache and each worker's LLM response cache
        tags=["ecoagent", "refresh", "dataset"],
        default_args={"owner": "ecoagent", "retries": 0},
        params=PARAMS,
        doc_md=__doc__,
    )
    def ecoagent_refresh():
        folders: dict = {}  # stage name -> the task returning its (gated) folder
        shards = shard_ids() if any(isinstance(s, LLMStage) for s in stages) else None
        for stage in stages:
            inputs = {name: folders[name] for name in stage.inputs}
            if isinstance(stage, Partitioned):
                retries = NETWORK_RETRIES if stage.network else {}
                parts = partitions.override(task_id=f"{stage.partition_by}s")(stage=stage.name)
                each = run_partition.override(task_id=f"{stage.name}_{stage.partition_by}", **retries,
                                              map_index_template="{{ task.op_kwargs['partition'] }}")  # fmt: skip
                done = each.partial(stage=stage.name).expand(partition=parts)
                folder = merge_partitions.override(task_id=f"merge_{stage.name}")(stage=stage.name,
                                                                                  partition_folders=done)  # fmt: skip
            elif isinstance(stage, LLMStage):
                planned = plan_llm_stage.override(task_id=stage.plan_task)(stage.name, inputs)
                shard = llm_shard.override(task_id=stage.shard_task, **LLM_POOL, **NETWORK_RETRIES)
                answered = shard.partial(stage=stage.name, plan=planned).expand(shard=shards)
                folder = run_stage_task.override(task_id=stage.task_id, **LLM_POOL)(stage.name, inputs, answered)
            else:
                outlets = [stage_asset(stage)] if isinstance(stage, Published) else []
                folder = run_stage_task.override(task_id=stage.task_id, outlets=outlets)(stage.name, inputs)
            if isinstance(stage, Gated):
                folder = gate_stage.override(task_id=f"{stage.name}_gate")(stage.name, folder)
            folders[stage.name] = folder

    return ecoagent_refresh()


ecoagent_refresh_dag = refresh_dag()
