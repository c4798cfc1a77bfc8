"""``benchmarks/score.py`` on the fixture world's crawl (the store's): scored cold (empty embedding and tokenizer
caches), then warm, the same bytes both times."""

from __future__ import annotations

import polars as pl

from ecoagent.config import load_config
from ecoagent.layout import CRAWL_FILES
from tests.benchmarks.conftest import use_world
from tests.benchmarks.scripts import run_script


def test_cold_then_warm_scoring_of_the_fixture_catalog(world, monkeypatch) -> None:
    # the Gemma tokenizer as the world's scoring saved it: converting it from the GGUF again (the script's empty
    # tokenizer cache) takes 20-40 s here, and the figure that matters is the embeddings' cold and warm
    config = load_config("fixture", overrides=world.overrides, environ={})
    tokenizer = config.resolve_path(config.score.tokenizer_cache) / "gemma3-270m" / "tokenizer.json"
    # no --in: the store's crawl folder, as after `make run` (the world's root holds crawl/)
    use_world(monkeypatch, [*world.overrides, f"score.tokenizer={tokenizer}", f"store={world.root}"])
    ran = run_script("score", "--profile", "fixture")
    assert ran.code == 0, ran
    report = ran.json_after()
    assert report["tools"] == pl.read_parquet(world.crawl / CRAWL_FILES.tools).height > 0
    assert report["identical_outputs"] is True
    cold, warm = report["embeddings_cold"], report["embeddings_warm"]
    assert cold["misses"] > 0 and warm["misses"] == 0, (cold, warm)  # an unchanged tool is never re-embedded
    assert report["cold_seconds"] > 0 and report["warm_seconds"] > 0
    assert ran.out.splitlines()[-1].startswith("score cold ") and "identical outputs: True" in ran.out
