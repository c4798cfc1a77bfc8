"""Train the RATED encoder once per (release, source, settings) and pick the best of the grid on validation.

RATED (Full) learns from the first ``rated.train.source`` the release has (workflows/train on a release with workflow
tasks, Syn otherwise); each ``rated.train.compare_sources`` entry trains one more encoder the same way, a Table 1 row
"RATED (trained on <source>)". The chosen model lives in ``<out>/model`` (the others in ``<out>/model-<source>``)
with ``rated_train.json`` beside its weights; a rerun with the same release version, seed, source and settings reuses
it. Each grid candidate is trained into ``<out>/models/<i>`` and scored (MRR) on the selection queries
(``rated.train.validation``); the losers are deleted.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ecoagent.layout import RATED_FILES
from ecoagent.release_format.reader import QuerySet, Release, ReleaseUnreadable, query_set
from ecoagent.retrieval.embedding.cache import trained_model_filing
from ecoagent.retrieval.evaluation import evaluate
from ecoagent.retrieval.rankers import DenseRetriever
from ecoagent.runtime import context
from rated.query_tower import train_query_tower
from rated.settings import RatedConfig, TrainConfig
from rated.train import TrainedEncoder, save_untrained, train_encoder
from rated.training_data import TrainingQueries, first_training_source, training_queries

log = logging.getLogger(__name__)

TRAIN_RECORD = RATED_FILES.train_record
VALIDATION_BATCH = 32  # queries per batch when the query tower is checked on the validation set


@dataclass(frozen=True)
class EncoderChoice:
    trained: DenseRetriever  # RATED (Full)'s semantic stage
    untrained: DenseRetriever  # RATED (w/o Contrastive)
    record: dict  # source, settings, selection set, every candidate's validation MRR, loss, steps
    compared: list[DenseRetriever] = field(default_factory=list)  # "RATED (trained on <source>)" rows


def selection_queries(release: Release, settings: RatedConfig, source: str | None = None) -> QuerySet | None:
    """Where epochs and grid entries are chosen: ``rated.train.compare_validation[source]`` when the release has it,
    else the first of ``rated.train.validation`` the release has queries for."""
    own = settings.train.compare_validation.get(source or "")
    for spec in [own] if own and query_set(release, own) is not None else settings.train.validation:
        found = query_set(release, spec)
        if found is not None and len(found):
            return found
    return None


def trained_retriever(path: Path, fingerprint: str, cache_dir: Path | None, settings: TrainConfig,
                      name: str = "RATED (Full)") -> DenseRetriever:  # fmt: skip
    """The trained encoder as a retriever; with a frozen tool tower, the tools keep the untrained encoder's vectors."""
    # the weights' fingerprint keys the vector cache: a retrained model never reuses stale vectors. Inside it, the
    # vectors are filed by the model folder's name, not its whole path, so the model read back from another copy of
    # the RATED folder (a step run alone, a DAG task) reads the vectors the run that trained it wrote: a query's
    # vector depends in its last bits on the batch it was embedded in, and Table 2's full-matrix rows amplify them
    cache, key = trained_model_filing(cache_dir, fingerprint, path)
    if settings.tool_tower == "frozen":
        return DenseRetriever(name, str(path), tool_model=settings.tool_encoder or settings.encoder,
                              cache_dir=cache_dir, query_cache_dir=cache, device=settings.device,
                              model_key=key)  # fmt: skip
    return DenseRetriever(name, str(path), cache_dir=cache, device=settings.device, model_key=key)


def untrained_retriever(
    release: Release, settings: TrainConfig, out_dir: Path, cache_dir: Path | None
) -> DenseRetriever:
    """RATED (w/o Contrastive), fitted: a shared encoder is named by its spec, so its vectors are the baseline's."""
    spec = str(save_untrained(settings, out_dir / "model-untrained")) if settings.tool_encoder else settings.encoder
    untrained = DenseRetriever("RATED (w/o Contrastive)", spec, cache_dir=cache_dir, device=settings.device)
    return untrained.fit(release.corpus)


def choose_encoder(
    release: Release, settings: RatedConfig, out_dir: Path, seed: int, cache_dir: Path | None
) -> EncoderChoice:
    """RATED (Full) trained on the first ``rated.train.source`` the release has, and one retriever per
    ``rated.train.compare_sources`` entry it has, each reused from ``out_dir`` when trained with the same settings."""
    untrained = untrained_retriever(release, settings.train, out_dir, cache_dir)
    data = first_training_source(release, settings.train.source)
    if data is None:
        raise ReleaseUnreadable(f"release {release.version}: none of rated.train.source {settings.train.source} has "
                                f"queries; it has {sorted(release.query_sets)}")  # fmt: skip
    trained, record = _trained_on(data, release, settings, out_dir / RATED_FILES.model_folder, seed, cache_dir,
                                  untrained)  # fmt: skip
    compared = []
    for spec in settings.train.compare_sources:
        other = training_queries(release, spec)
        if other is None or other.name == data.name:
            continue
        folder, name = out_dir / f"model-{_slug(other.name)}", f"RATED (trained on {other.name})"
        retriever, other_record = _trained_on(other, release, settings, folder, seed, cache_dir, untrained, name)
        compared.append(retriever)
        record.setdefault("compared", {})[other.name] = other_record
    return EncoderChoice(trained, untrained, record, compared)


def _slug(name: str) -> str:
    return name.replace("/", "-").replace("+", "_")


def _trained_on(
    data: TrainingQueries,
    release: Release,
    settings: RatedConfig,
    final: Path,
    seed: int,
    cache_dir: Path | None,
    untrained: DenseRetriever,
    name: str = "RATED (Full)",
) -> tuple[DenseRetriever, dict]:
    """The encoder trained on ``data`` into ``final`` (the grid's best on the selection queries), reused when
    ``final`` holds one trained on the same release, seed, source and settings."""
    train = settings.train
    selection = selection_queries(release, settings, data.name)
    # the compared sources are other models' business: adding one does not retrain this one
    wanted = {"release": release.version, "seed": seed, "source": data.name,
              "selection": selection.name if selection else None,
              "train": train.model_dump(mode="json", exclude={"compare_sources", "compare_validation"})}  # fmt: skip
    record_path = final / TRAIN_RECORD
    if record_path.exists():
        record = json.loads(record_path.read_text())
        if record.get("wanted") == wanted:
            log.info("reusing the trained encoder in %s", final)
            retriever = trained_retriever(final, record["fingerprint"], cache_dir, train, name)
            return retriever.fit(release.corpus), record
    grid = train.grid or [{}]
    candidates: list[dict] = []
    best: tuple[float, TrainedEncoder] | None = None
    for i, overrides in enumerate(grid):
        trial = train.model_copy(update=overrides)
        trained, mrr = _candidate(data, release, trial, final.parent / "models" / str(i), seed, selection,
                                  untrained, cache_dir, choose=len(grid) > 1)  # fmt: skip
        candidates.append({"overrides": overrides, "validation_mrr": mrr, "loss": trained.train_loss})
        log.info("grid %d %s: validation MRR %s", i, overrides, mrr)
        if best is None or (mrr is not None and mrr > best[0]):
            best = (mrr if mrr is not None else float("-inf"), trained)
    assert best is not None
    chosen = best[1]
    shutil.rmtree(final, ignore_errors=True)
    chosen.path.rename(final)
    shutil.rmtree(final.parent / "models", ignore_errors=True)
    record = {
        "wanted": wanted,
        "fingerprint": chosen.fingerprint,
        "source": data.name,
        "settings": chosen.settings,
        "steps": chosen.steps,
        "train_loss": chosen.train_loss,
        "train_queries": len(data),
        "train_pairs": len(data.pairs()),
        "selection": {"queries": selection.name if selection else None, "size": len(selection) if selection else 0},
        "candidates": candidates,
    }
    (final / TRAIN_RECORD).write_text(json.dumps(record, indent=2))
    return trained_retriever(final, chosen.fingerprint, cache_dir, train, name).fit(release.corpus), record


def _candidate(data: TrainingQueries, release: Release, settings: TrainConfig, folder: Path, seed: int,
               selection: QuerySet | None, untrained: DenseRetriever, cache_dir: Path | None,
               choose: bool) -> tuple[TrainedEncoder, float | None]:  # fmt: skip
    """One grid entry trained into ``folder``, with its MRR on ``selection`` (None when nothing is chosen)."""
    if settings.tool_tower == "frozen":
        validate = _frozen_validation(selection, release, untrained)
        trained = train_query_tower(data, untrained.tool_vectors, settings, folder, seed, validate)
        return trained, trained.settings["validation_curve"][trained.settings["best_epoch"]]["validation_mrr"]
    trained = train_encoder(data.pairs(), release.corpus, settings, folder, seed)
    if selection is None or not choose:
        return trained, None
    retriever = trained_retriever(trained.path, trained.fingerprint, cache_dir, settings).fit(release.corpus)
    return trained, evaluate(retriever.score(selection.texts), selection, release.corpus)["mrr"]


def _frozen_validation(selection: QuerySet | None, release: Release, untrained: DenseRetriever):
    """The query tower's MRR on ``selection`` against the frozen tool vectors (0 when there is nothing to check)."""

    def validate(model) -> float:
        if selection is None:
            return 0.0
        model.eval()
        # batch by batch, longest first as one encode call batches them, so the count moves: 274 long workflow texts
        # took 35 s on 2 cores with no line before the training's first step (benchmarks/rated_cold.py)
        texts = selection.texts
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors = np.zeros((len(texts), untrained.tool_vectors.shape[1]), dtype=np.float32)
        with context.phase("query tower: embed the validation queries", len(texts)) as embedding:
            for start in range(0, len(order), VALIDATION_BATCH):
                rows = order[start : start + VALIDATION_BATCH]
                vectors[rows] = model.encode([texts[i] for i in rows], batch_size=VALIDATION_BATCH,
                                             normalize_embeddings=True, convert_to_numpy=True,
                                             show_progress_bar=False)  # fmt: skip
                embedding.advance(len(rows))
        return evaluate(vectors @ untrained.tool_vectors.T, selection, release.corpus)["mrr"]

    return validate


def static_query_encoder(release: Release, settings: RatedConfig, trained: DenseRetriever, model: Path,
                         fingerprint: str) -> dict | None:  # fmt: skip
    """The trained query tower distilled into a static query encoder in ``<model>/static-query-encoder/`` (the
    selector's default,
    ``selector/encoders.py``), made once per tower weights; its record, or None when ``rated.static_query_encoder``
    is off or the tool tower was trained (a static query side needs the frozen tools' space).

    Fitted on query-sized word windows of the tool texts and the release's train and validation query texts (no label),
    each landing where the tower puts it (``ecoagent/retrieval/embedding/static.py``).
    """
    from ecoagent.retrieval.embedding.static import build_static, fit_queries, static_record, write_static_record

    if not settings.static_query_encoder or settings.train.tool_tower != "frozen":
        return None
    folder = model / RATED_FILES.static_query_encoder
    if (made := static_record(folder)) is not None and made.get("fingerprint") == fingerprint:
        return made

    def targets(texts: list[str]) -> np.ndarray:
        return trained.encode_queries(texts, phase="static query encoder: the fitting texts by the tower")

    started = time.monotonic()
    partial = folder.with_name(f".{folder.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    fitted = build_static(model, partial, release.corpus.documents, targets, fit_queries(release),
                          whole_documents=False)  # fmt: skip
    record = {"fingerprint": fingerprint, "fitted_on_texts": fitted, "seconds": round(time.monotonic() - started, 1)}
    write_static_record(partial, record)
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return record
