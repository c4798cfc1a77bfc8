"""The card's baseline retrieval (``release.baselines``): Table 1's lexical rows, computed on the staged release at
both corpus scales, are what a reader computes from the published release with the same retrievers."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from ecoagent.layout import SCORE_FILES
from ecoagent.release_format.reader import load_release
from ecoagent.release_format.views import listing_view
from ecoagent.retrieval.evaluation import offline_table
from ecoagent.retrieval.rankers import BM25Retriever, TfidfRetriever
from release.baselines import CARD_SETS
from release.build import build_release
from tests.release.test_build import CONFIG, CREATED, make_stage_outputs, tool_id
from tests.release.test_card import add_gold

TOOLS = list(range(8))
COMMUNITY = {tool_id(6), tool_id(7)}  # out of the paper-scale view


def _built(root: Path) -> Path:
    inputs = make_stage_outputs(root / "stages", TOOLS)
    add_gold(inputs)
    scored = Path(inputs.score_dir) / SCORE_FILES.tools
    frame = pl.read_parquet(scored)
    listing = pl.when(pl.col("tool_id").is_in(list(COMMUNITY))).then(pl.lit("community-verified"))
    frame.with_columns(listing.otherwise(pl.col("listing")).alias("listing")).write_parquet(scored)
    built = build_release(inputs, root / "release" / "2.0.0", version="2.0.0", config=CONFIG, created=CREATED)
    return Path(built.folder)


def _lexical(release) -> dict:
    retrievers = [TfidfRetriever().fit(release.corpus), BM25Retriever().fit(release.corpus)]
    table1, _ = offline_table(release, retrievers, CARD_SETS, CONFIG.seed, CONFIG.evaluation.head_tools)
    return json.loads(json.dumps(table1))  # as the manifest holds it


def test_the_card_has_table_1s_lexical_rows_at_both_scales_as_a_reader_computes_them(tmp_path: Path):
    from huggingface_hub import DatasetCard

    folder = _built(tmp_path)
    baselines = json.loads((folder / "manifest.json").read_text())["baselines"]
    release = load_release(folder)
    view, _, dropped = listing_view(release)
    assert baselines["full"]["tools"] == 8 and baselines["paper_scale"]["tools"] == 6
    assert baselines["full"]["table1"] == _lexical(release)
    assert baselines["paper_scale"]["table1"] == _lexical(view)
    assert baselines["paper_scale"]["queries_left_out"] == {name: dropped.get(name, 0) for name in CARD_SETS}
    # real/test has queries whose tool is a community one: the view leaves them out, and says how many
    assert baselines["paper_scale"]["queries_left_out"]["real/test"] > 0
    assert "skipped" in baselines["full"]["table1"]["workflows/test"]  # no workflow set in this build

    text = DatasetCard.load(folder / "README.md").text
    assert "## Baseline retrieval" in text
    cell = baselines["full"]["table1"]["real/test"]["TF-IDF"]
    assert f"| real/test | full catalog (8) | TF-IDF | {cell['queries']} | {cell['mrr']:.3f} [" in text
    # real has a train split: its query-blind floor comes first; gold has none
    assert set(baselines["full"]["table1"]["real/test"]) == {"popularity (train frequency)", "TF-IDF", "BM25"}
    assert set(baselines["full"]["table1"]["gold/test"]) == {"TF-IDF", "BM25"}
    assert "| real/test | full catalog (8) | popularity (train frequency) |" in text
    assert "| real/test | paper scale (6) | BM25 |" in text
    assert "the platform and official listings only" in text
