"""``benchmarks/refresh.py`` runs three full refreshes of the default profile (the real registries, the embedded
model: about an hour on 2 cores), so here only its parts run (``benchmarking/refresh.py``): the bumped source list it
crawls the third time, and a refresh that fails, named with its log. The refresh itself is ``ecoagent run``, which
the pipeline's tests and ``tests/benchmarks/test_paper_scale.py`` run on the fixture packages."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from benchmarking import refresh
from tests.benchmarks.scripts import REPO

SOURCES = REPO / "crawlers" / "sources.yaml"


def test_the_bumped_source_list_changes_one_version_only(tmp_path: Path) -> None:
    out = refresh.bump_sources(SOURCES, "llama-index-tools-arxiv", "0.1.0", tmp_path / "sources.bumped.yaml")
    before, after = (yaml.safe_load(p.read_text())["sources"] for p in (SOURCES, out))
    changed = [(a["name"], a["version"]) for a, b in zip(after, before, strict=True) if a != b]
    assert changed == [("llama-index-tools-arxiv", "0.1.0")]
    assert next(b for b in before if b["name"] == "llama-index-tools-arxiv")["version"] != "0.1.0"


def test_a_failed_refresh_stops_the_benchmark_naming_its_log(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"`ecoagent run` failed \(2\); see .*/full\.log"):
        # crawl.workers=0 is out of its range: the CLI exits 2 before any stage
        refresh.run_refresh(tmp_path / "full", ["crawl.workers=0"])
    assert "crawl.workers" in (tmp_path / "full.log").read_text()
