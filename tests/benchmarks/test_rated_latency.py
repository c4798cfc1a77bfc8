"""``benchmarks/rated_latency.py`` on the tiny release: Table 3's per-step latency at batch size 1 with the real
MiniLM query encode (a few steps, not 2,000) and the simulator's speed, printed and written as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmarks.scripts import run_script


@pytest.fixture
def torch_threads():
    """The script sets torch's threads for its process (1): put back what this test process had."""
    import torch

    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_table_3_and_the_simulator_on_the_tiny_release(tiny_release: Path, tmp_path: Path, torch_threads) -> None:
    out = tmp_path / "latency.json"
    ran = run_script("rated_latency", "--release", tiny_release, "--steps", 20, "--warmup", 2, "--k", 5,
                     "--sim-steps", 200, "--json", out, "--cache-dir", tmp_path / "embeddings")  # fmt: skip
    assert ran.code == 0, ran
    report = json.loads(out.read_text())
    assert report["source"].startswith("release 1.0.0, real/test (") and report["source"].endswith(", 10 tools")
    assert "RATED (Full)" in report["methods"] and report["torch_threads"] == 1
    full = report["methods"]["RATED (Full)"]
    assert full["avg_ms"] > 0 and full["p95_ms"] >= 0 and "overhead_ms" in full
    assert set(report["simulation"]["seconds"]) == {"RATED (Full, diagonal)", "RATED (full matrix)", "Static"}
    assert report["simulation"]["steps"] == 200 and all(s > 0 for s in report["simulation"]["seconds"].values())
    assert "| Method | Avg (ms) | P95 (ms) |" in ran.out
    assert "RATED (Full) bandit overhead " in ran.out and "simulator, 200 steps of Static: " in ran.out


def test_the_synthetic_corpus_without_a_release(tmp_path: Path, torch_threads) -> None:
    # 5,000 random unit vectors and short synthetic queries; the query encode is still MiniLM's forward pass
    out = tmp_path / "latency.json"
    ran = run_script("rated_latency", "--steps", 10, "--warmup", 2, "--sim-steps", 100, "--json", out)
    assert ran.code == 0, ran
    report = json.loads(out.read_text())
    assert report["source"].startswith("synthetic corpus (5,000 random unit vectors, d = 384)")
    assert report["methods"]["RATED (Full)"]["avg_ms"] > 0 and report["simulation"]["steps"] == 100
