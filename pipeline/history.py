"""The history step: the catalog month by month (the RATED paper's Figure 1), and every tool's first month.

    ecoagent history [--since 2025-02] [--until YYYY-MM] [--out ROOT] [--fresh]

For each month from ``--since`` to ``--until`` (default: the newest complete month), the catalog as it stood then:
every package of the source list (``crawl.sources``, ``crawl.platforms``: whatever it pins, whichever listing) at
the newest version published by the end of that month (publish times from the registries' own clients,
:mod:`ecoagent.packages.publish_times`), crawled and scored as the refresh crawls and scores today's catalog:

- archives come through the crawl's package cache, keyed by ``name@version``: each version is fetched once, ever;
- each version is read once per run (:func:`crawlers.crawl.extract_all`), however many months hold it, and a month
  whose versions are the ones its folder already holds is neither crawled nor scored again (a warm run reads it);
- a month's records are de-duplicated (:func:`crawlers.normalize.deduplicate`), written as that month's crawl folder
  and scored by the score stage itself (:func:`scoring.score.score`): the same reliability, with the z-scores of
  ``r_qual`` taken over that month's catalog.

It is a step of its own (this command, and the ``ecoagent_history`` DAG), run when a maintainer wants the curve, not
on every refresh. Outputs in ``<root>/history/`` (``ecoagent.layout.HISTORY_FILES``, replaced as a whole), each
month's folders in ``<root>/history_months/<YYYY-MM>/``:

- ``figure1.json`` / ``figure1.md``: per month, total and reliable tools, per platform and per listing, the
  packages present; the paper's numbers beside them;
- ``figure1.png``: total and reliable tools per month, with the paper's point (January 2026: 5,172 and 2,940);
- ``first_seen.parquet``: ``tool_id``, ``first_seen``: the first month whose catalog holds the tool (the release's
  first-seen cold start and tool-disjoint view read it);
- ``publish_times.json``: the versions each month took and when each was published;
- ``history_summary.json``: versions fetched and read, months reused, seconds per phase.
"""

from __future__ import annotations

import hashlib
import io
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import polars as pl

from ecoagent.config import Config
from ecoagent.layout import CRAWL_FILES, HISTORY_FILES, SCORE_FILES, RunLayout
from ecoagent.packages.source import Source
from ecoagent.runtime import context
from ecoagent.store import ArtifactStore, StageFolder
from ecoagent.text.markdown import markdown_table

FIRST_MONTH = "2025-02"  # the paper's Figure 1 starts in February 2025 and ends in January 2026
PAPER = {"month": "2026-01", "tools": 5172, "reliable": 2940, "reliable_share": 0.568}


@dataclass
class MonthCatalog:
    month: str
    sources: list[Source]  # the pinned packages at the newest version published by the month's end

    @property
    def key(self) -> str:
        """What the month's catalog is made of: its package versions (a folder holding the same is reused)."""
        return hashlib.sha256("\n".join(sorted(s.key for s in self.sources)).encode()).hexdigest()[:16]


def month_range(since: str, until: str | None, now: datetime | None = None) -> list[str]:
    """``YYYY-MM`` from ``since`` to ``until`` (default: the newest complete month before ``now``)."""
    now = now or datetime.now(UTC)
    last = until or (f"{now.year}-{now.month - 1:02d}" if now.month > 1 else f"{now.year - 1}-12")
    year, month = map(int, since.split("-"))
    out = []
    while f"{year}-{month:02d}" <= last:
        out.append(f"{year}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    if not out:
        raise ValueError(f"no month from {since} to {last} (options --since / --until, YYYY-MM)")
    return out


def month_end(month: str) -> datetime:
    """The first instant after ``month`` (UTC): a version published before it was there by the month's end."""
    year, mon = map(int, month.split("-"))
    return datetime(year + (mon == 12), 1 if mon == 12 else mon + 1, 1, tzinfo=UTC)


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


def history(config: Config, since: str = FIRST_MONTH, until: str | None = None, out: str | None = None,
            fresh: bool = False) -> HistoryResult:  # fmt: skip
    """Run the history step (see the module docstring) on the configured source list."""
    from crawlers.sources import load_sources
    from ecoagent.packages.publish_times import publish_times

    started, seconds = time.perf_counter(), {}
    layout = RunLayout.of(config, out)
    cfg = config.crawl
    sources = load_sources(config.resolve_path(cfg.sources), cfg.platforms)
    months = month_range(since, until)
    tick = time.perf_counter()
    times = publish_times(sources, cfg.pip_extra_args, cfg.fetch_timeout_s)
    seconds["publish_times"] = time.perf_counter() - tick
    catalogs = month_catalogs(sources, times, months)
    todo = [c for c in catalogs if c.sources and (fresh or not _month_is_current(layout, c))]
    read = _read_versions(config, todo, seconds)
    tick = time.perf_counter()
    rows = []
    with context.phase("months (crawled and scored, or reused)", len(catalogs)) as doing:
        for catalog in catalogs:
            if catalog in todo:
                _crawl_and_score_month(config, layout, catalog, read)
            rows.append(_month_row(layout, catalog))
            doing.advance()
    seconds["months"] = time.perf_counter() - tick
    table = {"months": rows, "paper": PAPER, "since": months[0], "until": months[-1]}
    summary = _summary(catalogs, todo, read, times, seconds, started)
    _write(layout, table, summary, catalogs, times)
    return HistoryResult(layout.history, summary, table, history_lines(table, summary, layout.history))


@dataclass
class VersionsRead:
    results: dict  # source key -> crawlers.crawl.PackageResult
    fetched: int
    cache_hits: int


def _read_versions(config: Config, todo: list[MonthCatalog], seconds: dict) -> VersionsRead:
    """Every distinct version the months to do hold: fetched through the package cache, then read once."""
    from crawlers.crawl import crawl_fetcher, extract_all

    distinct = sorted({s.key: s for c in todo for s in c.sources}.values(), key=lambda s: s.key)
    fetcher = crawl_fetcher(config)
    tick = time.perf_counter()
    fetched = fetcher.fetch_all(distinct, phase="fetch packages")
    seconds["fetch"] = time.perf_counter() - tick
    tick = time.perf_counter()
    results = extract_all(config, fetched, len(distinct))
    seconds["extract"] = time.perf_counter() - tick
    return VersionsRead(results, len(fetched), sum(p.cached for p in fetched))


def _month_is_current(layout: RunLayout, catalog: MonthCatalog) -> bool:
    """The month's folders hold a scored catalog of exactly these versions (written by an earlier run)."""
    crawl, score = ArtifactStore(layout.history_month(catalog.month, "crawl")), ArtifactStore(
        layout.history_month(catalog.month, "score"))  # fmt: skip
    if not (crawl.exists(CRAWL_FILES.summary) and score.exists(SCORE_FILES.tools)):
        return False
    return crawl.read_json(CRAWL_FILES.summary).get("history_key") == catalog.key


def _crawl_and_score_month(config: Config, layout: RunLayout, catalog: MonthCatalog, read: VersionsRead) -> None:
    """The month's crawl folder (its versions' records, de-duplicated) and its score folder (the score stage)."""
    from crawlers.normalize import deduplicate
    from crawlers.sources import dump_sources
    from schemas.tool_record import records_to_frame
    from scoring.score import score

    results = [read.results[s.key] for s in catalog.sources]
    dedup = deduplicate([rec for r in results for rec in r.records])
    summary = {
        "stage": "crawl",
        "history_month": catalog.month,
        "history_key": catalog.key,
        "tools": len(dedup.records),
        "packages": {"total": len(results), "failed": sum(r.fatal for r in results)},
        "package_errors": [{"package": r.source.key, "reason": reason} for r in results for _, reason in r.errors],
        "drops_by_reason": dict(sorted(dedup.drops.items())),
        "near_duplicates": dedup.near_duplicates,
    }
    crawl_folder = layout.history_month(catalog.month, "crawl")
    with StageFolder(crawl_folder, CRAWL_FILES.names()).replace() as store:
        store.write_parquet(records_to_frame(dedup.records), CRAWL_FILES.tools)
        store.write_text(dump_sources(catalog.sources), CRAWL_FILES.resolved_sources)
        store.write_json(summary, CRAWL_FILES.summary)
    score(config, in_dir=crawl_folder, out=layout.history_month(catalog.month, "score"))


def _counts(frame: pl.DataFrame, column: str) -> dict:
    """``{value of column: {"tools", "reliable"}}``."""
    return {
        value: {"tools": int((frame[column] == value).sum()),
                "reliable": int(frame.filter(pl.col(column) == value)["reliable"].sum())}
        for value in sorted(frame[column].unique())
    }  # fmt: skip


def _month_scores(layout: RunLayout, catalog: MonthCatalog) -> pl.DataFrame:
    """The month's scored catalog (tool_id, platform, listing, reliable); empty before any package was published."""
    if not catalog.sources:
        return pl.DataFrame(schema={"tool_id": pl.String, "platform": pl.String, "listing": pl.String,
                                    "reliable": pl.Boolean})  # fmt: skip
    scored = ArtifactStore(layout.history_month(catalog.month, "score")).read_parquet(SCORE_FILES.tools)
    return scored.select("tool_id", "platform", "listing", "reliable")


def _month_row(layout: RunLayout, catalog: MonthCatalog) -> dict:
    scored = _month_scores(layout, catalog)
    return {
        "month": catalog.month,
        "packages": len(catalog.sources),
        "tools": len(scored),
        "reliable": int(scored["reliable"].sum()),
        "reliable_share": round(float(scored["reliable"].mean()), 4) if len(scored) else 0.0,
        "per_platform": _counts(scored, "platform"),
        "per_listing": _counts(scored, "listing"),
    }


def first_seen(layout: RunLayout, catalogs: list[MonthCatalog]) -> pl.DataFrame:
    """``tool_id``, ``first_seen``: the first month whose scored catalog holds the tool."""
    seen: dict[str, str] = {}
    for catalog in catalogs:
        for tool_id in _month_scores(layout, catalog)["tool_id"].to_list():
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


def _write(layout: RunLayout, table: dict, summary: dict, catalogs: list[MonthCatalog], times: dict) -> None:
    versions = {
        c.month: {f"{s.registry}:{s.name}": [s.version, times[f"{s.registry}:{s.name}"][s.version].isoformat()]
                  for s in c.sources}
        for c in catalogs
    }  # fmt: skip
    with StageFolder(layout.history, HISTORY_FILES.names()).replace() as store:
        store.write_json(table, HISTORY_FILES.table)
        store.write_text("\n".join(figure_markdown(table)) + "\n", HISTORY_FILES.markdown)
        store.write_bytes(figure_png(table), HISTORY_FILES.plot)
        store.write_parquet(first_seen(layout, catalogs), HISTORY_FILES.first_seen)
        store.write_json(versions, HISTORY_FILES.publish_times)
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
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})  # no version or date: the same bytes per rerun
    plt.close(fig)
    return buf.getvalue()


def history_lines(table: dict, summary: dict, out: str) -> list[str]:
    """What the step says about itself: the monthly table, what was fetched and read, the time per phase."""
    secs = summary["seconds"]
    return [
        f"history: {table['since']} to {table['until']}, {summary['months']} months "
        f"({len(summary['months_crawled'])} crawled and scored, {len(summary['months_reused'])} reused)",
        *figure_markdown(table),
        f"versions: {summary['versions']} in all, {summary['versions_read']} read, {summary['versions_fetched']} "
        f"fetched, {summary['versions_from_cache']} from the package cache, {len(summary['versions_failed'])} failed",
        "seconds: " + ", ".join(f"{k} {v}" for k, v in secs.items()),
        f"outputs: {out}",
    ]
