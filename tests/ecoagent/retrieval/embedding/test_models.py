import pytest

from ecoagent.retrieval.embedding.models import ModelUnavailable, resolve_model_path


def test_offline_hub_name_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailable, match=r"score\.embedder"):
        resolve_model_path("BAAI/bge-m3", "score.embedder")


def test_missing_package_names_the_setting():
    with pytest.raises(ModelUnavailable, match=r"pip install no-such-model-pkg"):
        resolve_model_path("package:no-such-model-pkg", "score.embedder")


def test_a_missing_folder_is_named_and_never_asked_of_the_hub(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # online, a path still never goes to the hub
    with pytest.raises(ModelUnavailable, match=r"--dense-model=.*no such model folder.*--dense-model"):
        resolve_model_path(str(tmp_path / "rated" / "model"), "--dense-model")
