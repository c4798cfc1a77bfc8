"""Inverse pairs (scoring/side_effect/inverses.py)."""

from __future__ import annotations

from tests.scoring.side_effect.tool_rows import classify, n8n, tool


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
