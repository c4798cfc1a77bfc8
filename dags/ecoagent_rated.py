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
   (:func:`rated.run.rated_run`, which finds the trained encoder and does not train again).

The profile's ``rated`` section sets the work: the default profile is the quick CPU one, CI runs
the fixture profile. XCom carries folder paths and the settings dict only. Parse time imports only
``airflow.sdk`` and ``pipeline.orchestration`` (standard library only).
"""

from __future__ import annotations

from airflow.sdk import Asset, Param, dag, task

from pipeline.orchestration import TRIGGERED_DAG, heartbeat, rated_settings, run_context

# Same name as in ecoagent_refresh.py (an asset is identified by name and URI, not by object).
RELEASE_ASSET = Asset("ecoagent/release")

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

    @task
    def train_encoder(settings: dict, run_id: str | None = None) -> str:
        from pathlib import Path

        from ecoagent.release_format.reader import load_release
        from rated.encoder import choose_encoder

        run = run_context(settings, run_id)
        out_dir = Path(run.run.folder("rated"))
        out_dir.mkdir(parents=True, exist_ok=True)
        cache = run.config.resolve_path(run.config.embedding.cache_dir)
        with heartbeat("train the RATED encoder", run.config):
            choice = choose_encoder(load_release(settings["folder"]), run.config.rated, out_dir, run.config.seed, cache)
        print(choice.record["settings"], "steps", choice.record["steps"])
        from ecoagent.layout import RATED_FILES

        return str(out_dir / RATED_FILES.model_folder)

    @task
    def evaluate(settings: dict, model: str, run_id: str | None = None) -> str:
        from pathlib import Path

        from ecoagent.runtime.progress import print_line
        from rated.run import rated_run

        config = run_context(settings, run_id).config
        result = rated_run(config, Path(settings["folder"]), Path(model).parent, progress=print_line)
        return str(result.report_path)

    settings = choose_release()
    evaluate(settings, train_encoder(settings))


ecoagent_rated_dag = ecoagent_rated()
