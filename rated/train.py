"""Contrastive fine-tuning of the RATED dual encoder on EcoAgent-Syn (the paper's Section 3.2).

In-batch InfoNCE (sentence-transformers' ``MultipleNegativesRankingLoss``: cosine similarity times
``scale`` = 1/tau, 20 = the paper's tau 0.05) over (query, positive tool, hard negative tool) triples
from the Syn train split; every other tool in the batch is a negative too, and the batch sampler
keeps duplicates out of a batch so a positive never counts as another query's negative.

Two shapes of encoder (``rated.train`` in the config):

- **shared** (the CPU default): one sentence-transformers model (the packaged MiniLM) embeds both
  queries and tools;
- **asymmetric** (production): ``tool_encoder`` set, e.g. ``facebook/dragon-plus-query-encoder`` and
  ``facebook/dragon-plus-context-encoder``, each a Transformer with CLS pooling, joined by a
  ``Router`` so queries and tools go through their own weights (the paper's f_Q and f_T).

The device is picked by ``rated.train.device`` (auto: CUDA when present, with bf16 mixed precision).
Hyperparameters listed in ``rated.train.grid`` are tried in turn and the model with the best MRR on
the validation queries is kept (the paper tunes on Real validation).
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ecoagent.release_format.reader import Corpus, TrainingPairs
from ecoagent.retrieval.embedding.models import resolve_model_path
from ecoagent.runtime import context
from rated.settings import TrainConfig

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformerTrainingArguments

    from ecoagent.runtime.context import Phase

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainedEncoder:
    path: Path  # a sentence-transformers model folder
    settings: dict  # the hyperparameters it was trained with
    steps: int
    train_loss: float | None
    fingerprint: str  # hash of the weights: keys the embedding cache of this model


def pick_device(setting: str) -> str:
    from ecoagent.retrieval.embedding.device import resolve_device

    return resolve_device(setting)


def build_encoder(settings: TrainConfig, device: str = "cpu"):
    """The untrained dual encoder (= RATED w/o Contrastive)."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules

    if not settings.tool_encoder:
        model = SentenceTransformer(resolve_model_path(settings.encoder, "rated.train.encoder"), device=device)
        model.max_seq_length = settings.max_length
        return model

    router = modules.Router.for_query_document(
        query_modules=_cls_tower(settings.encoder, "rated.train.encoder", settings.max_length),
        document_modules=_cls_tower(settings.tool_encoder, "rated.train.tool_encoder", settings.max_length),
    )
    return SentenceTransformer(modules=[router], device=device)


def build_query_tower(settings: TrainConfig, device: str = "cpu"):
    """The untrained query encoder alone: the shared encoder, or an asymmetric pair's query tower (CLS pooling)."""
    from sentence_transformers import SentenceTransformer

    if not settings.tool_encoder:
        return build_encoder(settings, device)
    return SentenceTransformer(modules=_cls_tower(settings.encoder, "rated.train.encoder", settings.max_length),
                               device=device)  # fmt: skip


def _cls_tower(spec: str, setting: str, max_length: int) -> list:
    from sentence_transformers.sentence_transformer import modules

    transformer = modules.Transformer(resolve_model_path(spec, setting), max_seq_length=max_length)
    return [transformer, modules.Pooling(transformer.get_embedding_dimension(), pooling_mode="cls")]


def fingerprint(folder: Path) -> str:
    """sha256 over the weight files of a saved model, so a retrained model never reuses cached vectors."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.safetensors")) or sorted(folder.rglob("*.bin")):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _dataset(pairs: TrainingPairs, corpus: Corpus, hard_negatives: bool):
    from datasets import Dataset

    documents = corpus.documents
    columns: dict[str, list[str]] = {
        "anchor": list(pairs.queries),
        "positive": [documents[p] for p in pairs.positives],
    }
    if hard_negatives and pairs.negatives and all(pairs.negatives):
        columns["negative"] = [documents[n[0]] for n in pairs.negatives]
    elif hard_negatives:
        log.warning("some Syn train queries have no negative: training on in-batch negatives only")
    return Dataset.from_dict(columns)


def _counting_steps(training: Phase):
    """A trainer callback counting the optimizer steps into the phase ``training``."""
    from transformers import TrainerCallback

    class CountSteps(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            training.update(state.global_step, state.max_steps)

    return CountSteps()


def train_encoder(
    pairs: TrainingPairs,
    corpus: Corpus,
    settings: TrainConfig,
    out_dir: Path,
    seed: int,
    overrides: dict | None = None,
) -> TrainedEncoder:
    """Fine-tune a fresh encoder on ``pairs`` with ``settings`` (+ ``overrides``) and save it to ``out_dir``."""
    from sentence_transformers import SentenceTransformerTrainer
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    settings = settings.model_copy(update=overrides or {})
    device = pick_device(settings.device)
    model = build_encoder(settings, device=device)
    dataset = _dataset(pairs, corpus, settings.hard_negatives)
    total_steps, warmup_steps = _step_counts(settings, len(dataset))
    work = out_dir.with_name(out_dir.name + ".work")
    shutil.rmtree(work, ignore_errors=True)
    args = _training_arguments(settings, work, device, seed, total_steps, warmup_steps)
    with context.phase("train the RATED encoder (steps)", total_steps) as training:
        trainer = SentenceTransformerTrainer(
            model=model,
            args=args,
            train_dataset=dataset,
            loss=MultipleNegativesRankingLoss(model, scale=settings.scale),
            callbacks=[_counting_steps(training)],
        )
        result = trainer.train()
    tmp = out_dir.with_name(out_dir.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save(str(tmp))
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)  # a half-written model folder is never left under the final name
    shutil.rmtree(work, ignore_errors=True)
    chosen = {k: getattr(settings, k) for k in ("epochs", "batch_size", "learning_rate", "warmup_steps", "scale")}
    return TrainedEncoder(
        path=out_dir,
        settings={**chosen, "warmup_steps_resolved": warmup_steps, "device": device, "pairs": len(dataset)},
        steps=int(result.global_step),
        train_loss=float(result.training_loss) if result.training_loss is not None else None,
        fingerprint=fingerprint(out_dir),
    )


def _step_counts(settings: TrainConfig, pairs: int) -> tuple[int, int]:
    """The optimizer steps of the whole run, and its warmup steps (``warmup_steps`` below 1 is a share of them)."""
    steps_per_epoch = max(1, -(-pairs // settings.batch_size))
    total_steps = max(1, round(steps_per_epoch * settings.epochs))
    warmup = settings.warmup_steps
    warmup_steps = round(warmup * total_steps) if warmup < 1 else int(warmup)
    return total_steps, warmup_steps


def _training_arguments(
    settings: TrainConfig, work: Path, device: str, seed: int, total_steps: int, warmup_steps: int
) -> SentenceTransformerTrainingArguments:
    """The trainer's arguments: seeded, no checkpoints, batches without duplicates, bf16 on CUDA."""
    from sentence_transformers import SentenceTransformerTrainingArguments
    from sentence_transformers.base.sampler import BatchSamplers

    return SentenceTransformerTrainingArguments(
        output_dir=str(work),
        num_train_epochs=settings.epochs,
        per_device_train_batch_size=settings.batch_size,
        learning_rate=settings.learning_rate,
        warmup_steps=warmup_steps,
        seed=seed,
        data_seed=seed,
        bf16=device == "cuda",
        use_cpu=device == "cpu",
        batch_sampler=BatchSamplers.NO_DUPLICATES,
        router_mapping={"anchor": "query", "positive": "document", "negative": "document"}
        if settings.tool_encoder
        else {},
        save_strategy="no",
        logging_steps=max(1, total_steps // 10),
        report_to="none",
        disable_tqdm=True,
    )


def save_untrained(settings: TrainConfig, out_dir: Path) -> Path:
    """Save the untrained encoder (an asymmetric one must be assembled before it can be loaded by path)."""
    if not settings.tool_encoder:
        return Path(resolve_model_path(settings.encoder, "rated.train.encoder"))
    if not (out_dir / "modules.json").exists():
        tmp = out_dir.with_name(out_dir.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        build_encoder(settings).save(str(tmp))
        shutil.rmtree(out_dir, ignore_errors=True)
        tmp.rename(out_dir)
    return out_dir
