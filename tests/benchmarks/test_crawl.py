"""``benchmarks/crawl.py`` on the fixture world's mirror (the real pip and npm clients, no network): a cold crawl
with an empty package cache, then a warm one, byte-identical, and the record. ``--community`` (n8n's community
listing, about 1,470 npm packages) needs the registry: not run here."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ecoagent.layout import CRAWL_FILES
from tests.benchmarks.conftest import use_world
from tests.benchmarks.scripts import record_written, run_script


def test_cold_then_warm_crawl_of_the_mirror(world, monkeypatch, tmp_path: Path, results_dir: Path) -> None:
    use_world(monkeypatch, world.overrides)
    ran = run_script("crawl", "--profile", "fixture", "--keep", tmp_path / "work", "--record", "smoke-crawl")
    assert ran.code == 0, ran
    report = ran.json_after()
    tools = pl.read_parquet(world.crawl / CRAWL_FILES.tools).height
    assert report["tools"] == tools and report["byte_identical"] is True
    listed = world.sources.read_text().count("{platform: ")
    assert report["packages"] == listed == 7 and report["packages_failed"] == 0  # every listed package read
    assert report["warm_cache_hits"] == report["packages"]  # the warm crawl fetched nothing
    assert set(report["per_platform"]) == {"langchain", "crewai", "llamaindex", "n8n", "mcp"}
    assert (tmp_path / "work" / "cache").is_dir() and (tmp_path / "work" / "warm" / CRAWL_FILES.tools).is_file()
    assert ran.out.splitlines()[-2].startswith("cold crawl ") and "byte-identical: True" in ran.out
    record = record_written(results_dir, "smoke-crawl")
    assert record["figures"]["catalogs"] == "byte-identical" and record["section"] == "crawl"
    assert {row[0] for row in record["tables"][0]["rows"]} == set(report["per_listing"])
