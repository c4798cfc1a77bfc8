"""Read an EcoAgent release folder into arrays a retriever, the bandit and the tool selector share.

A release (``ecoagent release build``) lists its files in ``manifest.json`` under ``configs``:
``{config: {split: path}}``. This module reads the corpus (one row per tool, in the release's
``tool_id`` order), the query splits of the Syn, Real, gold and workflow subsets with their relevant tools, the Syn
training pairs with their hard negatives, and the full ``tools`` table. Nothing here embeds or
scores: that is :mod:`ecoagent.retrieval.rankers`.

Errors name the release folder and the missing config, so a reader knows which release is broken. Before anything
is read, every file is checked against the manifest (:mod:`ecoagent.release_format.integrity`): an edited or unlisted
file refuses the release (:class:`~ecoagent.release_format.integrity.ReleaseIntegrityError`, exit 1).

A release on object storage (``s3://bucket/ecoagent/release/2026.12.1``) is read from a local copy
(:func:`local_release`): downloaded once per manifest into ``~/.cache/ecoagent/releases`` (``ECOAGENT_RELEASE_CACHE``)
once its manifest (the file that commits it) is there, and verified like a local folder: the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import polars as pl

from ecoagent.errors import EcoAgentError
from ecoagent.layout import RELEASE_FILES
from ecoagent.release_format.integrity import verify_release
from ecoagent.release_format.qrels import judge
from ecoagent.store import ArtifactStore
from ecoagent.text.documents import document_text

# gold: the human-annotated set, test only; workflows-disjoint: the workflow queries split by service, no test tool a
# train tool (release.workflows_disjoint); package-requests: the packages' own example requests, split by package
SUBSETS = ("syn", "real", "gold", "workflows", "workflows-title", "workflows-disjoint", "package-requests")
QUERY_SPLITS = ("train", "validation", "test", "cold_start")


class ReleaseUnreadable(EcoAgentError, RuntimeError):
    """The release folder lacks a file this stage needs."""


@dataclass(frozen=True)
class Corpus:
    """The tool corpus: ``ids[i]`` is the tool of row ``i`` in every score matrix."""

    ids: list[str]
    titles: list[str]
    texts: list[str]
    r_static: np.ndarray  # float64, one per tool: the bandit prior (RATED eq. 5)
    platforms: list[str]

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def documents(self) -> list[str]:
        """What a retriever indexes: each tool's :func:`document_text`."""
        return [document_text(t, x) for t, x in zip(self.titles, self.texts, strict=True)]

    def rows(self) -> dict[str, int]:
        return {tool: i for i, tool in enumerate(self.ids)}


@dataclass(frozen=True)
class QuerySet:
    """Queries of one subset and split, each with the corpus rows of its relevant tools.

    ``relevant`` is each query's judged set by :mod:`ecoagent.release_format.qrels` (alternatives are not in it; a
    query whose qrels are all alternatives is not in the set, it is counted in ``left_out``).
    """

    name: str  # e.g. "real/test"
    ids: list[str]
    texts: list[str]
    relevant: list[list[int]]  # sorted corpus rows per query, never empty
    grades: list[list[int]] | None = None  # the grade of each ``relevant`` row (nDCG's gain); None: all 1
    acceptable: list[list[int]] | None = None  # rows acceptable, not required, per query; None: none
    views: list[int] | None = None  # the source's popularity per query (workflows: n8n.io views); None: unknown
    left_out: int = 0  # queries of the split whose every qrel is an alternative: nothing required to find

    def __len__(self) -> int:
        return len(self.ids)

    def qrels(self, corpus: Corpus) -> dict[str, dict[str, int]]:
        """``{query_id: {tool_id: grade}}``, the shape ``ranx.Qrels`` takes."""
        grades = self.grades or [[1] * len(rel) for rel in self.relevant]
        return {
            q: {corpus.ids[r]: g for r, g in zip(rel, grade, strict=True)}
            for q, rel, grade in zip(self.ids, self.relevant, grades, strict=True)
        }

    def condensed(self, scores: np.ndarray) -> np.ndarray:
        """``scores`` (queries x tools) with each query's acceptable tools at ``-inf``: out of its ranking."""
        if not self.acceptable or not any(self.acceptable):
            return scores
        out = np.array(scores, dtype=np.float64, copy=True)
        for i, rows in enumerate(self.acceptable):
            out[i, rows] = -np.inf
        return out

    def subset(self, name: str, positions: list[int]) -> QuerySet:
        """The queries at ``positions`` (in that order) under ``name``. ``left_out`` is 0: the split's alternatives-only
        queries are in no subset of it."""

        def pick(values: list | None) -> list | None:
            return None if values is None else [values[i] for i in positions]

        return replace(self, name=name, ids=pick(self.ids), texts=pick(self.texts), relevant=pick(self.relevant),
                       grades=pick(self.grades), acceptable=pick(self.acceptable), views=pick(self.views),
                       left_out=0)  # fmt: skip

    @classmethod
    def concat(cls, name: str, parts: list[QuerySet]) -> QuerySet:
        """The query sets ``parts`` one after the other, under ``name``; ``views`` only when every part has them."""
        grades = None if all(p.grades is None for p in parts) else [
            g for p in parts for g in (p.grades or [[1] * len(rel) for rel in p.relevant])]  # fmt: skip
        acceptable = None if all(p.acceptable is None for p in parts) else [
            a for p in parts for a in (p.acceptable or [[] for _ in p.ids])]  # fmt: skip
        views = None if any(p.views is None for p in parts) else [v for p in parts for v in p.views or []]
        return cls(name, [i for p in parts for i in p.ids], [t for p in parts for t in p.texts],
                   [r for p in parts for r in p.relevant], grades, acceptable, views,
                   sum(p.left_out for p in parts))  # fmt: skip


@dataclass(frozen=True)
class TrainingPairs:
    """Syn training triples: query text, positive tool row, hard-negative tool rows (may be empty)."""

    queries: list[str]
    positives: list[int]
    negatives: list[list[int]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.queries)


@dataclass(frozen=True)
class Release:
    folder: Path  # where it is read: the release itself, or the local copy of one on object storage
    version: str
    corpus: Corpus
    tools: pl.DataFrame  # the ``tools`` config, same row order as ``corpus``
    query_sets: dict[str, QuerySet]  # "syn/test", "real/validation", ... (only non-empty splits)
    source: str = ""  # the release as it was named: a local path or the store's URL
    # the corpus vectors it ships, by config (the manifest's "embeddings": model, revision, dimension, dtype, text);
    # read on demand (ecoagent.release_format.vectors)
    embeddings: dict[str, dict] = field(default_factory=dict)
    layout: dict[str, dict[str, str]] = field(default_factory=dict)  # the manifest's configs: {config: {split: path}}

    @property
    def location(self) -> str:
        return self.source or str(self.folder)

    def queries(self, name: str) -> QuerySet | None:
        return self.query_sets.get(name)


def release_cache() -> Path:
    return Path(os.environ.get("ECOAGENT_RELEASE_CACHE") or "~/.cache/ecoagent/releases").expanduser()


def local_release(release: str | Path) -> Path:
    """A release folder on the local disk: ``release`` itself, or a copy of a release on object storage (downloaded
    once per manifest, into ``<release_cache()>/<protocol>/<path>/<manifest sha256[:16]>/<version folder>``)."""
    store = ArtifactStore(str(release))
    if store.is_local:
        return store.local_path
    store.require_committed(RELEASE_FILES.manifest, "release build")
    digest = hashlib.sha256(store.fs.cat(store.path(RELEASE_FILES.manifest))).hexdigest()[:16]
    name = store.root.rstrip("/").rsplit("/", 1)[-1]
    copy = release_cache() / store.protocol / store.root.strip("/") / digest / name
    if (copy / RELEASE_FILES.manifest).is_file():
        return copy
    tmp = copy.with_name(f".{name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    store.download(tmp)
    try:
        os.rename(tmp, copy)
    except OSError:  # another process put the same copy there meanwhile
        ArtifactStore(str(tmp)).fs.rm(str(tmp), recursive=True)
    return copy


def _layout(folder: Path) -> tuple[dict, dict[str, dict[str, str]]]:
    manifest_path = folder / RELEASE_FILES.manifest
    if not manifest_path.exists():
        raise ReleaseUnreadable(f"{folder}: no manifest.json; is this a release folder (ecoagent release build)?")
    manifest = json.loads(manifest_path.read_text())
    return manifest, manifest.get("configs") or {}


def _read(folder: Path, layout: dict, config_name: str, split: str) -> pl.DataFrame | None:
    path = layout.get(config_name, {}).get(split)
    return pl.read_parquet(folder / path) if path else None


def load_release(release: str | Path) -> Release:
    """Read the corpus, the tools table and every non-empty query split of a release folder (a local path or the
    store's URL), once it is verified."""
    folder = local_release(release)
    manifest, layout = _layout(folder)
    verify_release(folder)
    version = str(manifest.get("version", folder.name))
    found = release_from_layout(folder, layout, version, source=ArtifactStore(str(release)).url())
    return replace(found, embeddings=manifest.get("embeddings") or {})


def release_from_layout(folder: Path, layout: dict[str, dict[str, str]], version: str, source: str = "") -> Release:
    """The release whose data files ``layout`` names (``{config: {split: path}}``, the manifest's ``configs``) in
    ``folder``, read as they are: :func:`load_release` verifies them first; the release build reads its own staged
    files before any manifest exists."""
    tools = _read(folder, layout, "tools", "train")
    corpus_frame = _read(folder, layout, "syn-corpus", "corpus")
    if corpus_frame is None:
        corpus_frame = _read(folder, layout, "real-corpus", "corpus")
    if tools is None or corpus_frame is None:
        raise ReleaseUnreadable(f"{folder}: the release has no 'tools' or '*-corpus' config in manifest.json")
    corpus_frame = corpus_frame.sort("_id")
    tools = tools.sort("tool_id")
    if tools["tool_id"].to_list() != corpus_frame["_id"].to_list():
        raise ReleaseUnreadable(f"{folder}: the 'tools' config and the corpus list different tools")
    corpus = Corpus(
        ids=corpus_frame["_id"].to_list(),
        titles=corpus_frame["title"].fill_null("").to_list(),
        texts=corpus_frame["text"].fill_null("").to_list(),
        r_static=corpus_frame["r_static"].cast(pl.Float64).to_numpy(),
        platforms=corpus_frame["platform"].to_list(),
    )
    rows = corpus.rows()
    query_sets: dict[str, QuerySet] = {}
    for subset in SUBSETS:
        for split in QUERY_SPLITS:
            queries = _read(folder, layout, f"{subset}-queries", split)
            qrels = _read(folder, layout, f"{subset}-qrels", split)
            if queries is None or qrels is None:
                continue
            query_set_ = _query_set(f"{subset}/{split}", queries, qrels, rows)
            if query_set_ is not None:
                query_sets[query_set_.name] = query_set_
    return Release(folder, version, corpus, tools, query_sets, source=source, layout=layout)


def _query_set(name: str, queries: pl.DataFrame, qrels: pl.DataFrame, rows: dict[str, int]) -> QuerySet | None:
    """The queries of one split with their judged tools (:func:`ecoagent.release_format.qrels.judge`); None: none."""
    judged = judge(qrels, rows)
    kept = queries.sort("_id").filter(pl.col("_id").is_in(list(judged.required)))
    if not kept.height:
        return None
    ids = kept["_id"].to_list()
    ordered = [sorted(judged.required[q].items(), key=lambda item: rows[item[0]]) for q in ids]
    return QuerySet(
        name=name,
        ids=ids,
        texts=kept["text"].to_list(),
        relevant=[[rows[doc] for doc, _ in pairs] for pairs in ordered],
        grades=[[grade for _, grade in pairs] for pairs in ordered],
        acceptable=[sorted(rows[d] for d in judged.acceptable.get(q, ())) for q in ids],
        views=kept["views"].fill_null(0).cast(pl.Int64).to_list() if "views" in kept.columns else None,
        left_out=len(judged.only_acceptable & set(queries["_id"].to_list())),
    )


def _syn_pair_rows(release: Release, split: str) -> tuple[dict[str, str], dict[str, list[int]], dict[str, list[int]]]:
    """``(text by query id, positive rows by query id, hard-negative rows by query id)`` of the ``syn-pairs`` config."""
    _, layout = _layout(release.folder)
    pairs = _read(release.folder, layout, "syn-pairs", split)
    queries = release.query_sets.get(f"syn/{split}")
    if pairs is None or queries is None:
        raise ReleaseUnreadable(f"{release.folder}: no Syn {split} pairs/queries to train on (config 'syn-pairs')")
    rows = release.corpus.rows()
    text_of = dict(zip(queries.ids, queries.texts, strict=True))
    positives: dict[str, list[int]] = {}
    negatives: dict[str, list[int]] = {}
    for qid, tool, label, kind in pairs.select("query_id", "tool_id", "label", "negative_type").iter_rows():
        if qid not in text_of or tool not in rows:
            continue
        if label > 0:
            positives.setdefault(qid, []).append(rows[tool])
        elif kind == "hard":
            negatives.setdefault(qid, []).append(rows[tool])
    return text_of, positives, negatives


def training_pairs(release: Release, split: str = "train") -> TrainingPairs:
    """Syn ``split`` queries with their positive tool and hard negatives (the ``syn-pairs`` config).

    A query with several positives yields one triple per positive; its hard negatives go with each.
    Random negatives are left out: in-batch negatives already play that role in InfoNCE.
    """
    text_of, positives, negatives = _syn_pair_rows(release, split)
    out_q, out_p, out_n = [], [], []
    for qid in sorted(positives):
        for pos in sorted(positives[qid]):
            out_q.append(text_of[qid])
            out_p.append(pos)
            out_n.append(sorted(negatives.get(qid, [])))
    return TrainingPairs(out_q, out_p, out_n)


def syn_hard_negatives(release: Release, split: str = "train") -> dict[str, list[int]]:
    """The hard-negative tool rows of each Syn ``split`` query (``syn-pairs``), sorted; one without any is absent."""
    return {qid: sorted(rows) for qid, rows in _syn_pair_rows(release, split)[2].items()}


def query_set(release: Release, spec: str) -> QuerySet | None:
    """A named split (``real/test``) or a union joined by ``+`` (``real/validation+syn/validation``).

    Parts missing from the release are left out; None when nothing is left.
    """
    parts = [release.query_sets[name] for name in spec.split("+") if name in release.query_sets]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return QuerySet.concat("+".join(p.name for p in parts), parts)


def hf_data_files(release: str | Path, config_name: str) -> dict[str, str]:
    """One config of a release as ``{split: file URL}``, what ``datasets.load_dataset("parquet", data_files=...)``
    reads wherever the release is (a local folder, or object storage through fsspec: the same files, no copy)."""
    store = ArtifactStore(str(release))
    store.require_committed(RELEASE_FILES.manifest, "release build")
    layout = store.read_json(RELEASE_FILES.manifest).get("configs") or {}
    if config_name not in layout:
        raise ReleaseUnreadable(f"{store.url()}: no config {config_name!r} in manifest.json; it has {sorted(layout)}")
    return {split: store.url(path) for split, path in layout[config_name].items()}


def tool_events(release: Release) -> pl.DataFrame | None:
    """The release's ``tool-events`` config (one row per event of the catalog history), or None without one."""
    return _read(release.folder, release.layout, "tool-events", "train")
