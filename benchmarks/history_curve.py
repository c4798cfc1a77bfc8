"""Benchmark: the history step (Figure 1) cold and warm, its table and plot into the documentation.

    .venv/bin/python benchmarks/history_curve.py --out ROOT [--since YYYY-MM] [--until YYYY-MM] [--record NAME]
                                           [--set section.key=value ...]

Cold: the first run on ``ROOT`` with empty package and embedding caches (give both with ``--set
crawl.cache_dir=ROOT/packages --set embedding.cache_dir=ROOT/embeddings``): every version is fetched, read and every
month scored. When ``ROOT/history/`` already holds a run (a cold one started earlier with ``ecoagent history`` and
the same settings, say), its own summary is the cold figure and only the warm run is made here. Warm: the same
command again, right after: nothing is fetched or read again and no month is scored again. The ratio is warm / cold
wall time. With ``--record``, the monthly table (total and reliable tools, per platform and listing) and the plot
(``docs/figure1.png``) go into the documentation beside the paper's numbers.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report, timed
from benchmarking.record import add_record_option, results_dir, write_record
from ecoagent.config import load_config
from ecoagent.layout import HISTORY_FILES, RunLayout
from history.run import figure_rows
from pipeline.stages import HISTORY


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="root folder of the history runs")
    parser.add_argument("--since", help="first month (default: history.since)")
    parser.add_argument("--until")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    add_record_option(parser)
    args = parser.parse_args()
    months = [f"history.{key}={value}" for key, value in (("since", args.since), ("until", args.until)) if value]
    config = load_config("default", overrides=[*args.overrides, *months])
    folder = Path(RunLayout.of(config, args.out).folder(HISTORY.name))
    summary_file = folder / HISTORY_FILES.summary
    if summary_file.exists():
        cold = json.loads(summary_file.read_text())
        cold_source = f"the earlier run's own summary ({summary_file})"
    else:
        result, _ = timed(HISTORY.run_on, config, None, str(folder))
        cold, cold_source = result.summary, "this script's first run"
    started = time.perf_counter()
    warm = HISTORY.run_on(config, None, str(folder))
    warm_s = time.perf_counter() - started
    report(args, cold, cold_source, warm.summary, warm_s, folder)


def report(args: argparse.Namespace, cold: dict, cold_source: str, warm: dict, warm_s: float, folder: Path) -> None:
    cold_s = cold["seconds"]["total"]
    table = json.loads((folder / HISTORY_FILES.table).read_text())
    last = table["months"][-1]
    figures = {
        "months": f"{table['since']} to {table['until']} ({len(table['months'])})",
        "cold run": f"{cold_s:,.0f} s ({cold['versions']} versions: {cold['versions_fetched']} fetched, "
        f"{cold['versions_read']} read; {len(cold['months_crawled'])} months crawled and scored; from {cold_source})",
        "cold run by phase": ", ".join(f"{k} {v:,.0f} s" for k, v in cold["seconds"].items()),
        "warm run": f"{warm_s:,.1f} s ({warm['versions_read']} versions read, "
        f"{len(warm['months_reused'])} months reused; {warm_s / cold_s:.3f}x the cold run)",
        f"catalog in {last['month']}": f"{last['tools']:,} tools, {last['reliable']:,} reliable "
        f"({last['reliable_share']:.1%})",
        "the paper, 2026-01": f"{table['paper']['tools']:,} tools, {table['paper']['reliable']:,} reliable "
        f"({table['paper']['reliable_share']:.1%})",
        "versions failed (no wheel, unreadable)": str(len(cold["versions_failed"])),
    }
    print_report({"cold": cold, "warm": warm, "months": table["months"]},
                 f"history: cold {cold_s:,.0f} s, warm {warm_s:,.1f} s ({warm_s / cold_s:.3f}x)")  # fmt: skip
    if not args.record:
        return
    # the plot beside the results page (docs/figure1.png), which links it
    shutil.copyfile(folder / HISTORY_FILES.plot, results_dir().parent / HISTORY_FILES.plot)
    columns, rows = figure_rows(table)
    paper = table["paper"]
    rows.append([f"{paper['month']} (the paper)", "", paper["tools"], paper["reliable"],
                 f"{paper['reliable_share']:.1%}", *([""] * (len(columns) - 5))])  # fmt: skip
    write_record(
        args.record,
        title="Figure 1: the catalog month by month",
        section="crawl",
        benchmark="`ecoagent history`: each pinned package at the newest version published by each month's end, "
        "crawled and scored as today's catalog; the cold run on empty package and embedding caches, the warm run "
        "the same command again",
        target="warm run a small fraction of the cold one (each version fetched once ever, read once, unchanged "
        "months reused)",
        figures=figures,
        tables=[{"caption": "Tools per month (per platform and listing: tools / reliable); the plot: "
                            "[figure1.png](figure1.png)",
                 "columns": columns, "rows": rows}],
    )


if __name__ == "__main__":
    main()
