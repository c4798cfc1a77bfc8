"""Benchmark: MinHash near-duplicate removal (ecoagent.text.dedup) on 70,000 synthetic queries vs exact Jaccard.

Targets (issue: Syn dedup): recall >= 99 % of the true pairs with Jaccard > 0.7, zero false drops
(every dropped query has a partner above 0.7), <= 30 s for 70k queries on 2 cores.

    .venv/bin/python benchmarks/minhash_dedup.py [--docs 70000] [--sample 5000] [--seed 7]

Data: queries of 5-40 words from a Zipf(1.1) vocabulary of 20,000 made-up words; about 10 % are
planted near-duplicates of another query, edited (substitutions, deletions, insertions) at rates drawn
from 0-45 % so that their true Jaccard spans both sides of 0.7.

Ground truth, measured in the same run:
- all 70k: exact all-pairs Jaccard > 0.7 via prefix filtering (a complete filter: two sets with J > t
  share a word among the rarest |x| - ceil(t|x|) + 1 words of each), candidate pairs from a sparse
  matrix product of the prefix matrices, then exact Jaccard on every candidate;
- a sample of --sample docs: brute-force sparse matmul over *all* pairs (no filter), which also checks
  the prefix-filter truth on that sample, and pure-Python pairwise sets on 1,000 docs, whose time is
  extrapolated quadratically to 70k.
"""

from __future__ import annotations

import argparse
import math
import random
import resource
import string
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report, timed
from ecoagent.text.dedup import DedupResult, DisjointSets, jaccard, lsh_params, near_duplicates, shingles

THRESHOLD = 0.7


def make_queries(n_docs: int, seed: int, vocab_size: int = 20_000, dup_share: float = 0.10) -> list[str]:
    """Seeded synthetic queries; the last ~dup_share of them are edited copies of earlier ones, shuffled in."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    vocab: list[str] = []
    seen: set[str] = set()
    while len(vocab) < vocab_size:
        word = "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9)))
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    weights = 1.0 / np.arange(1, vocab_size + 1) ** 1.1
    weights /= weights.sum()
    n_dups = int(n_docs * dup_share)
    n_base = n_docs - n_dups
    lengths = nrng.integers(5, 41, size=n_base)
    draws = nrng.choice(vocab_size, size=int(lengths.sum()), p=weights)
    base: list[list[str]] = []
    pos = 0
    for length in lengths:
        base.append([vocab[k] for k in draws[pos : pos + length]])
        pos += length
    docs = [" ".join(words) for words in base]
    pool = iter(nrng.choice(vocab_size, size=n_dups * 40, p=weights).tolist())
    for _ in range(n_dups):
        words = list(base[rng.randrange(n_base)])
        rate = rng.uniform(0.0, 0.45)
        for _ in range(max(1, round(rate * len(words)))):
            op = rng.random()
            if op < 1 / 3 and len(words) > 3:
                del words[rng.randrange(len(words))]
            elif op < 2 / 3:
                words[rng.randrange(len(words))] = vocab[next(pool)]
            else:
                words.insert(rng.randrange(len(words) + 1), vocab[next(pool)])
        # Vary surface form a little; shingles() lower-cases and ignores punctuation.
        text = " ".join(words)
        if rng.random() < 0.3:
            text = text.capitalize() + "?"
        docs.append(text)
    rng.shuffle(docs)
    return docs


def incidence(sets: list[frozenset[str]]) -> tuple[sp.csr_matrix, dict[str, int]]:
    vocab: dict[str, int] = {}
    indptr = [0]
    indices: list[int] = []
    for s in sets:
        indices.extend(vocab.setdefault(w, len(vocab)) for w in s)
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(len(sets), len(vocab))), vocab


def truth_prefix_filter(sets: list[frozenset[str]], t: float) -> set[tuple[int, int]]:
    """All pairs (i < j) with exact J > t, complete, via prefix filtering + sparse matmul + exact check."""
    freq: dict[str, int] = {}
    for s in sets:
        for w in s:
            freq[w] = freq.get(w, 0) + 1
    # Global order: rarest first (ties by the word), so prefixes hold rare words and the product stays sparse.
    rank = {w: r for r, w in enumerate(sorted(freq, key=lambda w: (freq[w], w)))}
    rows: list[int] = []
    cols: list[int] = []
    for i, s in enumerate(sets):
        if not s:
            continue
        ordered = sorted(rank[w] for w in s)
        prefix = len(s) - math.ceil(t * len(s) - 1e-9) + 1
        rows.extend([i] * prefix)
        cols.extend(ordered[:prefix])
    p = sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(sets), len(rank)))
    cand = sp.triu(p @ p.T, k=1).tocoo()
    return {(int(i), int(j)) for i, j in zip(cand.row, cand.col, strict=True) if jaccard(sets[i], sets[j]) > t}


def truth_bruteforce(sets: list[frozenset[str]], t: float) -> set[tuple[int, int]]:
    """All pairs (i < j) with J > t by a full sparse product (intersection sizes of every pair)."""
    x, _ = incidence(sets)
    sizes = np.asarray(x.sum(axis=1)).ravel()
    inter = sp.triu(x @ x.T, k=1).tocoo()
    union = sizes[inter.row] + sizes[inter.col] - inter.data
    # Same float comparison as ecoagent.text.dedup (inter / union > t), so boundary pairs agree exactly.
    hit = (inter.data / union) > t
    return {(int(i), int(j)) for i, j in zip(inter.row[hit], inter.col[hit], strict=True)}


def truth_pure_python(sets: list[frozenset[str]], t: float) -> set[tuple[int, int]]:
    n = len(sets)
    return {(i, j) for i in range(n) for j in range(i + 1, n) if jaccard(sets[i], sets[j]) > t}


def evaluate(n: int, truth: set[tuple[int, int]], result: DedupResult) -> dict:
    """Recall of true pairs (both in one cluster), false drops (dropped, no J > t partner at all), and the
    number of drops exact clustering would make (n minus the connected components of the true pairs)."""
    recalled = sum(1 for i, j in truth if result.cluster[i] == result.cluster[j])
    has_partner = {k for pair in truth for k in pair}
    dropped = [i for i, k in enumerate(result.keep) if not k]
    components = DisjointSets(range(n))
    for i, j in truth:
        components.union(i, j)
    exact_drops = n - sum(1 for i in range(n) if components.find(i) == i)
    return {
        "true_pairs": len(truth),
        "recalled_pairs": recalled,
        "recall": round(recalled / len(truth), 5) if truth else 1.0,
        "dropped": len(dropped),
        "exact_clustering_would_drop": exact_drops,
        "false_drops": sum(1 for i in dropped if i not in has_partner),
    }


def recall_by_band(
    sets: list[frozenset[str]], truth: set[tuple[int, int]], result: DedupResult
) -> dict[str, list[int]]:
    bands = {"0.70-0.75": [0, 0], "0.75-0.80": [0, 0], "0.80-0.90": [0, 0], "0.90-1.00": [0, 0]}
    for i, j in truth:
        s = jaccard(sets[i], sets[j])
        name = "0.70-0.75" if s < 0.75 else "0.75-0.80" if s < 0.8 else "0.80-0.90" if s < 0.9 else "0.90-1.00"
        bands[name][0] += 1
        bands[name][1] += result.cluster[i] == result.cluster[j]
    return {k: v for k, v in bands.items()}  # [true pairs, recalled]


def sample_check(texts: list[str], sets: list[frozenset[str]], truth: set[tuple[int, int]], size: int,
                 seed: int) -> tuple[dict, float, float]:
    """LSH and the prefix filter against brute-force exact truth over every pair of a sample: members of up to 2,000
    true pairs plus random queries (a plain random 5k slice would hold only a few dozen pairs). Returns the sample's
    report and the seconds of the brute force and of LSH."""
    rng = random.Random(seed)
    picked = dict.fromkeys(k for pair in rng.sample(sorted(truth), min(2_000, len(truth))) for k in pair)
    rest = [i for i in range(len(texts)) if i not in picked]
    for i in rng.sample(rest, max(0, size - len(picked))):
        picked[i] = None
    index = sorted(picked)[:size]
    sample = [texts[i] for i in index]
    sample_sets = [sets[i] for i in index]
    sample_truth, brute_s = timed(truth_bruteforce, sample_sets, THRESHOLD)
    sample_result, sample_lsh_s = timed(near_duplicates, sample, threshold=THRESHOLD)
    report = {
        "docs": size,
        "bruteforce_sparse_matmul_seconds": round(brute_s, 2),
        "lsh_seconds": round(sample_lsh_s, 2),
        "prefix_filter_matches_bruteforce": truth_prefix_filter(sample_sets, THRESHOLD) == sample_truth,
        **evaluate(len(sample), sample_truth, sample_result),
    }
    return report, brute_s, sample_lsh_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=70_000)
    parser.add_argument("--sample", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    texts, gen_s = timed(make_queries, args.docs, args.seed)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result, lsh_s = timed(near_duplicates, texts, threshold=THRESHOLD)
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    sets = [frozenset(shingles(t)) for t in texts]
    truth, prefix_s = timed(truth_prefix_filter, sets, THRESHOLD)
    full = evaluate(len(texts), truth, result)
    full["recall_by_jaccard_band"] = recall_by_band(sets, truth, result)
    sample, brute_s, sample_lsh_s = sample_check(texts, sets, truth, args.sample, args.seed)
    py_n, py_s, py_70k_est, brute_70k_est = extrapolations(sets, args.docs, args.sample, brute_s)

    b, r = lsh_params(THRESHOLD, 128)
    report = {
        "docs": args.docs,
        "threshold": THRESHOLD,
        "lsh_params": {"b": b, "r": r, "num_perm": 128},
        "data_gen_seconds": round(gen_s, 1),
        "lsh_seconds": round(lsh_s, 2),
        "pairs_checked": result.pairs_checked,
        "pairs_confirmed": result.pairs_confirmed,
        "peak_rss_mb_before_dedup": round(rss_before / 1024),
        "peak_rss_mb_after_dedup": round(rss_after / 1024),
        "full_70k_vs_exact_prefix_filter": full,
        "exact_prefix_filter_seconds": round(prefix_s, 2),
        "sample": sample,
        "pure_python_pairwise": {
            "docs": py_n,
            "seconds": round(py_s, 2),
            "extrapolated_70k_seconds": round(py_70k_est),
        },
        "bruteforce_sparse_matmul_extrapolated_70k_seconds": round(brute_70k_est),
        "ratios_same_run": {
            "sample_bruteforce_over_sample_lsh": round(brute_s / sample_lsh_s, 2),
            "extrapolated_pure_python_70k_over_lsh_70k": round(py_70k_est / lsh_s),
            "extrapolated_bruteforce_matmul_70k_over_lsh_70k": round(brute_70k_est / lsh_s, 1),
            "exact_prefix_filter_70k_over_lsh_70k": round(prefix_s / lsh_s, 2),
        },
        "targets": {"recall_min": 0.99, "false_drops": 0, "lsh_seconds_max": 30},
    }
    verdict(report, args.docs, (b, r), (lsh_s, prefix_s, py_70k_est))


def extrapolations(sets: list[frozenset[str]], docs: int, sample: int, brute_s: float) -> tuple[int, float, float,
                                                                                                float]:  # fmt: skip
    """Pure-Python pairwise sets on 1,000 docs, timed; it and the sample's brute force extrapolated quadratically to
    ``docs``: (docs timed, seconds, pure Python at ``docs``, brute force at ``docs``)."""
    py_n = 1_000
    _, py_s = timed(truth_pure_python, sets[:py_n], THRESHOLD)
    pairs_full = docs * (docs - 1) / 2
    py_70k_est = py_s * pairs_full / (py_n * (py_n - 1) / 2)
    brute_70k_est = brute_s * pairs_full / (sample * (sample - 1) / 2)
    return py_n, py_s, py_70k_est, brute_70k_est


def verdict(report: dict, docs: int, params: tuple[int, int], seconds: tuple[float, float, float]) -> None:
    """Whether the targets are met (into ``report``), then the report and its summary line printed; ``seconds``:
    LSH's, the exact prefix filter's and pure Python's extrapolated to ``docs``."""
    full = report["full_70k_vs_exact_prefix_filter"]
    lsh_s, prefix_s, py_70k_est = seconds
    ok = (full["recall"] >= 0.99 and full["false_drops"] == 0 and lsh_s <= 30
          and report["sample"]["prefix_filter_matches_bruteforce"])  # fmt: skip
    report["pass"] = ok
    b, r = params
    print_report(
        report,
        f"{'PASS' if ok else 'FAIL'}: {docs} queries in {lsh_s:.1f}s (b={b}, r={r}); "
        f"recall {full['recall']:.2%} of {full['true_pairs']} true pairs J>{THRESHOLD}; "
        f"false drops {full['false_drops']}; exact prefix-filter {prefix_s:.1f}s, "
        f"pure-Python pairwise ~{py_70k_est / 3600:.1f} h (extrapolated)",
    )


if __name__ == "__main__":
    main()
