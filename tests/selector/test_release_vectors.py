"""The selector starts from a release's shipped corpus vectors: with an empty embedding cache it embeds no tool."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ecoagent.release_format.reader import load_release
from ecoagent.release_format.vectors import embeddings_config, shipped_vectors
from ecoagent.retrieval.embedding.cache import Embedder
from selector.encoders import MINILM
from selector.select import SelectorConfig, ToolSelector


def test_a_first_start_takes_the_tool_vectors_from_the_release(tiny_release: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    def refuse(self, texts):  # the tools' encoder may not embed anything: the release has every vector
        raise AssertionError(f"{self.name} embedded {len(texts)} texts")

    monkeypatch.setattr(Embedder, "_encode_missing", refuse)
    selector = ToolSelector.from_release(tiny_release, SelectorConfig(), dense_model=MINILM,
                                         cache_dir=tmp_path / "embeddings")  # fmt: skip
    release = load_release(tiny_release)
    shipped = shipped_vectors(release, embeddings_config(MINILM))
    assert selector.dense is not None and np.array_equal(selector.dense.tool_vectors, shipped)
    assert Embedder(MINILM, tmp_path / "embeddings").missing(release.corpus.documents) == 0
