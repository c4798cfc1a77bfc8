"""The synth stage end to end: the real embedded model on 3 tools, and the server backend against a
local OpenAI-compatible server that fails, stalls and dies (resume without losing or repeating)."""

import json
import re
from pathlib import Path

import polars as pl
import pytest

from crawlers.crawl import crawl
from ecoagent.config import load_config
from ecoagent.runtime.context import Recording
from ecoagent.testing.standin_llm import StandInOpenAI
from scoring.score import score
from synth.generate import PAIR_SCHEMA, QUERY_SCHEMA
from synth.stage import synth
from tests.fixture_packages import build_fixture_mirror, fixture_overrides

ANSWERS = {
    "weather_lookup": [
        "Will it be sunny in Porto tomorrow afternoon?",
        "What is the current weather in Nairobi right now?",
        "Tell me the temperature in Montreal this evening",
    ],
    "fixture_search_notes": [
        "Find my notes about the quarterly budget meeting",
        "Search my notes for the recipe I saved last week",
        "Which of my notes mention the new office address?",
    ],
}


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> tuple[Path, list[str]]:
    tmp = tmp_path_factory.mktemp("synth")
    build_fixture_mirror(tmp / "mirror")
    overrides = [
        *fixture_overrides(tmp / "mirror", tmp / "cache"),
        f"embedding.cache_dir={tmp / 'emb'}",
        f"store={tmp / 'store'}",
    ]
    cfg = load_config("fixture", overrides=overrides, environ={})
    crawl(cfg, out=str(tmp / "crawl"), sources_path=tmp / "mirror" / "sources.yaml")
    score(cfg, in_dir=str(tmp / "crawl"), out=str(tmp / "score"))
    return tmp, overrides


def _tool_name(prompt: str) -> str:
    return re.findall(r"Tool: (.+)", prompt)[-1].strip()


EMBEDDED = ["synth.sample_size=3", "synth.max_tokens=24"]


@pytest.fixture(scope="module")
def embedded_run(scored) -> Path:
    """One uninterrupted synth run on the real embedded model: 3 tools."""
    tmp, overrides = scored
    cfg = load_config("fixture", overrides=[*overrides, *EMBEDDED, f"llm.cache_path={tmp / 'embedded.sqlite'}"],
                      environ={})  # fmt: skip
    synth(cfg, in_dir=str(tmp / "score"), out=str(tmp / "emb1"))
    return tmp / "emb1"


def test_embedded_model_end_to_end_on_three_tools(scored, embedded_run):
    tmp, overrides = scored
    cfg = load_config("fixture", overrides=[*overrides, *EMBEDDED, f"llm.cache_path={tmp / 'embedded.sqlite'}"],
                      environ={})  # fmt: skip
    summary = json.loads((embedded_run / "synth_summary.json").read_text())
    assert summary["tools_selected"] == 3 and summary["requests"] == 3 and summary["requests_failed"] == 0
    assert summary["generator_model"] == "gemma-3-270m" and summary["prompt_version"] == "fewshot_completion_v1"
    assert "not a benchmark" in summary["not_a_benchmark"]
    produced = summary["queries_kept"] + sum(summary["drops_by_reason"].values())
    assert produced > 0  # the real model answered something that went through the filters
    queries = pl.read_parquet(embedded_run / "syn_queries.parquet")
    pairs = pl.read_parquet(embedded_run / "syn_pairs.parquet")
    assert dict(queries.schema) == QUERY_SCHEMA and dict(pairs.schema) == PAIR_SCHEMA
    # a rerun is served from the response cache: same bytes, no server needed
    second = synth(cfg, in_dir=str(tmp / "score"), out=str(tmp / "emb2"))
    assert second.summary["requests_cached_before"] == 3
    for name in ("syn_queries.parquet", "syn_pairs.parquet"):
        assert (embedded_run / name).read_bytes() == (tmp / "emb2" / name).read_bytes()


# The child runs the same synth on a fresh response cache and SIGKILLs itself once the first reply is cached
# (the second request is then in flight on the embedded server).
_KILLED_SYNTH = """
from ecoagent.config import load_config
from ecoagent.runtime.context import Recording
from synth.stage import synth

overrides, in_dir, out, pids_file = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]

def heard(phase, done, total):
    if phase == "generate queries (tools)" and done == 1:
        die(pids_file)

config = load_config("fixture", overrides=overrides, environ={})
with Recording(heard).heard(config).running():
    synth(config, in_dir=in_dir, out=out)
"""


def test_a_killed_and_resumed_synth_writes_the_same_bytes_as_an_uninterrupted_one(scored, embedded_run):
    from ecoagent.llm.cache import ResponseCache
    from synth.generate import plan
    from tests.killed_runs import hidden_entries, run_killed, still_alive

    tmp, overrides = scored
    resumed_overrides = [*overrides, *EMBEDDED, f"llm.cache_path={tmp / 'resumed.sqlite'}"]
    out = tmp / "resumed"
    run_killed(_KILLED_SYNTH, json.dumps(resumed_overrides), tmp / "score", out, tmp / "pids.json")
    assert json.loads((tmp / "pids.json").read_text()), "no embedded server was running"
    assert still_alive(tmp / "pids.json") == []  # the embedded llama.cpp server died with the stage
    assert not out.exists()
    cfg = load_config("fixture", overrides=resumed_overrides, environ={})
    resumed = synth(cfg, in_dir=str(tmp / "score"), out=str(out))
    assert resumed.summary["requests_cached_before"] == 1 and resumed.summary["requests_failed"] == 0
    assert hidden_entries(tmp) == []
    # the replies, then the outputs, are those of the run that was never interrupted
    requests = plan(cfg, str(tmp / "score")).requests
    whole, interrupted = ResponseCache(tmp / "embedded.sqlite"), ResponseCache(tmp / "resumed.sqlite")
    assert [interrupted.get(r.request_id).text for r in requests] == [whole.get(r.request_id).text for r in requests]
    for name in ("syn_queries.parquet", "syn_pairs.parquet"):
        assert (out / name).read_bytes() == (embedded_run / name).read_bytes(), name


def _server_config(tmp: Path, overrides: list[str], server: StandInOpenAI, cache: str):
    extra = [
        "llm.backend=server",
        f"llm.base_url={server.base_url}",
        "llm.model=fake-instruct",
        "llm.max_retries=1",
        "llm.backoff_s=0.01",
        "llm.timeout_s=2",
        f"llm.cache_path={tmp / cache}",
        "synth.sample_size=8",
    ]
    return load_config("fixture", overrides=[*overrides, *extra], environ={})


def _respond(body: dict, content: str) -> str:
    name = _tool_name(content)
    lines = ANSWERS.get(name, [f"Please use {name} to help me with my task today"])
    return "\n".join(lines) + "\n\nTool: next example"


def test_server_backend_survives_errors_and_resumes_without_repeats(scored):
    tmp, overrides = scored
    heard = Recording()
    with StandInOpenAI(respond=_respond) as clean:
        config = _server_config(tmp, overrides, clean, "clean.sqlite")
        with heard.heard(config).running():
            reference = synth(config, str(tmp / "score"), str(tmp / "ref"))
    phases = heard.phases()
    assert reference.summary["requests_failed"] == 0
    # after the last answer the stage says what runs: the round trip's and the negatives' embedding; the catalog
    # pass beside the LLM reports under its own phase, its first line before or after the answers' first
    beside = "embed the catalog beside the LLM (MiniLM)"
    assert beside in phases
    assert [p for p in dict.fromkeys(phases) if p != beside] == [
        "generate queries (tools)", "round trip: first stage, embed the catalog (MiniLM)",
        "round trip: first stage, embed the queries (MiniLM)", "round trip: embed the pool (e5 passages)",
        "round trip: embed the queries (e5)", "negatives: embed the catalog (MiniLM)",
        "negatives: embed the queries (MiniLM)"]  # fmt: skip
    prompts = [b["prompt"] for b in clean.bodies]
    weather = next(p for p in prompts if _tool_name(p) == "weather_lookup")
    notes = next(p for p in prompts if _tool_name(p) == "fixture_search_notes")
    slow = next(p for p in prompts if _tool_name(p) not in ANSWERS)

    # first run: one tool always gets 503, one malformed JSON, one stalls past the timeout
    with StandInOpenAI(respond=_respond) as flaky:
        flaky.plans = {weather: ["503"] * 5, notes: ["malformed"] * 5, slow: ["hang:5"] * 5}
        partial = synth(_server_config(tmp, overrides, flaky, "resume.sqlite"), str(tmp / "score"), str(tmp / "p1"))
    assert partial.summary["requests_failed"] == 3
    assert partial.summary["drops_by_reason"]["llm_error"] == 3
    answered_first = {p for p, n in flaky.counts.items() if p not in (weather, notes, slow)}

    # rerun against a healthy server: only the three failed tools are asked again
    with StandInOpenAI(respond=_respond) as healthy:
        resumed = synth(_server_config(tmp, overrides, healthy, "resume.sqlite"), str(tmp / "score"), str(tmp / "p2"))
    assert set(healthy.counts) == {weather, notes, slow}
    assert not answered_first & set(healthy.counts)
    assert resumed.summary["requests_cached_before"] == 5
    for name in ("syn_queries.parquet", "syn_pairs.parquet"):
        assert (tmp / "ref" / name).read_bytes() == (tmp / "p2" / name).read_bytes()
    queries = pl.read_parquet(tmp / "p2" / "syn_queries.parquet")
    assert set(ANSWERS["weather_lookup"]) <= set(queries["text"])
    pairs = pl.read_parquet(tmp / "p2" / "syn_pairs.parquet")
    assert (pairs["label"] == 1).sum() == len(queries)
    negatives = pairs.filter(pl.col("label") == 0)
    positives = dict(zip(queries["query_id"], queries["tool_id"], strict=True))
    assert all(positives[q] != t for q, t in zip(negatives["query_id"], negatives["tool_id"], strict=True))


def test_a_server_that_dies_mid_run_loses_no_finished_work(scored):
    tmp, overrides = scored
    server = StandInOpenAI(respond=_respond)
    with server:
        cfg = _server_config(tmp, overrides, server, "dies.sqlite")
        def heard(phase: str, done: int, total: int) -> None:
            if phase == "generate queries (tools)" and done == 3:  # after three answers the server stops answering
                server.default = "drop"  # every connection is dropped

        with Recording(heard).heard(cfg).running():
            result = synth(cfg, str(tmp / "score"), str(tmp / "dies"))
    assert result.summary["requests_failed"] >= 1
    from ecoagent.llm import ResponseCache

    assert len(ResponseCache(tmp / "dies.sqlite")) == result.summary["requests"] - result.summary["requests_failed"]


def test_tools_without_description_are_counted_not_sent(scored, tmp_path):
    tmp, overrides = scored
    catalog = pl.read_parquet(tmp / "score" / "tools_scored.parquet")
    blank = catalog.with_columns(
        pl.when(pl.col("platform") == "mcp").then(pl.lit("")).otherwise(pl.col("description")).alias("description")
    )
    (tmp_path / "score").mkdir()
    blank.write_parquet(tmp_path / "score" / "tools_scored.parquet")
    with StandInOpenAI(respond=_respond) as server:
        config = _server_config(tmp, overrides, server, "blank.sqlite")
        result = synth(config, str(tmp_path / "score"), str(tmp_path / "synth"))  # a folder of its own
    assert result.summary["drops_by_reason"]["tool_without_description"] == 1
    assert all("fixture_search_notes" not in json.dumps(b) for b in server.bodies)
