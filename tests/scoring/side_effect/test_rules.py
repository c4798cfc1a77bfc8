"""Rule families of scoring/side_effect/rules.py."""

from __future__ import annotations

from tests.scoring.side_effect.tool_rows import classify, n8n, tool


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
