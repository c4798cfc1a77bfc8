"""``benchmarks/record.py``: the results page rendered from planted records, checked, and a bad record refused with
its file named (the real page: ``tests/test_docs.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmarks.scripts import run_script

GOOD = {"title": "t", "section": "crawl", "benchmark": "b", "command": "c", "date": "d", "machine": "m",
        "source": "written by the benchmark"}  # fmt: skip


def _plant(folder: Path, **records: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, record in records.items():
        (folder / f"{name}.json").write_text(json.dumps(record))
    return folder


def test_the_page_is_rendered_from_the_records_in_section_order_then_checked(tmp_path: Path) -> None:
    records = _plant(tmp_path / "results", **{
        "label-late": {**GOOD, "title": "Labels", "section": "label", "figures": {"precision": 0.9}},
        "crawl-second": {**GOOD, "title": "Crawl B", "order": 2, "figures": {"tools": 3}},
        "crawl-first": {**GOOD, "title": "Crawl A", "order": 1, "source": "transcribed from README", "tables": [
            {"caption": "Per platform", "columns": ["platform", "tools"], "rows": [["n8n", 2], ["mcp|x", 1]]}]},
    })  # fmt: skip
    page = tmp_path / "results.md"
    ran = run_script("record", "--records", records, "--page", page)
    assert ran.code == 0 and ran.out.strip().endswith("results.md: 3 records"), ran
    text = page.read_text()
    assert text.startswith("# Measured results\n")
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == ["# Measured results", "## The crawl", "### Crawl A {#crawl-first}",
                        "### Crawl B {#crawl-second}", "## EcoAgent-Real", "### Labels {#label-late}"]  # fmt: skip
    assert "| mcp\\|x | 1 |" in text and "| precision | 0.9 |" in text  # a pipe in a cell is escaped

    assert run_script("record", "--records", records, "--page", page, "--check").code == 0
    page.write_text(text.replace("Crawl A", "Crawl A, edited by hand"))
    stale = run_script("record", "--records", records, "--page", page, "--check")
    assert stale.code == 1 and "is not the rendering of" in stale.err, stale


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ({"section": "crawl"}, "missing"),
        ({**GOOD, "section": "nowhere", "figures": {"x": 1}}, "section"),
        (GOOD, "figures or tables"),
        ({**GOOD, "tables": [{"columns": ["a", "b"], "rows": [[1]]}]}, "wrong width"),
        ({**GOOD, "source": "from memory", "figures": {"x": 1}}, "source says how the figures came to be"),
    ],
)
def test_a_bad_record_is_refused_with_its_file_named(tmp_path: Path, record: dict, problem: str) -> None:
    records = _plant(tmp_path / "results", fine={**GOOD, "figures": {"x": 1}}, bad=record)
    ran = run_script("record", "--records", records, "--page", tmp_path / "results.md", "--check")
    assert ran.code == 1 and f"{records / 'bad.json'}: " in ran.err and problem in ran.err, ran
    assert not (tmp_path / "results.md").exists()
