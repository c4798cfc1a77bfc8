"""The history step: the catalog month by month (the RATED paper's Figure 1), and every tool's first month.

    ecoagent history [--since YYYY-MM] [--until YYYY-MM] [--fresh] [--out FOLDER]

For each month from ``history.since`` to ``history.until`` (default: the newest complete month), the catalog as it
stood then: every package the crawl stage pins (``crawl.sources``, ``crawl.platforms``: whatever it pins, whichever
listing) at the newest version published by the end of that month (publish times from the registries' own clients,
:mod:`ecoagent.packages.publish_times`), crawled and scored by the refresh's own stages
(:class:`history.stage.HistoryStage` is handed them):

- archives come through the crawl's package cache, keyed by ``name@version``: each version is fetched once, ever;
- each version is read once per run (:meth:`ecoagent.stage.Recrawlable.read_versions`), however many months hold
  it, and a month whose versions are the ones its folder already holds is neither crawled nor scored again (a warm
  run reads it);
- a month's records are de-duplicated and written as that month's crawl folder
  (:meth:`~ecoagent.stage.Recrawlable.write_versions`) and scored by the score stage itself: the same reliability,
  with the z-scores of ``r_qual`` taken over that month's catalog.

It is a step of its own (``ecoagent history``, and the ``ecoagent_history`` DAG), run when a maintainer wants the
curve, not on every refresh; the release build reads its folder when there is one (an optional input). Outputs in
the step's folder (``<root>/history/``: ``ecoagent.layout.HISTORY_FILES``, replaced as a whole), each month's
folders beside it in ``<root>/history_months/<YYYY-MM>/<stage>/``:

- ``figure1.json`` / ``figure1.md``: per month, total and reliable tools, per platform and per listing, the
  packages present; the paper's numbers beside them;
- ``figure1.png``: total and reliable tools per month, with the paper's point (January 2026: 5,172 and 2,940);
- ``first_seen.parquet``: ``tool_id``, ``first_seen``: the first month whose catalog holds the tool (the release's
  first-seen cold start and tool-disjoint view read it);
- ``tool_events.parquet``: what happened to each tool from month to month (removed, renamed, restored, deprecated,
  package_deprecated, description_changed), with the month and the evidence (:mod:`history.events`); the release's
  ``tool-events`` config and ``tools.status`` read it;
- ``publish_times.json``: the versions each month took and when each was published;
- ``history_summary.json``: versions fetched and read, months reused, seconds per phase.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import polars as pl

from ecoagent.figures import png_bytes
from ecoagent.layout import CRAWL_FILES, HISTORY_FILES, SCORE_FILES
from ecoagent.packages.source import Source
from ecoagent.runtime import context
from ecoagent.store import ArtifactStore, StageFolder
from ecoagent.text.markdown import markdown_table
from history.events import TOOL_COLUMNS, MonthTools, tool_events
from history.months import MONTHS_FOLDER, month_end, month_range

if TYPE_CHECKING:
    from ecoagent.runtime.context import StepContext
    from ecoagent.stage import Recrawlable, Stage, VersionsRead

PAPER = {"month": "2026-01", "tools": 5172, "reliable": 2940, "reliable_share": 0.568}


@dataclass
class MonthCatalog:
    month: str
    sources: list[Source]  # the pinned packages at the newest version published by the month's end

    @property
    def key(self) -> str:
        """What the month's catalog is made of: its package versions (a folder holding the same is reused)."""
        return hashlib.sha256("\n".join(sorted(s.key for s in self.sources)).encode()).hexdigest()[:16]


def month_catalogs(sources: list[Source], times: dict[str, dict[str, datetime]],
                   months: list[str]) -> list[MonthCatalog]:  # fmt: skip
    """Each month's packages, each at the newest version published by the month's end (absent before its first)."""
    from ecoagent.packages.publish_times import newest_by

    out = []
    for month in months:
        end = month_end(month)
        present = []
        for source in sources:
            version = newest_by(times.get(f"{source.registry}:{source.name}", {}), end)
            if version:
                present.append(source.with_version(version))
        out.append(MonthCatalog(month, present))
    return out


@dataclass
class HistoryResult:
    out: str
    summary: dict
    table: dict
    lines: list[str]


@dataclass
class MonthFolders:
    """Where each month's catalog lives: ``<root>/history_months/<YYYY-MM>/<stage name>/``."""

    root: str
    crawl: Stage
    score: Stage

    @classmethod
    def beside(cls, out: str, crawl: Stage, score: Stage) -> MonthFolders:
        return cls(f"{out.rstrip('/').rsplit('/', 1)[0]}/{MONTHS_FOLDER}", crawl, score)

    def of(self, month: str, stage: Stage) -> str:
        return f"{self.root}/{month}/{stage.name}"


def history(ctx: StepContext, crawl: Recrawlable, score: Stage) -> HistoryResult:
    """Run the history step (see the module docstring) into ``ctx.out``, on the crawl stage's source list."""
    from ecoagent.packages.publish_times import publish_times

    config, cfg = ctx.config, ctx.config.history
    started, seconds = time.perf_counter(), {}
    folders = MonthFolders.beside(ctx.out, crawl, score)  # type: ignore[arg-type]  # the crawl stage is a Stage
    sources = crawl.pinned(config)
    months = month_range(cfg.since, cfg.until)
    tick = time.perf_counter()
    times = publish_times(sources, config.crawl.pip_extra_args, config.crawl.fetch_timeout_s)
    seconds["publish_times"] = time.perf_counter() - tick
    catalogs = month_catalogs(sources, times, months)
    todo = [c for c in catalogs if c.sources and (cfg.fresh or not _month_is_current(folders, c))]
    tick = time.perf_counter()
    read = crawl.read_versions(config, sorted({s.key: s for c in todo for s in c.sources}.values(),
                                              key=lambda s: s.key))  # fmt: skip
    seconds["read"] = time.perf_counter() - tick
    tick = time.perf_counter()
    rows = []
    with context.phase("months (crawled and scored, or reused)", len(catalogs)) as doing:
        for catalog in catalogs:
            if catalog in todo:
                _crawl_and_score_month(ctx, crawl, score, folders, catalog, read)
            rows.append(_month_row(folders, catalog))
            doing.advance()
    seconds["months"] = time.perf_counter() - tick
    table = {"months": rows, "paper": PAPER, "since": months[0], "until": months[-1]}
    events, events_summary = tool_events([month_tools(folders, c) for c in catalogs])
    versions = _versions(catalogs, times)
    tick = time.perf_counter()
    failure, failure_plot = _failure_prediction(ctx, folders, versions, events, score)
    seconds["failure_prediction"] = time.perf_counter() - tick
    summary = {**_summary(catalogs, todo, read, times, seconds, started), "tool_events": events_summary,
               "failure_prediction": {k: failure.get(k) for k in ("finding", "skipped", "rows", "failures")}}
    _write(ctx.out, folders, table, summary, catalogs, versions, events, (failure, failure_plot))
    return HistoryResult(ctx.out, summary, table, history_lines(table, summary, ctx.out))


def _month_is_current(folders: MonthFolders, catalog: MonthCatalog) -> bool:
    """The month's folders hold a scored catalog of exactly these versions (written by an earlier run)."""
    crawl = ArtifactStore(folders.of(catalog.month, folders.crawl))
    score = ArtifactStore(folders.of(catalog.month, folders.score))
    if not (crawl.exists(CRAWL_FILES.summary) and score.exists(SCORE_FILES.tools)):
        return False
    return crawl.read_json(CRAWL_FILES.summary).get("history_key") == catalog.key


def _crawl_and_score_month(ctx: StepContext, crawl: Recrawlable, score: Stage, folders: MonthFolders,
                           catalog: MonthCatalog, read: VersionsRead) -> None:  # fmt: skip
    """The month's crawl folder (its versions' records, de-duplicated) and its score folder (the score stage)."""
    crawled = folders.of(catalog.month, folders.crawl)
    crawl.write_versions(ctx.config, catalog.sources, read, crawled,
                         {"history_month": catalog.month, "history_key": catalog.key})  # fmt: skip
    score.run(ctx.with_folders({folders.crawl.name: crawled}, folders.of(catalog.month, score)))


def _counts(frame: pl.DataFrame, column: str) -> dict:
    """``{value of column: {"tools", "reliable"}}``."""
    return {
        value: {"tools": int((frame[column] == value).sum()),
                "reliable": int(frame.filter(pl.col(column) == value)["reliable"].sum())}
        for value in sorted(frame[column].unique())
    }  # fmt: skip


def _month_scores(folders: MonthFolders, catalog: MonthCatalog) -> pl.DataFrame:
    """The month's scored catalog (tool_id, platform, listing, reliable); empty before any package was published."""
    if not catalog.sources:
        return pl.DataFrame(schema={"tool_id": pl.String, "platform": pl.String, "listing": pl.String,
                                    "reliable": pl.Boolean})  # fmt: skip
    scored = ArtifactStore(folders.of(catalog.month, folders.score)).read_parquet(SCORE_FILES.tools)
    return scored.select("tool_id", "platform", "listing", "reliable")


def month_tools(folders: MonthFolders, catalog: MonthCatalog) -> MonthTools:
    """The month as the tool events read it: its scored tools, the version of each package it took, and the
    packages its crawl recorded an error for (their tools' absence is no event)."""
    versions = {(s.platform, s.name): s.version for s in catalog.sources}
    if not catalog.sources:
        return MonthTools(catalog.month, {}, versions)
    scored = ArtifactStore(folders.of(catalog.month, folders.score)).read_parquet(SCORE_FILES.tools)
    crawled = ArtifactStore(folders.of(catalog.month, folders.crawl)).read_json(CRAWL_FILES.summary)
    by_key = {s.key: (s.platform, s.name) for s in catalog.sources}
    unread = {by_key[e["package"]] for e in crawled.get("package_errors", []) if e.get("package") in by_key}
    rows = scored.select(TOOL_COLUMNS).iter_rows(named=True)
    return MonthTools(catalog.month, {row["tool_id"]: row for row in rows}, versions, unread)


def _month_row(folders: MonthFolders, catalog: MonthCatalog) -> dict:
    scored = _month_scores(folders, catalog)
    return {
        "month": catalog.month,
        "packages": len(catalog.sources),
        "tools": len(scored),
        "reliable": int(scored["reliable"].sum()),
        "reliable_share": round(float(scored["reliable"].mean()), 4) if len(scored) else 0.0,
        "per_platform": _counts(scored, "platform"),
        "per_listing": _counts(scored, "listing"),
    }


def first_seen(folders: MonthFolders, catalogs: list[MonthCatalog]) -> pl.DataFrame:
    """``tool_id``, ``first_seen``: the first month whose scored catalog holds the tool."""
    seen: dict[str, str] = {}
    for catalog in catalogs:
        for tool_id in _month_scores(folders, catalog)["tool_id"].to_list():
            seen.setdefault(tool_id, catalog.month)
    return pl.DataFrame({"tool_id": list(seen), "first_seen": list(seen.values())},
                        schema={"tool_id": pl.String, "first_seen": pl.String}).sort("tool_id")  # fmt: skip


def _summary(catalogs: list[MonthCatalog], todo: list[MonthCatalog], read: VersionsRead, times: dict,
             seconds: dict, started: float) -> dict:  # fmt: skip
    return {
        "months": len(catalogs),
        "months_crawled": [c.month for c in todo],
        "months_reused": [c.month for c in catalogs if c not in todo],
        "packages_with_publish_times": sum(bool(t) for t in times.values()),
        "packages_without_publish_times": sorted(k for k, t in times.items() if not t),
        "versions": len({s.key for c in catalogs for s in c.sources}),
        "versions_read": read.fetched,
        "versions_fetched": read.fetched - read.cache_hits,
        "versions_from_cache": read.cache_hits,
        "versions_failed": sorted(k for k, r in read.results.items() if r.fatal),
        "seconds": {k: round(v, 2) for k, v in {**seconds, "total": time.perf_counter() - started}.items()},
    }


def _versions(catalogs: list[MonthCatalog], times: dict) -> dict:
    """``{month: {"registry:name": [version, iso publish time]}}``: the versions each month took."""
    return {
        c.month: {f"{s.registry}:{s.name}": [s.version, times[f"{s.registry}:{s.name}"][s.version].isoformat()]
                  for s in c.sources}
        for c in catalogs
    }  # fmt: skip


def _failure_prediction(ctx: StepContext, folders: MonthFolders, versions: dict, events: pl.DataFrame,
                        score: Stage) -> tuple[dict, bytes | None]:  # fmt: skip
    """Does r_static predict failure (:mod:`history.failure`), on the months just written and these events."""
    from history.failure import SIGNALS, failure_prediction, history_of_months

    cfg = ctx.config.history
    try:
        months = history_of_months(folders.root, versions, events, score.name)
    except FileNotFoundError as exc:
        return {"months_ahead": cfg.failure_months_ahead, "skipped": str(exc)}, None
    report, plot = failure_prediction(months, cfg.failure_months_ahead, cfg.failure_resamples, ctx.config.seed)
    context.say(f"failure prediction ({len(SIGNALS)} signals): {report.get('finding') or report.get('skipped')}")
    return report, plot


def _write(out: str, folders: MonthFolders, table: dict, summary: dict, catalogs: list[MonthCatalog],
           versions: dict, events: pl.DataFrame, failure: tuple[dict, bytes | None]) -> None:  # fmt: skip
    with StageFolder(out, HISTORY_FILES.names()).replace() as store:
        store.write_json(table, HISTORY_FILES.table)
        store.write_text("\n".join(figure_markdown(table)) + "\n", HISTORY_FILES.markdown)
        store.write_bytes(figure_png(table), HISTORY_FILES.plot)
        store.write_parquet(first_seen(folders, catalogs), HISTORY_FILES.first_seen)
        store.write_parquet(events, HISTORY_FILES.tool_events)
        store.write_json(versions, HISTORY_FILES.publish_times)
        store.write_json(failure[0], HISTORY_FILES.failure)
        if failure[1] is not None:
            store.write_bytes(failure[1], HISTORY_FILES.failure_plot)
        store.write_json(summary, HISTORY_FILES.summary)


def figure_rows(table: dict) -> tuple[list[str], list[list]]:
    """The monthly table's header and rows: total, reliable, share, then per platform and listing tools / reliable."""
    platforms = sorted({p for row in table["months"] for p in row["per_platform"]})
    listings = sorted({li for row in table["months"] for li in row["per_listing"]})

    def cell(counts: dict, key: str) -> str:
        value = counts.get(key)
        return f"{value['tools']} / {value['reliable']}" if value else "-"

    header = ["month", "packages", "tools", "reliable", "share", *platforms, *(f"`{li}`" for li in listings)]
    rows = [[row["month"], row["packages"], row["tools"], row["reliable"], f"{row['reliable_share']:.1%}",
             *(cell(row["per_platform"], p) for p in platforms), *(cell(row["per_listing"], li) for li in listings)]
            for row in table["months"]]  # fmt: skip
    return header, rows


def figure_markdown(table: dict) -> list[str]:
    """The monthly table (total, reliable, share, per platform and listing), the paper's point below it."""
    paper = table["paper"]
    return [
        *markdown_table(*figure_rows(table)),
        "",
        f"Per platform and per listing: tools / reliable. The paper's Figure 1 ends in {paper['month']} with "
        f"{paper['tools']:,} tools, {paper['reliable']:,} of them reliable ({paper['reliable_share']:.1%}).",
    ]


def figure_png(table: dict) -> bytes:
    """Total and reliable tools per month (the paper's Figure 1, left panel), the paper's point beside them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    months = [row["month"] for row in table["months"]]
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=110)
    ax.plot(months, [row["tools"] for row in table["months"]], marker="o", color="tab:blue", label="total tools")
    ax.plot(months, [row["reliable"] for row in table["months"]], marker="o", color="tab:orange",
            label="reliable tools (r_static >= 0.8)")  # fmt: skip
    paper = table["paper"]
    if paper["month"] in months:
        ax.scatter([paper["month"]] * 2, [paper["tools"], paper["reliable"]], marker="*", s=160, color="black",
                   zorder=3, label=f"the paper, {paper['month']}")  # fmt: skip
    ax.set_ylabel("tools")
    ax.set_title("The catalog month by month (RATED Figure 1, left)")
    ax.tick_params(axis="x", rotation=60)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    return png_bytes(fig)


def events_line(events: dict) -> str:
    """The tool events in one line: how many of each kind, and the absences that were not counted as one."""
    kinds = ", ".join(f"{kind} {n}" for kind, n in (events.get("by_event") or {}).items())
    skipped = ", ".join(f"{why} {n}" for why, n in (events.get("absences_not_counted") or {}).items()) or "none"
    return f"tool events: {events.get('events', 0)} ({kinds}); absences not counted as events: {skipped}"


def history_lines(table: dict, summary: dict, out: str) -> list[str]:
    """What the step says about itself: the monthly table, what was fetched and read, the time per phase."""
    secs = summary["seconds"]
    return [
        f"history: {table['since']} to {table['until']}, {summary['months']} months "
        f"({len(summary['months_crawled'])} crawled and scored, {len(summary['months_reused'])} reused)",
        *figure_markdown(table),
        f"versions: {summary['versions']} in all, {summary['versions_read']} read, {summary['versions_fetched']} "
        f"fetched, {summary['versions_from_cache']} from the package cache, {len(summary['versions_failed'])} failed",
        events_line(summary.get("tool_events") or {}),
        "seconds: " + ", ".join(f"{k} {v}" for k, v in secs.items()),
        f"outputs: {out}",
    ]
