"""The corpus vectors a release ships (``release.embedding_models``): one ``embeddings-<model>`` config per model.

Each vector is the model's embedding of a corpus document exactly as the release holds it (after the secret and
personal-data scrub), through the embedding cache: the stages embedded the same texts before
(:mod:`ecoagent.text.documents`), so on a run's own store the build embeds only what the scrub changed. The layout,
the manifest entry and how a reader takes them back: :mod:`ecoagent.release_format.vectors`.
"""

from __future__ import annotations

import polars as pl

from ecoagent.config import Config
from ecoagent.release_format.vectors import (
    EMBEDDINGS_SPLIT,
    TEXT_RECIPE,
    embeddings_config,
    model_revision,
    vector_frame,
)
from ecoagent.text.documents import document_text


def embedding_tables(corpus: pl.DataFrame, config: Config) -> tuple[dict[tuple[str, str], pl.DataFrame], dict]:
    """``{(config, "corpus"): vectors}`` of every ``release.embedding_models`` model, and the manifest's
    ``embeddings`` entries (without their row counts' file, which the build adds)."""
    from ecoagent.retrieval.embedding import query_and_tool_encoders

    corpus = corpus.sort("_id")
    documents = [document_text(t, x) for t, x in zip(corpus["title"].fill_null("").to_list(),
                                                     corpus["text"].fill_null("").to_list(), strict=True)]  # fmt: skip
    tables, entries = {}, {}
    cache_dir = config.resolve_path(config.embedding.cache_dir)
    for spec in config.release.embedding_models:
        _, encoder = query_and_tool_encoders(spec, cache_dir, "release.embedding_models", config.embedding.device)
        vectors = encoder.encode(documents, phase=f"embed the corpus ({spec})")
        name = embeddings_config(spec)
        tables[(name, EMBEDDINGS_SPLIT)] = vector_frame(corpus["_id"].to_list(), vectors)
        entries[name] = {"model": spec, "revision": model_revision(spec), "dimension": int(vectors.shape[1]),
                         "dtype": "float32", "normalized": "L2 (cosine = dot product)", "text": TEXT_RECIPE,
                         "rows": len(corpus)}  # fmt: skip
    return tables, entries
