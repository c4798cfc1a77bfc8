"""Benchmark: a cold crawl (empty package cache) of every pinned source, then a warm one.

Targets (issue: foundation and crawl): cold <= 10 minutes, warm <= 60 seconds on 2 cores.
Prints both times, their ratio, and whether the two catalogs are byte-identical.

    .venv/bin/python benchmarks/crawl.py [--profile default] [--keep DIR]

Needs the package registries (it is the real crawl); writes only to a temporary folder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarks.measure import print_report, timed
from crawlers.crawl import crawl
from ecoagent.config import load_config
from ecoagent.hashing import sha256_file
from ecoagent.layout import CRAWL_FILES


def _timed_crawl(profile: str, cache: Path, out: Path) -> tuple[float, dict, str]:
    cfg = load_config(profile, overrides=[f"crawl.cache_dir={cache}"])
    result, seconds = timed(crawl, cfg, out=str(out))
    return seconds, result.summary, sha256_file(out / CRAWL_FILES.tools)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="default")
    parser.add_argument("--keep", type=Path, help="keep the outputs and cache here instead of a temp folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ecoagent-bench-crawl-") as tmp:
        root = args.keep or Path(tmp)
        cold_s, cold, cold_sha = _timed_crawl(args.profile, root / "cache", root / "cold")
        warm_s, warm, warm_sha = _timed_crawl(args.profile, root / "cache", root / "warm")
    report = {
        "tools": cold["tools"],
        "per_platform": {p: v["tools"] for p, v in cold["per_platform"].items()},
        "packages": cold["packages"]["total"],
        "cold_seconds": round(cold_s, 1),
        "cold_fetch_seconds": cold["seconds"]["fetch"],
        "warm_seconds": round(warm_s, 1),
        "warm_cache_hits": warm["cache"]["hits"],
        "cold_over_warm": round(cold_s / warm_s, 1),
        "byte_identical": cold_sha == warm_sha,
        "targets": {"cold_seconds_max": 600, "warm_seconds_max": 60},
        "meets_targets": cold_s <= 600 and warm_s <= 60,
    }
    print_report(
        report,
        f"cold crawl {cold_s:.1f}s (target <= 600s), warm crawl {warm_s:.1f}s (target <= 60s), "
        f"cold/warm = {cold_s / warm_s:.1f}x, byte-identical: {cold_sha == warm_sha}",
    )


if __name__ == "__main__":
    main()
