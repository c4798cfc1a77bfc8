"""``benchmarks/label_gold.py`` on the fixture world's gold set (LiveMCPBench's tasks mapped onto the catalog), BFCL's
multi-function queries as the gold-free calibration set, and the LLM verifiers answered by the stand-in server (the
embedded model takes minutes)."""

from __future__ import annotations

import json

from tests.benchmarks.conftest import standin_overrides, use_world
from tests.benchmarks.scripts import run_script

ATTEMPTS = ["candidates", "embedding (default)", "embedding, threshold from BFCL", "e5 agreement, threshold from BFCL",
            "pivot: source tool", "LLM verify_v1", "LLM verify_enum_v1", "both (default agreement and enum LLM)"]


def test_every_labeling_path_against_the_gold_set(world, standin, monkeypatch, tmp_path) -> None:
    # BFCL live's queries with several listed functions, one of them the gold: the calibration pairs
    calibration = "label.bfcl_categories=[live_multiple, live_parallel_multiple]"
    use_world(monkeypatch, [*world.overrides, calibration, *standin_overrides(standin, tmp_path / "llm.sqlite")])
    out = tmp_path / "gold.md"
    ran = run_script("label_gold", "--score", world.score, "--llm", "--out", out)
    assert ran.code == 0, ran
    assert out.read_text() == ran.out.removesuffix("\n")  # printed as written
    head = ran.out.splitlines()[0]
    assert head.startswith("Gold set: 2 LiveMCPBench tasks with a mapped tool, 2 qrels; "), ran
    rows = {r["attempt"]: r for r in json.loads(out.with_suffix(".json").read_text())}
    assert list(rows) == ATTEMPTS
    candidates = rows["candidates"]
    assert candidates["recall"] == 1.0 and candidates["correct_pairs"] == 2  # both gold tools are retrieved
    for row in rows.values():  # no verifier finds more than the candidates hold
        assert row["correct_pairs"] <= candidates["correct_pairs"] and row["verified_pairs"] <= 10
    assert "(precision 0.8 on 3 + 2 BFCL pairs)" in rows["embedding, threshold from BFCL"]["how"]
    assert "(chosen on 1 near-duplicate groups of the catalog)" in rows["pivot: source tool"]["how"]
    assert "stand-in >= 0.85; 10 of 10 replies valid" in rows["LLM verify_v1"]["how"]
