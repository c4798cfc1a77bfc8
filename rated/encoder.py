"""Train the RATED encoder once per (release, settings) and pick the best of the grid on validation.

The chosen model lives in ``<out>/model`` with ``rated_train.json`` beside its weights; a rerun with the
same release version, seed and settings reuses it (training is the long step of ``ecoagent rated``).
Each grid candidate is trained into ``<out>/models/<i>`` and scored (MRR) on the selection queries;
the losers are deleted.
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from ecoagent.layout import RATED_FILES
from ecoagent.release_format.reader import QuerySet, Release, query_set, training_pairs
from ecoagent.retrieval.rankers import DenseRetriever
from rated.offline import evaluate
from rated.settings import RatedConfig
from rated.train import TrainedEncoder, save_untrained, train_encoder

log = logging.getLogger(__name__)

TRAIN_RECORD = RATED_FILES.train_record


@dataclass(frozen=True)
class EncoderChoice:
    trained: DenseRetriever  # RATED (Full)'s semantic stage
    untrained: DenseRetriever  # RATED (w/o Contrastive)
    record: dict  # settings, selection set, every candidate's validation MRR, loss, steps


def selection_queries(release: Release, config: RatedConfig) -> QuerySet | None:
    """Real validation (the paper), joined with Syn validation when Real validation is too small to choose on."""
    real = release.queries("real/validation")
    if real is not None and len(real) >= config.min_stream_queries:
        return real
    return query_set(release, "real/validation+syn/validation")


def trained_retriever(
    path: Path, fingerprint: str, cache_dir: Path | None, name: str = "RATED (Full)", device: str = "cpu"
) -> DenseRetriever:
    # the weights' fingerprint keys the vector cache: a retrained model never reuses stale vectors
    cache = cache_dir / f"trained-{fingerprint}" if cache_dir else None
    return DenseRetriever(name, str(path), cache_dir=cache, device=device)


def choose_encoder(
    release: Release, config: RatedConfig, out_dir: Path, seed: int, cache_dir: Path | None
) -> EncoderChoice:
    train = config.train
    # a shared encoder is named by its spec, so its vectors are the same cache entries as the baseline's
    untrained_spec = str(save_untrained(train, out_dir / "model-untrained")) if train.tool_encoder else train.encoder
    untrained = DenseRetriever("RATED (w/o Contrastive)", untrained_spec, cache_dir=cache_dir,
                               device=train.device).fit(release.corpus)  # fmt: skip
    grid = train.grid or [{}]
    wanted = {"release": release.version, "seed": seed, "train": train.model_dump(mode="json")}
    final = out_dir / RATED_FILES.model_folder
    record_path = final / TRAIN_RECORD
    if record_path.exists():
        record = json.loads(record_path.read_text())
        if record.get("wanted") == wanted:
            log.info("reusing the trained encoder in %s", final)
            retriever = trained_retriever(final, record["fingerprint"], cache_dir, device=train.device)
            retriever.fit(release.corpus)
            return EncoderChoice(retriever, untrained, record)

    pairs = training_pairs(release)
    selection = selection_queries(release, config)
    candidates: list[dict] = []
    best: tuple[float, TrainedEncoder] | None = None
    for i, overrides in enumerate(grid):
        trained = train_encoder(pairs, release.corpus, train, out_dir / "models" / str(i), seed, overrides)
        retriever = trained_retriever(trained.path, trained.fingerprint, cache_dir, device=train.device)
        retriever.fit(release.corpus)
        mrr = None
        if selection is not None and len(grid) > 1:
            mrr = evaluate(retriever.score(selection.texts), selection, release.corpus)["mrr"]
        candidates.append({"overrides": overrides, "validation_mrr": mrr, "loss": trained.train_loss})
        log.info("grid %d %s: validation MRR %s", i, overrides, mrr)
        if best is None or (mrr is not None and mrr > best[0]):
            best = (mrr if mrr is not None else float("-inf"), trained)
    assert best is not None
    chosen = best[1]
    shutil.rmtree(final, ignore_errors=True)
    chosen.path.rename(final)
    shutil.rmtree(out_dir / "models", ignore_errors=True)
    record = {
        "wanted": wanted,
        "fingerprint": chosen.fingerprint,
        "settings": chosen.settings,
        "steps": chosen.steps,
        "train_loss": chosen.train_loss,
        "train_pairs": len(pairs),
        "selection": {"queries": selection.name if selection else None, "size": len(selection) if selection else 0},
        "candidates": candidates,
    }
    (final / TRAIN_RECORD).write_text(json.dumps(record, indent=2))
    retriever = trained_retriever(final, chosen.fingerprint, cache_dir, device=train.device).fit(release.corpus)
    return EncoderChoice(retriever, untrained, record)
