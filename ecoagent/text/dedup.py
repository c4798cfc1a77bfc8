"""Near-duplicate grouping of short texts (Syn queries, Real queries, split groups): union-find, MinHash LSH
candidates, exact Jaccard verification.

Two queries are near-duplicates when the Jaccard similarity of their shingle sets is strictly above
``threshold`` (the paper: "above 0.7"). Finding every such pair exactly is quadratic, so
:func:`near_duplicates` works in three steps:

1. Exact duplicates (identical shingle sets, J = 1) are grouped with a dict; only one set per group
   goes further. This is cheap and keeps the LSH buckets free of copies.
2. datasketch's ``MinHashLSH`` proposes candidate pairs. Its banding is chosen *generously* (see
   :func:`lsh_params`): at the default 0.7 the stock optimiser misses a few percent of the true pairs,
   all close to the threshold, whereas here a pair sitting exactly at the threshold is missed with
   probability at most ~2 % and pairs further above it much less often.
3. Every candidate is verified with the exact Jaccard of the shingle sets, so a spurious LSH candidate
   is never dropped; the generous banding costs only extra (cheap) verifications.

Confirmed pairs are joined with union-find; each connected component is a cluster, and its survivor
is the member with the smallest ``order`` key (then the smallest index), so the result depends only on
the input and not on hashing or iteration order. The synth and label stages drop the non-survivors; the
splitter (:mod:`ecoagent.text.splits`) and the release build use ``cluster`` to keep near-duplicates in the
same split, which is why it is computed for every item, kept or not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from datasketch import MinHash, MinHashLSH
from datasketch.hashfunc import sha1_hash32

# Miss probability allowed for a pair whose Jaccard sits exactly at the threshold. Pairs above it are
# missed far less often (about 0.1 % at J = threshold + 0.05 for the defaults), so overall recall of
# true pairs stays above 99 % even when many of them sit just above the threshold.
_MAX_MISS_AT_THRESHOLD = 0.02

_WORD = re.compile(r"\w+")


@dataclass
class DedupResult:
    """Outcome of :func:`near_duplicates`; every list has one entry per input text, in input order."""

    keep: list[bool]
    # Index of the surviving member of the item's cluster for dropped items, else None. In a chain
    # a~b~c the survivor need not itself be above the threshold with every dropped member; each dropped
    # member does have at least one confirmed partner in its cluster.
    duplicate_of: list[int | None]
    # Cluster id = index of the cluster's survivor; singletons carry their own index.
    cluster: list[int]
    # Distinct LSH candidate pairs among distinct shingle sets that were verified, and those verified
    # above the threshold. Exact duplicates (identical sets) are grouped before LSH and not counted.
    pairs_checked: int
    pairs_confirmed: int


class DisjointSets:
    """Union-find over hashable items; the smallest item of a set represents it, so results are stable."""

    def __init__(self, items: Iterable[Any] = ()):
        self.parent: dict[Any, Any] = {x: x for x in items}

    def find(self, x: Any) -> Any:
        parent = self.parent
        root = parent.setdefault(x, x)
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:  # path compression keeps later finds O(1)-ish
            parent[x], x = root, parent[x]
        return root

    def union(self, a: Any, b: Any) -> Any:
        ra, rb = self.find(a), self.find(b)
        if rb < ra:
            ra, rb = rb, ra
        self.parent[rb] = ra
        return ra


def shingles(text: str) -> set[str]:
    """Lower-cased word unigrams of ``text`` (``\\w+`` runs, so punctuation is ignored).

    Unigrams rather than word n-grams because queries are short (5-40 words): in a 6-word query one
    substituted word removes 2 of 5 bigrams but only 1 of 6 unigrams, so bigram Jaccard would call
    obvious paraphrases of short queries distinct. Sets, not multisets: repeated words do not count twice.
    """
    return set(_WORD.findall(text.lower()))


def jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    """Exact Jaccard similarity; two empty sets count as identical (1.0)."""
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def lsh_params(threshold: float, num_perm: int, max_miss: float = _MAX_MISS_AT_THRESHOLD) -> tuple[int, int]:
    """Bands ``b`` and rows ``r`` (``b * r <= num_perm``) for a recall-first LSH at ``threshold``.

    A pair with Jaccard ``s`` becomes a candidate with probability ``1 - (1 - s**r)**b``. We take the
    largest ``r`` (fewest spurious candidates) whose miss probability at ``s = threshold`` is at most
    ``max_miss``. Closed form, so it also avoids the numeric-integration optimiser that MinHashLSH runs
    in its constructor (hundreds of integrals per index). For 0.7 / 128 this gives b=25, r=5.
    """
    if num_perm < 2:
        raise ValueError("num_perm must be at least 2")
    best = (num_perm, 1)
    for r in range(1, num_perm + 1):
        b = num_perm // r
        if b < 2:
            break
        if (1.0 - threshold**r) ** b <= max_miss:
            best = (b, r)
    return best


def near_duplicates(
    texts: Sequence[str],
    threshold: float = 0.7,
    num_perm: int = 128,
    seed: int = 1,
    order: Sequence[Any] | None = None,
) -> DedupResult:
    """Find near-duplicate texts (shingle Jaccard strictly above ``threshold``) and pick one survivor each.

    ``order`` gives one sortable key per text; the survivor of a cluster is the member with the smallest
    key (ties: smallest index). Default: input index, so the first occurrence survives.
    """
    n = len(texts)
    if not 0.0 <= threshold < 1.0:
        # J > 1 is impossible, so threshold >= 1 would silently disable dedup.
        raise ValueError(f"threshold must be in [0, 1), got {threshold}")
    if order is not None and len(order) != n:
        raise ValueError(f"order has {len(order)} keys for {n} texts")

    sets, group = _distinct_shingle_sets(texts)
    components, checked, confirmed = _verified_components(sets, threshold, num_perm, seed)
    cluster = _cluster_survivors(components, group, order if order is not None else range(n))
    keep = [cluster[i] == i for i in range(n)]
    duplicate_of: list[int | None] = [None if keep[i] else cluster[i] for i in range(n)]
    return DedupResult(keep, duplicate_of, cluster, checked, confirmed)


def _distinct_shingle_sets(texts: Sequence[str]) -> tuple[list[frozenset[str]], list[int]]:
    """Step 1: the distinct shingle sets, and for each text the index of its set (exact duplicates share one)."""
    set_ids: dict[frozenset[str], int] = {}
    sets: list[frozenset[str]] = []
    group = [0] * len(texts)
    for i, text in enumerate(texts):
        key = frozenset(shingles(text))
        gid = set_ids.setdefault(key, len(sets))
        if gid == len(sets):
            sets.append(key)
        group[i] = gid
    return sets, group


def _verified_components(
    sets: list[frozenset[str]], threshold: float, num_perm: int, seed: int
) -> tuple[DisjointSets, int, int]:
    """Steps 2-3: the distinct sets joined by every LSH candidate pair verified above ``threshold``, with the
    numbers of pairs checked and confirmed."""
    components = DisjointSets(range(len(sets)))
    # Each candidate pair is yielded once, so nothing is collected or sorted (the candidate count is dominated by
    # low-similarity pairs and can reach millions on 70k queries).
    checked = confirmed = 0
    for a, b in _candidate_pairs(sets, threshold, num_perm, seed):
        checked += 1
        sa, sb = sets[a], sets[b]
        la, lb = len(sa), len(sb)
        # J <= min/max size ratio: an exact, complete filter that skips most set intersections.
        if (la if la < lb else lb) <= threshold * (la if la > lb else lb):
            continue
        inter = len(sa & sb)
        if inter / (la + lb - inter) > threshold:
            confirmed += 1
            components.union(a, b)
    return components, checked, confirmed


def _cluster_survivors(components: DisjointSets, group: list[int], keys: Sequence[Any]) -> list[int]:
    """Each text's cluster id: the member of its component with the smallest (order key, index)."""
    n = len(group)
    survivor: dict[int, int] = {}
    roots = [components.find(group[i]) for i in range(n)]
    for i, root in enumerate(roots):
        best = survivor.get(root)
        if best is None or (keys[i], i) < (keys[best], best):
            survivor[root] = i
    return [survivor[root] for root in roots]


def _identity(value: int) -> int:
    return value


def _candidate_pairs(
    sets: Sequence[frozenset[str]], threshold: float, num_perm: int, seed: int
) -> Iterator[tuple[int, int]]:
    """Yield each LSH candidate pair ``(i, j)`` among the non-empty ``sets`` exactly once."""
    # Hash each distinct word once (queries draw from a small vocabulary) with datasketch's default
    # sha1_hash32, and feed the integers through an identity hashfunc: same signatures as
    # MinHash.update_batch over the UTF-8 words, at a fraction of the hashing cost.
    word_hash: dict[str, int] = {}

    def hashed(words: frozenset[str]) -> list[int]:
        out = []
        for w in words:
            h = word_hash.get(w)
            if h is None:
                h = word_hash[w] = sha1_hash32(w.encode("utf-8"))
            out.append(h)
        return out

    ids = [i for i, s in enumerate(sets) if s]  # the empty set has J = 0 with every non-empty set
    signatures = MinHash.generator((hashed(sets[i]) for i in ids), num_perm=num_perm, seed=seed, hashfunc=_identity)
    lsh = MinHashLSH(num_perm=num_perm, params=lsh_params(threshold, num_perm))
    # Query before insert, streaming: a pair is found once, from its later member, and no signature is
    # kept after its own query/insert (the index stores only band hashes), so memory is the buckets.
    for i, m in zip(ids, signatures, strict=True):
        for key in lsh.query(m):
            yield key, i
        lsh.insert(i, m, check_duplication=False)
