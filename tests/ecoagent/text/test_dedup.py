"""Behaviour of ecoagent.text.dedup.near_duplicates: LSH candidates, exact verification, clusters, survivors."""

from __future__ import annotations

import random

import pytest
from datasketch import MinHash
from datasketch.hashfunc import sha1_hash32

from ecoagent.text.dedup import jaccard, lsh_params, near_duplicates, shingles


def words(*ids: int | str) -> str:
    return " ".join(f"w{i}" for i in ids)


def test_shingles_are_lowercased_word_unigram_sets() -> None:
    assert shingles("Find cheap   flights, find CHEAP hotels?") == {"find", "cheap", "flights", "hotels"}
    assert shingles("") == set()
    assert shingles("?! ...") == set()


def test_planted_near_duplicates_are_removed() -> None:
    base = [words(*range(k * 100, k * 100 + 10)) for k in range(5)]
    # One substitution in 10 words: J = 9/11 ~ 0.82.
    dup = base[2].replace("w209", "zzz")
    assert jaccard(shingles(base[2]), shingles(dup)) > 0.7
    result = near_duplicates([*base, dup])
    assert result.keep == [True] * 5 + [False]
    assert result.duplicate_of == [None] * 5 + [2]
    assert result.cluster == [0, 1, 2, 3, 4, 2]
    assert result.pairs_confirmed == 1


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (words(*range(10)), words(*range(8), "x1", "x2"), 8 / 12),  # 0.667
        (words(*range(13)), words(*range(10), "x1", "x2", "x3"), 10 / 16),  # 0.625
        (words(*range(8)), words(*range(7), "x1", "x2"), 7 / 10),  # exactly 0.7: not *above* it
    ],
)
def test_pairs_at_or_just_below_threshold_are_kept(a: str, b: str, expected: float) -> None:
    assert jaccard(shingles(a), shingles(b)) == pytest.approx(expected)
    # num_perm=4 gives one-row bands, so these overlapping pairs are certainly LSH candidates.
    result = near_duplicates([a, b], num_perm=4)
    assert result.pairs_checked == 1
    assert result.pairs_confirmed == 0
    assert result.keep == [True, True]
    assert result.cluster == [0, 1]


def test_false_lsh_candidates_are_never_dropped() -> None:
    # Every text shares the same 5 words with every other and has 5 of its own: J = 5/15 = 0.33.
    common = list(range(5))
    texts = [words(*common, *range(100 * k, 100 * k + 5)) for k in range(1, 31)]
    result = near_duplicates(texts, num_perm=4)
    assert lsh_params(0.7, 4) == (4, 1)
    assert result.pairs_checked > 100  # LSH proposed many spurious pairs...
    assert result.pairs_confirmed == 0  # ...and exact verification rejected all of them
    assert all(result.keep)
    assert result.cluster == list(range(30))


def test_clusters_are_transitive() -> None:
    a = words(*range(10))
    b = words(*range(9), "x1")  # J(a, b) = 9/11
    c = words(*range(8), "x1", "x2")  # J(b, c) = 9/11, J(a, c) = 8/12 <= 0.7
    unrelated = words(*range(50, 60))
    assert jaccard(shingles(a), shingles(c)) <= 0.7
    result = near_duplicates([c, unrelated, a, b], num_perm=4)
    assert result.cluster == [0, 1, 0, 0]
    assert result.keep == [True, True, False, False]
    assert result.duplicate_of == [None, None, 0, 0]
    assert result.pairs_confirmed == 2


def test_survivor_follows_order_and_is_deterministic() -> None:
    a, b, c = words(*range(10)), words(*range(9), "x1"), words(*range(10), "x2")
    texts = [a, b, c, words(*range(40, 50))]
    # Smallest order key survives (e.g. a quality-rank), regardless of position.
    result = near_duplicates(texts, order=[5.0, 1.0, 3.0, 0.0])
    assert result.keep == [False, True, False, True]
    assert result.duplicate_of == [1, None, 1, None]
    assert result.cluster == [1, 1, 1, 3]
    # Tied keys fall back to the smaller index.
    assert near_duplicates(texts, order=["b", "a", "a", "z"]).cluster == [1, 1, 1, 3]
    # Default order: first occurrence survives. Other seeds change the hashing, not the answer.
    results = [near_duplicates(texts, seed=seed) for seed in (1, 2, 3)]
    assert all(r.cluster == [0, 0, 0, 3] for r in results)
    assert all(r == results[0] for r in results)


def test_exact_duplicates_are_grouped_before_lsh() -> None:
    texts = ["Find cheap flights", "find  cheap flights!", "FIND CHEAP FLIGHTS", "book a hotel", "", "?!"]
    result = near_duplicates(texts)
    assert result.keep == [True, False, False, True, True, False]
    assert result.duplicate_of == [None, 0, 0, None, None, 4]
    assert result.cluster == [0, 0, 0, 3, 4, 4]
    assert result.pairs_checked == 0  # identical sets never reach LSH


def test_empty_input() -> None:
    result = near_duplicates([])
    assert (result.keep, result.duplicate_of, result.cluster) == ([], [], [])
    assert (result.pairs_checked, result.pairs_confirmed) == (0, 0)


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="threshold"):
        near_duplicates(["a"], threshold=1.0)
    with pytest.raises(ValueError, match="order"):
        near_duplicates(["a", "b"], order=[1])


def test_lsh_params_are_recall_first() -> None:
    b, r = lsh_params(0.7, 128)
    assert (b, r) == (25, 5)
    assert (1 - 0.7**r) ** b <= 0.02  # miss probability of a pair exactly at the threshold


def test_signatures_match_datasketch_default_hashing() -> None:
    # dedup hashes each word once with sha1_hash32 and feeds integers through an identity hashfunc;
    # that must give the same signature as MinHash's default path over the UTF-8 words.
    tokens = sorted(shingles("how do I parse a csv file with pandas quickly"))
    plain = MinHash(num_perm=128, seed=1)
    plain.update_batch([t.encode("utf-8") for t in tokens])
    cached = MinHash(num_perm=128, seed=1, hashfunc=lambda v: v)
    cached.update_batch([sha1_hash32(t.encode("utf-8")) for t in tokens])
    assert (plain.hashvalues == cached.hashvalues).all()


def test_matches_exact_clustering_on_a_small_corpus() -> None:
    rng = random.Random(3)
    vocab = [f"v{i}" for i in range(300)]
    texts = [" ".join(rng.choices(vocab, k=rng.randint(5, 25))) for _ in range(250)]
    for _ in range(60):  # planted edits at rates on both sides of the threshold
        doc = texts[rng.randrange(250)].split()
        for _ in range(max(1, round(rng.uniform(0, 0.4) * len(doc)))):
            doc[rng.randrange(len(doc))] = rng.choice(vocab)
        texts.append(" ".join(doc))
    sets = [shingles(t) for t in texts]
    n = len(texts)
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for i in range(n):
        for j in range(i + 1, n):
            if jaccard(sets[i], sets[j]) > 0.7:
                parent[find(i)] = find(j)
    exact = {find(i) for i in range(n)}
    result = near_duplicates(texts)
    assert sum(result.keep) == len(exact)
    for i in range(n):
        for j in range(i + 1, n):
            assert (result.cluster[i] == result.cluster[j]) == (find(i) == find(j))
