"""What ``crawl_summary.json`` counts, built one way whether a crawl read its packages or a merge adds up its shards.

What the packages add up to before the catalog's de-duplication (:class:`PackageCounts`: counted from a crawl's
package results, or added up from the summaries of crawls of disjoint source subsets, the DAG's per-platform shards)
and the de-duplicated catalog make the summary (:func:`crawl_summary`): tools and field coverage per platform and per
listing, drops and skips by reason, the counting rules, near-duplicates, package errors and the package cache. The
caller adds its own sections (timings, the community listing, the LiveMCPBench cross-check, the side tables);
:mod:`crawlers.summary` says the summary in lines.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from crawlers.extract import PackageResult, extractor
from crawlers.normalize import DedupResult
from ecoagent.config import Config
from ecoagent.packages.fetch import FetchedPackage
from ecoagent.packages.source import Source
from schemas.tool_record import UNKNOWN_FIELDS, ToolRecord
from schemas.unknown_fields import unknown_field_counts

# a listing's counts by reason, added up across shards
REASON_COUNTS = ("not_counted_by_reason", "read_from", "fetch_missed_by_reason", "no_tools_by_reason")


@dataclass
class PackageCounts:
    """What a crawl's packages add up to, before the catalog's de-duplication."""

    profile: str
    packages_by_platform: dict[str, int]  # packages pinned per platform, in the summary's order of platforms
    counting_rules: dict[str, str]
    drops: Counter  # records dropped, by reason (a shard's: its extraction's and its own de-duplication's)
    skipped: Counter  # what an extractor did not count as a tool, by "platform:reason"
    package_errors: list[dict]
    packages: int
    failed: int  # packages nothing could be read from
    listings: dict[str, dict]  # per listing: packages, packages_read and the REASON_COUNTS (Counters)
    cache: dict[str, int]  # package cache hits and misses

    @classmethod
    def of_crawl(cls, config: Config, sources: list[Source], ordered: list[PackageResult],
                 fetched: list[FetchedPackage], records: list[ToolRecord]) -> PackageCounts:  # fmt: skip
        """A crawl's, from its package results (``records``: the catalog, which tells a package without tools)."""
        platforms = config.crawl.platforms
        skipped = Counter()
        for r in ordered:
            skipped.update({f"{r.source.platform}:{k}": v for k, v in r.skipped.items()})
        errors = [
            {"package": r.source.key, "platform": r.source.platform, "where": where, "reason": reason, "fatal": r.fatal}
            for r in ordered
            for where, reason in r.errors
        ]
        return cls(
            profile=config.profile,
            packages_by_platform={p: sum(1 for s in sources if s.platform == p) for p in platforms},
            counting_rules={p: getattr(extractor(p), "COUNTING_RULE", "") for p in platforms},
            drops=Counter(d["reason"].split(":")[0] for r in ordered for d in r.drops),
            skipped=skipped,
            package_errors=errors,
            packages=len(sources),
            failed=sum(1 for r in ordered if r.fatal),
            listings=_listing_counts(ordered, records),
            cache={"hits": sum(p.cached for p in fetched), "misses": sum(not p.cached for p in fetched)},
        )

    @classmethod
    def of_shards(cls, summaries: list[dict]) -> PackageCounts:
        """The shards' counts added up, from their summaries (crawls of disjoint source subsets)."""
        counts = cls(profile=summaries[0]["profile"], packages_by_platform={}, counting_rules={}, drops=Counter(),
                     skipped=Counter(), package_errors=[], packages=0, failed=0, listings={},
                     cache={"hits": 0, "misses": 0})  # fmt: skip
        for summary in summaries:
            for platform, row in summary["per_platform"].items():
                counts.packages_by_platform[platform] = counts.packages_by_platform.get(platform, 0) + row["packages"]
            counts.counting_rules.update(summary["counting_rules"])
            counts.drops.update(summary["drops_by_reason"])
            counts.skipped.update(summary["skipped_by_reason"])
            counts.package_errors += summary["package_errors"]
            counts.packages += summary["packages"]["total"]
            counts.failed += summary["packages"]["failed"]
            for listing, row in summary.get("per_listing", {}).items():
                into = counts.listings.setdefault(listing, {"packages": 0, "packages_read": 0,
                                                            **{k: Counter() for k in REASON_COUNTS}})  # fmt: skip
                into["packages"] += row["packages"]
                into["packages_read"] += row["packages_read"]
                for key in REASON_COUNTS:
                    into[key].update(row.get(key, {}))
            for key in counts.cache:
                counts.cache[key] += summary["cache"][key]
        counts.packages_by_platform = dict(sorted(counts.packages_by_platform.items()))
        return counts


def crawl_summary(counts: PackageCounts, dedup: DedupResult) -> dict:
    """The crawl summary of these packages and their de-duplicated catalog (the caller adds timings and its own
    sections)."""
    records = dedup.records
    drops = counts.drops + dedup.drops
    per_platform = {
        platform: _platform_row(packages, [r for r in records if r.platform == platform])
        for platform, packages in counts.packages_by_platform.items()
    }
    return {
        "profile": counts.profile,
        "status": "partial" if counts.package_errors else "complete",
        "tools": len(records),
        "per_platform": per_platform,
        "per_listing": _per_listing(counts.listings, records),
        "coverage": _coverage(records),
        "drops_by_reason": dict(sorted(drops.items())),
        "skipped_by_reason": dict(sorted(counts.skipped.items())),
        "counting_rules": counts.counting_rules,
        "near_duplicates": dedup.near_duplicates,
        "packages": {
            "total": counts.packages,
            "failed": counts.failed,
            "with_errors": len({e["package"] for e in counts.package_errors}),
        },
        "package_errors": counts.package_errors,
        "cache": counts.cache,
    }


def _platform_row(packages: int, records: list[ToolRecord]) -> dict:
    return {
        "tools": len(records),
        "packages": packages,
        "packages_with_tools": len({r.package for r in records}),
        "coverage": _coverage(records),
    }


def _per_listing(listings: dict[str, dict], records: list[ToolRecord]) -> dict:
    """Per listing: packages pinned, read (not failed) and with tools, tools kept, and what was not counted, by
    reason (an extractor's skips and the records dropped); the tools counted in the de-duplicated catalog."""
    out: dict[str, dict] = {}
    for listing, counts in sorted(listings.items()):
        tools = [rec for rec in records if rec.listing == listing]
        out[listing] = {
            "packages": counts["packages"],
            "packages_read": counts["packages_read"],
            "packages_with_tools": len({rec.package for rec in tools}),
            "tools": len(tools),
            # the fields a reduced copy could not show: unknown, not absent (schemas/unknown_fields.py)
            "unknown_fields": unknown_field_counts(rec.unknown_fields for rec in tools),
            **{key: dict(sorted(counts[key].items())) for key in REASON_COUNTS},
        }
    return out


def _listing_counts(ordered: list[PackageResult], records: list[ToolRecord]) -> dict[str, dict]:
    """Per listing, the packages, those read, and the REASON_COUNTS: where the read packages' descriptions came from
    (the registry archive or the listing's copy), why a fetch missed, why a package has no tool in ``records``."""
    out: dict[str, dict] = {}
    for listing in sorted({r.source.listing for r in ordered}):
        results = [r for r in ordered if r.source.listing == listing]
        reasons = Counter()
        for r in results:
            reasons.update({f"{r.source.platform}:{k}": v for k, v in r.skipped.items()})
            reasons.update(f"dropped:{d['reason'].split(':')[0]}" for d in r.drops)
        with_tools = {rec.package for rec in records if rec.listing == listing}
        out[listing] = {
            "packages": len(results),
            "packages_read": sum(not r.fatal for r in results),
            "not_counted_by_reason": reasons,
            "read_from": Counter(r.read_from for r in results if not r.fatal),
            "fetch_missed_by_reason": Counter(r.fetch_miss for r in results if r.fetch_miss),
            "no_tools_by_reason": Counter(_no_tools_reason(r) for r in results if r.source.name not in with_tools),
        }
    return out


def _no_tools_reason(result: PackageResult) -> str:
    """Why a package gave no tool: its fetch's reason, the first error's kind, or what its tools were skipped as."""
    if result.fatal:
        return f"fetch:{result.fetch_miss}" if result.fetch_miss else "unreadable"
    if result.errors:
        return "error:" + result.errors[0][1].split(":")[0].split(" (")[0][:60]
    if result.skipped:
        return "skipped:" + "+".join(sorted(result.skipped))[:60]
    return "dropped" if result.drops else "none_found"


def _coverage(records: list[ToolRecord]) -> dict:
    """The share of tools with each field found; a field the source could not show is not found, and its share is
    under ``unknown`` (by field of UNKNOWN_FIELDS)."""

    def share(pred) -> float:
        return round(sum(map(pred, records)) / len(records), 4) if records else 0.0

    return {
        "name": share(lambda r: bool(r.name)),
        "description": share(lambda r: bool(r.description)),
        "parameters": share(lambda r: r.parameters != '{"properties": {}, "type": "object"}'),
        "auth": share(lambda r: r.auth_type not in ("none", None) or bool(r.auth_env_vars or r.auth_credentials)),
        "endpoints": share(lambda r: bool(r.endpoints)),
        "doc_urls": share(lambda r: bool(r.doc_urls)),
        "categories": share(lambda r: bool(r.categories)),
        "deprecated": share(lambda r: r.deprecated),
        "runtime_only": share(lambda r: r.runtime_only),
        "unknown": {field: share(lambda r, f=field: f in r.unknown_fields) for field in UNKNOWN_FIELDS},
    }
