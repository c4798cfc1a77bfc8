"""The release tests run offline, each module with a Hugging Face home of its own: ``datasets`` keys the cache of
a local folder by its name and card, so two modules' releases of one version must not share it."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _offline_hf(request, tmp_path_factory, monkeypatch):
    # Offline and with a private cache, so no test touches the network or ~/.cache/huggingface.
    hf_home = tmp_path_factory.getbasetemp() / f"hf_home_{request.module.__name__.rsplit('.', 1)[-1]}"
    for key, value in {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(hf_home)}.items():
        monkeypatch.setenv(key, value)
