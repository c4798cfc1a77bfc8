"""Fine-tune the RATED query tower against the frozen tool vectors: InfoNCE over the whole catalog.

The paper's contrastive objective (Section 3.2, tau = 1 / ``scale``) with the catalog itself as the negatives: for a
query ``q`` with positives ``P`` and excluded tools ``E`` (its positives and acceptable alternatives),

    L(q) = 1/|P| * sum_{p in P} [ log sum_{t not in E, or t = p} exp(scale * cos(q, t)) - scale * cos(q, p) ]

so every required tool is a positive, no alternative is ever pushed away, and every other tool of the catalog (not
only the batch's) is a negative. The tool side stays the untrained encoder's vectors (``rated.train.tool_tower:
frozen``): the catalog is embedded once and shared with the MiniLM baseline and the selector, and an epoch costs only
the queries' forward and backward passes, so each epoch is checked on the validation queries and the best epoch is
kept (early stopping after ``rated.train.patience`` epochs without a gain).
"""

from __future__ import annotations

import copy
import logging
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ecoagent.runtime import context
from rated.settings import TrainConfig
from rated.train import TrainedEncoder, build_query_tower, fingerprint, pick_device
from rated.training_data import TrainingQueries

log = logging.getLogger(__name__)

Validation = Callable[[object], float]  # the model in training -> validation MRR


def catalog_infonce(query_vectors, tool_vectors, positives: list[list[int]], excluded: list[list[int]],
                    scale: float):  # fmt: skip
    """The loss above, averaged over the batch's queries (torch tensors in, a scalar tensor out)."""
    import torch

    logits = scale * query_vectors @ tool_vectors.T
    columns = torch.arange(logits.shape[1], device=logits.device)
    losses = []
    for row, (rows_positive, rows_excluded) in enumerate(zip(positives, excluded, strict=True)):
        masked = logits[row].index_fill(0, torch.as_tensor(rows_excluded, device=logits.device), float("-inf"))
        per_positive = [torch.logsumexp(torch.where(columns == p, logits[row], masked), 0) - logits[row, p]
                        for p in rows_positive]  # fmt: skip
        losses.append(torch.stack(per_positive).mean())
    return torch.stack(losses).mean()


def train_query_tower(data: TrainingQueries, tool_vectors: np.ndarray, settings: TrainConfig, out_dir: Path,
                      seed: int, validate: Validation) -> TrainedEncoder:  # fmt: skip
    """Fine-tune a fresh query encoder on ``data`` against ``tool_vectors`` and save the best epoch to ``out_dir``."""
    import torch

    torch.manual_seed(seed)
    device = pick_device(settings.device)
    model = build_query_tower(settings, device=device)
    tools = torch.as_tensor(tool_vectors, dtype=torch.float32, device=device)
    batches_per_epoch = max(1, -(-len(data) // settings.batch_size))
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    warmup = round(settings.warmup_steps * batches_per_epoch * settings.epochs) if settings.warmup_steps < 1 \
        else int(settings.warmup_steps)  # fmt: skip
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / max(1, warmup)))
    curve = [{"epoch": 0, "validation_mrr": validate(model)}]
    best = (curve[0]["validation_mrr"], 0, copy.deepcopy(model.state_dict()))
    rng = np.random.default_rng(seed)
    epochs = int(np.ceil(settings.epochs))
    with context.phase("train the RATED query tower (steps)", batches_per_epoch * epochs) as training:
        for epoch in range(1, epochs + 1):
            loss = _epoch(model, data, tools, settings, optimizer, schedule, rng, training)
            curve.append({"epoch": epoch, "train_loss": round(loss, 6), "validation_mrr": validate(model)})
            log.info("query tower epoch %d: loss %.4f, validation MRR %.4f", epoch, loss, curve[-1]["validation_mrr"])
            if curve[-1]["validation_mrr"] > best[0]:
                best = (curve[-1]["validation_mrr"], epoch, copy.deepcopy(model.state_dict()))
            elif epoch - best[1] >= settings.patience:
                training.update(batches_per_epoch * epochs, batches_per_epoch * epochs)
                break
    model.load_state_dict(best[2])
    _save(model, out_dir)
    chosen = {k: getattr(settings, k) for k in ("epochs", "batch_size", "learning_rate", "warmup_steps", "scale")}
    run = {"tool_tower": "frozen", "device": device, "queries": len(data), "source": data.name}
    return TrainedEncoder(
        path=out_dir,
        settings={**chosen, **run, "best_epoch": best[1], "validation_curve": curve},
        steps=best[1] * batches_per_epoch,
        train_loss=next((c["train_loss"] for c in curve if c["epoch"] == best[1] and "train_loss" in c), None),
        fingerprint=fingerprint(out_dir),
    )


def _epoch(model, data: TrainingQueries, tools, settings: TrainConfig, optimizer, schedule, rng, training) -> float:
    """One pass over ``data`` in a seeded order; the mean training loss."""
    import torch
    from sentence_transformers.util import batch_to_device

    model.train()
    losses = []
    order = rng.permutation(len(data))
    for start in range(0, len(order), settings.batch_size):
        batch = order[start : start + settings.batch_size]
        features = batch_to_device(model.preprocess([data.texts[i] for i in batch]), tools.device)
        queries = torch.nn.functional.normalize(model(features)["sentence_embedding"], dim=1)
        loss = catalog_infonce(queries, tools, [data.positives[i] for i in batch], [data.excluded[i] for i in batch],
                               settings.scale)  # fmt: skip
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        losses.append(float(loss.detach()))
        training.advance()
    return float(np.mean(losses))


def _save(model, out_dir: Path) -> None:
    """Save under a temporary name, then rename: a half-written model folder never has the final name."""
    tmp = out_dir.with_name(out_dir.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save(str(tmp))
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)
