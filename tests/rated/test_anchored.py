"""The catalog-anchored stream: real queries moved rigidly onto catalog tools."""

from __future__ import annotations

import numpy as np
import pytest

from rated.anchored import _reflect, anchored_streams, retrieval_profile, zipf_weights


def unit(m: np.ndarray) -> np.ndarray:
    return m / np.linalg.norm(m, axis=-1, keepdims=True)


def catalog(n: int = 60, d: int = 16, seed: int = 0) -> np.ndarray:
    return unit(np.random.default_rng(seed).standard_normal((n, d)))


def test_the_reflection_swaps_two_unit_vectors_and_keeps_angles():
    tools = catalog(2)
    v = unit(np.random.default_rng(1).standard_normal(16))
    assert np.allclose(_reflect(tools[0], tools[0], tools[1]), tools[1])
    moved = _reflect(v, tools[0], tools[1])
    assert np.linalg.norm(moved) == pytest.approx(1.0)
    assert moved @ tools[1] == pytest.approx(v @ tools[0])  # the cosine to the gold is carried over exactly


def test_zipf_weights_by_hand():
    np.testing.assert_allclose(zipf_weights(3, 1.0), np.array([1, 1 / 2, 1 / 3]) / (11 / 6))
    np.testing.assert_allclose(zipf_weights(4, 0.0), np.full(4, 0.25))


def test_streams_have_disjoint_anchors_and_carry_each_templates_cosine_and_gold_count():
    tools = catalog()
    # one template query near tool 5 whose gold set is {5, 9}
    template = unit(0.6 * tools[5] + 0.8 * unit(np.random.default_rng(2).standard_normal(16)))
    validation, test = anchored_streams(tools, np.full(60, 0.7), template[None, :], [[5, 9]], n_queries=20, k=5,
                                        seed=3)  # fmt: skip
    assert not set(validation.anchors) & set(test.anchors)
    for stream in (validation, test):
        inputs = stream.inputs
        assert inputs.n_queries == 20 and inputs.candidates.shape == (20, 5)
        for i, anchor in enumerate(stream.anchors):
            gold = sorted(inputs.gold[i])
            assert anchor in gold and len(gold) == 2  # the anchor and the image of the template's second tool
            assert float(inputs.query_vectors[i] @ tools[anchor]) == pytest.approx(float(template @ tools[5]), abs=1e-5)
        np.testing.assert_allclose(inputs.popularity, zipf_weights(20, 1.0))
        assert inputs.tool_vectors is not None and stream.calibration["distinct_gold_tools"] >= 20
        assert stream.calibration["real"] == retrieval_profile(template[None, :], tools, [[5, 9]])


def test_a_small_catalog_gives_a_small_stream_not_an_error():
    tools = catalog(6)
    validation, test = anchored_streams(tools, np.full(6, 0.5), tools[:1], [[0]], n_queries=200, seed=0)
    assert validation.inputs.n_queries == test.inputs.n_queries == 3
    with pytest.raises(ValueError, match="template"):
        anchored_streams(tools, np.full(6, 0.5), np.zeros((0, 16)), [], n_queries=5)
