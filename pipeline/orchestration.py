"""What the DAG tasks share: a run's config and folders from its params, loaded once per task.

Standard library only at import time (the DAG files import this while Airflow parses them: :mod:`pipeline.runner`
and the core's runtime it stands on are standard library too); the config and the stages are imported inside the
functions, which tasks call.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pipeline.runner import Runner

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.layout import RunLayout
    from ecoagent.stage import LLMStage, Stage, StageResult

# The @dag settings the DAGs started by an event or by hand share (the refresh has its own schedule and start).
TRIGGERED_DAG = {
    "start_date": datetime(2026, 1, 1),
    "catchup": False,
    "max_active_runs": 1,
    "default_args": {"owner": "ecoagent", "retries": 0},
}


@dataclass(frozen=True)
class RunContext:
    config: Config
    root: RunLayout  # the ``out`` param, else the profile's store: promoted releases live here
    run: RunLayout | None  # ``<root>/runs/<run_id>``: this run's stage folders (None without a run id)


def _overrides(params: dict) -> list[str]:
    """The run's overrides, then those its explicit params stand for."""
    overrides = list(params.get("overrides") or [])
    if params.get("sample_size") is not None:
        overrides.append(f"synth.sample_size={int(params['sample_size'])}")
    return overrides


def run_context(params: dict, run_id: str | None = None, *extra: str) -> RunContext:
    """The run's config (the profile, the run's overrides, then the explicit params) and its folders."""
    from ecoagent.config import load_config
    from ecoagent.layout import RunLayout

    overrides = _overrides(params)
    if params.get("out"):
        # the store is the root, so stage defaults (the shared LLM response cache) live under it too
        overrides.append(f"store={params['out']}")
    config = load_config(params.get("profile") or "default", overrides=[*overrides, *extra])
    root = RunLayout.of(config)
    return RunContext(config, root, root.run(run_id) if run_id else None)


def release_event_extra(params: dict, run: RunContext, folder: str, version: str, run_id: str | None) -> dict:
    """What the ``ecoagent/release`` asset event carries: the release and the settings it was built with.

    ``profile``, ``overrides`` (the sample size included) and ``out`` (the resolved root, where the release was
    promoted) are the refresh's own, so the RATED run it triggers reads the same config and writes beside it.
    """
    return {
        "folder": folder,
        "version": version,
        "run_id": run_id,
        "profile": params.get("profile") or "default",
        "overrides": _overrides(params),
        "out": run.root.root,
    }


def rated_settings(params: dict, triggering_asset_events: dict | None = None) -> dict:
    """The release RATED evaluates and the settings it runs with: ``{"folder", "profile", "overrides", "out"}``.

    A run triggered by a release event takes the folder, profile, overrides and root the refresh recorded in the
    event (the newest event when several queued up), then the run's own ``overrides`` param. A manual run takes its
    params: the ``release`` param, else the newest release under its root. Standard library only, like the rest of
    this module: the rated DAG's first task calls it.
    """
    events = [e for evs in (triggering_asset_events or {}).values() for e in evs]
    extras = [e.extra for e in events if (e.extra or {}).get("folder")]
    if extras:
        extra = extras[-1]
        return {
            "folder": str(extra["folder"]),
            "profile": extra.get("profile") or params.get("profile") or "default",
            "overrides": [*(extra.get("overrides") or []), *(params.get("overrides") or [])],
            "out": extra.get("out") or params.get("out"),
        }
    settings = {"profile": params.get("profile") or "default", "overrides": list(params.get("overrides") or []),
                "out": params.get("out")}  # fmt: skip
    if params.get("release"):
        return {"folder": str(params["release"]), **settings}
    from ecoagent.layout import newest_release
    from pipeline.stages import releases_folder

    releases = releases_folder(run_context(settings).root)
    newest = newest_release(releases)
    if newest is None:
        raise FileNotFoundError(f"no release under {releases}: run ecoagent_refresh first")
    return {"folder": newest, **settings}


def plan_stage(stage: LLMStage, run: RunContext, inputs: dict[str, str]) -> dict:
    """Plan an LLM stage once for the run, into its exchange folder in the store (``<run>/<stage>_llm/``)."""
    exchange = run.run.llm_exchange(stage.name)
    return Runner(run.config).step(stage.name, lambda ctx: stage.write_plan(ctx, exchange), inputs)


def answer_stage_shard(stage: LLMStage, run: RunContext, shard: int, shards: int) -> dict:
    """Ask the LLM one shard of an LLM stage's planned requests (generation or verification), its answers written to
    the run's exchange folder as they arrive; progress lines in the task log."""
    from ecoagent.llm.exchange import answer_shard

    exchange = run.run.llm_exchange(stage.name)
    return Runner(run.config).step(f"{stage.name} shard {shard + 1}/{shards}", lambda ctx: answer_shard(
        run.config, exchange, shard, shards, phase=stage.ask_phase))  # fmt: skip


def run_stage(stage: Stage, run: RunContext, inputs: dict[str, str], out: str, partition: str | None = None,
              planned: bool = False, step: str | None = None) -> StageResult:  # fmt: skip
    """Run a stage (or one ``partition`` of a partitioned one, or one ``step`` of a stepped one) in a DAG task; its
    progress and the lines it says go to the task log. A stage's optional inputs are the run root's folders (the
    history); a published stage also gets the run root's folder of its earlier results; a ``planned`` LLM stage
    assembles from its exchange folder (the plan and the shards' answers)."""
    from ecoagent.stage import LLMStage, Published, Stepped

    inputs = {**{name: run.root.folder(name) for name in stage.optional_inputs}, **inputs}
    if isinstance(stage, Published):
        inputs[stage.earlier_results] = run.root.folder(stage.name)
    if planned and isinstance(stage, LLMStage):
        exchange = run.run.llm_exchange(stage.name)
        return Runner(run.config).run(stage, inputs, out, lambda ctx: stage.assemble_from(ctx, exchange))
    if partition is not None:
        return Runner(run.config).run(stage, inputs, out, lambda ctx: stage.run_partition(ctx, partition))
    if step is not None and isinstance(stage, Stepped):
        return Runner(run.config).run(stage, inputs, out, lambda ctx: stage.run_steps(ctx, step))
    return Runner(run.config).run(stage, inputs, out)
