"""Unknown is not absent: the side-effect tier and the permission scope of a tool read from a reduced copy."""

from __future__ import annotations

from tests.scoring.side_effect.tool_rows import classify, n8n, tool

# what the crawl writes for a tool of n8n's listing copy: no categories, no HTTP methods, both named unknown
COPY = {"unknown_fields": ["auth_type", "categories", "doc_urls", "endpoints", "http_methods", "parameters"]}


def _node_level(**kw) -> dict:
    """A node-level community tool (no resource, no operation) whose words name no verb of the lexicon."""
    return tool("n8n:n8n-nodes-acme:acme:-:-", platform="n8n", package="n8n-nodes-acme", service="acme",
                source_symbol="acme:-:-", name="Acme", display_name="Acme", description="The acme node.", **kw)


def test_a_tool_no_rule_decided_says_its_inputs_were_unknown():
    got = classify(_node_level(**COPY))["n8n:n8n-nodes-acme:acme:-:-"]
    assert (got["side_effect"], got["side_effect_rule"]) == ("unknown", "no_rule:inputs_unknown")
    assert got["permission_scope"] == "acme.admin"
    known = classify(_node_level())["n8n:n8n-nodes-acme:acme:-:-"]  # nothing unknown: nothing to decide on
    assert known["side_effect_rule"] == "no_rule"


def test_an_input_named_unknown_is_no_evidence_for_the_tier_or_the_scope():
    # a value beside its unknown mark (a merge of a reduced copy with another read) is not read as the tool's
    got = classify(_node_level(http_methods=["GET"], **COPY))["n8n:n8n-nodes-acme:acme:-:-"]
    assert got["side_effect"] == "unknown" and got["permission_scope"] == "acme.admin"  # not acme.read
    moved = n8n("acme:item:create", "Create an item", service="acme", categories=["Data Transformation"], **COPY)
    assert classify(moved)["n8n:n8n-nodes-base:acme:item:create"]["side_effect_rule"] == "n8n_operation:create"


def test_the_operation_still_decides_a_listing_copy_tool():
    got = classify(n8n("acme:invoice:delete", "Delete an invoice", service="acme", **COPY))
    row = got["n8n:n8n-nodes-base:acme:invoice:delete"]
    assert (row["side_effect"], row["permission_scope"]) == ("irreversible", "acme.delete")
