"""Two runs of the pipeline compared file by file: which files are byte-identical, which differ, which are new.

    .venv/bin/python benchmarks/compare_runs.py --before RUN_A --after RUN_B [--version V] [--note TEXT ...]
        [--rated-before DIR --rated-after DIR] [--record NAME]

A run is the folder ``ecoagent run --out RUN`` writes (``crawl/``, ``score/``, ``synth/``, ``label/``,
``release/<version>/``). Every file of those folders is hashed with sha256; the table lists the data files
(Parquet), the summary counts every file. Summaries, gate reports and the card carry times and dates, so they are
expected to differ; a data file that differs is the finding. What a change means to alter is said with ``--note``.

``--rated-before`` / ``--rated-after``: two ``ecoagent rated`` folders of the same release and settings, compared
too: ``metrics.json`` with its timings left out (every ``seconds`` key and Table 3's latencies), and the lines of
``report.md`` that differ.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.record import add_record_option, write_record
from ecoagent.layout import RATED_FILES, RunLayout
from ecoagent.stage import Published
from ecoagent.text.markdown import markdown_table
from pipeline.stages import STAGES, releases_folder
from rated.stage import without_timings


def checksums(run: Path, version: str) -> dict[str, str]:
    """``{relative path: sha256}`` of every file of the run's stage folders and of its release ``version``."""
    folders = [run / s.name for s in STAGES if not isinstance(s, Published)]
    folders.append(Path(releases_folder(RunLayout(str(run)))) / version)
    return {
        path.relative_to(run).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for folder in folders if folder.is_dir()
        for path in sorted(folder.rglob("*")) if path.is_file()
    }  # fmt: skip


def compare(before: dict[str, str], after: dict[str, str]) -> dict[str, list[str]]:
    """The files of both runs by outcome: identical, differs, new (after only), gone (before only)."""
    both = sorted(set(before) & set(after))
    return {
        "identical": [f for f in both if before[f] == after[f]],
        "differs": [f for f in both if before[f] != after[f]],
        "new": sorted(set(after) - set(before)),
        "gone": sorted(set(before) - set(after)),
    }


def compare_rated(before: Path, after: Path) -> dict[str, object]:
    """Two RATED folders: whether their metrics agree but for timings, and the report lines that differ."""
    metrics = [json.loads((folder / RATED_FILES.metrics).read_text(encoding="utf-8")) for folder in (before, after)]
    reports = [(folder / RATED_FILES.report).read_text(encoding="utf-8").splitlines() for folder in (before, after)]
    changed = [line for line in difflib.unified_diff(*reports, lineterm="", n=0)
               if line.startswith(("-", "+")) and not line.startswith(("---", "+++"))]  # fmt: skip
    return {
        "rated metrics.json equal but for timings": without_timings(metrics[0]) == without_timings(metrics[1]),
        "rated report.md lines that differ (before + after)": len(changed),
        "rated report.md differing lines": changed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--version", default="2026.12.1", help="the release version both runs built")
    parser.add_argument("--note", action="append", default=[], help="what the change means to alter (repeatable)")
    parser.add_argument("--rated-before", type=Path, help="an `ecoagent rated` folder of the before code")
    parser.add_argument("--rated-after", type=Path, help="the after code's folder, same release and settings")
    add_record_option(parser)
    args = parser.parse_args()
    if (args.rated_before is None) != (args.rated_after is None):
        parser.error("--rated-before and --rated-after go together")

    before, after = checksums(args.before, args.version), checksums(args.after, args.version)
    outcome = compare(before, after)
    data = [f for f in sorted(set(before) | set(after)) if f.endswith(".parquet")]
    rows = [[f, before.get(f, "-")[:16], after.get(f, "-")[:16],
             next(k for k, files in outcome.items() if f in files)] for f in data]  # fmt: skip
    columns = ["file", "sha256 before (16)", "sha256 after (16)", "outcome"]
    print("\n".join(markdown_table(columns, rows)))
    figures = {k: len(v) for k, v in outcome.items()}
    figures["data files (Parquet) identical"] = f"{sum(r[3] == 'identical' for r in rows)} of {len(rows)}"
    figures["the files that differ"] = ", ".join(outcome["differs"]) or "none"
    notes = list(args.note)
    if args.rated_before is not None:
        rated = compare_rated(args.rated_before, args.rated_after)
        notes += [f"report.md: {line}" for line in rated.pop("rated report.md differing lines")]
        figures.update(rated)
    print("\n".join(f"{k}: {v}" for k, v in figures.items()))
    print("\n".join(notes[len(args.note):]))
    if args.record:
        write_record(
            args.record,
            title="A default run before and after a change, file by file",
            section="pipeline",
            benchmark=f"benchmarks/compare_runs.py: sha256 of every file of two runs' stage folders and release "
            f"{args.version}",
            figures=figures,
            target="every data file byte-identical except those the change means to alter",
            tables=[{"columns": columns, "rows": rows, "caption": "The data files of both runs."}],
            notes=notes,
        )


if __name__ == "__main__":
    main()
