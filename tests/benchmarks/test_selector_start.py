"""``benchmarks/selector_start.py``: two starts of ``python -m selector serve`` on the tiny release in a fresh home,
timed to the first /health answer, and the record. The service ranks with BM25 only here (its dense encoders would
add 20-40 s of imports per start); the counted phases and the longest silence are read off the lines it printed."""

from __future__ import annotations

from pathlib import Path

from benchmarking.timed_lines import longest_silence, selector_phases
from tests.benchmarks.scripts import record_written, run_script


def test_a_first_and_a_second_start_in_a_fresh_home(tiny_release: Path, results_dir: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    ran = run_script("selector_start", "--release", tiny_release, "--home", home, "--timeout", 300,
                     "--serve-arg=--rankers", "--serve-arg=bm25", "--record", "smoke-start")  # fmt: skip
    assert ran.code == 0, ran
    assert "selector first start: " in ran.out and "warm " in ran.out
    record = record_written(results_dir, "smoke-start")
    assert record["figures"]["first start (fresh home)"].endswith("x the target")


def test_phases_and_silences_are_read_off_the_lines() -> None:
    lines = [(1.0, "x selector start: embed the tool texts (m): 0/40"), (9.0, "x selector start: embed the tool texts "
             "(m): 40/40 done"), (30.0, "serving")]  # fmt: skip
    assert selector_phases(lines) == [["embed the tool texts (m)", "40/40", 9.0]]
    assert longest_silence(lines, 32.0) == 21.0
