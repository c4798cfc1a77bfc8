"""``benchmarks/compare_runs.py`` on two planted runs: what is identical, what differs, what is new or gone, and the
record it writes."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from ecoagent.layout import CRAWL_FILES, RELEASE_FILES, SCORE_FILES, SYNTH_FILES
from tests.benchmarks.scripts import record_written, run_script


def _run(root: Path, reliability: float, extra: bool) -> Path:
    """A run root: the crawl, score and synth folders and release 2026.12.1, with a few files each."""
    for folder in ("crawl", "score", "synth", "release/2026.12.1"):
        (root / folder).mkdir(parents=True)
    pl.DataFrame({"tool_id": ["a", "b"]}).write_parquet(root / "crawl" / CRAWL_FILES.tools)
    pl.DataFrame({"tool_id": ["a", "b"], "r": [reliability, 0.5]}).write_parquet(root / "score" / SCORE_FILES.tools)
    (root / "score" / SCORE_FILES.summary).write_text(f'{{"seconds": {reliability}}}')
    (root / "release" / "2026.12.1" / RELEASE_FILES.manifest).write_text("{}")
    if extra:
        pl.DataFrame({"text": ["q"]}).write_parquet(root / "synth" / SYNTH_FILES.queries)
    else:
        (root / "synth" / SYNTH_FILES.summary).write_text("{}")
    (root / "notes.txt").write_text("not a stage folder: not compared")
    return root


def test_two_runs_compared_file_by_file(tmp_path: Path, results_dir: Path) -> None:
    before, after = _run(tmp_path / "a", 0.9, extra=False), _run(tmp_path / "b", 0.8, extra=True)
    ran = run_script("compare_runs", "--before", before, "--after", after, "--note", "the reliability changes",
                     "--record", "smoke-compare")  # fmt: skip
    assert ran.code == 0, ran
    lines = ran.out.splitlines()
    assert lines[0] == "| file | sha256 before (16) | sha256 after (16) | outcome |"
    outcome = {line.split(" | ")[0].strip("| "): line.rstrip(" |").rsplit(" | ", 1)[1] for line in lines[2:5]}
    assert outcome == {f"crawl/{CRAWL_FILES.tools}": "identical", f"score/{SCORE_FILES.tools}": "differs",
                       f"synth/{SYNTH_FILES.queries}": "new"}  # fmt: skip
    assert "identical: 2" in lines and "differs: 2" in lines and "new: 1" in lines and "gone: 1" in lines
    assert "data files (Parquet) identical: 1 of 3" in lines
    assert f"the files that differ: score/{SCORE_FILES.summary}, score/{SCORE_FILES.tools}" in lines
    record = record_written(results_dir, "smoke-compare")
    assert record["figures"]["differs"] == 2 and record["notes"] == ["the reliability changes"]
    assert len(record["tables"][0]["rows"]) == 3


def _rated(folder: Path, seconds: float, mrr: float, latency: float) -> Path:
    folder.mkdir(parents=True)
    metrics = {"seconds": seconds, "table1": {"workflows/test": {"RATED (Full)": {"mrr": mrr, "seconds": seconds}}},
               "table3": {"encode only": {"p50_ms": latency}}}  # fmt: skip
    (folder / "metrics.json").write_text(json.dumps(metrics))
    (folder / "report.md").write_text(f"# RATED\n\nthe whole run took {seconds} s\n\n| MRR | {mrr} |\n")
    return folder


def test_two_rated_folders_compared_but_for_timings(tmp_path: Path) -> None:
    runs = [_run(tmp_path / name, 0.9, extra=False) for name in ("a", "b")]
    same = [_rated(tmp_path / "r1", 80.2, 0.5, 16.6), _rated(tmp_path / "r2", 101.2, 0.5, 13.3)]
    ran = run_script("compare_runs", "--before", runs[0], "--after", runs[1],
                     "--rated-before", same[0], "--rated-after", same[1])  # fmt: skip
    assert ran.code == 0, ran
    assert "rated metrics.json equal but for timings: True" in ran.out
    assert "rated report.md lines that differ (before + after): 2" in ran.out  # the total time, before and after
    other = _rated(tmp_path / "r3", 80.2, 0.6, 16.6)  # a figure moved: found
    ran = run_script("compare_runs", "--before", runs[0], "--after", runs[1],
                     "--rated-before", same[0], "--rated-after", other)  # fmt: skip
    assert "rated metrics.json equal but for timings: False" in ran.out, ran
    alone = run_script("compare_runs", "--before", runs[0], "--after", runs[1], "--rated-before", same[0])
    assert alone.code == 2 and "go together" in alone.err
