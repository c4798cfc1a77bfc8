"""Permission scope (scoring/side_effect/permission.py)."""

from __future__ import annotations

import pytest

from scoring.side_effect.permission import permission_scope, scope_service
from tests.scoring.side_effect.tool_rows import classify, tool


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
    assert scope_service("Google-Maps", "x") == "google_maps"
    assert scope_service("", "@modelcontextprotocol/server-memory") == "modelcontextprotocol_server_memory"
    assert scope_service(None, None) == "unknown"
    assert permission_scope("aws", "p", "irreversible", arbitrary=True) == "aws.admin"
    got = classify(
        tool("get_thing", service="", package="langchain-community"),
        tool("do_thing", service="My Svc!", name="ZenGuard"),
    )
    assert got["get_thing"]["permission_scope"] == "langchain_community.read"
    assert got["do_thing"]["permission_scope"] == "my_svc.admin"
