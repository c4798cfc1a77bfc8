"""``ecoagent_history``: the catalog month by month, the paper's Figure 1 (``ecoagent history`` as a DAG).

Not part of every refresh: a maintainer triggers it when the curve should be drawn again (no schedule). One task,
``history`` (the history step, :mod:`history`): every pinned package of the source list at the newest version
published by each month's end, crawled and scored; the table, the plot, each tool's first month and the tool events
in ``<root>/history/``, where the next release build finds them (the card embeds the curve; the first-seen cold
start and the tool-disjoint view read ``first_seen.parquet``; ``tools.status`` and the ``tool-events`` config read
``tool_events.parquet``). Unchanged months are reused, so a rerun after a month has
passed crawls and scores only the new month. It talks to the registries (publish times, archives), so it retries.

XCom carries the history folder only. Parse time imports only ``airflow.sdk``, ``datetime`` and
``pipeline.orchestration`` (standard library only).
"""

from __future__ import annotations

from datetime import timedelta

from airflow.sdk import Param, dag, task

from pipeline.orchestration import TRIGGERED_DAG, run_context
from pipeline.runner import Runner

PARAMS = {
    "profile": Param("default", type="string", description="config profile"),
    "overrides": Param([], type="array", items={"type": "string"}, description="extra section.key=value overrides"),
    "out": Param(None, type=["null", "string"], description="root folder; null = the profile's store"),
    "since": Param(None, type=["null", "string"], description="first month, YYYY-MM; null = history.since"),
    "until": Param(None, type=["null", "string"], description="last month, YYYY-MM; null = the newest complete one"),
    "fresh": Param(False, type="boolean", description="crawl and score every month again, even unchanged ones"),
}


@dag(
    dag_id="ecoagent_history",
    schedule=None,
    tags=["ecoagent", "history", "figure-1"],
    params=PARAMS,
    doc_md=__doc__,
    **TRIGGERED_DAG,
)
def ecoagent_history():
    @task(retries=2, retry_delay=timedelta(minutes=2))
    def history(params: dict | None = None) -> str:
        from pipeline.stages import HISTORY

        params = params or {}
        chosen = {key: params.get(key) for key in ("since", "until") if params.get(key)}
        extra = [f"{HISTORY.name}.{key}={value}" for key, value in chosen.items()]
        if params.get("fresh"):
            extra.append(f"{HISTORY.name}.fresh=true")
        run = run_context(params, None, *extra)
        return Runner(run.config).run(HISTORY, {}, run.root.folder(HISTORY.name)).out

    history()


ecoagent_history()
