"""A small tool catalog with varied scopes, sizes and side effects, and a model-free dense encoder."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import polars as pl
import pytest

from selector.registry import ToolRegistry
from selector.select import SelectorConfig, ToolSelector

# tool_id, name, description, scope, tokens, side effect, inverse
TOOLS = [
    ("core:search_help", "search_help", "Search the help center articles", "", 60, "read_only", None),
    ("core:ask_user", "ask_user", "Ask the user a clarifying question", "", 40, "read_only", None),
    ("crm:lookup_account", "lookup_account", "Look up a customer account by email or id", "crm.read", 120,
     "read_only", None),
    ("crm:delete_account", "delete_account", "Delete a customer account permanently", "crm.admin", 90,
     "irreversible", None),
    ("orders:order_status", "order_status", "Get the shipping status of an order", "orders.read", 110,
     "read_only", None),
    ("orders:cancel_order", "cancel_order", "Cancel an open order before it ships", "orders.write", 150,
     "compensable", "orders:reorder"),
    ("orders:reorder", "reorder", "Place the same order again", "orders.write", 140, "reversible", None),
    ("billing:issue_refund", "issue_refund", "Refund a customer order payment to the card", "billing.write", 200,
     "irreversible", None),
    ("billing:refund_policy", "refund_policy", "Explain the refund policy for an order payment", "billing.read", 80,
     "read_only", None),
    ("slack:post_message", "slack_post_message", "Post a message to a Slack channel", "slack.write", 180,
     "reversible", "slack:delete_message"),
    ("slack:delete_message", "slack_delete_message", "Delete a message from a Slack channel", "slack.delete", 170,
     "irreversible", None),
    ("slack:read_channel", "slack_read_channel", "Read the recent messages of a Slack channel", "slack.read", 160,
     "read_only", None),
    ("gmail:send_email", "gmail_send_email", "Send an email message through Gmail", "gmail.send", 260,
     "external_side_effect", None),
    ("gmail:search_email", "gmail_search_email", "Search the Gmail inbox for email messages", "gmail.read", 240,
     "read_only", None),
    ("github:create_issue", "github_create_issue", "Create an issue in a GitHub repository", "github.write", 300,
     "reversible", "github:close_issue"),
    ("github:close_issue", "github_close_issue", "Close an issue of a GitHub repository", "github.write", 220,
     "reversible", None),
    ("github:search_code", "github_search_code", "Search code across GitHub repositories", "github.read", 900,
     "read_only", None),
    ("weather:forecast", "weather_forecast", "Get the weather forecast for a city", "weather.read", 70,
     "read_only", None),
    ("files:delete_file", "delete_file", "Delete a file from the local disk", "files.delete", 65, "unknown", None),
    ("calendar:create_event", "calendar_create_event", "Create a calendar event with attendees",
     "google.calendar.write", 210, "reversible", None),
    ("calendar:list_events", "calendar_list_events", "List upcoming calendar events", "google.calendar.read", 130,
     "read_only", None),
    ("web:fetch_page", "fetch_page", "Fetch the text of a web page by URL", "web.read", 3000, "read_only", None),
]
CORE = ("core:search_help", "core:ask_user")
TENANTS = {
    "acme": [t[0] for t in TOOLS if not t[0].startswith("github:")],
    "globex": [t[0] for t in TOOLS if t[0].startswith(("core:", "github:", "slack:"))],
}


def tools_frame() -> pl.DataFrame:
    columns = ["tool_id", "name", "description", "permission_scope", "prompt_tokens", "side_effect", "inverse_tool_id"]
    frame = pl.DataFrame([dict(zip(columns, t, strict=True)) for t in TOOLS])
    return frame.with_columns(
        platform=pl.lit("fixture"),
        service=pl.col("tool_id").str.split(":").list.first(),
        parameters=pl.lit('{"type": "object", "properties": {"q": {"type": "string"}}}'),
    )


STOPWORDS = frozenset({
    "a", "an", "the", "to", "of", "in", "on", "for", "by", "or", "and", "it", "do", "yes", "can", "you", "is", "be",
    "this", "my", "me", "from", "with",
})


def hashing_encoder(dim: int = 1024):
    """Stands in for MiniLM's ``encode_query``: a signed bag-of-words hash, L2-normalized.

    Deterministic and model-free, so property tests run in milliseconds; it has the same contract
    as the real path (text -> unit vector, cosine by dot product) without its semantics.
    """

    def encode(text: str) -> np.ndarray:
        vector = np.zeros(dim, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            if word in STOPWORDS:
                continue
            digest = hashlib.md5(word.encode()).digest()
            vector[digest[0] % dim] += 1.0 if digest[1] % 2 else -1.0
        norm = np.linalg.norm(vector)
        return vector / norm if norm else vector

    return encode


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry.from_frame(tools_frame(), core_tools=CORE, tenants=TENANTS)


def make_selector(registry: ToolRegistry, reranker=None, **config) -> ToolSelector:
    encode = hashing_encoder()
    vectors = np.stack([encode(t.document) for t in registry.tools])
    return ToolSelector(registry, SelectorConfig(**config), vectors, encode, reranker=reranker)


@pytest.fixture
def selector(registry) -> ToolSelector:
    return make_selector(registry)
