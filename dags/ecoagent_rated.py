"""``ecoagent_rated``: RATED on every new EcoAgent release (``ecoagent rated`` as a DAG), one task per step.

Scheduled on the ``ecoagent/release`` asset that ``ecoagent_refresh`` emits once a release passed its gate. The
first task, ``choose_release``, picks the release and the settings to run with
(:func:`pipeline.orchestration.rated_settings`): a run triggered by a release event takes the event's ``folder`` and
the refresh's ``profile``, ``overrides`` and ``out`` recorded with it, so it reads the release with the config that
built it and writes under the same root; a manual run takes its params (the ``release`` param, else the newest
``<root>/release/*`` folder).

Then one task per step the RATED stage declares (:class:`rated.stage.RatedStage`: train, Table 1, Table 2, the replay
on the history, the paper-scale view, Table 3, the report, the replay quoted in the release's card), in order, each
adding its file to the one folder the layout names for that release, ``<root>/rated/<version>/``, the folder
``ecoagent rated`` writes too. Each task runs its step and reuses the files of the steps before it (same release,
settings and seed), so a failed task retried, or one cleared and run again, computes only its own step. The steps
that run the encoder go to the Celery queue ``gpu`` (``ECOAGENT_GPU_QUEUE``), so a worker with a GPU trains and
evaluates.

The profile's ``rated`` section sets the work: the default profile is the quick CPU one, CI runs the fixture profile.
XCom carries folder paths and the settings dict only. Parse time imports only ``airflow.sdk``,
``pipeline.orchestration`` and ``pipeline.stages`` (standard library only at import time).
"""

from __future__ import annotations

import os

from airflow.sdk import Asset, Param, dag, task

from pipeline.orchestration import TRIGGERED_DAG, rated_settings, run_context, run_stage
from pipeline.stages import DOWNSTREAM, stage_named

# Same name as in ecoagent_refresh.py (an asset is identified by name and URI, not by object).
RELEASE_ASSET = Asset("ecoagent/release")
(RATED,) = DOWNSTREAM

# Training and evaluation go to the Celery queue of the workers with a GPU (`airflow celery worker --queues gpu`);
# ECOAGENT_GPU_QUEUE names another queue. Other executors ignore queues.
GPU_QUEUE = {"queue": os.environ.get("ECOAGENT_GPU_QUEUE", "gpu")}

# A manual run's settings; a run triggered by a release event takes the refresh's (see choose_release).
PARAMS = {
    "profile": Param("default", type="string", description="config profile (manual runs)"),
    "overrides": Param([], type="array", items={"type": "string"}, description="extra section.key=value overrides"),
    "out": Param(None, type=["null", "string"], description="root folder; null = the profile's store"),
    "release": Param(None, type=["null", "string"], description="release folder; null = the newest"),
}


@task
def choose_release(params: dict | None = None, triggering_asset_events=None) -> dict:
    """``{"folder", "profile", "overrides", "out"}``: the triggering release event's, else from the params."""
    settings = rated_settings(params, triggering_asset_events)
    print(f"release {settings['folder']}, profile {settings['profile']}, root {settings['out'] or 'the store'}")
    return settings


@task
def run_step(stage: str, step: str, settings: dict, folder: str | None = None, run_id: str | None = None) -> str:
    """One step of the stage on the chosen release, into the stage's folder for it (``folder``: the one the step
    before returned, to keep the tasks in order); the folder."""
    run = run_context(settings, run_id)
    stepped = stage_named(stage, DOWNSTREAM)
    inputs = {stepped.inputs[0]: settings["folder"]}
    return run_stage(stepped, run, inputs, stepped.out_under(run.root, inputs), step=step).out


@dag(
    dag_id="ecoagent_rated",
    schedule=[RELEASE_ASSET],
    tags=["ecoagent", "rated", "evaluation"],
    params=PARAMS,
    doc_md=__doc__,
    **TRIGGERED_DAG,
)
def ecoagent_rated():
    settings = choose_release()
    folder = None
    for step in RATED.steps:
        queue = GPU_QUEUE if step.gpu else {}
        folder = run_step.override(task_id=step.name, **queue)(RATED.name, step.name, settings, folder)


ecoagent_rated_dag = ecoagent_rated()
