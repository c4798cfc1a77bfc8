"""``benchmarks/retrieval_pool.py`` on the tiny release's stage folders (10 tools, their Syn and Real queries): the
round trip and the label retrieval ranked over the whole catalog and over first-stage pools of depth 2 and 5."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ecoagent.layout import LABEL_FILES, SYNTH_FILES
from tests.benchmarks.scripts import record_written, run_script


def test_pools_against_the_whole_catalog(tiny_release: Path, tmp_path: Path, results_dir: Path) -> None:
    stages = tiny_release.parents[1] / "stages"
    ran = run_script("retrieval_pool", "--score", stages / "score", "--synth", stages / "synth", "--label",
                     stages / "label", "--depths", "2,5", "--cache-dir", tmp_path / "embeddings", "--top-k", 3,
                     "--record", "smoke-pool")  # fmt: skip
    assert ran.code == 0, ran
    report = ran.json_after()
    round_trip, retrieval = report["tables"]
    syn = pl.read_parquet(stages / "synth" / SYNTH_FILES.queries).height
    real = sum(pl.read_parquet(stages / "label" / n).height for n in (LABEL_FILES.queries, LABEL_FILES.gold_queries)
               if (stages / "label" / n).exists())  # fmt: skip
    assert report["figures"]["catalog tools"] == 10
    assert report["figures"]["round trip queries"] == syn and report["figures"]["retrieval queries"] == real
    assert [r[0] for r in round_trip["rows"]] == ["whole catalog", "depth 2", "depth 5"]
    whole, *pools = round_trip["rows"]
    assert whole[1] == 10 and whole[3] == whole[4] == "1.000"  # the baseline agrees with itself
    for row in pools:  # a pool ranks fewer tools, each query's own tool always among them
        assert row[1] <= 10 and 0.0 <= float(row[3]) <= 1.0 and 0.0 <= float(row[4]) <= 1.0
    assert [r[0] for r in retrieval["rows"]] == ["whole catalog", "depth 2", "depth 5"]
    assert retrieval["rows"][0][3:6] == ["1.000", "1.000", "1.000"]
    assert "Round trip, depth 2" in ran.out.splitlines()[-2]  # the summary line, before the record's
    record = record_written(results_dir, "smoke-pool")
    assert record["section"] == "synth" and len(record["tables"]) == 2
