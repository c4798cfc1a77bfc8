"""``benchmarks/label_workflows.py`` on the fixture world's workflow queries (the ``n8n-mcp`` templates over the
fixture node package): every verifier measured against the native labels, the LLM on a seeded sample answered by
the stand-in server (the embedded model takes hours on the real set), and the record."""

from __future__ import annotations

from pathlib import Path

from tests.benchmarks.conftest import standin_overrides, use_world
from tests.benchmarks.scripts import record_written, run_script


def test_every_verifier_on_the_workflow_queries(world, standin, monkeypatch, tmp_path, results_dir: Path) -> None:
    use_world(monkeypatch, [*world.overrides, *standin_overrides(standin, tmp_path / "llm.sqlite")])
    out = tmp_path / "workflows.md"
    ran = run_script("label_workflows", "--score", world.score, "--llm-sample", 3, "--out", out, "--record",
                     "smoke-workflows")  # fmt: skip
    assert ran.code == 0, ran
    assert out.read_text() in ran.out
    lines = ran.out.splitlines()
    assert lines[0].startswith("Workflow queries (task view), kept: 7; thresholds from the config, none chosen on "
                               "the workflows; the LLM (stand-in, verify_v1) on a seeded sample of 3 of 7 queries")
    rows = [line.strip("| ").split(" | ") for line in lines if line.startswith("| ") and " | tool | " in line]
    assert [r[0] for r in rows] == ["candidates", "embedding", "candidates (sample)", "embedding (sample)",
                                    "llm (sample)", "both (sample)"]  # fmt: skip
    verified = {r[0]: tuple(map(int, r[7].split(" / "))) for r in rows}
    assert verified["embedding"][1] <= verified["candidates"][1]  # the agreement keeps a part of the candidates
    assert verified["both (sample)"][1] <= min(verified["llm (sample)"][1], verified["embedding (sample)"][1])
    assert any(line.startswith("- llm (sample): tool-level precision ") for line in lines)
    record = record_written(results_dir, "smoke-workflows")
    assert record["figures"]["kept workflow queries"] == 7 and record["section"] == "label"
    assert len(record["tables"][0]["rows"]) == 12  # six verifiers, tool and node level
