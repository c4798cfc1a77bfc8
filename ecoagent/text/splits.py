"""Leakage-free train/validation/test splits of queries (Real in the label stage, Syn in the release build).

Queries are grouped so that no query text, no near-duplicate cluster, no template family and no paraphrase family
is split across train, validation and test:

* texts are normalized (NFKC, case-folded, punctuation dropped, whitespace collapsed), so case and punctuation
  variants of one query are one text;
* :func:`ecoagent.text.dedup.near_duplicates` clusters the normalized texts (word-unigram Jaccard strictly above
  ``dedup_threshold``, chains a~b~c included); identical normalized texts have identical shingle sets, so they
  always fall in one cluster;
* MinHash LSH can miss a pair sitting right at the threshold (at most ~2 %, see ecoagent.text.dedup), so the clusters
are
  closed with an exact all-pairs join (:func:`similar_pairs`, prefix filtering). The output therefore passes
  :func:`check_no_leakage`, which uses the same exact join and not MinHash, by construction.
* **templates** (:func:`template_pairs`): queries that differ by a number or an entity are one group. Every word
  with a digit is read as one placeholder; two texts are templates of each other when their words, so masked, have
  a Jaccard above ``dedup_threshold`` ("I have 9.5g gold, estimate its value" ~ "I have 18.9g silver, estimate its
  value"), or when they agree word for word but for one span of at most ``TEMPLATE_MAX_SPAN`` words on each side,
  with at least ``TEMPLATE_MIN_COMMON`` shared words making up at least half of the longer text ("find a music
  event in San Diego CA on 05/05/2023" ~ "find a music event in Los Angeles on 04/07/2023"). Text only, so the
  release gate re-checks it.
* **paraphrases** (optional, the label stage passes them): queries the source wrote for the same tools
  (``paraphrase_keys``: the sorted gold tools, None when the source names none) whose embeddings
  (``paraphrase_vectors``, normalized) have a cosine of at least ``paraphrase_min_cosine`` are one group. Chosen on
  BFCL live (1,351 queries with a gold function, MiniLM): at 0.8 and above, same-function pairs are the same request
  reworded or the same template with other entities ("find a music event on March 14th in New York" ~ "a music
  event happening on 09/09/2023 in New York"); between 0.7 and 0.8 they are other requests to the same function
  ("buy a house in San Francisco with a garage" ~ "homes for rent in San Francisco with no garage").
* **identical gold sets** (optional, ``gold_set_keys``, :func:`gold_set_key`): queries of one source whose gold
  sets are identical are one group, whatever their wording. A source that writes several queries for one sampled
  tool set (ToolBench: three queries on the same two APIs, word overlap about 0.45) would otherwise put the same
  task in train and test.

Each group's id is a hash of its smallest normalized text, and its split is a *pure function of (seed, group
id)*: a uniform number drawn from the hash is cut at the cumulative ratios. We chose this over greedy filling by
group size because a group's split then does not depend on which other groups exist: rerunning, or refreshing
the data with more queries, never moves an existing group to another split (which would put former test queries
into a later training set). The price is that the realized ratios are right in expectation, with binomial noise:
for G groups of similar size the share of a split with ratio r deviates by about sqrt(r(1-r)/G) (about 1.3
points for r=0.2 and G=1000). A group's id changes only when a refresh adds a member that sorts first or merges
two groups, and keeping such a merged group together is exactly what leakage-freedom requires.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from ecoagent.text.dedup import DisjointSets, near_duplicates, shingles

if TYPE_CHECKING:
    import numpy as np
    import scipy.sparse as sp

SPLITS = ("train", "validation", "test")
_NON_WORD = re.compile(r"[^\w]+")
# Slack in the prefix length bound: 0.7 * 10 is 7.000000000000001 in floating point, which would make the prefix
# one token too short and lose exact pairs. A longer prefix only costs extra candidates.
_EPS = 1e-9
# templates: the span in which two texts may differ, and the shared words around it (see the module docstring)
TEMPLATE_MAX_SPAN = 3
TEMPLATE_MIN_COMMON = 4
_TEMPLATE_CANDIDATE_JACCARD = 0.3  # one differing span of <= 3 words in >= 4 shared ones keeps J above this
_NUMBER_WORD = "0"
_NUMBER = re.compile(r"\d+[a-z]{0,2}")  # 2023, 05, 5g, 10km, 3pm, 2nd: a number, maybe with a unit


def normalize(text: str | None) -> str:
    """NFKC, case-folded, non-word runs replaced by one space, stripped: case/punctuation variants coincide."""
    folded = unicodedata.normalize("NFKC", text or "").casefold()
    return _NON_WORD.sub(" ", folded).strip()


def _check_ratios(ratios: Sequence[float], setting: str) -> tuple[float, float, float]:
    values = tuple(float(r) for r in ratios)
    if len(values) != 3 or any(not math.isfinite(r) or r < 0 for r in values) or abs(sum(values) - 1.0) > 1e-6:
        raise ValueError(
            f"{setting} must be three non-negative numbers (train, validation, test) summing to 1, "
            f"got {tuple(ratios)}"
        )
    return values  # type: ignore[return-value]


def similar_pairs(sets: Sequence[frozenset[str]], threshold: float) -> list[tuple[int, int, float]]:
    """Every pair ``(i, j, J)`` with ``i < j`` and Jaccard ``J > threshold`` among distinct, non-empty ``sets``,
    ordered by ``j`` then ``i``.

    Exact (no hashing): prefix filtering. With tokens ordered rarest first, two sets with J >= t must share a
    token among the first ``|s| - ceil(t|s|) + 1`` tokens of each, so only sets sharing a prefix token are
    compared. The candidates are checked in batches with sparse-matrix arithmetic: on templated text (paper-scale
    Syn queries share many words) there are hundreds per set, and checking them one by one in Python made the
    release build's grouping quadratic in practice (benchmarks/paper_scale.py, README "Paper scale").
    """
    import numpy as np

    rows, sizes, matrix = _ranked_rows(sets)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    batch_i: list[np.ndarray] = []
    batch_j: list[np.ndarray] = []
    pending = 0
    for j, candidates in _prefix_candidates(rows, threshold):
        batch_i.append(np.fromiter(candidates, dtype=np.int64, count=len(candidates)))
        batch_j.append(np.full(len(candidates), j, dtype=np.int64))
        pending += len(candidates)
        if pending >= 1_000_000:
            found.append(_pairs_above(batch_i, batch_j, sizes, matrix, threshold))
            batch_i, batch_j, pending = [], [], 0
    if batch_i:
        found.append(_pairs_above(batch_i, batch_j, sizes, matrix, threshold))
    if not found:
        return []
    left, right, jac = (np.concatenate(parts) for parts in zip(*found, strict=True))
    order = np.lexsort((left, right))
    return list(zip(left[order].tolist(), right[order].tolist(), jac[order].tolist(), strict=True))


def _ranked_rows(sets: Sequence[frozenset[str]]) -> tuple[list[list[int]], np.ndarray, sp.csr_matrix]:
    """Each set as its token ranks, rarest first; the set sizes; the sets as a sparse 0/1 matrix (one row each)."""
    import numpy as np
    import scipy.sparse as sp

    freq: Counter[str] = Counter(tok for s in sets for tok in s)
    rank = {tok: r for r, tok in enumerate(sorted(freq, key=lambda tok: (freq[tok], tok)))}
    rows = [sorted(rank[tok] for tok in s) for s in sets]
    sizes = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    indices = np.fromiter((tok for r in rows for tok in r), dtype=np.int64, count=int(indptr[-1]))
    matrix = sp.csr_matrix((np.ones(len(indices), dtype=np.int32), indices, indptr), shape=(len(rows), len(rank)))
    return rows, sizes, matrix


def _prefix_candidates(rows: Sequence[list[int]], threshold: float) -> Iterator[tuple[int, set[int]]]:
    """Each row ``j`` with the earlier rows sharing a token of its prefix (the only ones that can reach the
    threshold), when there are any."""
    index: dict[int, list[int]] = defaultdict(list)
    for j, row in enumerate(rows):
        if not row:
            continue
        prefix = row[: len(row) - math.ceil(threshold * len(row) - _EPS) + 1]
        candidates: set[int] = set()
        for tok in prefix:
            candidates.update(index[tok])
            index[tok].append(j)
        if candidates:
            yield j, candidates


def _pairs_above(
    batch_i: list[np.ndarray], batch_j: list[np.ndarray], sizes: np.ndarray, matrix: sp.csr_matrix, threshold: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The candidate pairs of one batch whose Jaccard is above ``threshold``: (left rows, right rows, Jaccard)."""
    import numpy as np

    left, right = np.concatenate(batch_i), np.concatenate(batch_j)
    small, large = np.minimum(sizes[left], sizes[right]), np.maximum(sizes[left], sizes[right])
    keep = small > threshold * large  # J <= small/large: cannot exceed the threshold otherwise
    left, right = left[keep], right[keep]
    inter = np.asarray(matrix[left].multiply(matrix[right]).sum(axis=1)).ravel()
    jac = inter / (sizes[left] + sizes[right] - inter)
    keep = jac > threshold
    return left[keep], right[keep], jac[keep]


def paraphrase_key(gold_tools: Sequence[str] | None) -> str | None:
    """What two paraphrases share in the source: their sorted gold tools; None when the source names none."""
    tools = sorted({t for t in gold_tools or () if t})
    return "\n".join(tools) if tools else None


def _masked(norm: str) -> tuple[str, ...]:
    return tuple(_NUMBER_WORD if _NUMBER.fullmatch(word) else word for word in norm.split())


def masked_word_set(text: str) -> frozenset[str]:
    """The words of a normalized text, every number read as one placeholder (what templates share)."""
    return frozenset(_masked(normalize(text)))


def _one_span_apart(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    longest = max(len(a), len(b))
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    common = prefix + suffix
    return (
        max(len(a), len(b)) - common <= TEMPLATE_MAX_SPAN
        and common >= TEMPLATE_MIN_COMMON
        and common >= longest / 2
    )


def template_pairs(norms: Sequence[str], threshold: float) -> list[tuple[int, int]]:
    """Pairs of rows ``(i, j)``, ``i < j``, whose normalized texts are templates of each other (module docstring).

    The pairs connect every family without listing all its pairs: rows with the same masked text are chained to
    the first such row, and texts one span apart to the first text sharing their words around that span.
    """
    index: dict[tuple[str, ...], int] = {}
    rows_of: list[list[int]] = []
    for row, norm in enumerate(norms):
        seq = _masked(norm)
        k = index.setdefault(seq, len(index))
        if k == len(rows_of):
            rows_of.append([])
        rows_of[k].append(row)
    seqs = list(index)
    sets = [frozenset(q) for q in seqs]
    out = [(rows[0], r) for rows in rows_of for r in rows[1:]]
    linked = [(a, b) for a, b, _ in similar_pairs(sets, threshold)]
    linked += _one_span_links(seqs, sets)
    for a, b in linked:
        i, j = sorted((rows_of[a][0], rows_of[b][0]))
        out.append((i, j))
    return out


def _one_span_links(seqs: Sequence[tuple[str, ...]], sets: Sequence[frozenset[str]]) -> list[tuple[int, int]]:
    """Links between distinct masked texts one span apart whose word sets have a Jaccard above
    ``_TEMPLATE_CANDIDATE_JACCARD``: the same families as comparing every such pair, found in linear time.

    Two texts are one span apart exactly when removing a span of at most ``TEMPLATE_MAX_SPAN`` words at the same
    position from each leaves the same words, at least ``TEMPLATE_MIN_COMMON`` of them (then they also make up
    half of the longer text, as the span is shorter than the minimum). So each text goes into one bucket per
    (position, span length), keyed by what is left, and texts sharing a bucket are one span apart. (Before, every
    pair above that Jaccard was compared: at threshold 0.3 the prefix filter keeps the common words, and the paper
    scale's 53,000 Syn queries took tens of minutes.) Each member is linked to its bucket's first member; a member
    that fails the Jaccard against it is compared with every other member, so the families are the same.
    """
    buckets: dict[int, list[int]] = defaultdict(list)
    for k, seq in enumerate(seqs):
        size = len(seq)
        keys = set()
        for span in range(TEMPLATE_MAX_SPAN + 1):
            if size - span < TEMPLATE_MIN_COMMON:
                break
            for at in range(size - span + 1):
                keys.add(hash((at, seq[:at] + seq[at + span :])))
        for key in keys:
            buckets[key].append(k)

    def linked(a: int, b: int) -> bool:
        # exact, so a hash collision between two keys only costs this check
        inter = len(sets[a] & sets[b])
        jac = inter / (len(sets[a]) + len(sets[b]) - inter)
        return jac > _TEMPLATE_CANDIDATE_JACCARD and _one_span_apart(seqs[a], seqs[b])

    out: set[tuple[int, int]] = set()
    for members in buckets.values():
        if len(members) < 2:
            continue
        first = members[0]
        for m in members[1:]:
            if linked(first, m):
                out.add((first, m))
            else:
                out.update((min(m, o), max(m, o)) for o in members if o != m and linked(m, o))
    return sorted(out)


def paraphrase_pairs(keys: Sequence[str | None], vectors, min_cosine: float) -> list[tuple[int, int]]:
    """Pairs of rows with the same non-empty key whose (normalized) vectors have a cosine >= ``min_cosine``."""
    import numpy as np

    by_key: dict[str, list[int]] = defaultdict(list)
    for row, key in enumerate(keys):
        if key:
            by_key[key].append(row)
    out: list[tuple[int, int]] = []
    for rows in by_key.values():
        if len(rows) < 2:
            continue
        block = np.asarray(vectors)[rows]
        sims = block @ block.T
        for a, b in zip(*np.nonzero(np.triu(sims >= min_cosine - _EPS, k=1)), strict=True):
            out.append((rows[a], rows[b]))
    return out


def _distinct_sets(norms: Sequence[str]) -> tuple[list[frozenset[str]], list[int]]:
    ids: dict[frozenset[str], int] = {}
    node = []
    for text in norms:
        key = frozenset(shingles(text))
        node.append(ids.setdefault(key, len(ids)))
    return list(ids), node


def _group_hash(key: str) -> str:
    return "g" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def _uniform(seed: int, group_id: str) -> float:
    digest = hashlib.sha256(f"{seed}:{group_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def group_rows(
    queries: pl.DataFrame,
    *,
    dedup_threshold: float = 0.7,
    paraphrase_keys: Sequence[str | None] | None = None,
    paraphrase_vectors=None,
    paraphrase_min_cosine: float = 0.8,
    gold_set_keys: Sequence[str | None] | None = None,
    linked: Sequence[tuple[int, int]] = (),
) -> list[str]:
    """The split group id of each row of ``queries`` (``text``): rows that must share a split share an id.

    Grouping is described in the module docstring; ``gold_set_keys`` (one per row, None for none) unites rows with
    the same key (a source's queries with an identical gold set), ``linked`` unites the given row pairs (the
    caller's own families, e.g. a workflow template's clones).
    """
    norms = [normalize(t) for t in queries["text"].to_list()]
    n = len(norms)
    rows = DisjointSets(range(n))
    union, find = rows.union, rows.find
    if n:  # seeded with the MinHash clusters
        result = near_duplicates(norms, threshold=dedup_threshold)
        for i, c in enumerate(result.cluster):
            union(i, c)
    # Close what LSH may have missed: one exact pair per LSH miss is enough to merge the groups.
    sets, node = _distinct_sets(norms)
    first_row: dict[int, int] = {}
    for row, nd in enumerate(node):
        first = first_row.setdefault(nd, row)
        union(row, first)
    for a, b, _ in similar_pairs(sets, dedup_threshold):
        union(first_row[a], first_row[b])
    for a, b in template_pairs(norms, dedup_threshold):
        union(a, b)
    if paraphrase_keys is not None and n:
        if paraphrase_vectors is None or len(paraphrase_keys) != n or len(paraphrase_vectors) != n:
            raise ValueError("paraphrase_keys and paraphrase_vectors need one entry per query, both or neither")
        for a, b in paraphrase_pairs(paraphrase_keys, paraphrase_vectors, paraphrase_min_cosine):
            union(a, b)
    if gold_set_keys is not None:
        if len(gold_set_keys) != n:
            raise ValueError("gold_set_keys needs one entry per query")
        for a, b in same_key_pairs(gold_set_keys):
            union(a, b)
    for a, b in linked:
        union(a, b)
    key: dict[int, str] = {}
    for row in range(n):
        root = find(row)
        if root not in key or norms[row] < key[root]:
            key[root] = norms[row]
    return [_group_hash(key[find(row)]) for row in range(n)]


def same_key_pairs(keys: Sequence[str | None]) -> list[tuple[int, int]]:
    """Each row chained to the first row with the same non-empty key: enough to unite them all."""
    first: dict[str, int] = {}
    out = []
    for row, key in enumerate(keys):
        if key:
            out.append((first.setdefault(key, row), row))
    return [(a, b) for a, b in out if a != b]


def gold_set_key(source: str | None, gold_tools: Sequence[str] | None) -> str | None:
    """What queries of one source written for one tool set share: the source and the sorted gold tools (None when
    the source names none). ToolBench writes several queries for one sampled API set; they are one group."""
    tools = paraphrase_key(gold_tools)
    return f"{source or ''}\n{tools}" if tools else None


def assign_splits(
    queries: pl.DataFrame,
    *,
    ratios: tuple[float, float, float],
    seed: int,
    dedup_threshold: float = 0.7,
    setting: str = "split_ratios",
    paraphrase_keys: Sequence[str | None] | None = None,
    paraphrase_vectors=None,
    paraphrase_min_cosine: float = 0.8,
    gold_set_keys: Sequence[str | None] | None = None,
) -> pl.DataFrame:
    """The rows of ``queries`` in their order, with ``split`` (train/validation/test) and ``group_id`` added.

    Grouping (:func:`group_rows`) and assignment are described in the module docstring. Existing
    ``split``/``group_id`` columns are replaced. ``setting`` is the caller's name for ``ratios``, named in the error
    when they are invalid. ``paraphrase_keys`` and ``paraphrase_vectors`` (one per row, both or neither) add the
    paraphrase rule, ``gold_set_keys`` the identical-gold-set rule.
    """
    r_train, _r_val, r_test = _check_ratios(ratios, setting)
    missing = [c for c in ("query_id", "text") if c not in queries.columns]
    if missing:
        raise ValueError(f"queries frame is missing columns: {', '.join(missing)}")
    group_ids = group_rows(queries, dedup_threshold=dedup_threshold, paraphrase_keys=paraphrase_keys,
                           paraphrase_vectors=paraphrase_vectors, paraphrase_min_cosine=paraphrase_min_cosine,
                           gold_set_keys=gold_set_keys)  # fmt: skip
    cut_train, cut_val = r_train, 1.0 - r_test
    split_of: dict[str, str] = {}
    for gid in set(group_ids):
        u = _uniform(seed, gid)
        split_of[gid] = "train" if u < cut_train else "validation" if u < cut_val else "test"
    return with_splits(queries, [split_of[g] for g in group_ids], group_ids)


def with_splits(queries: pl.DataFrame, splits: Sequence[str], group_ids: Sequence[str]) -> pl.DataFrame:
    """``queries`` with its ``split`` and ``group_id`` columns set (replaced when present)."""
    return queries.drop([c for c in ("split", "group_id") if c in queries.columns]).with_columns(
        pl.Series("split", list(splits), dtype=pl.String), pl.Series("group_id", list(group_ids), dtype=pl.String)
    )


def _quote(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def check_no_leakage(frame: pl.DataFrame, dedup_threshold: float = 0.7) -> list[str]:
    """Human-readable leakage problems of a split frame (query_id, text, split); ``[]`` when clean.

    Reports split values outside train/validation/test, each normalized text found in more than one split, and
    each near-duplicate pair (exact word-unigram Jaccard above ``dedup_threshold``, computed without MinHash so
    this check does not share the splitter's blind spots) whose two texts sit in different splits.
    """
    missing = [c for c in ("query_id", "text", "split") if c not in frame.columns]
    if missing:
        raise ValueError(f"split frame is missing columns: {', '.join(missing)}")
    texts = [t or "" for t in frame["text"].to_list()]
    rows = _SplitRows(
        qids=[str(q) for q in frame["query_id"].to_list()],
        texts=texts,
        splits=frame["split"].to_list(),
        norms=[normalize(t) for t in texts],
    )
    problems = _unknown_splits(rows.splits)
    problems += _same_text_problems(rows)
    sets, node = _distinct_sets(rows.norms)
    problems += _near_duplicate_problems(rows, sets, node, dedup_threshold)
    problems += _template_problems(rows, sets, node, dedup_threshold)
    return problems


@dataclass(frozen=True)
class _SplitRows:
    """A split frame's columns as lists, with each text normalized."""

    qids: list[str]
    texts: list[str]
    splits: list
    norms: list[str]

    def describe(self, row: int) -> str:
        """The row as a problem names it: its split, query id and quoted text."""
        return f"{self.splits[row]} {self.qids[row]} {_quote(self.texts[row])}"


def _unknown_splits(splits: list) -> list[str]:
    bad = Counter(v for v in splits if v not in SPLITS)
    if not bad:
        return []
    shown = ", ".join(f"{v!r} x{k}" for v, k in sorted(bad.items(), key=lambda kv: str(kv[0])))
    return [f"unknown split values (expected {', '.join(SPLITS)}): {shown}"]


def _same_text_problems(rows: _SplitRows) -> list[str]:
    """Each normalized text found in more than one split, with up to three query ids per split."""
    by_text: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for row, (norm, split) in enumerate(zip(rows.norms, rows.splits, strict=True)):
        by_text[norm][split].append(row)
    problems = []
    for norm in sorted(by_text):
        where = by_text[norm]
        if len(where) > 1:
            detail = "; ".join(
                f"{s}: {', '.join(rows.qids[r] for r in members[:3])}{' …' if len(members) > 3 else ''}"
                for s, members in sorted(where.items(), key=lambda kv: str(kv[0]))
            )
            problems.append(
                f"same text in {len(where)} splits: {_quote(rows.texts[next(iter(where.values()))[0]])} ({detail})"
            )
    return problems


def _near_duplicate_problems(
    rows: _SplitRows, sets: list[frozenset[str]], node: list[int], dedup_threshold: float
) -> list[str]:
    """Near-duplicates across splits: per distinct shingle set, one example row per (split, normalized text)."""
    members: list[dict[str, dict[str, int]]] = [defaultdict(dict) for _ in sets]
    for row, nd in enumerate(node):
        members[nd][rows.splits[row]].setdefault(rows.norms[row], row)
    edges = [(nd, nd, 1.0) for nd in range(len(sets))]  # same word set, different wording (e.g. word order)
    edges += similar_pairs(sets, dedup_threshold)
    problems = []
    for a, b, jac in edges:
        example = _crossing(members[a], members[b])
        if example is not None:
            x, y = example
            problems.append(f"near-duplicates across splits (J={jac:.2f}): {rows.describe(x)} ~ {rows.describe(y)}")
    return problems


def _template_problems(
    rows: _SplitRows, sets: list[frozenset[str]], node: list[int], dedup_threshold: float
) -> list[str]:
    """Templates of each other across splits that are not near-duplicates (those are reported already)."""
    splits, norms = rows.splits, rows.norms
    problems = []
    reported: set[frozenset[str]] = set()
    for x, y in template_pairs(norms, dedup_threshold):
        if splits[x] == splits[y] or norms[x] == norms[y]:
            continue
        a, b = sets[node[x]], sets[node[y]]
        pair = frozenset((norms[x], norms[y]))
        if a == b or len(a & b) / len(a | b) > dedup_threshold or pair in reported:
            continue  # a near-duplicate pair is reported above
        reported.add(pair)
        problems.append(f"templates across splits: {rows.describe(x)} ~ {rows.describe(y)}")
    return problems


def _crossing(a: dict[str, dict[str, int]], b: dict[str, dict[str, int]]) -> tuple[int, int] | None:
    """Rows x in ``a``, y in ``b`` in different splits with different normalized texts (same text: reported above)."""
    for split_a in sorted(a, key=str):
        for split_b in sorted(b, key=str):
            if split_a == split_b:
                continue
            for text_a, x in a[split_a].items():
                for text_b, y in b[split_b].items():
                    if text_a != text_b:
                        return x, y
    return None
