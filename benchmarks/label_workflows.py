"""The Real labeler measured where the answer is known: every verifier on the workflow queries, the same way.

    .venv/bin/python benchmarks/label_workflows.py --score RUN/score [--llm-sample 200] [--cache-path FILE]
        [--out FILE] [--record NAME]

The label stage's own path (``labeling.label.plan``: e5-small top-5 above cosine 0.7 over the whole catalog, the
MiniLM agreement score of every pair) runs on the task view of the kept workflow queries (``label.workflows``,
the crawl beside ``--score`` holding ``n8n_actions.parquet``) as if they were unlabeled, and each verifier decides
at its configured threshold (none is chosen on the workflows). Every row is measured the same way
(``labeling.workflows.measure``): micro precision, recall and F1 with 95 % bootstrap intervals over queries, at the
tool level (the exact labels required, a stripped node's tools acceptable) and the node level (a verified tool is
right when the workflow runs its node), and per number of tools in the task:

- ``candidates``: every retrieved pair (no verifier: the baseline, the ceiling of recall);
- ``embedding``: MiniLM agreement >= ``label.min_agreement_score``, on every kept query;
- with ``--llm-sample N`` (the embedded Gemma 3 270M on one thread, about 0.7 pairs/s: the whole set would take
  hours on 2 cores, so a seeded sample of N queries, said in the table): ``llm`` (``verify_v1`` >= 0.85),
  ``both`` (the agreement and the LLM), and ``embedding`` and ``candidates`` again on the same sample.

Prints the table (Markdown; written to ``--out`` when given) and each verifier's precision as a ratio of the
candidates' precision measured in the same run.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.record import add_record_option, write_record
from ecoagent.config import Config, load_config
from ecoagent.text.markdown import markdown_table
from labeling.workflows.mapping import node_of
from labeling.workflows.measure import BUCKETS, measure_by_tools
from labeling.workflows.stage import native_truth


def _interval(stats: dict, name: str) -> str:
    value, ci = stats[name], stats.get(f"{name}_ci95") or [None, None]
    if value is None:
        return "-"
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci[0] is not None else f"{value:.3f}"


def _measure(pairs: list[dict], keep, queries: list[str], truth: tuple, seed: int, resamples: int) -> dict:
    required, acceptable = truth
    nodes_required = {q: {node_of(t) for t in tools} for q, tools in required.items()}
    for q, tools in acceptable.items():
        nodes_required[q] = nodes_required.get(q, set()) | {node_of(t) for t in tools}
    chosen = set(queries)
    predicted: dict[str, set[str]] = {}
    for pair in pairs:
        if pair["query_id"] in chosen and keep(pair):
            predicted.setdefault(pair["query_id"], set()).add(pair["tool_id"])
    nodes = {q: {node_of(t) for t in tools} for q, tools in predicted.items()}
    return {"tool": measure_by_tools(predicted, required, acceptable, queries, seed=seed, resamples=resamples),
            "node": measure_by_tools(nodes, nodes_required, {}, queries, seed=seed, resamples=resamples)}  # fmt: skip


def _rows(name: str, what: str, result: dict) -> list[list[str]]:
    rows = []
    for level in ("tool", "node"):
        s = result[level]
        rows.append([name, what, level, str(s["queries"]), _interval(s, "precision"), _interval(s, "recall"),
                     _interval(s, "f1"), f"{s['correct_pairs']} / {s['verified_pairs']}"])  # fmt: skip
    return rows


def _by_tools_rows(name: str, result: dict) -> list[list[str]]:
    s = result["tool"]["by_tools"]
    return [[name, b, str(s[b]["queries"]), _interval(s[b], "precision"), _interval(s[b], "recall"),
             _interval(s[b], "f1")] for b in BUCKETS if b in s]  # fmt: skip


def _ratio_lines(results: list[tuple]) -> list[str]:
    """Each verifier's tool-level precision as a ratio of the candidates' on the same queries (same run)."""
    base = {n: res["tool"]["precision"] for n, _, _, res in results if n.startswith("candidates")}
    lines = [""]
    for name, _, _, res in results:
        reference = base["candidates (sample)" if "(sample)" in name else "candidates"]
        if not name.startswith("candidates") and res["tool"]["precision"] is not None and reference:
            lines.append(f"- {name}: tool-level precision {res['tool']['precision'] / reference:.2f}x the "
                         "candidates' (same run, same queries)")  # fmt: skip
    return lines


def _record(name: str, note: str, queries: int, seconds: float, tables: list[tuple[list, list]]) -> None:
    """The tables as a record of the results page (``benchmarking/record.py``)."""
    captions = ["Micro precision, recall and F1 with 95 % bootstrap intervals over queries.",
                "Per number of exact labels in the task (tool level)."]  # fmt: skip
    write_record(
        name,
        title="The Real labeler measured on the workflow queries",
        section="label",
        benchmark="benchmarks/label_workflows.py: the label stage's retrieval and each verifier on the kept "
        "workflow queries (task view) as if unlabeled, against their native labels",
        figures={"kept workflow queries": queries, "seconds": round(seconds), "note": note},
        tables=[{"columns": columns, "rows": rows, "caption": caption}
                for (columns, rows), caption in zip(tables, captions, strict=True)],
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--score", required=True, help="a score stage folder (its crawl beside it)")
    parser.add_argument("--llm-sample", type=int, default=0, help="queries the embedded LLM verifies (seeded)")
    parser.add_argument("--cache-path", help="LLM response cache (default: the config's)")
    parser.add_argument("--out", type=Path)
    add_record_option(parser)
    args = parser.parse_args()

    from labeling.label import plan

    started = time.perf_counter()
    overrides = ["label.verifier=llm", *([f"llm.cache_path={args.cache_path}"] if args.cache_path else [])]
    config = load_config("default", overrides=overrides)
    wplan = plan(config, args.score).workflows
    required, acceptable, _ = native_truth(wplan.workflows.qrels)
    measured = Measured(wplan.pairs, (required, acceptable), config.seed, config.label.workflows.bootstrap_resamples)
    results = embedding_results(config, wplan.measured, measured)
    llm_note = ""
    if args.llm_sample:
        llm_note, sampled = llm_results(config, wplan.measured, measured, args.llm_sample)
        results += sampled
    report(args, results, len(wplan.measured), llm_note, started)


@dataclass(frozen=True)
class Measured:
    """What every verifier is measured on: the retrieved pairs, the native truth (required, acceptable), the seed
    and the bootstrap's resamples."""

    pairs: list[dict]
    truth: tuple
    seed: int
    resamples: int

    def measure(self, keep, queries: list[str], pairs: list[dict] | None = None) -> dict:
        """:func:`_measure` of the pairs ``keep`` verifies among ``pairs`` (default: all), on ``queries``."""
        return _measure(self.pairs if pairs is None else pairs, keep, queries, self.truth, self.seed, self.resamples)


def embedding_results(config: Config, everything: list[str], measured: Measured) -> list[tuple]:
    """The candidates and the MiniLM agreement on every kept query: ``(name, decides, queries, result)`` rows."""
    cfg = config.label
    agree = cfg.min_agreement_score
    return [
        ("candidates", f"e5-small top-{cfg.top_k}, cosine >= {cfg.min_cosine}", everything,
         measured.measure(lambda p: True, everything)),
        ("embedding", f"MiniLM agreement >= {agree}", everything,
         measured.measure(lambda p: p["agreement_score"] >= agree, everything)),
    ]  # fmt: skip


def llm_results(config: Config, everything: list[str], measured: Measured, sample_size: int) -> tuple[str, list[tuple]]:
    """The LLM verifier on a seeded sample of the queries, with the candidates, the agreement and both on the same
    sample: the note the table's first line carries, and the rows."""
    from labeling.verify import score_with_llm

    cfg = config.label
    agree = cfg.min_agreement_score

    def agreement_ok(p: dict) -> bool:
        return p["agreement_score"] >= agree

    sample = sorted(random.Random(config.seed).sample(everything, min(sample_size, len(everything))))
    chosen = set(sample)
    asked = [p for p in measured.pairs if p["query_id"] in chosen]
    t0 = time.perf_counter()
    scores, _reasons, stats = score_with_llm(config, asked)
    llm_note = (f"; the LLM ({config.llm.model}, {cfg.verify_prompt}) on a seeded sample of {len(sample)} of "
                f"{len(everything)} queries ({len(asked)} pairs, {time.perf_counter() - t0:.0f} s, "
                f"{stats.get('cached', 0)} cached)")  # fmt: skip
    llm_of = {(p["query_id"], p["tool_id"]): s for p, s in zip(asked, scores, strict=True)}

    def llm_ok(p: dict) -> bool:
        score = llm_of.get((p["query_id"], p["tool_id"]))
        return score is not None and score >= cfg.min_verifier_score

    on_sample = f"the {len(sample)}-query sample"
    return llm_note, [
        ("candidates (sample)", on_sample, sample, measured.measure(lambda p: True, sample, asked)),
        ("embedding (sample)", on_sample, sample, measured.measure(agreement_ok, sample, asked)),
        ("llm (sample)", f"{cfg.verify_prompt} >= {cfg.min_verifier_score}", sample,
         measured.measure(llm_ok, sample, asked)),
        ("both (sample)", "agreement and LLM", sample,
         measured.measure(lambda p: agreement_ok(p) and llm_ok(p), sample, asked)),
    ]  # fmt: skip


def report(args: argparse.Namespace, results: list[tuple], kept: int, llm_note: str, started: float) -> None:
    """The tables printed (and written to ``--out``; recorded with ``--record``)."""
    header = ["verifier", "decides", "level", "queries", "precision [95 % CI]", "recall [95 % CI]", "F1 [95 % CI]",
              "correct / verified"]  # fmt: skip
    lines = [f"Workflow queries (task view), kept: {kept}; thresholds from the config, none chosen on "
             f"the workflows{llm_note}.", ""]  # fmt: skip
    main_rows = [r for n, w, _, res in results for r in _rows(n, w, res)]
    by_tools_header = ["verifier", "tools", "queries", "precision", "recall", "F1"]
    by_tools_rows = [r for n, _, _, res in results for r in _by_tools_rows(n, res)]
    lines += markdown_table(header, main_rows, right_align_from=3)
    lines += ["", "Per number of exact labels in the task (tool level):", ""]
    lines += markdown_table(by_tools_header, by_tools_rows, right_align_from=2)
    lines += _ratio_lines(results)
    lines.append(f"\n{time.perf_counter() - started:.0f} s in all")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    if args.record:
        _record(args.record, lines[0], kept, time.perf_counter() - started,
                [(header, main_rows), (by_tools_header, by_tools_rows)])  # fmt: skip


if __name__ == "__main__":
    main()
