"""as_data: third-party text as one inert line (the breakout case is tested with a rendered Syn template)."""

from __future__ import annotations

from ecoagent.llm.prompt_data import as_data


def test_long_descriptions_are_trimmed_on_a_word():
    assert as_data("word " * 500, 50).endswith(" ...") and len(as_data("word " * 500, 50)) <= 54
