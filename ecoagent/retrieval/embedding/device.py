"""Where a model runs: the ``embedding.device`` and ``rated.train.device`` settings resolved to cpu or cuda."""

from __future__ import annotations

from ecoagent.retrieval.embedding.models import ModelUnavailable


def resolve_device(setting: str) -> str:
    """``auto`` -> ``cuda`` when a GPU is visible, else ``cpu``; ``cpu`` / ``cuda`` as they are (``embedding.device``,
    ``rated.train.device``)."""
    if setting not in ("auto", "cpu", "cuda"):
        raise ModelUnavailable(f"device {setting!r}: expected auto, cpu or cuda (embedding.device, rated.train.device)")
    if setting != "auto":
        return setting
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
