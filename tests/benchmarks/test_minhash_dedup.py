"""``benchmarks/minhash_dedup.py`` on 2,000 queries instead of 70,000: MinHash LSH against the exact truth, measured
in the same run (the prefix filter, the brute force on a sample, pure Python on 1,000)."""

from __future__ import annotations

from tests.benchmarks.scripts import run_script


def test_lsh_against_the_exact_truth_on_2000_queries() -> None:
    ran = run_script("minhash_dedup", "--docs", 2000, "--sample", 400, "--seed", 3)
    assert ran.code == 0, ran
    report = ran.json_after()
    full = report["full_70k_vs_exact_prefix_filter"]
    assert report["docs"] == 2000 and report["lsh_params"] == {"b": 25, "r": 5, "num_perm": 128}
    # about 10 % planted near-duplicates, edited at 0-45 %: true pairs exist on both sides of 0.7
    assert full["true_pairs"] > 50 and full["recall"] >= 0.99 and full["false_drops"] == 0, full
    assert sum(v[0] for v in full["recall_by_jaccard_band"].values()) == full["true_pairs"]
    assert report["sample"]["docs"] == 400 and report["sample"]["prefix_filter_matches_bruteforce"]
    assert report["pure_python_pairwise"]["docs"] == 1000 and report["pass"] is True
    assert ran.out.splitlines()[-1].startswith("PASS: 2000 queries in ")
