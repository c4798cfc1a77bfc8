"""Table 2 on the catalog's real history: the ``replay`` scenario (``rated.simulation.scenarios``).

The injected scenarios fail a set of tools chosen by frequency at a step chosen by the protocol. The replay fails
the tools the release's history says failed, when it says they did:

- **The calendar** (:func:`tool_calendar`): the months from the history's first to the last one with a change (an
  event or a new tool: the months after it would replay the same catalog); a tool *exists* from its
  ``tools.first_seen`` month on (a tool whose package the history does not follow, always) and *executes* in a month
  when it exists and is not gone: from a ``removed`` or ``renamed`` event's month until a ``restored`` one. A rename
  makes the old id fail and the new id a correct answer wherever the old one was (both rows of the catalog). Whether a
  ``deprecated`` (or ``package_deprecated``) tool fails from that month or is only marked is
  ``rated.simulation.replay_deprecation``: ``mark`` by default, because a deprecated n8n node or Python class still
  runs (n8n keeps old node versions executable; a deprecation warning is not an error); ``fail`` reads it as gone.
- **The stream** (:func:`draw_replay_stream`): the steps spread evenly over the months, each step's task drawn (by
  the stream's popularity) among the tasks that exist by that month: a task exists from the month its anchor tool
  does. The candidates of a step are the retriever's top K among the tools that exist that month.
- **Success**: the executed tool is one of the task's tools and executes that month. A fault selection: the first
  tool tried does not execute.

The stream is the catalog-anchored form (:mod:`rated.anchored`) over the tools that have such an event, filled to
``rated.simulation.replay_queries`` tasks with tools of the followed packages that have none: the real task sets
barely meet the history (:func:`real_task_overlap`: on release 2026.12.7, 10 of 1,397 workflow tasks need a tool gone
after the task's date), so a replay on them would measure a few steps.

Metrics per run (:func:`replay_metrics`), over the steps from the first month a task's tool stops executing on:

- ``post_fail_sr``, ``fsr``: as Table 2's, on those steps;
- ``replacement_recall``: the success rate on the steps whose task has a tool that no longer executes and another
  that does (a replacement exists: was it found?);
- ``stranded``: the share of steps where none of the task's tools executes (no policy can succeed);
- ``deprecated_share``: the share of executed tools that were deprecated that month (what ``mark`` counts).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from ecoagent.release_format.reader import Release, tool_events
from ecoagent.release_format.tool_status import DEPRECATION_EVENTS, GONE_EVENTS, RESTORED, months_between
from ecoagent.release_format.views import FIRST_SEEN_NOT_SEEN, FIRST_SEEN_UNKNOWN
from ecoagent.retrieval.rankers import top_k
from rated.acceptance import paired_difference
from rated.policies import Policy
from rated.simulator import SimulationInputs, simulate_steps, summarize

DEPRECATION_READINGS = ("mark", "fail")
# the events a replay task can stand on: its tool stops executing, or is marked
REPLAY_EVENTS = (*GONE_EVENTS, RESTORED, *DEPRECATION_EVENTS)


@dataclass(frozen=True)
class ToolCalendar:
    """Which catalog tool exists, executes and is deprecated in which month."""

    months: list[str]
    exists: np.ndarray  # (n_months, n_tools) bool
    executes: np.ndarray  # (n_months, n_tools) bool: exists and not gone (nor deprecated, when deprecations fail)
    deprecated: np.ndarray  # (n_months, n_tools) bool: a deprecation event by then
    renamed_to: dict[int, int]  # old row -> new row, when both are catalog rows
    event_tools: list[int]  # rows with an event of REPLAY_EVENTS (a rename's new row too)
    first_month: np.ndarray  # (n_tools,) the month index a tool first exists; -1: never within the calendar
    followed: np.ndarray  # (n_tools,) bool: tools.first_seen is a month (the history follows its package)
    deprecation: str


def _month_index(months: list[str], month: str) -> int:
    return months.index(month) if month in months else (len(months) if month > months[-1] else 0)


def tool_calendar(tool_ids: Sequence[str], first_seen: Sequence[str], events: pl.DataFrame,
                  deprecation: str = "mark") -> ToolCalendar:  # fmt: skip
    """The calendar of a catalog (``tools.tool_id`` and ``tools.first_seen`` in corpus order) from its tool events."""
    if deprecation not in DEPRECATION_READINGS:
        raise ValueError(f"rated.simulation.replay_deprecation: {deprecation!r}; choose one of "
                         f"{', '.join(DEPRECATION_READINGS)}")  # fmt: skip
    known = [m for m in first_seen if m not in (FIRST_SEEN_UNKNOWN, FIRST_SEEN_NOT_SEEN)]
    if not known:
        raise ValueError("the replay needs tools.first_seen months: the release was built without the history")
    last = max([*known, *events["month"].to_list()])
    months = months_between(min(known), last)
    n_months, n_tools = len(months), len(tool_ids)
    row = {tool_id: i for i, tool_id in enumerate(tool_ids)}
    first_month = np.array([-1 if m == FIRST_SEEN_NOT_SEEN else 0 if m == FIRST_SEEN_UNKNOWN
                            else _month_index(months, m) for m in first_seen], dtype=np.int64)  # fmt: skip
    month_of = np.arange(n_months)[:, None]
    exists = (first_month[None, :] >= 0) & (month_of >= first_month[None, :])
    gone = np.zeros((n_months, n_tools), dtype=bool)
    deprecated = np.zeros((n_months, n_tools), dtype=bool)
    renamed_to: dict[int, int] = {}
    event_tools: set[int] = set()
    per_tool: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for tool_id, event, month, new_id in events.sort("month").select("tool_id", "event", "month",
                                                                     "new_tool_id").iter_rows():  # fmt: skip
        if event not in REPLAY_EVENTS:
            continue
        if tool_id in row:
            per_tool[row[tool_id]].append((_month_index(months, month), event))
            event_tools.add(row[tool_id])
        if event == "renamed" and new_id in row:
            event_tools.add(row[new_id])
            if tool_id in row:
                renamed_to[row[tool_id]] = row[new_id]
    for tool, changes in per_tool.items():
        for index, event in changes:  # in month order: each change holds from its month on
            if event in GONE_EVENTS:
                gone[index:, tool] = True
            elif event == RESTORED:
                gone[index:, tool] = False
            else:
                deprecated[index:, tool] = True
    down = gone | deprecated if deprecation == "fail" else gone
    followed = np.array([m not in (FIRST_SEEN_UNKNOWN, FIRST_SEEN_NOT_SEEN) for m in first_seen], dtype=bool)
    return ToolCalendar(months, exists, exists & ~down, exists & deprecated, renamed_to, sorted(event_tools),
                        first_month, followed, deprecation)  # fmt: skip


def release_calendar(release: Release, deprecation: str = "mark") -> ToolCalendar:
    """The calendar of a release: its ``tools.first_seen`` and ``tool-events``; a ValueError naming what is missing."""
    events = tool_events(release)
    if events is None or "first_seen" not in release.tools.columns:
        raise ValueError(f"release {release.version}: no tool-events config or tools.first_seen, so no replay; it was "
                         "built without the catalog history (run `ecoagent history`, then `ecoagent release build`), "
                         "or drop replay from rated.simulation.scenarios")  # fmt: skip
    return tool_calendar(release.corpus.ids, release.tools["first_seen"].to_list(), events, deprecation)


@dataclass(frozen=True)
class ReplayStream:
    """A replay's tasks: one retriever's inputs per month (candidates among the tools existing then)."""

    name: str
    by_month: list[SimulationInputs]
    task_month: np.ndarray  # (n_q,) the month index a task exists from
    calendar: ToolCalendar
    note: str

    @property
    def inputs(self) -> SimulationInputs:
        return self.by_month[-1]


def replay_stream(name: str, query_vectors: np.ndarray, scores: np.ndarray, gold: Sequence[Sequence[int]],
                  task_month: np.ndarray, calendar: ToolCalendar, r_static: np.ndarray, k: int,
                  tool_vectors: np.ndarray | None = None, popularity: np.ndarray | None = None,
                  note: str = "") -> ReplayStream:  # fmt: skip
    """The per-month inputs of a task set: each month's top ``k`` among the tools that exist then, each task's gold
    with the new id of every renamed tool it holds."""
    gold = [sorted({*map(int, g), *(calendar.renamed_to[int(t)] for t in g if int(t) in calendar.renamed_to)})
            for g in gold]  # fmt: skip
    by_month, previous = [], None
    for m in range(len(calendar.months)):
        if previous is not None and np.array_equal(calendar.exists[m], calendar.exists[m - 1]):
            by_month.append(previous)  # the same catalog: the same inputs object (the loop shares its tables)
            continue
        masked = np.where(calendar.exists[m][None, :], scores, -np.inf)
        candidates = top_k(masked, k)
        sem = np.take_along_axis(masked, candidates, axis=1)
        sem = np.where(np.isfinite(sem), sem, -1.0)  # fewer than k tools existed: the rest last, never chosen first
        previous = SimulationInputs(query_vectors, candidates, sem, gold, r_static, tool_vectors=tool_vectors,
                                    popularity=popularity)  # fmt: skip
        by_month.append(previous)
    return ReplayStream(name, by_month, np.asarray(task_month, dtype=np.int64), calendar, note)


def anchored_replay_stream(calendar: ToolCalendar, tool_vectors: np.ndarray, r_static: np.ndarray,
                           template_vectors: np.ndarray, template_gold: Sequence[Sequence[int]], n_queries: int,
                           zipf: float, k: int, seed: int) -> ReplayStream:  # fmt: skip
    """The catalog-anchored replay stream: every tool with an event that exists within the calendar anchors a task,
    and tools of the followed packages without one fill the stream to ``n_queries`` (seeded); each task exists from
    its anchor's first month."""
    from rated.anchored import anchored_stream

    rng = np.random.default_rng(seed)
    with_event = [t for t in calendar.event_tools if calendar.followed[t]]
    others = np.setdiff1d(np.flatnonzero(calendar.followed), with_event)
    fill = rng.permutation(others)[: max(0, n_queries - len(with_event))]
    anchors = rng.permutation(np.concatenate([np.asarray(with_event, dtype=np.int64), fill.astype(np.int64)]))
    tools, templates = np.asarray(tool_vectors, dtype=np.float64), np.asarray(template_vectors, dtype=np.float64)
    built = anchored_stream("replay", anchors, tools, r_static, templates, template_gold, zipf, k, rng)
    inputs = built.inputs
    scores = inputs.query_vectors @ np.asarray(tool_vectors, dtype=np.float32).T
    note = (f"catalog-anchored over the history's events: {len(with_event)} tools with a removed, renamed, restored "
            f"or deprecated event anchor a task each, {len(fill)} tools without one fill the stream to "
            f"{len(anchors)} tasks; each task exists from its anchor's first month")  # fmt: skip
    return replay_stream("catalog-anchored replay", inputs.query_vectors, scores, inputs.gold,
                         calendar.first_month[anchors], calendar, r_static, k, inputs.tool_vectors,
                         inputs.popularity, note)  # fmt: skip


def draw_replay_stream(stream: ReplayStream, steps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(task per step, month index per step)``: the steps spread evenly over the months from the first that has a
    task, each drawn (by the stream's popularity, or uniformly) among the tasks existing by its month."""
    rng = np.random.default_rng(seed)
    n_months = len(stream.calendar.months)
    valid = stream.task_month[stream.task_month >= 0]
    if not len(valid):
        raise ValueError(f"{stream.name}: no task exists within the history's months")
    start = int(valid.min())
    step_month = start + (np.arange(steps) * (n_months - start)) // steps
    weights = stream.inputs.popularity
    weights = np.ones(len(stream.task_month)) if weights is None else weights
    tasks = np.empty(steps, dtype=np.int64)
    for month in np.unique(step_month).tolist():
        at = np.flatnonzero(step_month == month)
        eligible = np.flatnonzero((stream.task_month >= 0) & (stream.task_month <= month))
        p = weights[eligible] / weights[eligible].sum()
        tasks[at] = rng.choice(eligible, size=len(at), p=p)
    return tasks, step_month


def replay_metrics(stream: ReplayStream, tasks: np.ndarray, step_month: np.ndarray, success: np.ndarray,
                   fault: np.ndarray, executed: np.ndarray) -> dict:  # fmt: skip
    """One run's metrics (module docstring), over the steps from the first month a drawn task's tool stops
    executing on."""
    calendar, gold = stream.calendar, stream.inputs.gold
    lost = np.zeros(len(tasks), dtype=bool)  # a tool of the task existed and no longer executes
    usable = np.zeros(len(tasks), dtype=bool)  # some tool of the task executes
    for i, (q, m) in enumerate(zip(tasks.tolist(), step_month.tolist(), strict=True)):
        tools = list(gold[q])
        executes = calendar.executes[m, tools]
        usable[i] = executes.any()
        lost[i] = bool((~executes & (calendar.first_month[tools] >= 0) & (calendar.first_month[tools] <= m)).any())
    hit = np.flatnonzero(lost)
    onset = int(hit[0]) if hit.size else 0
    window = slice(onset, len(tasks))
    ran = executed[window]
    ran_months = step_month[window][ran >= 0]
    replacing = lost & usable
    return {
        "onset_month": calendar.months[int(step_month[onset])],
        "post_fail_sr": float(np.mean(success[window])),
        "fsr": float(np.mean(fault[window])),
        "replacement_recall": float(np.mean(success[replacing])) if replacing.any() else None,
        "replacement_steps": int(replacing.sum()),
        "stranded": float(np.mean(~usable[window])),
        "deprecated_share": float(np.mean(calendar.deprecated[ran_months, ran[ran >= 0]])) if len(ran_months) else 0.0,
        "overall_sr": float(np.mean(success)),
    }


@dataclass(frozen=True)
class ReplayRow:
    """One row of the replay table: a policy factory on the stream's inputs; ``prior`` False: the same policy with
    ``r_static`` constant (its mean), so the catalog prior cannot tell tools apart."""

    name: str
    build: Callable[[SimulationInputs], Policy]
    prior: bool = True


def without_prior(stream: ReplayStream) -> ReplayStream:
    """The stream with every tool's ``r_static`` at the catalog mean (the prior carries no information)."""
    flat = np.full_like(stream.inputs.r_static, float(np.mean(stream.inputs.r_static)))
    cache: dict[int, SimulationInputs] = {}
    by_month = [cache.setdefault(id(i), replace(i, r_static=flat)) for i in stream.by_month]
    return replace(stream, by_month=by_month)


def run_replay(stream: ReplayStream, rows: Sequence[ReplayRow], seeds: Sequence[int], steps: int,
               advance: Callable[[], None] = lambda: None) -> dict:  # fmt: skip
    """Every row on every seed (one drawn stream per seed, shared by the rows): ``{row: {metric: summary}}`` with the
    per-seed values kept for the paired comparisons."""
    flat = without_prior(stream)
    runs: dict[str, list[dict]] = {row.name: [] for row in rows}
    for seed in seeds:
        tasks, step_month = draw_replay_stream(stream, steps, seed)
        for row in rows:
            on = stream if row.prior else flat
            policy = row.build(on.inputs)
            success, fault, executed = simulate_steps(on.by_month, policy, tasks, step_month, on.calendar.executes)
            runs[row.name].append(replay_metrics(on, tasks, step_month, success, fault, executed))
            advance()
    return {name: _aggregate(per_seed) for name, per_seed in runs.items()}


def _aggregate(per_seed: list[dict]) -> dict:
    out: dict = {key: summarize([r[key] for r in per_seed])
                 for key in ("post_fail_sr", "fsr", "replacement_recall", "stranded", "deprecated_share",
                             "overall_sr")}  # fmt: skip
    out["replacement_steps"] = [r["replacement_steps"] for r in per_seed]
    out["onset_month"] = sorted({r["onset_month"] for r in per_seed})
    return out


def prior_effect(with_prior: dict, without: dict, metric: str) -> dict:
    """``with - without`` per seed on ``metric`` (:func:`rated.acceptance.paired_difference`: mean and Student-t 95 %
    interval) and what it says: ``lower`` or ``higher`` when the interval excludes 0, else ``no difference``."""
    out = paired_difference(with_prior, without, metric)
    mean, ci = out["mean"], out["ci95"]
    if mean is None or ci is None or len(out["values"]) < 2 or mean - ci <= 0 <= mean + ci:
        out["finding"] = "no difference"
    else:
        out["finding"] = "lower" if mean < 0 else "higher"
    return out


REAL_SETS = ("workflows", "gold", "package-requests")


def real_task_overlap(release: Release, events: pl.DataFrame, published: dict[tuple[str, str], str] | None = None,
                      sets: Sequence[str] = REAL_SETS) -> tuple[list[list], Counter]:  # fmt: skip
    """How many tasks of each real set require a tool that the history removes, renames (either id) or deprecates
    after the task's month: one row per set (set, tasks, dated, overlapping, by event, tools involved) and the
    overlapping tasks per (set, event month, platform). A workflow's month is its ``created_at``; a package request's
    is its package version's publish month when ``published`` (``{(registry:package, version): YYYY-MM}``) has it;
    otherwise a task has no date and any event counts."""
    gone = events.filter(pl.col("event").is_in([*GONE_EVENTS, *DEPRECATION_EVENTS]))
    by_tool: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for row in gone.iter_rows(named=True):
        by_tool[row["tool_id"]].append((row["month"], row["event"], row["platform"]))
        if row["event"] == "renamed" and row["new_tool_id"]:
            by_tool[row["new_tool_id"]].append((row["month"], "renamed (new id)", row["platform"]))
    rows, cells = [], Counter()
    for name in sets:
        splits = [s for s in release.query_sets if s.split("/")[0] == name]
        if not splits:
            continue
        months = _task_months(release, name, published or {})
        tasks = overlapping = 0
        kinds, tools = Counter(), set()
        for split in splits:
            queries = release.query_sets[split]
            for query_id, relevant in zip(queries.ids, queries.relevant, strict=True):
                tasks += 1
                month = months.get(query_id)
                later = [(tool, e) for tool in (release.corpus.ids[r] for r in relevant) for e in by_tool.get(tool, ())
                         if month is None or e[0] > month]  # fmt: skip
                if not later:
                    continue
                overlapping += 1
                tools |= {tool for tool, _ in later}
                kinds.update({e[1] for _, e in later})
                cells.update({(name, e[0], e[2]) for _, e in later})
        ids = {query_id for split in splits for query_id in release.query_sets[split].ids}
        span = sorted(months[i] for i in ids if months.get(i))
        rows.append([name, tasks, f"{len(span)} ({span[0]} to {span[-1]})" if span else "0 (no date: any event counts)",
                     overlapping, ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "-", len(tools)])
    return rows, cells


REGISTRY = {"mcp": "pypi", "langchain": "pypi", "llamaindex": "pypi", "crewai": "pypi", "n8n": "npm"}


def _task_months(release: Release, name: str, published: dict[tuple[str, str], str]) -> dict[str, str | None]:
    """``{query id: its month}`` over every split of one real set; None where the set carries no date."""
    files = release.layout.get(f"{name}-queries", {})
    rows = pl.concat([pl.read_parquet(release.folder / path) for path in files.values()], how="diagonal_relaxed")
    if name == "workflows" and "created_at" in rows.columns:
        return {r["_id"]: (r["created_at"] or "")[:7] or None for r in rows.iter_rows(named=True)}
    if name == "package-requests" and published:
        return {r["_id"]: published.get((f"{REGISTRY.get(r['platform'], 'pypi')}:{r['package']}", r["version"]))
                for r in rows.iter_rows(named=True)}  # fmt: skip
    return dict.fromkeys(rows["_id"].to_list())
