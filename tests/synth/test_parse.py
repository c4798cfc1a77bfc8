"""parse_queries: list decorations stripped, headers skipped, few-shot continuations cut."""

from __future__ import annotations

from pathlib import Path

import yaml

from synth.parse import parse_queries

FEWSHOT_TEMPLATE = Path(__file__).resolve().parents[2] / "synth" / "prompts" / "fewshot_completion_v1.yaml"


def test_numbering_bullets_quotes_labels_and_markdown_are_stripped() -> None:
    text = "\n".join(
        [
            "1. Send a message to the #general channel saying the deploy is done",
            "2) \"Post 'lunch at noon' in the team Slack\"",
            "(3) **Query:** Tell #ops on Slack that the build failed",
            "- Notify the design channel that the mockups are ready",
            "* “Let the team know in Slack that I'm out sick today”",
            "• `ping the marketing channel about the launch`",
            "[7] Query 7: remind everyone in #eng about the retro",
            "8. 10:30 standup moved, tell #eng on Slack",
        ]
    )
    assert parse_queries(text) == [
        "Send a message to the #general channel saying the deploy is done",
        "Post 'lunch at noon' in the team Slack",
        "Tell #ops on Slack that the build failed",
        "Notify the design channel that the mockups are ready",
        "Let the team know in Slack that I'm out sick today",
        "ping the marketing channel about the launch",
        "remind everyone in #eng about the retro",
        "10:30 standup moved, tell #eng on Slack",  # a time is not numbering
    ]


def test_blank_lines_headers_and_chat_preamble_are_dropped() -> None:
    text = "Sure! Here are 3 queries for this tool:\n\nQueries:\n\n1. Check the weather in Oslo\n\n\n2. Is it rainy?\n"
    assert parse_queries(text) == ["Check the weather in Oslo", "Is it rainy?"]


def test_words_that_look_like_labels_inside_a_query_survive() -> None:
    assert parse_queries("Question-answering over my Notion docs, how do I set it up?") == [
        "Question-answering over my Notion docs, how do I set it up?"
    ]


def test_few_shot_continuation_is_cut_at_the_next_tool_block() -> None:
    # A base model finishes the target tool's list, then invents the next few-shot block.
    completion = (
        " Send the release notes to #announcements on Slack\n"
        "- Tell the on-call channel that the database is down\n"
        "\n"
        "Tool: github_create_issue\n"
        "Description: Create a new issue in a GitHub repository.\n"
        "Requests:\n"
        "- Open a bug about the login page\n"
    )
    assert parse_queries(completion) == [
        "Send the release notes to #announcements on Slack",
        "Tell the on-call channel that the database is down",
    ]


def test_other_block_markers_stop_parsing() -> None:
    assert parse_queries("- first query here\n[Tool]\n- invented") == ["first query here"]
    assert parse_queries("- first query here\n### Example 4:\n- invented") == ["first query here"]
    assert parse_queries("- first query here\n<tool_data>\ntool_name: x") == ["first query here"]
    assert parse_queries("- first query here\n---\n- after a rule") == ["first query here"]
    assert parse_queries("- first query here<end_of_turn>\n- more") == ["first query here"]
    assert parse_queries("- first query here\n<eos>\n- more") == ["first query here"]


def test_a_model_that_repeats_the_few_shot_prompt_yields_only_its_preamble() -> None:
    # The real template: if a base model starts over, the first "Tool:" block ends the parse.
    template = yaml.safe_load(FEWSHOT_TEMPLATE.read_text())["prompt"]
    echoed = template.format(tool_name="slack_send_message", tool_description="Send a message to a Slack channel.")
    parsed = parse_queries(echoed)
    assert len(parsed) == 1 and parsed[0].startswith("Below are software tools")  # dropped later by the filters


def test_empty_text() -> None:
    assert parse_queries("") == []
    assert parse_queries("\n  \n") == []
