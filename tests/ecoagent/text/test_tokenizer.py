import pytest

from ecoagent.text.tokenizer import GEMMA_GGUF, TokenizerUnavailable, load_tokenizer


@pytest.fixture(scope="module")
def gemma(tmp_path_factory):
    # the real Gemma 3 tokenizer, read out of the packaged GGUF (converted once, then cached)
    from ecoagent.config import load_config

    cfg = load_config(environ={})
    return load_tokenizer(GEMMA_GGUF, cfg.resolve_path(cfg.score.tokenizer_cache))


def test_gemma_tokenizer_counts_real_tokens(gemma):
    text = '{"type": "function", "function": {"name": "slack_send", "description": "Send a message"}}'
    ids = gemma.encode(text, add_special_tokens=False).ids
    assert 10 < len(ids) < len(text) / 2
    assert gemma.get_vocab_size() == 262144  # Gemma 3's vocabulary, not a stand-in


def test_tokenizer_json_path_and_offline_error(gemma, tmp_path, monkeypatch):
    path = tmp_path / "tokenizer.json"
    gemma.save(str(path))
    assert load_tokenizer(str(path), tmp_path).encode("hello world").ids == gemma.encode("hello world").ids
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(TokenizerUnavailable, match=r"score\.tokenizer"):
        load_tokenizer("google/gemma-3-1b-it", tmp_path)
