"""The score stage end to end on the fixture crawl: real MiniLM, real Gemma tokenizer, real GX gate."""

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from crawlers.crawl import crawl
from ecoagent.config import load_config
from schemas.scored_tool import ScoredToolRecord
from schemas.tool_record import polars_schema
from scoring.score import (
    documentation_quality,
    gate,
    per_listing,
    prompt_definition,
    prompt_token_summary,
    score,
    scored_descriptions,
)
from scoring.settings import ScoreConfig
from scoring.summary import summary_lines
from tests.fixture_packages import build_fixture_mirror, fixture_overrides


@pytest.fixture(scope="module")
def crawled(tmp_path_factory) -> tuple[Path, list[str]]:
    tmp = tmp_path_factory.mktemp("score")
    build_fixture_mirror(tmp / "mirror")
    overrides = [*fixture_overrides(tmp / "mirror", tmp / "cache"), f"embedding.cache_dir={tmp / 'emb'}"]
    cfg = load_config("fixture", overrides=overrides, environ={})
    crawl(cfg, out=str(tmp / "crawl"), sources_path=tmp / "mirror" / "sources.yaml")
    return tmp, overrides


def test_scores_every_tool_with_every_column(crawled):
    tmp, overrides = crawled
    cfg = load_config("fixture", overrides=overrides, environ={})
    result = score(cfg, in_dir=str(tmp / "crawl"), out=str(tmp / "score"))
    scored = pl.read_parquet(tmp / "score" / "tools_scored.parquet")
    assert scored.schema == polars_schema(ScoredToolRecord)
    assert len(scored) == 8
    for col in ("r_cons", "w_src", "r_qual", "r_static"):
        assert scored[col].is_between(0, 1).all(), col
    row = scored.filter(pl.col("tool_id") == "mcp:@modelcontextprotocol/server-fixture:fixture_search_notes").row(
        0, named=True
    )
    assert row["w_src"] == 1.0  # official listing
    assert row["r_static"] == pytest.approx(0.5 * row["r_cons"] + 0.3 * row["w_src"] + 0.2 * row["r_qual"], abs=1e-5)
    assert row["reliable"] == (row["r_static"] >= 0.8)
    assert row["prompt_tokens"] > 10
    assert set(scored["side_effect"]) <= {"read_only", "reversible", "compensable", "irreversible",
                                          "external_side_effect", "unknown"}  # fmt: skip
    assert all(s for s in scored["permission_scope"])
    summary = json.loads((tmp / "score" / "score_summary.json").read_text())
    assert summary["tools"] == 8 and "reliable_share" in summary and summary["paper_reliable_share"] == 0.568
    assert set(summary["per_platform"]) == {"crewai", "langchain", "llamaindex", "mcp", "n8n"}
    # per listing: the reliable share, and the w_src each platform took with the rule's reason
    listings = summary["per_listing"]
    assert sum(row["tools"] for row in listings.values()) == 8
    assert listings["official"]["per_platform"]["mcp"] == {
        "tools": 1, "reliable_share": listings["official"]["reliable_share"], "w_src": 1.0, "weight": "official"}
    assert listings["platform"]["per_platform"]["langchain"]["w_src"] == 0.9
    # the fixture's n8n package is a community one no platform verified: the paper's "otherwise"
    assert {k: listings["community"]["per_platform"]["n8n"][k] for k in ("w_src", "weight")} == {
        "w_src": 0.6, "weight": "other"}  # fmt: skip
    assert all(row["w_src_rule"] and 0 <= row["reliable_share"] <= 1 for row in listings.values())
    png = (tmp / "score" / "reliability_by_platform.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    assert result.summary["embedding_cache"]["misses"] > 0


def test_rerun_is_identical_and_served_from_the_embedding_cache(crawled):
    tmp, overrides = crawled
    cfg = load_config("fixture", overrides=overrides, environ={})
    first = score(cfg, in_dir=str(tmp / "crawl"), out=str(tmp / "a"))
    second = score(cfg, in_dir=str(tmp / "crawl"), out=str(tmp / "b"))
    assert second.summary["embedding_cache"]["misses"] == 0
    for name in ("tools_scored.parquet", "reliability_by_platform.png"):
        assert (tmp / "a" / name).read_bytes() == (tmp / "b" / name).read_bytes(), name
    assert first.summary["reliable"] == second.summary["reliable"]


def test_the_paper_compatible_reading_is_reported_beside_ours_and_changes_no_score(crawled):
    tmp, overrides = crawled
    # r_qual against every tool scored: under the fixed reference the fixture's few official and platform tools set
    # the median, and no tool sits between 0.8 and the every-source-1.0 line the last assertion needs
    overrides = [*overrides, "score.r_qual_reference=catalog"]
    # a second reading that changes only w_src: every source weighs 1.0, so reliable <=> 0.5 r_cons + 0.2 r_qual >= 0.5
    # (an override replaces the readings, so the default paper_compatible one is passed again)
    defaults = {n: r.model_dump() for n, r in load_config("fixture", environ={}).score.readings.items()}
    every_source = json.dumps({**defaults, "every_source_1": {"source_weights": dict.fromkeys(
        ("official", "langchain", "crewai", "llamaindex", "n8n", "other"), 1.0)}})  # fmt: skip
    with_reading = score(load_config("fixture", overrides=[*overrides, f"score.readings={every_source}"], environ={}),
                         str(tmp / "crawl"), str(tmp / "r1"))  # fmt: skip
    without = score(load_config("fixture", overrides=[*overrides, "score.readings={}"], environ={}),
                    str(tmp / "crawl"), str(tmp / "r2"))  # fmt: skip
    # the reading is reported, never written into the scores
    assert (tmp / "r1" / "tools_scored.parquet").read_bytes() == (tmp / "r2" / "tools_scored.parquet").read_bytes()
    assert without.summary["readings"] == {}
    reading = with_reading.summary["readings"]["paper_compatible"]
    assert reading["name_text"] == "raw" and with_reading.summary["name_text"] == "split"
    assert reading["r_qual_reference"] == "catalog" == with_reading.summary["r_qual_reference"]
    assert reading["source_weights"] == {**with_reading.summary["source_weights"], "n8n": 1.0}
    assert 0 <= reading["reliable"] <= with_reading.summary["tools"]
    assert set(reading["per_platform"]) == set(with_reading.summary["per_platform"])
    scored = pl.read_parquet(tmp / "r1" / "tools_scored.parquet")
    by_hand = int((0.5 * scored["r_cons"] + 0.3 * 1.0 + 0.2 * scored["r_qual"] >= 0.8 - 1e-6).sum())
    assert with_reading.summary["readings"]["every_source_1"]["reliable"] == by_hand
    assert by_hand > with_reading.summary["reliable"]  # the fixture's tools are not all official: more clear 0.8


def test_the_gate_runs_as_its_own_step_and_passes(crawled):
    tmp, overrides = crawled
    cfg = load_config("fixture", overrides=overrides, environ={})
    score(cfg, in_dir=str(tmp / "crawl"), out=str(tmp / "gated"))
    result = gate(cfg, in_dir=str(tmp / "gated"), crawl_dir=str(tmp / "crawl"))
    assert result.success, result.failures()
    assert Path(result.report_path).exists()


def test_a_crawl_with_the_listing_copy_scores_its_unknowns_as_unknown_and_passes_the_gate(tmp_path):
    """The default crawl's shape end to end: community packages read from n8n's listing copy only, scored and gated.
    No listing-copy tool says "no auth" or judges what the copy cannot show, and the gate passes."""
    from tests.crawlers import community_fixtures as cf

    sources = build_fixture_mirror(tmp_path / "mirror")
    cf.build_listing(tmp_path / "mirror")
    overrides = [*fixture_overrides(tmp_path / "mirror", tmp_path / "cache"), *cf.listing_overrides(),
                 f"embedding.cache_dir={tmp_path / 'emb'}"]  # fmt: skip
    cfg = load_config("fixture", overrides=overrides, environ={})
    crawl(cfg, out=str(tmp_path / "crawl"), sources_path=sources)
    result = score(cfg, in_dir=str(tmp_path / "crawl"), out=str(tmp_path / "score"))
    scored = pl.read_parquet(tmp_path / "score" / "tools_scored.parquet")
    copy = scored.filter(pl.col("flags").list.contains("description_from_listing"))
    assert len(copy) == 3 and copy["auth_type"].null_count() == 3  # weather's two, the builder's one
    flaws = {f["flaw"] for fl in copy["flaws"] for f in fl}
    assert not flaws & {"credentials_without_docs", "undocumented_parameters"}
    unknown = result.summary["per_listing"]["community-verified"]["unknown"]
    assert unknown["fields"]["auth_type"] == 3 and unknown["fields"]["parameters"] == 3
    assert result.summary["prompt_tokens"]["schema_unknown"]["tools"] == 3  # a lower bound each, counted apart
    assert gate(cfg, str(tmp_path / "score"), str(tmp_path / "crawl")).success


def test_missing_input_names_the_fix(tmp_path):
    cfg = load_config("fixture", environ={})
    with pytest.raises(FileNotFoundError, match="ecoagent crawl"):
        score(cfg, in_dir=str(tmp_path / "nothing"), out=str(tmp_path / "out"))


def test_prompt_definition_drops_vendor_keys():
    params = json.dumps({"type": "object", "properties": {"q": {"type": "string", "x-python-type": "str"}}})
    text = prompt_definition("search", "Search things", params)
    assert "x-python-type" not in text and '"name": "search"' in text


# two community tools of n8n's listing copy (schema unknown) beside a tool read from its archive
_COPY_FIELDS = ["auth_type", "categories", "doc_urls", "endpoints", "http_methods", "parameters"]
_TOOLS = pl.DataFrame({
    "listing": ["community-verified", "community-verified", "platform"],
    "platform": ["n8n", "n8n", "n8n"],
    "reliable": [False, True, True],
    "side_effect": ["unknown", "irreversible", "read_only"],
    "prompt_tokens": [12, 14, 300],
    "unknown_fields": [_COPY_FIELDS, _COPY_FIELDS, []],
})  # fmt: skip


def test_prompt_tokens_of_an_unknown_schema_are_a_lower_bound_counted_apart():
    tokens = prompt_token_summary(_TOOLS)
    assert (tokens["total"], tokens["median"], tokens["max"]) == (300, 300.0, 300)  # not a median of 14
    assert tokens["schema_unknown"] == {"tools": 2, "total_lower_bound": 26}


def test_per_listing_counts_what_the_scores_read_without_knowing():
    listings = per_listing(_TOOLS, {"n8n": 0.8, "other": 0.6, "official": 1.0})
    unknown = listings["community-verified"]["unknown"]
    assert unknown["fields"] == {"tools_with_any": 2, **dict.fromkeys(_COPY_FIELDS, 2)}
    assert unknown["side_effect_with_unknown_inputs"] == {"irreversible": 1, "unknown": 1}
    assert unknown["prompt_tokens_lower_bound"] == 2
    assert listings["platform"]["unknown"]["fields"]["tools_with_any"] == 0
    summary = {"tools": 3, "reliable": 2, "reliable_share": 0.667, "paper_reliable_share": 0.568,
               "reliable_threshold": 0.8, "per_platform": {}, "per_listing": listings,
               "distribution": {"r_static": {"quantiles": {"median": 0.8, "p10": 0.5, "p90": 0.9}, "histogram": {}}},
               "side_effect": {}, "prompt_tokens": prompt_token_summary(_TOOLS),
               "embedding_cache": {"hits": 0, "misses": 0}, "seconds": {"total": 1}}  # fmt: skip
    text = "\n".join(summary_lines(summary, "out"))
    assert "2 tools whose parameter schema is unknown counted apart" in text
    assert "| 2 (auth_type=2, parameters=2, doc_urls=2, endpoints=2, http_methods=2, categories=2) |" in text


def _catalog(rows: list[tuple[str, str, str, list[str]]]) -> pl.DataFrame:
    """tool_id, listing, description, categories: what r_qual reads."""
    return pl.DataFrame(
        {"tool_id": [r[0] for r in rows], "listing": [r[1] for r in rows], "description": [r[2] for r in rows],
         "doc_summary": [None] * len(rows), "categories": [r[3] for r in rows]},
        schema={"tool_id": pl.String, "listing": pl.String, "description": pl.String, "doc_summary": pl.String,
                "categories": pl.List(pl.String)},
    )  # fmt: skip


def _r_qual(tools: pl.DataFrame, reference: str) -> dict[str, float]:
    cfg = ScoreConfig(r_qual_reference=reference)
    return dict(zip(tools["tool_id"], documentation_quality(tools, scored_descriptions(tools), cfg), strict=True))


def test_adding_community_tools_moves_no_official_r_qual_under_the_fixed_reference():
    """The default reference (the official and platform listings) is fixed: community packages added to the catalog
    leave an official tool's r_qual as it was; under ``catalog`` (every tool scored) the same addition moves it."""
    assert ScoreConfig().r_qual_reference == "platform_official"
    official = _catalog([
        ("mcp:official:search", "official", "Search the web and return the ten best results with their links.", []),
        ("langchain:platform:wiki", "platform", "Look up a Wikipedia page.", []),
        ("n8n:platform:slack", "platform", "Send a message to a Slack channel.", ["Communication"]),
    ])  # fmt: skip
    community = _catalog([(f"n8n:community:node{i}", "community", "x" * (300 + 50 * i), ["Marketing", "Sales"])
                          for i in range(4)])  # fmt: skip
    grown = pl.concat([official, community])
    search = "mcp:official:search"
    assert _r_qual(grown, "platform_official")[search] == _r_qual(official, "platform_official")[search]
    assert _r_qual(grown, "catalog")[search] != pytest.approx(_r_qual(official, "catalog")[search], abs=1e-3)
    # with no community tool the two references are the same population
    assert _r_qual(official, "catalog") == _r_qual(official, "platform_official")


def test_a_reading_with_another_r_qual_reference_rescores_r_qual_only_for_itself():
    """Ours against the official and platform tools, the paper-compatible reading against the whole catalog: the
    reading's r_static takes the catalog's r_qual, ours is untouched."""
    from scoring.score import reading_r_static

    tools = pl.concat([
        _catalog([("mcp:o:search", "official", "Search the web and return the best results.", []),
                  ("langchain:p:wiki", "platform", "Look up a Wikipedia page.", [])]),
        _catalog([(f"n8n:c:node{i}", "community", "x" * (300 + 50 * i), ["Sales"]) for i in range(3)]),
    ]).with_columns(pl.lit("mcp").alias("platform"), pl.col("tool_id").alias("name"), pl.lit("").alias("display_name"))
    cfg = ScoreConfig(name_text="raw")  # the reading's name text too: nothing to embed
    descriptions = scored_descriptions(tools)
    ours = documentation_quality(tools, descriptions, cfg)
    r_cons = np.full(len(tools), 0.5)
    paper = cfg.readings["paper_compatible"]
    got = reading_r_static(tools, paper, cfg, None, descriptions, r_cons, ours)
    catalog = documentation_quality(tools, descriptions, ScoreConfig(r_qual_reference="catalog"))
    w_src = np.array([1.0, 0.6, 0.6, 0.6, 0.6])  # official; MCP has no platform weight of its own: "other"
    np.testing.assert_allclose(got, 0.5 * r_cons + 0.3 * w_src + 0.2 * catalog)
    assert not np.allclose(catalog, ours)
    same_reference = paper.model_copy(update={"r_qual_reference": None})
    np.testing.assert_allclose(reading_r_static(tools, same_reference, cfg, None, descriptions, r_cons, ours),
                               0.5 * r_cons + 0.3 * w_src + 0.2 * ours)  # fmt: skip
