"""The package-requests labels (``labeling.package_requests``) judged blind, per platform.

    .venv/bin/python benchmarks/package_requests_precision.py --sheet OUT.csv --key KEY.csv --release DIR
        [--per-platform N]
    .venv/bin/python benchmarks/package_requests_precision.py --score FILLED.csv --key KEY.csv [--record NAME]

- ``--sheet``: a **blind** sheet of a release's ``package-requests`` queries (every split), a seeded sample of
  ``--per-platform`` per platform (all of a platform that has fewer). Per query: the request's text and the tools it
  is labelled with (name and short description; a package-level set is listed whole up to :data:`SHOWN` tools,
  with how many more). Nothing says where the request was found, how it was tied or at which level. The reader
  fills ``is_request`` (yes: a request a user could give an agent that has tools; no: code, a fragment, a
  description, a test string) and ``label_right`` (yes: a listed tool, called as it is described, does what the
  request asks or its main step; no otherwise). ``--key`` (never shown to the reader) says each row's platform,
  package, label level and tie.
- ``--score``: per platform and label level, the share of requests judged real, and the label precision (label
  judged right among the rows judged real requests) with a 95 % Wilson interval.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

import polars as pl

from benchmarking.record import add_record_option, write_record
from benchmarking.sheets import write_csv
from ecoagent.release_format.review import trim_text, wilson_interval
from ecoagent.text.markdown import markdown_table
from release.build import data_path

SHOWN = 60  # tools listed per query (label.package_requests.max_package_tools); more: how many more
DESCRIPTION_CHARS = 110
SHEET_COLUMNS = ("row_id", "request", "labelled_tools", "is_request", "label_right")
KEY_COLUMNS = ("row_id", "query_id", "platform", "package", "label_level", "tie", "tools")
ANSWERS = ("yes", "no")


def _read(release: Path, config_name: str) -> pl.DataFrame:
    frames = [pl.read_parquet(release / data_path(config_name, split)) for split in ("train", "validation", "test")
              if (release / data_path(config_name, split)).exists()]  # fmt: skip
    if not frames:
        raise SystemExit(f"{release}: no {config_name} config (a release built with label.package_requests on)")
    return pl.concat(frames, how="diagonal_relaxed")


def write_sheet(release: Path, sheet: Path, key: Path, per_platform: int, seed: int) -> None:
    queries = _read(release, "package-requests-queries")
    qrels = _read(release, "package-requests-qrels")
    tools = pl.read_parquet(release / data_path("tools", "train"), columns=["tool_id", "name", "description"])
    about = {t: (n, d) for t, n, d in tools.iter_rows()}
    tools_of: dict[str, list[str]] = defaultdict(list)
    for query_id, tool_id in qrels.select("query-id", "corpus-id").sort("corpus-id").iter_rows():
        tools_of[query_id].append(tool_id)
    rng = random.Random(seed)
    picked = []
    for platform in sorted(set(queries["platform"])):
        rows = queries.filter(pl.col("platform") == platform).sort("_id").to_dicts()
        picked += rng.sample(rows, min(per_platform, len(rows)))
    rng.shuffle(picked)
    sheet_rows, key_rows = [], []
    for number, query in enumerate(picked, 1):
        listed = tools_of[query["_id"]]
        lines = [f"{about[t][0]}: {trim_text(about[t][1] or '', DESCRIPTION_CHARS)}" for t in listed[:SHOWN]]
        if len(listed) > SHOWN:
            lines.append(f"... and {len(listed) - SHOWN} more tools of the same package")
        sheet_rows.append({"row_id": number, "request": query["text"], "labelled_tools": "\n".join(lines)})
        key_rows.append({"row_id": number, "query_id": query["_id"], "platform": query["platform"],
                         "package": query["package"], "label_level": query["label_level"], "tie": query["tie"],
                         "tools": len(listed)})  # fmt: skip
    write_csv(sheet, SHEET_COLUMNS, sheet_rows)
    write_csv(key, KEY_COLUMNS, key_rows)
    print(f"{len(sheet_rows)} requests -> {sheet} (key: {key})")


def read_judged(filled: Path, key: Path) -> list[dict]:
    """The key's rows with the reader's answers; refuses an answer other than yes or no."""
    with filled.open(encoding="utf-8") as f:
        judged = {r["row_id"]: r for r in csv.DictReader(f)}
    rows = []
    with key.open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            answers = judged.get(r["row_id"], {})
            for column in ("is_request", "label_right"):
                value = (answers.get(column) or "").strip().lower()
                if value and value not in ANSWERS:
                    raise SystemExit(f"{filled}: row {r['row_id']}: {column} {value!r} is not yes or no")
                r[column] = value
            rows.append(r)
    return rows


def score_rows(rows: list[dict], by: tuple[str, ...]) -> list[list[str]]:
    """One table row per value of the ``by`` columns (and one for all): requests judged, real requests, precision."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        if r["is_request"]:
            groups[tuple(r[c] for c in by)].append(r)
            groups[("all",) * len(by)].append(r)
    out = []
    for group in sorted(groups, key=lambda g: (g[0] == "all", g)):
        judged = groups[group]
        real = [r for r in judged if r["is_request"] == "yes"]
        right = sum(r["label_right"] == "yes" for r in real)
        low, high = wilson_interval(right, len(real))
        out.append([*group, str(len(judged)), f"{len(real)}/{len(judged)}",
                    f"{right / len(real):.3f} ({right}/{len(real)})" if real else "-",
                    f"[{low:.3f}, {high:.3f}]" if real else "-"])  # fmt: skip
    return out


def score(filled: Path, key: Path, record: str | None) -> None:
    rows = read_judged(filled, key)
    if not any(r["is_request"] for r in rows):
        raise SystemExit(f"{filled}: no row is judged")
    tables = []
    for by in (("platform",), ("label_level",), ("platform", "label_level")):
        columns = [*by, "judged", "real requests", "label precision", "95 % Wilson"]
        tables.append((columns, score_rows(rows, by), f"by {' and '.join(by)}"))
    for columns, table, caption in tables:
        print(f"{caption}\n\n" + "\n".join(markdown_table(columns, table)) + "\n")
    if record:
        total = next(r for r in tables[0][1] if r[0] == "all")
        write_record(
            record,
            title="Package requests: label precision judged blind",
            section="label",
            benchmark="benchmarks/package_requests_precision.py: a seeded per-platform sample of a release's "
            "package-requests queries, each request and its labelled tools judged by a reader who saw nothing else",
            figures={"requests judged": int(total[1]), "real requests": total[2], "label precision": total[3],
                     "95 % Wilson": total[4]},
            tables=[{"columns": c, "rows": t, "caption": caption} for c, t, caption in tables],
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sheet", type=Path, help="write the blind sheet here (with --key and --release)")
    parser.add_argument("--score", type=Path, metavar="FILLED", help="score a filled sheet (with --key)")
    parser.add_argument("--key", type=Path, required=True)
    parser.add_argument("--release", type=Path, help="a release folder with the package-requests configs")
    parser.add_argument("--per-platform", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args()
    if args.sheet:
        if not args.release:
            parser.error("--sheet needs --release")
        write_sheet(args.release, args.sheet, args.key, args.per_platform, args.seed)
    elif args.score:
        score(args.score, args.key, args.record)
    else:
        parser.error("one of --sheet or --score")


if __name__ == "__main__":
    main()
