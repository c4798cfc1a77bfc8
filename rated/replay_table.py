"""The replay step: Table 2 on the release's own history (:mod:`rated.replay`), with the real-task overlap that
decides its stream and the paired test of the reliability prior.

Rows: the trained ranker's static top 1, a policy reading ``tools.status`` up front, the health-check blacklist,
RATED with a global MAB, RATED (w/o Feedback) and RATED (Full) with the settings Table 2 chose on validation; the
last two again with ``r_static`` flattened to its mean (the prior tells no tool apart), so that each seed gives a
paired difference: does the reliability prior lower FSR on real events?
"""

from __future__ import annotations

import time

from ecoagent.config import Config
from ecoagent.release_format.reader import Release, query_set, tool_events
from ecoagent.retrieval.rankers import DenseRetriever
from ecoagent.retrieval.stale import inactive_rows
from ecoagent.runtime import context
from rated.policies import StatusPolicy
from rated.replay import (
    ReplayRow,
    anchored_replay_stream,
    prior_effect,
    real_task_overlap,
    release_calendar,
    run_replay,
)
from rated.simulator import Method, SimulationInputs
from rated.tuning import bandit_options

WITHOUT_PRIOR = " without r_static"
PRIOR_ROWS = ("RATED (w/o Feedback)", "RATED (Full)")  # each run again with r_static flat: the paired test
OVERLAP_COLUMNS = ["set", "tasks", "dated", "tasks needing a tool gone later", "by event (tasks)", "tools involved"]


def replay_rows(config: Config, chosen: dict, release: Release) -> list[ReplayRow]:
    """The replay table's rows (module docstring), in order."""
    rated = config.rated
    fusion = {"weights": tuple(rated.fusion_weights)}
    learning = {**fusion, "alpha": rated.alpha, "gamma": chosen["gamma"], "reward": chosen["reward"]}
    inactive = inactive_rows(release.tools)

    def policy(name: str, options: dict | None = None):
        return lambda inputs: Method(name, name, inputs, options or {}).build()

    rows = [
        ReplayRow("RATED encoder (static)", policy("static")),
        ReplayRow("tools.status up front", lambda inputs: StatusPolicy(inactive)),
        ReplayRow("Health Check Blacklist", policy("blacklist")),
        ReplayRow("RATED (w/ Global MAB)", policy("rated_global_mab", learning)),
        ReplayRow("RATED (w/o Feedback)", policy("rated_no_feedback", {**fusion, "alpha": rated.alpha})),
        ReplayRow("RATED (Full)", policy("rated", bandit_options(config, **chosen))),
    ]
    flat = [ReplayRow(row.name + WITHOUT_PRIOR, row.build, prior=False) for row in rows if row.name in PRIOR_ROWS]
    return rows + flat


def replay_evaluation(release: Release, ranker: DenseRetriever, config: Config, chosen: dict | None) -> dict:
    """The replay record: the overlap table, the stream and why, each row's metrics over the seeds, the paired
    comparisons; ``{"skipped": why}`` when the scenario is off or the release cannot replay."""
    sim, rated = config.rated.simulation, config.rated
    if "replay" not in sim.scenarios:
        return {"skipped": "replay is not in rated.simulation.scenarios"}
    events = tool_events(release)
    if events is None or "first_seen" not in release.tools.columns:
        return {"skipped": "the release was built without the catalog history (no tool-events config or "
                           "tools.first_seen): run `ecoagent history`, then `ecoagent release build`"}  # fmt: skip
    if chosen is None:
        return {"skipped": "Table 2 chose no RATED (Full) settings on validation (it had no stream)"}
    templates = query_set(release, rated.anchored.templates)
    if templates is None or ranker.tool_vectors is None:
        return {"skipped": f"no template queries ({rated.anchored.templates}) to anchor the replay stream on"}
    started = time.perf_counter()
    overlap, cells = real_task_overlap(release, events)
    calendar = release_calendar(release, sim.replay_deprecation)
    stream = anchored_replay_stream(calendar, ranker.tool_vectors, release.corpus.r_static,
                                    ranker.encode_queries(templates.texts), templates.relevant, sim.replay_queries,
                                    rated.anchored.zipf, rated.top_k, config.seed)  # fmt: skip
    rows = replay_rows(config, chosen, release)
    with context.phase("replay: simulations", len(rows) * len(sim.seeds)) as simulating:
        results = run_replay(stream, rows, sim.seeds, sim.steps, simulating.advance)
    comparisons = {name: {metric: prior_effect(results[name], results[name + WITHOUT_PRIOR], metric)
                          for metric in ("fsr", "post_fail_sr", "replacement_recall")}
                   for name in PRIOR_ROWS}  # fmt: skip
    return {
        "stream": stream.name,
        "why": _why(overlap, stream.note),
        "note": stream.note,
        "months": [calendar.months[0], calendar.months[-1]],
        "deprecation": sim.replay_deprecation,
        "tasks": len(stream.task_month),
        "distinct_gold_tools": len({t for g in stream.inputs.gold for t in g}),
        "event_tools": _event_tools(stream.inputs, calendar),
        "seeds": list(sim.seeds),
        "steps": sim.steps,
        "chosen": chosen,
        "rows": [row.name for row in rows],
        "results": results,
        "prior": comparisons,
        "overlap": {"columns": OVERLAP_COLUMNS, "rows": overlap,
                    "by_month": [[name, month, platform, n] for (name, month, platform), n in sorted(cells.items())]},
        "seconds": round(time.perf_counter() - started, 1),
    }  # fmt: skip


def _why(overlap: list[list], note: str) -> str:
    counts = ", ".join(f"{row[0]} {row[3]} of {row[1]}" for row in overlap)
    return (f"the real task sets carry too few events to replay on (tasks needing a tool gone after the task's date: "
            f"{counts or 'no real set'}), so the stream is {note}")  # fmt: skip


def _event_tools(inputs: SimulationInputs, calendar) -> dict:
    """How many of the stream's gold tools stop executing at some month, and how many only get marked deprecated."""
    gold = sorted({t for g in inputs.gold for t in g})
    stops = [t for t in gold if (calendar.exists[:, t] & ~calendar.executes[:, t]).any()]
    marked = [t for t in gold if calendar.deprecated[:, t].any() and t not in stops]
    return {"gold_tools_that_stop": len(stops), "gold_tools_marked_deprecated": len(marked),
            "renamed_in_catalog": len(calendar.renamed_to)}  # fmt: skip
