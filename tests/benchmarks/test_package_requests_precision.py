"""``benchmarks/package_requests_precision.py`` on a tiny release with the package-requests configs: a blind sheet
and its key written, the sheet filled as a reader would and scored per platform into a record."""

from __future__ import annotations

import csv
from pathlib import Path

from release.build import build_release
from tests.benchmarks.scripts import record_written, run_script
from tests.release.test_build import CONFIG, CREATED, make_stage_outputs
from tests.release.test_package_requests import TOOLS, _add, _frames


def test_the_sheet_is_blind_and_its_answers_are_scored(tmp_path: Path, results_dir: Path) -> None:
    inputs = make_stage_outputs(tmp_path / "stages", TOOLS)
    _add(inputs, *_frames())
    release = Path(build_release(inputs, tmp_path / "release" / "4.0.0", version="4.0.0", config=CONFIG,
                                 created=CREATED).folder)  # fmt: skip
    sheet, key = tmp_path / "sheet.csv", tmp_path / "key.csv"
    ran = run_script("package_requests_precision", "--sheet", sheet, "--key", key, "--release", release)
    assert ran.code == 0, ran
    with sheet.open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["row_id", "request", "labelled_tools", "is_request", "label_right"]  # nothing else
    assert len(rows) == 7 and all(r["labelled_tools"] for r in rows)
    with key.open() as f:
        keyed = {r["row_id"]: r for r in csv.DictReader(f)}
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        for r in rows:  # a reader who finds every package-level label wrong
            right = "no" if keyed[r["row_id"]]["label_level"] == "package" else "yes"
            writer.writerow({**r, "is_request": "yes", "label_right": right})
    ran = run_script("package_requests_precision", "--score", filled, "--key", key, "--record", "smoke-requests")
    assert ran.code == 0, ran
    assert "| tool | 3 | 3/3 | 1.000 (3/3) |" in ran.out and "| package | 4 | 4/4 | 0.000 (0/4) |" in ran.out
    record = record_written(results_dir, "smoke-requests")
    assert record["figures"]["label precision"] == "0.429 (3/7)"
    bad = tmp_path / "bad.csv"
    bad.write_text(filled.read_text().replace(",yes,", ",maybe,", 1))
    assert run_script("package_requests_precision", "--score", bad, "--key", key).code != 0
