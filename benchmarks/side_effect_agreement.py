"""Agreement of the side-effect rules with the hand-labelled sample, plus the catalog distribution.

.venv/bin/python benchmarks/side_effect_agreement.py [--catalog data/tools.parquet] [--show-disagreements]
    [--record NAME]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarking.record import add_record_option, write_record
from scoring.side_effect import classify_side_effects
from scoring.side_effect.agreement import Agreement, agreement_with_labels

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "scoring" / "data" / "side_effect_sample.jsonl"


def record(name: str, agreement: Agreement) -> None:
    """The figures as a record of the results page (``benchmarking/record.py``)."""
    figures = {
        "hand-labelled tools": agreement.n,
        "decided by the rules (not unknown)": agreement.decided,
        "agreement where decided": f"{agreement.agreement:.1%} ({agreement.agreed} / {agreement.decided})",
        "unknown": f"{agreement.unknown_share:.1%} ({agreement.unknown})",
    }
    confusion = {"columns": agreement.confusion.columns, "rows": [list(row) for row in agreement.confusion.rows()]}
    confusion["caption"] = "Confusion: rows the hand label, columns the rule's tier."
    write_record(
        name,
        title="Side-effect rules vs the hand-labelled sample",
        section="score",
        benchmark="the side-effect tier rules (scoring/side_effect/) against 191 hand-labelled real tools",
        figures=figures,
        target=">= 85 % agreement where decided, <= 15 % unknown",
        tables=[confusion],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sample", type=Path, default=SAMPLE)
    parser.add_argument("--catalog", type=Path, help="tools.parquet: also print the tier distribution over it")
    parser.add_argument("--show-disagreements", action="store_true")
    add_record_option(parser)
    args = parser.parse_args()

    sample = pl.read_ndjson(args.sample)
    agreement = agreement_with_labels(sample)
    print(agreement.render())
    if args.record:
        record(args.record, agreement)
    if args.show_disagreements:
        out = sample.select("tool_id", "label").with_columns(classify_side_effects(sample).drop("tool_id"))
        bad = out.filter(pl.col("label") != pl.col("side_effect"))
        with pl.Config(tbl_rows=-1, fmt_str_lengths=90, tbl_width_chars=250):
            print(bad.select("tool_id", "label", "side_effect", "side_effect_rule"))

    if args.catalog:
        tools = pl.read_parquet(args.catalog)
        scored = classify_side_effects(tools)
        dist = scored.group_by("side_effect").len().sort("len", descending=True)
        dist = dist.with_columns(share=(pl.col("len") / pl.col("len").sum()).round(3))
        with pl.Config(tbl_rows=-1, tbl_hide_dataframe_shape=True):
            print(f"\ncatalog {args.catalog}: {tools.height} tools")
            print(dist)
            print(f"with inverse_tool_id: {scored['inverse_tool_id'].is_not_null().sum()}")


if __name__ == "__main__":
    main()
