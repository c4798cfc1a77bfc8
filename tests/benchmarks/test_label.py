"""``benchmarks/label.py`` on the fixture world: candidate retrieval for its BFCL queries, matrix product against the
Python loop, then verification throughput against the stand-in LLM server (not the embedded model: minutes)."""

from __future__ import annotations

from tests.benchmarks.conftest import standin_overrides, use_world
from tests.benchmarks.scripts import run_script
from tests.dags.fixture_world import FIXTURE_QUERIES


def test_candidates_matrix_against_loop_then_verification(world, standin, monkeypatch, tmp_path) -> None:
    # no --in: the store's score folder, as after `make run` (the world's root holds score/)
    use_world(monkeypatch, [*world.overrides, *standin_overrides(standin, tmp_path / "llm.sqlite"),
                            f"store={world.root}"])  # fmt: skip
    ran = run_script("label", "--pairs", 6, "--loop-queries", 4)
    assert ran.code == 0, ran
    report = ran.json_after()
    assert report["queries"] == len(FIXTURE_QUERIES) and report["tools"] > 0
    assert report["same_candidates"] is True and report["loop_measured_on_queries"] == 4
    assert report["verified_pairs"] == 6 and report["verify_failed"] == 0 and report["pairs_per_second"] > 0
    assert report["backend"] == "server" and report["model"] == "stand-in"
    assert ran.out.splitlines()[-1].startswith(f"candidates for {len(FIXTURE_QUERIES)} queries x ")
