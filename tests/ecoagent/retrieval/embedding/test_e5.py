def test_e5_vectors_do_not_depend_on_the_batch_they_were_embedded_in(tmp_path):
    # what lets E5Embedder use large batches (E5_BATCH_SIZE) without changing any stage's output
    from ecoagent.retrieval.embedding.e5 import E5Embedder

    texts = ["search the web for news", "send an email to the team", "x", "list every open invoice from last month"]
    one_batch = E5Embedder(None, "query").encode(texts)
    small = E5Embedder(None, "query")
    small.batch_size = 1
    assert one_batch.tobytes() == small.encode(texts).tobytes()


def test_e5_batch_split_across_threads_gives_the_same_bytes_as_one_call():
    # _E5Model._embed runs parts of a batch side by side on one engine thread each when two cores are free
    from ecoagent.retrieval.embedding.e5 import _e5, _E5Model

    who = ("the team", "a customer who wrote last week about a failed payment")
    texts = [f"{verb} the {thing} of {w}" for verb in ("find", "delete", "summarize") for thing in ("invoice", "ticket")
             for w in who]  # fmt: skip
    model = _E5Model(_e5(), "passage")
    split = model._embed(texts, threads=2)
    assert split.tobytes() == model._embed(texts, threads=1).tobytes()
    assert split.shape == (len(texts), 384)
