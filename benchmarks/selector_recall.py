"""Recall@k of the gold tool vs prompt tokens on EcoAgent-Real: all tools, BM25, dense, fused selector.

    .venv/bin/python benchmarks/selector_recall.py --release data/release/<version> --out DIR

Writes DIR/selector_recall.md (table + the acceptance check), DIR/selector_recall.png and
DIR/selector_recall.json. Real test is small, so Real train+validation+test ("real/all") is
evaluated too, the gold set ("gold/test": LiveMCPBench's human-annotated tasks) beside Real test,
and Syn test with --syn.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from selector.evaluate import DEFAULT_CACHE, EvalConfig, acceptance, markdown, plot, recall_vs_tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 3, 5, 10, 20])
    parser.add_argument("--token-budget", type=int, default=8000)
    parser.add_argument("--syn", action="store_true", help="also evaluate on syn/test")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()

    sets = ("real/test", "gold/test", "real/all") + (("syn/test",) if args.syn else ())
    config = EvalConfig(ks=tuple(args.ks), query_sets=sets, token_budget=args.token_budget, cache_dir=args.cache_dir)
    start = time.perf_counter()
    rows = recall_vs_tokens(args.release, config)
    checks = [acceptance(rows, s) for s in dict.fromkeys(r["query_set"] for r in rows) if 5 in config.ks]
    args.out.mkdir(parents=True, exist_ok=True)
    table = markdown(rows, checks)
    (args.out / "selector_recall.md").write_text(
        f"# Tool selector: recall@k vs prompt tokens ({args.release.name})\n\n"
        f"Callers hold every scope; fused selector budget {args.token_budget} tokens per selection.\n\n{table}")
    (args.out / "selector_recall.json").write_text(json.dumps({"rows": rows, "checks": checks}, indent=2))
    plot(rows, args.out / "selector_recall.png")
    print(table)
    print(f"wrote {args.out} in {time.perf_counter() - start:.1f}s")


if __name__ == "__main__":
    main()
