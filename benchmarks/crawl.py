"""Benchmark: a cold crawl (empty package cache) of every pinned source, then a warm one.

Targets (issue: foundation and crawl): cold <= 10 minutes, warm <= 60 seconds on 2 cores.
Prints both times, their ratio, and whether the two catalogs are byte-identical. The default profile reads n8n's
community listing from the listing's own copy; with ``--community`` the crawl fetches each listed package from the
registry (``crawl.community_listing.archives``: about 1,470 more npm packages) and a warm crawl without the listing
is the baseline measured in the same run, and the figures per listing (packages listed, read, from
the archive or the listing's copy, fetch misses by reason, tools) are printed and recorded.

    .venv/bin/python benchmarks/crawl.py [--profile default] [--keep DIR] [--community] [--set KEY=VALUE ...]
                                         [--record NAME]

Needs the package registries (it is the real crawl); writes only to a temporary folder (or ``--keep``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report, timed
from benchmarking.record import add_record_option, write_record
from crawlers.crawl import crawl
from ecoagent.config import load_config
from ecoagent.hashing import sha256_file
from ecoagent.layout import CRAWL_FILES
from schemas.unknown_fields import unknown_counts_text

COMMUNITY = ("community-verified", "community")


def _timed_crawl(profile: str, cache: Path, out: Path, overrides: list[str]) -> tuple[float, dict, str]:
    cfg = load_config(profile, overrides=[f"crawl.cache_dir={cache}", *overrides])
    result, seconds = timed(crawl, cfg, out=str(out))
    return seconds, result.summary, sha256_file(out / CRAWL_FILES.tools)


def listing_rows(summary: dict) -> list[list[object]]:
    """Per listing: packages listed, read, with tools, tools, where read from, fetch misses, not counted, and the
    tools with fields their source could not show (unknown, not absent)."""
    return [[listing, row["packages"], row["packages_read"], row["packages_with_tools"], row["tools"],
             row.get("read_from", {}), row.get("fetch_missed_by_reason", {}), row["not_counted_by_reason"],
             unknown_counts_text(row.get("unknown_fields", {}))]
            for listing, row in summary["per_listing"].items()]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="default")
    parser.add_argument("--keep", type=Path, help="keep the outputs and cache here instead of a temp folder")
    parser.add_argument("--community", action="store_true", help="fetch n8n's community packages (about 1,470 more "
                        "npm packages); a warm crawl without the listing is the baseline")  # fmt: skip
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config override")
    add_record_option(parser)
    args = parser.parse_args()
    community = ["crawl.community_listing.enabled=true", "crawl.community_listing.archives=true"]
    overrides = [*args.set, *(community if args.community else [])]
    with tempfile.TemporaryDirectory(prefix="ecoagent-bench-crawl-") as tmp:
        root = args.keep or Path(tmp)
        cold_s, cold, cold_sha = _timed_crawl(args.profile, root / "cache", root / "cold", overrides)
        warm_s, warm, warm_sha = _timed_crawl(args.profile, root / "cache", root / "warm", overrides)
        base_s = None
        if args.community:
            base_s, base, _ = _timed_crawl(args.profile, root / "cache", root / "base",
                                           [*args.set, "crawl.community_listing.enabled=false"])  # fmt: skip
    report = {
        "tools": cold["tools"],
        "per_platform": {p: v["tools"] for p, v in cold["per_platform"].items()},
        "per_listing": {k: v["tools"] for k, v in cold["per_listing"].items()},
        "packages": cold["packages"]["total"],
        "packages_failed": cold["packages"]["failed"],
        "cold_seconds": round(cold_s, 1),
        "cold_fetch_seconds": cold["seconds"]["fetch"],
        "warm_seconds": round(warm_s, 1),
        "warm_cache_hits": warm["cache"]["hits"],
        "cold_over_warm": round(cold_s / warm_s, 1),
        "byte_identical": cold_sha == warm_sha,
        "targets": {"cold_seconds_max": 600, "warm_seconds_max": 60},
        "meets_targets": cold_s <= 600 and warm_s <= 60,
    }
    if base_s is not None:
        report |= {"baseline_warm_seconds": round(base_s, 1), "baseline_tools": base["tools"],
                   "warm_over_baseline_warm": round(warm_s / base_s, 1)}  # fmt: skip
    print_report(
        report,
        f"cold crawl {cold_s:.1f}s (target <= 600s), warm crawl {warm_s:.1f}s (target <= 60s), "
        f"cold/warm = {cold_s / warm_s:.1f}x, byte-identical: {cold_sha == warm_sha}"
        + (f"; warm without the community listing {base_s:.1f}s ({base['tools']} tools)" if base_s else ""),
    )
    if args.record:
        _record(args.record, report, cold, args.community)


def _record(name: str, report: dict, cold: dict, community: bool) -> None:
    figures = {"tools": report["tools"], "packages": report["packages"], "packages failed": report["packages_failed"],
               "cold crawl": f"{report['cold_seconds']} s (fetch {report['cold_fetch_seconds']} s)",
               "warm crawl": f"{report['warm_seconds']} s ({report['cold_over_warm']}x faster)",
               "catalogs": "byte-identical" if report["byte_identical"] else "differ"}  # fmt: skip
    if "baseline_warm_seconds" in report:
        figures["warm crawl without the listing (baseline, same run)"] = (
            f"{report['baseline_warm_seconds']} s, {report['baseline_tools']} tools")
    columns = ["listing", "packages", "read", "with tools", "tools", "read from", "fetch missed", "not counted",
               "unknown fields (tools)"]
    write_record(
        name, section="crawl", benchmark="a crawl with an empty package cache vs the same crawl again"
        + (", with n8n's community listing (crawl.community_listing.enabled)" if community else ""),
        title="Cold and warm crawl with n8n's community listing" if community else "Cold crawl vs warm crawl",
        target="cold ≤ 10 min, warm ≤ 60 s", figures=figures,
        tables=[{"caption": "Per listing (the cold crawl)", "columns": columns, "rows": listing_rows(cold)}],
        notes=[f"community listing: {cold['community_listing']}"] if "community_listing" in cold else [],
    )  # fmt: skip


if __name__ == "__main__":
    main()
