"""The one rule for what a qrels frame judges: alternatives acceptable, not required; grades kept; any frame."""

from __future__ import annotations

import polars as pl

from ecoagent.release_format.qrels import judge


def _frame(rows: list[tuple], alternative: bool = True) -> pl.DataFrame:
    columns = ["query-id", "corpus-id", "score", "alternative"]
    frame = pl.DataFrame(rows, schema=columns if alternative else columns[:3], orient="row")
    return frame


def test_alternatives_are_acceptable_not_required_and_grades_are_kept() -> None:
    judged = judge(_frame([("q1", "a", 2, False), ("q1", "b", 1, False), ("q1", "c", 2, True),
                           ("q2", "c", 1, True), ("q2", "d", 1, True),  # only alternatives: left out
                           ("q3", "a", 1, False), ("q3", "a", 1, True),  # required wins over alternative
                           ("q4", "e", 0, False)]))  # fmt: skip
    assert judged.required == {"q1": {"a": 2, "b": 1}, "q3": {"a": 1}}
    assert judged.acceptable == {"q1": {"c"}}
    assert judged.only_acceptable == {"q2"}


def test_a_frame_without_the_column_is_all_required_and_unknown_tools_are_ignored() -> None:
    judged = judge(_frame([("q1", "a", 1), ("q1", "zz", 1), ("q2", "zz", 1)], alternative=False), known={"a", "b"})
    assert judged.required == {"q1": {"a": 1}}
    assert judged.acceptable == {} and judged.only_acceptable == frozenset()
