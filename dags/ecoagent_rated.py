"""``ecoagent_rated``: RATED on every new EcoAgent release (``ecoagent rated`` as a DAG).

Scheduled on the ``ecoagent/release`` asset that ``ecoagent_refresh`` emits once a release passed
its gate. Three tasks:

1. ``choose_release``: the release and the settings to run with
   (:func:`pipeline.orchestration.rated_settings`). A run triggered by a release event takes the
   event's ``folder`` and the refresh's ``profile``, ``overrides`` and ``out`` recorded with it, so it
   reads the release with the config that built it and writes under the same root; a manual run takes
   its params (the ``release`` param, else the newest ``<root>/release/*`` folder);
2. ``train_encoder``: contrastive fine-tuning on Syn train, grid chosen on validation
   (:func:`rated.encoder.choose_encoder`), into ``<root>/runs/<run_id>/rated/model``;
3. ``evaluate``: Tables 1-3, plots, ``report.md`` and ``metrics.json`` in the same folder
   (:func:`rated.run.rated_to`, which finds the trained encoder and does not train again).

Both read and write through the store (a local folder or object storage: the release is read from a verified local
copy, the RATED folder is written locally and committed to the store) and run on the Celery queue ``gpu``
(``ECOAGENT_GPU_QUEUE``), so a worker with a GPU trains and evaluates.

The profile's ``rated`` section sets the work: the default profile is the quick CPU one, CI runs
the fixture profile. XCom carries folder paths and the settings dict only. Parse time imports only
``airflow.sdk`` and ``pipeline.orchestration`` (standard library only).
"""

from __future__ import annotations

import os

from airflow.sdk import Asset, Param, dag, task

from pipeline.orchestration import TRIGGERED_DAG, TaskRunner, rated_settings, run_context

# Same name as in ecoagent_refresh.py (an asset is identified by name and URI, not by object).
RELEASE_ASSET = Asset("ecoagent/release")

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


@dag(
    dag_id="ecoagent_rated",
    schedule=[RELEASE_ASSET],
    tags=["ecoagent", "rated", "evaluation"],
    params=PARAMS,
    doc_md=__doc__,
    **TRIGGERED_DAG,
)
def ecoagent_rated():
    @task
    def choose_release(params: dict | None = None, triggering_asset_events=None) -> dict:
        """``{"folder", "profile", "overrides", "out"}``: the triggering release event's, else from the params."""
        settings = rated_settings(params, triggering_asset_events)
        print(f"release {settings['folder']}, profile {settings['profile']}, root {settings['out'] or 'the store'}")
        return settings

    @task(**GPU_QUEUE)
    def train_encoder(settings: dict, run_id: str | None = None) -> str:
        """The run's RATED folder in the store, holding the trained encoder (committed by its record)."""
        from ecoagent.layout import RATED_MARKER
        from ecoagent.release_format.reader import load_release
        from ecoagent.store import StageFolder
        from rated.encoder import choose_encoder

        run = run_context(settings, run_id)
        cache = run.config.resolve_path(run.config.embedding.cache_dir)
        folder = StageFolder(run.run.folder("rated"), marker=RATED_MARKER)

        def train(ctx) -> dict:
            with folder.amend() as store:
                release = load_release(settings["folder"])
                return choose_encoder(release, run.config.rated, store.local_path, run.config.seed, cache).record

        record = TaskRunner(run.config).step("rated", train)
        print(record["settings"], "steps", record["steps"])
        return folder.url()

    @task(**GPU_QUEUE)
    def evaluate(settings: dict, rated_folder: str, run_id: str | None = None) -> str:
        from rated.run import rated_to

        config = run_context(settings, run_id).config
        result = TaskRunner(config).step("rated", lambda ctx: rated_to(config, settings["folder"], rated_folder))
        return result.report_path

    settings = choose_release()
    evaluate(settings, train_encoder(settings))


ecoagent_rated_dag = ecoagent_rated()
