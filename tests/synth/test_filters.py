"""filter_queries: every drop reason counted on a realistic example, and the language rule on hard short queries."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from ecoagent.text.words import is_language, words
from synth.filters import description_overlap, filter_queries

DESCRIPTION = "Use this tool to send a message with the provided message fields to a Slack channel."
PAPER_TEMPLATE = Path(__file__).resolve().parents[2] / "synth" / "prompts" / "paper_instruction_v1.yaml"


@pytest.fixture(scope="module")
def prompt() -> str:
    template = yaml.safe_load(PAPER_TEMPLATE.read_text())
    user = template["user"].format(tool_name="send_message", tool_description=DESCRIPTION, num_queries=10)
    return template["system"] + "\n" + user


def run(queries: list[str], prompt: str, **overrides) -> tuple[list[str], Counter, list]:
    settings = dict(min_words=5, max_words=120, max_description_overlap=0.6, language="en") | overrides
    result = filter_queries(queries, description=DESCRIPTION, prompt=prompt, **settings)
    return result.kept, result.drops, result.reasons


def test_each_drop_reason_is_counted(prompt: str) -> None:
    queries = [
        "Post in #deploys on Slack that version 2.3 is live",  # kept
        "Tell the team channel I'm running ten minutes late",  # kept
        "   ",  # empty
        "Slack the team",  # too_short
        " ".join(["please"] + ["tell the whole engineering channel about the outage"] * 15),  # too_long
        "Schick bitte eine Nachricht an den Kanal, dass das Deployment fertig ist",  # not_en (German)
        "请在团队的Slack频道里发一条消息说部署已经完成了",  # not_en (Chinese)
        "Use this tool to send a message with the provided message fields",  # copies_description
        "DO NOT copy phrases verbatim from the tool description",  # echoes_prompt: an instruction
        "tool_name: send_message",  # echoes_prompt: a template label
        "[Requirements] (1) Each query should be 5-120 words.",  # echoes_prompt
    ]
    kept, drops, reasons = run(queries, prompt)
    assert kept == queries[:2]
    assert drops == Counter(empty=1, too_short=1, too_long=1, not_en=2, copies_description=1, echoes_prompt=3)
    assert reasons[:2] == [None, None]
    assert reasons[5:7] == ["not_en", "not_en"]


def test_a_short_english_query_full_of_names_is_kept(prompt: str) -> None:
    # py3langid alone is unsure on these (product names, few function words); the rule must not drop them.
    queries = [
        "Ping Bob on Slack about lunch",
        "Get Notion page content for roadmap",
        "Post Q3 OKRs to #leads channel",
        "Send the AAPL earnings summary to #finance",
    ]
    kept, drops, _ = run(queries, prompt)
    assert kept == queries, drops


def test_other_languages_are_dropped_and_can_be_the_target(prompt: str) -> None:
    assert not is_language("Envoie un message sur Slack à toute mon équipe", "en")
    assert not is_language("Найди статью в Википедии про Аду Лавлейс", "en")
    assert is_language("Schick bitte eine Nachricht an den Kanal, dass das Deployment fertig ist", "de")
    assert not is_language("Tell the team channel I'm running ten minutes late", "de")
    kept, drops, _ = run(["Schick bitte eine Nachricht an den Kanal, dass das Deployment fertig ist"], prompt,
                         language="de")  # fmt: skip
    assert kept and not drops


def test_a_query_quoting_a_few_words_of_the_description_is_kept(prompt: str) -> None:
    query = "Can you use this tool to send a message to the design channel that the new logo is ready?"
    assert 0 < description_overlap(query, DESCRIPTION) <= 0.6
    kept, _, _ = run([query], prompt)
    assert kept == [query]


def test_description_ngrams_in_the_prompt_are_not_an_echo(prompt: str) -> None:
    # The prompt contains the description; sharing its words is judged by copies_description only.
    query = "I want to send a message with the provided message fields please, to #ops about the incident report"
    kept, drops, _ = run([query], prompt, max_description_overlap=0.9)
    assert kept == [query] and not drops


def test_word_counting() -> None:
    assert words("Post 'lunch at noon' in #eng, it's 12:30") == ["post", "lunch", "at", "noon", "in", "eng", "it's",
                                                                  "12", "30"]  # fmt: skip
    assert len(words("给团队发消息")) == 6  # one word per Han character
    kept_short = filter_queries(["a b c d"], description="", prompt="", min_words=5, max_words=120,
                                max_description_overlap=0.6, language="en")  # fmt: skip
    assert kept_short.drops == Counter(too_short=1)


def test_a_url_is_one_word_for_the_length_rule() -> None:
    url_query = "50041763 https://api.github.com/users/carlosantos?ref=qbase_token#v2"
    result = filter_queries([url_query], description="", prompt="", min_words=5, max_words=120,
                            max_description_overlap=0.6, language="en")  # fmt: skip
    assert result.drops == Counter(too_short=1)
