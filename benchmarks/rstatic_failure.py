"""Benchmark: does r_static predict failure? AUC and average precision of the score against the history's events.

    .venv/bin/python benchmarks/rstatic_failure.py --history DIR [--months-ahead 6] [--resamples 1000]
                                                 [--no-readings] [--set section.key=value ...] [--record NAME]

Reads an ``ecoagent history`` output folder (``DIR``: its ``tool_events.parquet`` and ``publish_times.json``, and
the month folders beside it, ``DIR/../history_months/<YYYY-MM>/score/``). For each month with ``--months-ahead``
months of future in the history, every tool the month holds, with r_static and its sub-scores **as that month
scored them**: the history step scores each month with the score stage and keeps its ``tools_scored.parquet``, which
is read as it is (each month's ``r_qual`` z-scored over the reference that month was scored with, which its
``score_summary.json`` names: the figures say which). A tool is labelled 1 when it is removed, renamed, deprecated
or its package deprecated within the months ahead (``history/failure.py``), else 0.

Measured, pooled and per platform, each with a 95 % bootstrap interval over tools (a tool's months resampled
together): AUC-ROC and average precision (sklearn) of

- r_static, r_cons, w_src and r_qual, each oriented so that a higher score predicts a reliable tool (the failure
  score is the score times -1: an AUC above 0.5 means a low score goes with failure);
- r_qual and r_static rescored with r_qual against the other ``score.r_qual_reference`` than the months used (from
  each month's descriptions and categories with ``scoring.score.documentation_quality``: no embedding);
- each other reading of eq. 4-5 the score stage names (``score.readings``: the paper-compatible one), its r_static
  recomputed per tool with ``scoring.score.reading_r_static`` from the month's r_cons and r_qual and the reading's
  name text, source weights and r_qual reference (its raw-name embeddings come from the embedding cache the history
  filled; ``--no-readings`` leaves the readings out);
- ecosystem signals the history shows: months since the package's last release, package age since first seen, and
  a vetted-listing flag (official, platform or verified).

Then the failure rate by r_static decile, as a table and, with ``--record NAME``, a plot beside the record
(``NAME.png``). Each interval is ``--resamples`` AUCs of the pool: on 100,000 tool-months about 50 ms a draw for
both figures, so the default 1,000 takes some 15 to 20 minutes on two cores for ten signals, pooled and per platform.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

import polars as pl

from benchmarking.measure import print_report
from benchmarking.record import add_record_option, results_dir, write_record
from benchmarking.rstatic_failure import with_other_reference, with_readings
from ecoagent.config import load_config
from history.failure import (
    SIGNALS,
    Measure,
    decile_plot,
    decile_table,
    finding,
    load_history,
    measures,
    prediction_months,
    prediction_rows,
)
from pipeline.stages import SCORE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", required=True, help="an `ecoagent history` output folder (data/history)")
    parser.add_argument("--months-ahead", type=int, default=6, help="a failure within this many months counts")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples per interval")
    parser.add_argument("--no-readings", action="store_true", help="leave out the other readings of eq. 4-5")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    add_record_option(parser)
    args = parser.parse_args()
    try:
        history = load_history(args.history, SCORE.name)
    except FileNotFoundError as exc:
        sys.exit(str(exc))
    rows = prediction_rows(history, args.months_ahead)
    if rows.is_empty():
        sys.exit(f"no month of {args.history} has {args.months_ahead} months of future in the history")
    config = load_config("default", overrides=args.overrides)
    rows, signals = with_other_reference(rows, config, history.references, list(SIGNALS))
    if not args.no_readings:
        rows, signals = with_readings(rows, config, history.references, signals)
    results = measures(rows, signals, args.resamples, config.seed)  # the seed the history step uses for the card
    deciles = decile_table(rows)
    figures = summary_figures(history, rows, results, args.months_ahead)
    print_report({"figures": figures, "measures": [vars(r) for r in results], "deciles": deciles},
                 figures["finding"])  # fmt: skip
    if args.record:
        write(args, figures, results, deciles, float(rows["failed"].mean()))


def summary_figures(history, rows: pl.DataFrame, results: list[Measure], ahead: int) -> dict[str, str]:
    """The record's figures: the finding first, then what was measured on what."""
    months = prediction_months(history.months, ahead)
    used = sorted({history.references.get(m, "catalog") for m in months})
    return {
        "finding": finding(results, ahead),
        "months": f"{months[0]} to {months[-1]} ({len(months)} months with {ahead} months of future; "
        f"the history runs {history.months[0]} to {history.months[-1]})",
        "pool": f"{len(rows):,} tool-months, {rows['tool_id'].n_unique():,} tools, "
        f"{int(rows['failed'].sum()):,} with a failure ahead ({rows['failed'].mean():.1%})",
        "r_qual reference of the months' scores": ", ".join(used),
        "events in the history": ", ".join(f"{e} {n}" for e, n in
                                           history.events.group_by("event").len().sort("event").iter_rows()),
    }  # fmt: skip


def _interval(value: float, ci: tuple[float, float]) -> str:
    return "n/a" if value != value else f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def measure_table(results: list[Measure]) -> dict:
    rows = [[r.signal, r.slice, r.rows, r.tools, r.failures, f"{r.base_rate:.1%}", _interval(r.auc, r.auc_ci),
             _interval(r.average_precision, r.ap_ci)] for r in results]  # fmt: skip
    return {"caption": "AUC-ROC and average precision of each signal for a failure ahead, oriented so that a higher "
                       "signal predicts a reliable tool (0.5: no better than chance; the average precision of chance "
                       "is the base rate); 95 % intervals over tools",
            "columns": ["signal", "platform", "tool-months", "tools", "failures", "base rate", "AUC [95 % CI]",
                        "average precision [95 % CI]"],
            "rows": rows}  # fmt: skip


def write(args: argparse.Namespace, figures: dict, results: list[Measure], deciles: list[dict],
          base_rate: float) -> None:  # fmt: skip
    """The record, and the decile plot beside it (``NAME.png``)."""
    plot = results_dir() / f"{args.record}.png"
    plot.parent.mkdir(parents=True, exist_ok=True)
    plot.write_bytes(decile_plot(deciles, base_rate, args.months_ahead))
    write_record(
        args.record,
        title="Does r_static predict failure?",
        section="score",
        benchmark=f"`ecoagent history`'s months as a prediction task: each tool of each month, scored as that month "
        f"scored it, labelled by a removal, rename or deprecation within {args.months_ahead} months "
        "(`history/failure.py`)",
        target="r_static above chance (AUC interval above 0.5), or the finding that it is not",
        figures=figures,
        tables=[measure_table(results), decile_rows(deciles, plot.name)],
    )


def decile_rows(deciles: list[dict], plot_name: str) -> dict:
    rows = [[d["decile"], f"{d['low']:.3f}-{d['high']:.3f}", d["rows"], d["failures"], f"{d['rate']:.1%}"]
            for d in deciles]  # fmt: skip
    return {"caption": "Failure rate by r_static decile (equal-count deciles of the tool-months); the plot: "
                       f"[{plot_name}](results/{plot_name})",
            "columns": ["decile", "r_static", "tool-months", "failures", "rate"], "rows": rows}  # fmt: skip


if __name__ == "__main__":
    main()
