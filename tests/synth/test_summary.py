"""What the synth stage says about itself (synth/summary.py)."""

from __future__ import annotations

from synth.summary import summary_lines

_SUMMARY = {
    "queries_kept": 4, "tools_with_queries": 2, "tools_selected": 2, "selection": "all", "requests": 2,
    "requests_cached_before": 0, "requests_failed": 0, "generator_model": "m", "prompt_version": "p_v1",
    "drops_by_reason": {}, "pairs": {"positive": 4, "hard_negative": 0, "random_negative": 0},
    "intent_types": {"direct_action": 4}, "review_sample": [], "seconds": {"total": 1.0},
}  # fmt: skip


def test_the_selected_tools_with_unknown_fields_are_said_per_listing():
    unknown = {"per_listing": {"community-verified": {"tools_with_any": 1, "auth_type": 1, "parameters": 1},
                               "platform": {"tools_with_any": 0, "auth_type": 0}},
               "queries_of_tools_with_unknown_fields": 3}  # fmt: skip
    text = "\n".join(summary_lines({**_SUMMARY, "unknown_fields": unknown}, "out"))
    assert ("selected tools with unknown fields (the prompt shows name and description only): community-verified "
            "1 (auth_type=1, parameters=1); 3 kept queries are theirs") in text  # fmt: skip
    assert "platform 0" not in text
    assert "unknown fields" not in "\n".join(summary_lines(_SUMMARY, "out"))  # none: no line
