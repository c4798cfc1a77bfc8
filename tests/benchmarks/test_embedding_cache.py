"""``benchmarks/embedding_cache.py`` with a cache of 300 vectors and 500 new texts in chunks of 64: both write paths
leave the same vectors, a fresh reader re-embeds nothing, and the record holds both rows."""

from __future__ import annotations

from pathlib import Path

from tests.benchmarks.scripts import record_written, run_script


def test_both_write_paths_leave_the_same_vectors(results_dir: Path) -> None:
    ran = run_script("embedding_cache", "--held", 300, "--queries", 500, "--chunk", 64, "--record", "smoke-cache")
    assert ran.code == 0, ran
    result = ran.json_after()
    before, after = result["before"], result["after"]
    assert before["calls"] == after["calls"] == 8  # 500 texts in chunks of 64
    assert before["reader_misses"] == after["reader_misses"] == 0 and before["checksum"] == after["checksum"]
    assert result["write_ratio"] > 0 and before["bytes_on_disk"] > 0 and after["bytes_on_disk"] > 0
    summary = ran.out.splitlines()[-2]  # the last line says where the record went
    assert summary.startswith("500 new texts in 8 calls onto a cache of 300: writes "), ran
    record = record_written(results_dir, "smoke-cache")
    assert record["figures"]["same vectors left behind"] is True and len(record["tables"][0]["rows"]) == 2
