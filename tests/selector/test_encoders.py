"""The derived encoders are made locally from the packaged MiniLM and stay close to it."""

from __future__ import annotations

import numpy as np
import pytest

from ecoagent.retrieval.embedding.models import ModelUnavailable
from ecoagent.retrieval.embedding.static import fit_epoch, sparse_fitting
from selector.encoders import MINILM, DenseEncoder, derived_model
from selector.select import SelectorConfig, ToolSelector

QUERIES = ["notify my coworkers in the team chat", "will it rain in Paris tomorrow", "refund the card payment"]


def test_onnx_int8_is_made_from_minilm_and_ranks_like_it(registry, tmp_path):
    minilm = DenseEncoder(MINILM, tmp_path / "cache")
    int8 = DenseEncoder(f"onnx-int8:{MINILM}", tmp_path / "cache", models_dir=tmp_path / "models")
    assert (derived_model(f"onnx-int8:{MINILM}", tmp_path / "models") / "model.onnx").exists()  # made once, kept
    cosines = (minilm.encode_queries(QUERIES) * int8.encode_queries(QUERIES)).sum(axis=1)
    assert np.all(cosines > 0.85)  # int8 weights: close to the float model, not equal
    vectors = int8.encode_tools([t.document for t in registry.tools])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    dense = ToolSelector(registry, SelectorConfig(rankers=("dense",)), vectors, int8.encode_query)
    assert dense.select_detailed(QUERIES[0], None, ["*"], 1000).ranked[0].startswith("slack:")


def test_a_static_form_not_fitted_yet_says_how_to_make_it(tmp_path):
    encoder = DenseEncoder(f"static:{MINILM}", tmp_path / "cache", models_dir=tmp_path / "models")
    with pytest.raises(ModelUnavailable, match="python -m selector encoder"):
        encoder.encode_queries(["anything"])
    with pytest.raises(ModelUnavailable, match="--release"):
        derived_model(f"static:{MINILM}", tmp_path / "models")


def test_a_spec_that_is_not_a_derived_form_is_refused(tmp_path):
    with pytest.raises(ValueError, match="names no derived form"):
        derived_model(MINILM, tmp_path)


def test_the_static_fitting_moves_only_the_rows_of_the_batchs_tokens_and_lowers_the_loss():
    import torch

    table = np.random.default_rng(0).normal(size=(40, 8)).astype(np.float32)
    bag, optimizer = sparse_fitting(table, lr=0.05)
    first, second = [torch.tensor([1, 2, 3])], [torch.tensor([4, 5])]
    targets = torch.nn.functional.normalize(torch.tensor(np.eye(8, dtype=np.float32)[:2]), dim=1)
    losses = [fit_epoch(bag, optimizer, first, targets[:1], np.random.default_rng(0)) for _ in range(30)]
    assert losses[-1] < losses[0] / 2
    after_first = bag.weight.detach().numpy().copy()
    fit_epoch(bag, optimizer, second, targets[1:], np.random.default_rng(0))
    moved = np.flatnonzero(np.abs(bag.weight.detach().numpy() - table).sum(axis=1))
    assert moved.tolist() == [1, 2, 3, 4, 5]  # no other token's vector is touched
    assert np.array_equal(bag.weight.detach().numpy()[1:4], after_first[1:4])  # no momentum carried into rows 1-3
