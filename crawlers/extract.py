"""Reading the fetched packages: each archive (or the community listing's copy of a package) through its platform's
extractor, statically (crawled code is never imported), in ``crawl.workers`` processes.

Every failure becomes a recorded error of its package (:class:`PackageResult`), never a stopped crawl. The extraction
workers exit when the crawl's process dies (:func:`ecoagent.runtime.processes.exit_with_parent`). An extractor's side
tables (:attr:`crawlers.base.Extraction.tables`) become the catalog's once the crawl has de-duplicated its tools
(:func:`side_tables`).
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from crawlers.base import ExtractedTool, Extraction, PackageFiles
from crawlers.community import ListedPackage, listing_files, mark_listing_copy
from crawlers.normalize import to_record, tool_id_of
from ecoagent.config import Config
from ecoagent.packages.archive import ArchiveError, ArchiveLimits, read_archive
from ecoagent.packages.fetch import FetchedPackage, miss_reason
from ecoagent.packages.source import Source
from ecoagent.runtime import context
from ecoagent.runtime.processes import exit_with_parent
from ecoagent.text.redaction import redact, redact_value
from schemas.tool_record import ToolRecord


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
                   mark: Callable[[ExtractedTool], None] | None = None) -> PackageResult:  # fmt: skip
    """The extractor's tools of the package's read members, as records (``mark``: called on every tool first, e.g.
    :func:`crawlers.community.mark_listing_copy`)."""
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
        if mark is not None:
            mark(tool)
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
    (:func:`crawlers.community.listing_files`) at the listing's version; the fetch's reason is kept. What the copy
    cannot show is marked unknown on each tool (:func:`crawlers.community.mark_listing_copy`)."""
    source = source.with_version(listed.version)
    read_from = read_from or ("listing" if fetch_error else "listing_after_archive")
    result = PackageResult(source, read_from=read_from,
                           fetch_miss=miss_reason(fetch_error) if fetch_error else None)  # fmt: skip
    files, skipped = listing_files(listed)
    result.skipped.update(skipped)
    if len(files) == 1:  # package.json only: the listing holds no node's properties (counted in skipped)
        return result
    package = PackageFiles(source.name, source.version, source.registry, files, source.listing)
    return _redacted(_extract_files(result, package, "listing", time.perf_counter(), mark=mark_listing_copy))


def _extract_task(args: tuple) -> PackageResult:
    if args[0] == "listing":
        return extract_listed(*args[1:])
    _kind, source, archive, limits = args
    return extract_package(source, Path(archive), limits)


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
        finished: dict[str, PackageResult] = {}
        for key, res in _extracted(config, tasks):
            finished[key] = res
            extracting.advance()
    results.update((task[1].key, finished[task[1].key]) for task in tasks)  # in the tasks' order, as before
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
            # one task at a time, counted as each ends: in chunks, or in order, the history's 20 versions of
            # n8n-nodes-base (the biggest, first) left the count at 0 for minutes
            futures = {pool.submit(_extract_task, task): task[1].key for task in tasks}
            for future in as_completed(futures):
                yield futures[future], future.result()
    else:
        for task in tasks:
            yield task[1].key, _extract_task(task)


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
