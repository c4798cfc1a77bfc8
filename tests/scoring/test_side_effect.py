"""Side-effect tier, inverse tool and permission scope (scoring/side_effect.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import polars as pl
import pytest

from schemas.scored_tool import SIDE_EFFECTS
from scoring.side_effect import (
    OUTPUT_SCHEMA,
    agreement_with_labels,
    classify_side_effects,
    normalize_service,
    permission_scope,
)

SAMPLE = Path(__file__).parent / "data" / "side_effect_sample.jsonl"


def tool(tool_id: str, **kw) -> dict:
    row = {
        "tool_id": tool_id,
        "platform": "langchain",
        "package": "pkg",
        "service": "svc",
        "source_symbol": tool_id,
        "name": tool_id,
        "display_name": "",
        "description": "",
        "http_methods": [],
        "categories": [],
    }
    row.update(kw)
    return row


def n8n(symbol: str, label: str, service: str = "slack", **kw) -> dict:
    node = symbol.split(":")[0]
    return tool(
        f"n8n:n8n-nodes-base:{symbol}",
        platform="n8n",
        package="n8n-nodes-base",
        service=service,
        source_symbol=symbol,
        name=f"{node.title()}: {label}",
        display_name=node.title(),
        description=f"Consume {node.title()} API. {label}.",
        **kw,
    )


def classify(*rows: dict) -> dict[str, dict]:
    out = classify_side_effects(pl.DataFrame(list(rows)))
    return {r["tool_id"]: r for r in out.to_dicts()}


# ---------------------------------------------------------------- the hand-labelled sample


def test_sample_is_large_stratified_and_well_formed():
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    assert len(rows) >= 110
    platforms = {r["platform"] for r in rows}
    assert platforms == {"n8n", "langchain", "crewai", "llamaindex", "mcp"}
    for p in platforms:
        assert sum(r["platform"] == p for r in rows) >= 10, p
    assert len({r["tool_id"] for r in rows}) == len(rows)
    for r in rows:
        assert r["label"] in SIDE_EFFECTS
        assert r["reasoning"].strip()
        for key in ("tool_id", "platform", "package", "service", "source_symbol", "name", "description"):
            assert key in r
    # every tier except unknown is represented
    assert {r["label"] for r in rows} >= set(SIDE_EFFECTS) - {"unknown"}


def test_rules_agree_with_hand_labels():
    report = agreement_with_labels(pl.read_ndjson(SAMPLE))
    print("\n" + report.render())
    assert report.agreement >= 0.85
    assert report.unknown_share <= 0.15


# ---------------------------------------------------------------- rule families


def test_n8n_operation_semantics():
    got = classify(
        n8n("slack:channel:getAll", "Get many channels"),
        n8n("slack:message:search", "Search messages"),
        n8n("slack:channel:create", "Create a channel"),
        n8n("slack:channel:rename", "Rename a channel"),
        n8n("slack:file:upload", "Upload a file"),
        n8n("slack:message:delete", "Delete a message"),
        n8n("slack:message:post", "Send a message"),
        n8n("gmail:message:sendAndWait", "Send message and wait for response", service="gmail"),
    )
    se = {k.split(":", 2)[2]: v["side_effect"] for k, v in got.items()}
    assert se == {
        "slack:channel:getAll": "read_only",
        "slack:message:search": "read_only",
        "slack:channel:create": "compensable",
        "slack:channel:rename": "reversible",
        "slack:file:upload": "compensable",
        "slack:message:delete": "irreversible",
        "slack:message:post": "external_side_effect",
        "gmail:message:sendAndWait": "external_side_effect",
    }
    assert got["n8n:n8n-nodes-base:slack:channel:getAll"]["side_effect_rule"] == "n8n_operation:getAll"


def test_create_is_refined_by_its_object():
    got = classify(
        n8n("twitter:tweet:create", "Create Tweet", service="twitter"),
        n8n("twitter:directMessage:create", "Create Direct Message", service="twitter"),
        n8n("github:issue:createComment", "Create a comment on an issue", service="github"),
        n8n("stripe:charge:create", "Create a charge", service="stripe"),
        n8n("gmail:draft:create", "Create a draft", service="gmail"),
        n8n("anthropic:text:message", "Message a model", service="anthropic"),
    )
    assert got["n8n:n8n-nodes-base:twitter:tweet:create"]["side_effect"] == "external_side_effect"
    assert got["n8n:n8n-nodes-base:twitter:directMessage:create"]["side_effect"] == "external_side_effect"
    assert got["n8n:n8n-nodes-base:github:issue:createComment"]["side_effect"] == "external_side_effect"
    assert got["n8n:n8n-nodes-base:stripe:charge:create"]["side_effect"] == "irreversible"
    assert got["n8n:n8n-nodes-base:stripe:charge:create"]["side_effect_rule"] == "n8n_operation:create+money"
    assert got["n8n:n8n-nodes-base:gmail:draft:create"]["side_effect"] == "compensable"
    assert got["n8n:n8n-nodes-base:anthropic:text:message"]["side_effect"] == "read_only"


def test_http_methods_when_no_operation_verb():
    got = classify(
        tool("a", name="thing_one", http_methods=["GET"]),
        tool("b", name="thing_two", http_methods=["DELETE"]),
        tool("c", name="thing_three", http_methods=["POST"]),
        tool("d", name="thing_four", http_methods=["PATCH"]),
        # an operation verb beats the method: n8n nodes POST to search endpoints
        n8n("notion:database:search", "Search a database", service="notion", http_methods=["POST"]),
    )
    assert [got[k]["side_effect_rule"] for k in "abcd"] == [
        "http_method:GET",
        "http_method:DELETE",
        "http_method:POST",
        "http_method:PATCH",
    ]
    assert [got[k]["side_effect"] for k in "abcd"] == ["read_only", "irreversible", "compensable", "reversible"]
    assert got["n8n:n8n-nodes-base:notion:database:search"]["side_effect"] == "read_only"


def test_name_and_description_verbs():
    got = classify(
        tool("fetch_channels", platform="llamaindex"),
        tool("slack_post_message", platform="mcp"),
        tool("delete_issue", platform="llamaindex"),
        tool(
            "x", name="BalanceSheets", description="A wrapper around an API. This tool is useful for fetching sheets."
        ),
        tool("y", name="Widget", description="Use this tool to update an event."),
        # "posts" is a noun here; the verb is get
        tool("get_twitter_user_posts", platform="llamaindex"),
        # a plural noun in a name is not a verb
        tool("youtube_comments", platform="llamaindex", description="List comments on a video."),
    )
    assert got["fetch_channels"]["side_effect"] == "read_only"
    assert got["slack_post_message"]["side_effect"] == "external_side_effect"
    assert got["delete_issue"]["side_effect"] == "irreversible"
    assert got["x"]["side_effect_rule"] == "description_verb:fetch"
    assert got["y"]["side_effect"] == "reversible"
    assert got["get_twitter_user_posts"]["side_effect"] == "read_only"
    assert got["youtube_comments"]["side_effect"] == "read_only"


def test_arbitrary_execution_is_worst_case_and_admin():
    got = classify(
        n8n("code:-:-", "Code", service="code")
        | {"name": "Code", "description": "Run custom JavaScript or Python code."},
        n8n("executeCommand:-:-", "Execute Command", service="executecommand")
        | {"name": "Execute Command", "description": "Executes a command on the host."},
        n8n("httpRequest:-:-", "HTTP Request", service="httprequest")
        | {"name": "HTTP Request", "description": "Makes an HTTP request and returns the response data."},
        n8n("postgres:database:executeQuery", "Execute a SQL query", service="postgres"),
        tool("E2BExecTool", name="E2B Sandbox Exec", description="Execute a shell command inside an E2B sandbox."),
    )
    for row in got.values():
        assert row["side_effect"] == "irreversible", row
        assert row["side_effect_rule"].startswith("arbitrary_execution:"), row
        assert row["permission_scope"].endswith(".admin"), row
    assert got["n8n:n8n-nodes-base:postgres:database:executeQuery"]["side_effect_rule"] == "arbitrary_execution:sql"


def test_declared_read_only_beats_the_verb():
    got = classify(
        tool("query", platform="mcp", description="Run a read-only SQL query"),
        tool("pay_history", description="List transfers. Read-only. Covers the last day."),
        # mentioning a read-only *other* tool is not a declaration
        tool("attach_file", description="Attach a file. Writable tools only; on a read-only tool this errors."),
    )
    assert got["query"]["side_effect_rule"] == "declared:read_only"
    assert got["pay_history"]["side_effect"] == "read_only"
    assert got["attach_file"]["side_effect"] == "compensable"


def test_n8n_local_nodes_are_read_only():
    got = classify(
        n8n("sort:-:-", "Sort", service="sort", categories=["Core Nodes", "Data Transformation"])
        | {"name": "Sort", "description": "Change items order."},
        n8n("removeDuplicates:-:removeDuplicateInputItems", "Remove items", service="removeduplicates")
        | {"categories": ["Core Nodes", "Data Transformation"]},
        n8n("if:-:-", "If", service="if", categories=["Core Nodes", "Flow"])
        | {"name": "If", "description": "Route items to different branches (true/false)."},
    )
    assert {r["side_effect"] for r in got.values()} == {"read_only"}


def test_unknown_stays_unknown():
    got = classify(
        tool("zen", name="ZenGuard", description="ZenGuard AI integration package."),
        n8n("jenkins:job:trigger", "Trigger a job", service="jenkins"),
    )
    assert got["zen"]["side_effect"] == "unknown"
    assert got["zen"]["side_effect_rule"] == "no_rule"
    assert got["n8n:n8n-nodes-base:jenkins:job:trigger"]["side_effect"] == "unknown"
    assert got["n8n:n8n-nodes-base:jenkins:job:trigger"]["side_effect_rule"] == "ambiguous_run:trigger"


def test_human_handoff_is_external():
    got = classify(tool("human", description="You can ask a human for guidance when you are stuck."))
    assert got["human"]["side_effect"] == "external_side_effect"


# ---------------------------------------------------------------- inverse pairs


def test_slack_archive_unarchive_are_an_exact_pair():
    got = classify(
        n8n("slack:channel:archive", "Archive a channel"),
        n8n("slack:channel:unarchive", "Unarchive a channel"),
        n8n("slack:channel:get", "Get a channel"),
    )
    archive = got["n8n:n8n-nodes-base:slack:channel:archive"]
    unarchive = got["n8n:n8n-nodes-base:slack:channel:unarchive"]
    assert archive["side_effect"] == unarchive["side_effect"] == "reversible"
    assert archive["inverse_tool_id"] == "n8n:n8n-nodes-base:slack:channel:unarchive"
    assert unarchive["inverse_tool_id"] == "n8n:n8n-nodes-base:slack:channel:archive"
    assert archive["side_effect_rule"] == "inverse_pair:archive/unarchive"
    assert got["n8n:n8n-nodes-base:slack:channel:get"]["inverse_tool_id"] is None


def test_pairs_stay_within_one_node_and_resource():
    got = classify(
        n8n("slack:channel:archive", "Archive a channel"),
        n8n("discord:channel:unarchive", "Unarchive a channel", service="discord"),
        n8n("slack:reaction:add", "Add a reaction"),
        n8n("slack:star:remove", "Remove a star"),
    )
    assert all(r["inverse_tool_id"] is None for r in got.values())


def test_delete_becomes_reversible_only_with_a_restore():
    got = classify(
        n8n("mattermost:channel:delete", "Delete a channel", service="mattermost"),
        n8n("mattermost:channel:restore", "Restore a soft-deleted channel", service="mattermost"),
        n8n("hubspot:contact:create", "Create a contact", service="hubspot"),
        n8n("hubspot:contact:delete", "Delete a contact", service="hubspot"),
        n8n("teams:chatMessage:softDeleteMessage", "Delete chat message", service="teams"),
        n8n("teams:chatMessage:undoSoftDeleteMessage", "Undo delete chat message", service="teams"),
    )
    p = "n8n:n8n-nodes-base:"
    assert got[p + "mattermost:channel:delete"]["side_effect"] == "reversible"
    assert got[p + "mattermost:channel:delete"]["inverse_tool_id"] == p + "mattermost:channel:restore"
    # create <-> delete is compensation (T3), not an exact inverse: the create points at its compensator,
    # the delete stays irreversible and points nowhere
    assert got[p + "hubspot:contact:create"]["side_effect"] == "compensable"
    assert got[p + "hubspot:contact:create"]["inverse_tool_id"] == p + "hubspot:contact:delete"
    assert got[p + "hubspot:contact:delete"]["side_effect"] == "irreversible"
    assert got[p + "hubspot:contact:delete"]["inverse_tool_id"] is None
    assert got[p + "teams:chatMessage:softDeleteMessage"]["inverse_tool_id"] == (
        p + "teams:chatMessage:undoSoftDeleteMessage"
    )


def test_marks_labels_and_spec_methods_pair():
    got = classify(
        n8n("gmail:message:markAsRead", "Mark a message as read", service="gmail"),
        n8n("gmail:message:markAsUnread", "Mark a message as unread", service="gmail"),
        n8n("gmail:message:addLabels", "Add label to message", service="gmail"),
        n8n("gmail:message:removeLabels", "Remove label from message", service="gmail"),
        tool(
            "T.add_tracked_items", platform="llamaindex", name="add_tracked_items", source_symbol="T.add_tracked_items"
        ),
        tool(
            "T.remove_tracked_items",
            platform="llamaindex",
            name="remove_tracked_items",
            source_symbol="T.remove_tracked_items",
        ),
    )
    p = "n8n:n8n-nodes-base:gmail:message:"
    assert got[p + "markAsRead"]["inverse_tool_id"] == p + "markAsUnread"
    assert got[p + "addLabels"]["inverse_tool_id"] == p + "removeLabels"
    assert got[p + "addLabels"]["side_effect"] == "reversible"
    assert got["T.remove_tracked_items"]["inverse_tool_id"] == "T.add_tracked_items"
    assert got["T.remove_tracked_items"]["side_effect"] == "reversible"


def test_sends_and_payments_are_never_undone_by_a_pair():
    got = classify(
        n8n("jira:issueComment:add", "Add comment to issue", service="jira"),
        n8n("jira:issueComment:remove", "Remove an issue comment", service="jira"),
        n8n("storyblok:story:publish", "Publish a story", service="storyblok"),
        n8n("storyblok:story:unpublish", "Unpublish a story", service="storyblok"),
    )
    p = "n8n:n8n-nodes-base:"
    assert got[p + "jira:issueComment:add"]["side_effect"] == "external_side_effect"
    assert got[p + "jira:issueComment:add"]["inverse_tool_id"] is None
    assert got[p + "jira:issueComment:remove"]["inverse_tool_id"] is None
    assert got[p + "storyblok:story:publish"]["side_effect"] == "external_side_effect"
    assert got[p + "storyblok:story:unpublish"]["side_effect"] == "reversible"


# ---------------------------------------------------------------- permission scope


@pytest.mark.parametrize(
    ("side_effect", "level"),
    [
        ("read_only", "read"),
        ("reversible", "write"),
        ("compensable", "write"),
        ("irreversible", "delete"),
        ("external_side_effect", "send"),
        ("unknown", "admin"),
    ],
)
def test_scope_level_follows_the_tier(side_effect: str, level: str):
    assert permission_scope("Slack", "n8n-nodes-base", side_effect) == f"slack.{level}"


def test_service_is_normalized_with_package_fallback():
    assert normalize_service("Google-Maps", "x") == "google_maps"
    assert normalize_service("", "@modelcontextprotocol/server-memory") == "modelcontextprotocol_server_memory"
    assert normalize_service(None, None) == "unknown"
    assert permission_scope("aws", "p", "irreversible", arbitrary=True) == "aws.admin"
    got = classify(
        tool("get_thing", service="", package="langchain-community"),
        tool("do_thing", service="My Svc!", name="ZenGuard"),
    )
    assert got["get_thing"]["permission_scope"] == "langchain_community.read"
    assert got["do_thing"]["permission_scope"] == "my_svc.admin"


# ---------------------------------------------------------------- contract


def test_output_contract_order_and_missing_optional_columns():
    frame = pl.DataFrame(
        [
            {"tool_id": "b", "platform": "mcp", "package": "p", "service": "s", "source_symbol": "b",
             "name": "delete_b", "display_name": "", "description": ""},
            {"tool_id": "a", "platform": "mcp", "package": "p", "service": "s", "source_symbol": "a",
             "name": "get_a", "display_name": "", "description": ""},
        ]
    )  # fmt: skip
    out = classify_side_effects(frame)  # no http_methods / categories columns: the old crawl lacks them
    assert out.schema == OUTPUT_SCHEMA
    assert out["tool_id"].to_list() == ["b", "a"]
    assert set(out["side_effect"]) <= set(SIDE_EFFECTS)
    empty = classify_side_effects(frame.clear())
    assert empty.height == 0 and empty.schema == OUTPUT_SCHEMA


def test_deterministic_and_fast():
    rows = [n8n(f"node{i % 400}:res:{op}", f"{op} a thing") for i, op in enumerate(["get", "create", "delete"] * 2000)]
    frame = pl.DataFrame(rows)
    start = time.perf_counter()
    first = classify_side_effects(frame)
    assert time.perf_counter() - start < 5
    assert first.equals(classify_side_effects(frame))
