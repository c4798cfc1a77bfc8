"""Benchmark: a full refresh, a second refresh with nothing changed, and one with a bumped package.

Each refresh is the README's main command (`ecoagent run --out DIR`) in a fresh process, on the
default profile, with empty package / embedding / LLM caches for the first run only (the Gemma
tokenizer cache is left as installed). Target (issue: orchestration): the unchanged refresh takes
at most 10 % of the full one; the bumped package only regenerates its own tools.

    .venv/bin/python benchmarks/refresh.py [--bump llama-index-tools-arxiv=0.1.0]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report
from benchmarking.refresh import bump_sources, run_refresh
from ecoagent.layout import LABEL_FILES, RELEASE_FILES, SYNTH_FILES

ROOT = Path(__file__).resolve().parents[1]


def _summary(out: Path, stage: str, name: str) -> dict:
    return json.loads((out / stage / name).read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bump", default="llama-index-tools-arxiv=0.1.0", help="NAME=VERSION for the third run")
    parser.add_argument("--keep", type=Path, help="keep everything here instead of a temp folder")
    args = parser.parse_args()
    name, version = args.bump.split("=")
    with tempfile.TemporaryDirectory(prefix="ecoagent-bench-refresh-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        caches = [
            f"crawl.cache_dir={work / 'cache' / 'packages'}",
            f"embedding.cache_dir={work / 'cache' / 'embeddings'}",
            f"llm.cache_path={work / 'cache' / 'llm.sqlite'}",
            f"release.repo_releases_dir={work / 'tracked'}",
            "release.version=0.0.1",
        ]
        full = run_refresh(work / "full", caches)
        unchanged = run_refresh(work / "unchanged", caches)
        bumped_sources = bump_sources(ROOT / "crawlers" / "sources.yaml", name, version, work / "sources.bumped.yaml")
        bumped = run_refresh(
            work / "bumped",
            [*caches, f"crawl.sources={bumped_sources}", f"release.previous={work / 'full' / 'release' / '0.0.1'}"],
        )
        synth_bumped = _summary(work / "bumped", "synth", SYNTH_FILES.summary)
        label_bumped = _summary(work / "bumped", "label", LABEL_FILES.summary)
        changelog = (work / "bumped" / "release" / "0.0.1" / RELEASE_FILES.changelog).read_text().splitlines()[:12]
    report = {
        "full_seconds": round(full, 1),
        "unchanged_seconds": round(unchanged, 1),
        "unchanged_over_full": round(unchanged / full, 3),
        "bumped_package": args.bump,
        "bumped_seconds": round(bumped, 1),
        "bumped_over_full": round(bumped / full, 3),
        "bumped_synth_requests": synth_bumped["requests"],
        "bumped_synth_requests_new": synth_bumped["requests"] - synth_bumped["requests_cached_before"],
        "bumped_label_requests_new": label_bumped["llm"]["requests"] - label_bumped["llm"]["cached"],
        "bumped_changelog_head": changelog,
        "target_unchanged_over_full_max": 0.10,
        "meets_target": unchanged / full <= 0.10,
    }
    print_report(
        report,
        f"full refresh {full:.0f}s, unchanged {unchanged:.0f}s ({unchanged / full:.1%}, target <= 10%), "
        f"bumped {args.bump} {bumped:.0f}s ({bumped / full:.1%}); new LLM requests after the bump: "
        f"synth {report['bumped_synth_requests_new']}, label {report['bumped_label_requests_new']}",
    )


if __name__ == "__main__":
    main()
