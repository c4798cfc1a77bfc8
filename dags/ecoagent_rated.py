"""``ecoagent_rated``: RATED on every new EcoAgent release (``ecoagent rated`` as a DAG).

Scheduled on the ``ecoagent/release`` asset that ``ecoagent_refresh`` emits once a release passed
its gate. Three tasks:

1. ``release_folder``: the triggering asset event's ``folder`` (set by ``ecoagent_refresh``), else
   the ``release`` param, else the newest ``<root>/release/*`` folder (a manual trigger);
2. ``train_encoder``: contrastive fine-tuning on Syn train, grid chosen on validation
   (:func:`rated.encoder.choose_encoder`), into ``<root>/runs/<run_id>/rated/model``;
3. ``evaluate``: Tables 1-3, plots, ``report.md`` and ``metrics.json`` in the same folder
   (:func:`rated.run.rated_run`, which finds the trained encoder and does not train again).

The profile's ``rated`` section sets the work: the default profile is the quick CPU one, CI runs
the fixture profile. XCom carries folder paths only. Parse time imports only ``airflow.sdk``,
``datetime`` and ``pipeline.orchestration`` (standard library only).
"""

from __future__ import annotations

from datetime import datetime

from airflow.sdk import Asset, Param, dag, task

from pipeline.orchestration import run_context

# Same name as in ecoagent_refresh.py (an asset is identified by name and URI, not by object).
RELEASE_ASSET = Asset("ecoagent/release")

PARAMS = {
    "profile": Param("default", type="string", description="config profile (embedder cache, store)"),
    "overrides": Param([], type="array", items={"type": "string"}, description="extra section.key=value overrides"),
    "out": Param(None, type=["null", "string"], description="root folder; null = the profile's store"),
    "release": Param(None, type=["null", "string"], description="release folder; null = event, else newest"),
}


@dag(
    dag_id="ecoagent_rated",
    schedule=[RELEASE_ASSET],
    start_date=datetime(2026, 1, 1),
    catchup=False,
    max_active_runs=1,
    tags=["ecoagent", "rated", "evaluation"],
    default_args={"owner": "ecoagent", "retries": 0},
    params=PARAMS,
    doc_md=__doc__,
)
def ecoagent_rated():
    @task
    def release_folder(params: dict | None = None, triggering_asset_events=None) -> str:
        """The triggering event's folder, else the ``release`` param, else the newest promoted release."""
        from ecoagent.layout import newest_release

        events = [e for evs in (triggering_asset_events or {}).values() for e in evs]
        folders = [e.extra["folder"] for e in events if (e.extra or {}).get("folder")]
        if folders:
            return folders[-1]
        if params.get("release"):
            return str(params["release"])
        root = run_context(params).root
        newest = newest_release(root.releases)
        if newest is None:
            raise FileNotFoundError(f"no release under {root.releases}: run ecoagent_refresh first")
        return str(newest)

    @task
    def train_encoder(folder: str, params: dict | None = None, run_id: str | None = None) -> str:
        from pathlib import Path

        from ecoagent.release_reader import load_release
        from rated.encoder import choose_encoder

        run = run_context(params, run_id)
        out_dir = Path(run.run.folder("rated"))
        out_dir.mkdir(parents=True, exist_ok=True)
        cache = run.config.resolve_path(run.config.embedding.cache_dir)
        choice = choose_encoder(load_release(folder), run.config.rated, out_dir, run.config.seed, cache)
        print(choice.record["settings"], "steps", choice.record["steps"])
        return str(out_dir / "model")

    @task
    def evaluate(folder: str, model: str, params: dict | None = None, run_id: str | None = None) -> str:
        from pathlib import Path

        from rated.run import rated_run

        result = rated_run(run_context(params, run_id).config, Path(folder), Path(model).parent, progress=print)
        return str(result.report_path)

    folder = release_folder()
    evaluate(folder, train_encoder(folder))


ecoagent_rated_dag = ecoagent_rated()
