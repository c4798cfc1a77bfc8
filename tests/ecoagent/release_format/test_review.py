"""Reading a filled review sample: tolerant of what spreadsheets do, strict about labels, kappa's edge cases."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from ecoagent.release_format.review import cohen_kappa, read_agreement
from tests.labeling.test_review import write_rows


def test_reader_tolerates_bom_reordered_columns_and_duplicates(tmp_path: Path) -> None:
    columns = ["human_label", "query_id", "tool_id", "query", "tool_name", "verifier_score", "verifier_label"]
    path = tmp_path / "filled.csv"
    rows = [
        {
            "human_label": "1",
            "query_id": "a",
            "tool_id": "t",
            "query": "q",
            "tool_name": "n",
            "verifier_score": "0.9",
            "verifier_label": "1",
        },
        {
            "human_label": "0",
            "query_id": "a",
            "tool_id": "t",
            "query": "q",
            "tool_name": "n",
            "verifier_score": "0.9",
            "verifier_label": "1",
        },
        {
            "human_label": " 0 ",
            "query_id": "b",
            "tool_id": "t",
            "query": "q",
            "tool_name": "n",
            "verifier_score": "",
            "verifier_label": "x",
        },
    ]
    write_rows(path, rows, columns)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes() + b",,,,,,\r\n")  # BOM + a spreadsheet's empty row
    report = read_agreement(path)
    assert report.rows == 3
    assert report.labelled == 1
    assert report.skipped == Counter({"duplicate": 1, "invalid verifier_label": 1})


def test_wrong_file_names_missing_columns(tmp_path: Path) -> None:
    path = tmp_path / "pairs.csv"
    path.write_text("query_id,tool_id,label\nq,t,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"pairs\.csv.*query, tool_name, verifier_score, verifier_label, human_label"):
        read_agreement(path)
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"empty\.csv.*missing columns query_id"):
        read_agreement(empty)


def test_degenerate_kappa() -> None:
    # One side constant: p_o == p_e, kappa 0 (sklearn agrees).
    assert cohen_kappa(tp=8, fp=2, fn=0, tn=0) == 0.0
    assert cohen_kappa_score([1] * 8 + [0] * 2, [1] * 10) == 0.0
    # Both constant and equal: p_e = 1. sklearn calls it undefined (NaN); we call it 0, without dividing by 0.
    assert cohen_kappa(tp=10, fp=0, fn=0, tn=0) == 0.0
    assert cohen_kappa(tp=0, fp=0, fn=0, tn=5) == 0.0
    assert math.isnan(cohen_kappa(0, 0, 0, 0))
    assert cohen_kappa(tp=5, fp=0, fn=0, tn=5) == 1.0
    assert cohen_kappa(tp=0, fp=5, fn=5, tn=0) == -1.0
