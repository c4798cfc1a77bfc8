"""Benchmark: scoring the full crawled catalog cold (empty embedding and tokenizer caches) and warm.

Target (issue: scoring): cold <= 5 minutes on 2 cores, warm rerun >= 10x faster (an unchanged tool
is never re-embedded). Prints both times and their ratio, and whether the outputs are identical.

    .venv/bin/python benchmarks/score.py [--in CRAWL_DIR]

Without --in it scores the store's crawl output, crawling first (with the package cache) if needed.
The quality gate is a separate step and is not timed here.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report, timed
from crawlers.crawl import crawl
from crawlers.stage import CRAWL
from ecoagent.config import load_config
from ecoagent.hashing import sha256_file
from ecoagent.layout import CRAWL_FILES, SCORE_FILES, RunLayout
from ecoagent.store import ArtifactStore
from scoring.score import score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--in", dest="in_dir", help="a crawl output folder (tools.parquet)")
    parser.add_argument("--profile", default="default")
    args = parser.parse_args()
    base = load_config(args.profile)
    in_dir = args.in_dir or RunLayout.of(base).folder(CRAWL.name)
    if not ArtifactStore(in_dir).exists(CRAWL_FILES.tools):
        crawl(base, out=in_dir)
    with tempfile.TemporaryDirectory(prefix="ecoagent-bench-score-") as tmp:
        root = Path(tmp)
        cfg = load_config(
            args.profile,
            overrides=[f"embedding.cache_dir={root / 'emb'}", f"score.tokenizer_cache={root / 'tok'}"],
        )
        runs = {}
        for name in ("cold", "warm"):
            result, seconds = timed(score, cfg, in_dir=in_dir, out=str(root / name))
            runs[name] = (seconds, result.summary, sha256_file(root / name / SCORE_FILES.tools))
    (cold_s, cold, cold_sha), (warm_s, warm, warm_sha) = runs["cold"], runs["warm"]
    report = {
        "tools": cold["tools"],
        "cold_seconds": round(cold_s, 1),
        "cold_stage_seconds": cold["seconds"],
        "warm_seconds": round(warm_s, 1),
        "warm_stage_seconds": warm["seconds"],
        "cold_over_warm": round(cold_s / warm_s, 1),
        "embeddings_cold": cold["embedding_cache"],
        "embeddings_warm": warm["embedding_cache"],
        "identical_outputs": cold_sha == warm_sha,
        "targets": {"cold_seconds_max": 300, "cold_over_warm_min": 10},
        "meets_targets": cold_s <= 300 and cold_s / warm_s >= 10,
    }
    print_report(
        report,
        f"score cold {cold_s:.1f}s (target <= 300s), warm {warm_s:.1f}s, cold/warm = {cold_s / warm_s:.1f}x "
        f"(target >= 10x), identical outputs: {cold_sha == warm_sha}",
    )


if __name__ == "__main__":
    main()
