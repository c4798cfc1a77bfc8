"""``benchmarks/label_completion.py`` on the fixture world's workflow queries: the effect counted, a blind sheet and
its key written, the sheet filled as a reader would and scored into a record."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import polars as pl

from tests.benchmarks.conftest import use_world
from tests.benchmarks.scripts import record_written, run_script


def _store(world, folder: Path) -> Path:
    """A data store as the label stage leaves it: the world's crawl and its workflow queries and qrels."""
    from ecoagent.config import load_config
    from ecoagent.layout import LABEL_FILES, SCORE_FILES
    from labeling.workflows.build import build_workflows

    config = load_config("fixture", overrides=world.overrides, environ={})
    catalog = pl.read_parquet(world.score / SCORE_FILES.tools)
    ws = build_workflows(config, catalog, str(world.crawl), lambda texts: np.ones((len(texts), 2)))
    (folder / "label").mkdir(parents=True)
    ws.queries.write_parquet(folder / "label" / LABEL_FILES.workflow_queries)
    ws.qrels.write_parquet(folder / "label" / LABEL_FILES.workflow_qrels)
    (folder / "crawl").symlink_to(world.crawl)
    return folder


def test_the_sheet_is_blind_and_its_judgements_are_scored(world, monkeypatch, tmp_path, results_dir: Path) -> None:
    use_world(monkeypatch, world.overrides)
    data = _store(world, tmp_path / "data")
    ran = run_script("label_completion", "--effect", "--data", data)
    assert ran.code == 0, ran
    assert "kept queries gaining completed labels: 0 of" in ran.out  # the fixture templates call no service
    sheet, key = tmp_path / "sheet.csv", tmp_path / "key.csv"
    ran = run_script("label_completion", "--sheet", sheet, "--key", key, "--data", data, "--without", 3)
    assert ran.code == 0, ran
    with sheet.open() as f:
        rows = list(csv.DictReader(f))
    columns = "row_id template_id title task workflow_nodes tool_name tool_description judgement"
    assert list(rows[0]) == columns.split()  # nothing says which rows are labels
    with key.open() as f:
        keyed = {r["row_id"]: r for r in csv.DictReader(f)}
    assert set(keyed) == {r["row_id"] for r in rows} and any(r["native"] == "True" for r in keyed.values())
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        for r in rows:  # a reader who needs exactly the native labels
            writer.writerow({**r, "judgement": "required" if keyed[r["row_id"]]["native"] == "True" else "not_needed"})
    ran = run_script("label_completion", "--score", filled, "--key", key, "--record", "smoke-completion")
    assert ran.code == 0, ran
    line = next(x for x in ran.out.splitlines() if x.startswith("| before: all native labels |"))
    assert "1.000" in line.split(" | ")[2] and line.split(" | ")[4].startswith("1.000")
    record = record_written(results_dir, "smoke-completion")
    assert record["section"] == "label" and record["figures"]["templates"] == len({r["template_id"] for r in rows})
