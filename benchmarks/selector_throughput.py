"""Selections per second at batch 1 over the full released catalog: BM25-only and fused.

    .venv/bin/python benchmarks/selector_throughput.py --release data/release/<version> [--n 2000]

Each selection is the whole pipeline of :meth:`ToolSelector.select` for one query: scope filter,
scoring of every allowed tool, fusion, budget packing, registry-order output. Tool vectors are
cached (computed once, before timing); the fused selector is timed twice, with the query vectors
computed beforehand (``encoding excluded``) and with one MiniLM call per query on CPU (``encoding
included``, the query LRU bypassed so every call encodes). The seed's figure is printed beside ours:
~90k selections/s for BM25 alone, Rust, 1,000 synthetic tools, Apple M4 Pro; ours is Python + bm25s
over the real catalog on whatever CPU runs this, so the comparison is of orders of magnitude only.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

from selector.evaluate import DEFAULT_CACHE
from selector.select import SelectorConfig, ToolSelector

SEED_BM25_PER_S = 90_000


def _rate(select, queries: list[str], n: int) -> tuple[float, float]:
    """(selections per second, microseconds per selection) over ``n`` calls cycling through ``queries``."""
    for q in queries[:5]:
        select(q)  # warm-up: builds the lazy BM25 index, touches caches
    start = time.perf_counter()
    for i in range(n):
        select(queries[i % len(queries)])
    elapsed = time.perf_counter() - start
    return n / elapsed, 1e6 * elapsed / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, required=True)
    parser.add_argument("--n", type=int, default=2000, help="selections per timed run (encoding-included: n/10)")
    parser.add_argument("--scopes", nargs="+", default=["*"], help="caller scopes (default: everything)")
    parser.add_argument("--token-budget", type=int, default=4000)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="intra-op threads for the query encoder (1 was 4x faster than 2 at batch 1 here)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.torch_threads)

    fused = ToolSelector.from_release(args.release, SelectorConfig(token_budget=args.token_budget),
                                      cache_dir=args.cache_dir)
    bm25 = ToolSelector(fused.registry, SelectorConfig(rankers=("bm25",), token_budget=args.token_budget))
    from ecoagent.release_format.reader import load_release

    release = load_release(args.release)
    queries = [t for qs in release.query_sets.values() for t in qs.texts]
    vectors = {q: fused.dense.encode_query(q) for q in queries}
    encoder = fused.dense.encode_query
    uncached = getattr(encoder, "__wrapped__", encoder)  # lru_cache keeps the plain function here

    def encode_each_time(q: str) -> list[str]:
        return fused.select_detailed(q, None, args.scopes, query_vector=uncached(q)).tool_ids

    runs = [
        ("BM25 only", lambda q: bm25.select(q, None, args.scopes), args.n),
        ("fused, query encoding excluded",
         lambda q: fused.select_detailed(q, None, args.scopes, query_vector=vectors[q]).tool_ids, args.n),
        ("fused, query encoding included (MiniLM, CPU)", encode_each_time, max(50, args.n // 10)),
    ]
    print(f"catalog: {len(fused.registry)} tools, {len(set(queries))} distinct queries, scopes {args.scopes}, "
          f"budget {args.token_budget}; torch threads {args.torch_threads}; "
          f"CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"{'method':48s} {'selections/s':>14s} {'us/selection':>14s}")
    for name, select, n in runs:
        rate, micros = _rate(select, queries, n)
        print(f"{name:48s} {rate:14,.0f} {micros:14,.0f}")
    print(f"{'seed: BM25 only, Rust, 1,000 synthetic tools, M4 Pro':48s} {SEED_BM25_PER_S:14,.0f} {1e6 / 9e4:14,.0f}")


if __name__ == "__main__":
    main()
