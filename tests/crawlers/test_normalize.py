import json

import pytest

from crawlers.base import ExtractedTool
from crawlers.normalize import deduplicate, to_record
from ecoagent.packages.source import Source
from ecoagent.text.redaction import REDACTED

LC = Source("langchain", "pypi", "langchain-community", "0.4.2")
LC_GOOGLE = Source("langchain", "pypi", "langchain-google-community", "5.1.1")
CREW = Source("crewai", "pypi", "crewai-tools", "1.0")


def _tool(**kw) -> ExtractedTool:
    base = dict(local_id="GmailSendMessage", name="send_gmail_message", description="Use this tool to send email.",
                source_path="x.py")  # fmt: skip
    return ExtractedTool(**{**base, **kw})


def test_ids_hashes_and_lists_are_normalized():
    rec = to_record(LC, _tool(auth_env_vars=["B", "A", "A", ""], parameters={
        "type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}))  # fmt: skip
    assert rec.tool_id == "langchain:langchain-community:GmailSendMessage"
    assert rec.auth_env_vars == ["A", "B"]
    assert rec.required_parameters == ["to"]
    assert json.loads(rec.parameters)["required"] == ["to"]
    # the hash ignores the package version: a bump that changes nothing keeps it
    bumped = to_record(LC.with_version("0.5.0"), _tool(auth_env_vars=["A", "B"], parameters={
        "type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}))  # fmt: skip
    assert bumped.content_hash == rec.content_hash
    assert to_record(LC, _tool(description="changed")).content_hash != rec.content_hash


@pytest.mark.parametrize(("tool", "reason"), [
    (_tool(name="  "), "empty_name"),
    (_tool(parameters={"type": "array"}), "parameters_not_an_object_schema"),
    (_tool(auth_type="magic"), "invalid_record"),
])  # fmt: skip
def test_bad_records_raise_with_a_reason(tool, reason):
    with pytest.raises(ValueError, match=reason):
        to_record(LC, tool)


def test_secret_looking_strings_are_redacted():
    rec = to_record(LC, _tool(description="Call with key sk-abcdefghijklmnopqrstuvwxyz123456 please"))
    assert REDACTED in rec.description and "sk-abc" not in rec.description
    assert "redacted_secret" in rec.flags


def test_exact_duplicates_are_dropped_near_duplicates_reported():
    copies = [to_record(LC, _tool()), to_record(LC_GOOGLE, _tool()), to_record(LC, _tool())]
    cross = to_record(CREW, _tool(local_id="GmailTool", name="Gmail sender"))
    result = deduplicate([*copies, cross])
    ids = [r.tool_id for r in result.records]
    assert ids == ["crewai:crewai-tools:GmailTool", "langchain:langchain-community:GmailSendMessage"]
    assert result.drops == {"duplicate_tool_id": 1, "exact_duplicate": 1}
    # the same description on another platform is kept and grouped, not dropped
    groups = {r.duplicate_group for r in result.records}
    assert len(groups) == 1 and None not in groups
    assert result.near_duplicates["same_description_cross_platform_groups"] == 1


def test_same_service_groups_across_packages_and_listings_are_kept_and_flagged():
    n8n = Source("n8n", "npm", "n8n-nodes-base", "2.0.0")
    verified = Source("n8n", "npm", "n8n-nodes-slackish", "1.0.0", listing="community-verified")
    community = Source("n8n", "npm", "n8n-nodes-slack-plus", "0.1.0", listing="community")
    records = [
        to_record(n8n, _tool(local_id="slack:message:post", name="Slack: Send", service="slack")),
        to_record(verified, _tool(local_id="slackish:message:post", name="Send to Slack", service="Slack",
                                  description="Posts a message.")),
        to_record(community, _tool(local_id="slackPlus:msg:send", name="Slack message", service="slack",
                                   description="Sends a Slack message.")),
        to_record(n8n, _tool(local_id="gmail:message:send", name="Gmail: Send", service="gmail",
                             description="Sends mail.")),
    ]  # fmt: skip
    result = deduplicate(records)
    assert len(result.records) == 4  # kept
    groups = {r.tool_id: r.service_group for r in result.records}
    assert groups["n8n:n8n-nodes-base:gmail:message:send"] is None  # one package only: no group
    assert {g for t, g in groups.items() if "gmail" not in t} == {"service:slack"}
    report = result.near_duplicates
    assert report["same_service_groups"] == 1 and report["same_service_tools"] == 3
    assert report["same_service_cross_listing_groups"] == 1
    assert report["same_service_by_listings"] == {"community+community-verified+platform": 1}
    assert report["same_service_examples"][0]["packages"] == [
        "n8n-nodes-base", "n8n-nodes-slack-plus", "n8n-nodes-slackish"]  # fmt: skip
