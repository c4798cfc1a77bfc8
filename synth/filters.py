"""Quality filters for generated queries (the RATED paper, Section 2: 5-120 words, no copies, the right language).

Each query gets at most one drop reason, checked in this order (the first that applies is counted):

- ``empty``: nothing left after parsing;
- ``echoes_prompt``: the model repeated the prompt instead of answering it: the query starts with a template label
  (``Tool:``, ``Description:``, ``[Task]``, ``Requirements``, ``tool_name:``...), contains a template tag
  (``<tool_data>``, an unfilled ``{tool_name}``) or contains a run of ``ECHO_NGRAM`` words that occurs
  in the prompt but not in the tool description (so it came from the instructions or few-shot examples);
- ``too_short`` / ``too_long``: fewer than ``min_words`` or more than ``max_words`` words, counted as a reader does
  (:func:`ecoagent.text.words.word_count`: whitespace-separated tokens, so a URL is one word; in Chinese and Japanese
  each
  Han or kana character counts as one);
- ``not_<lang>``: the language rule (:func:`ecoagent.text.words.is_language`) says the query is in another language;
- ``copies_description``: more than ``max_description_overlap`` of the query's word n-grams (n = 4, or the query's
  length when shorter) also occur in the tool description: the model paraphrased nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ecoagent.text.words import is_language, word_count, words

ECHO_NGRAM = 5  # five words in a row shared with the instructions are no coincidence
DESCRIPTION_NGRAM = 4

# Template labels a query should never start with: the model printed the prompt's scaffolding.
_LABELS = (
    r"tool(?:[\s_]*(?:name|description|data))?|api|function|description|task|requirements?|instructions?|rules"
    r"|constraints|parameters|arguments|examples?(?:\s*\d+)?|output|inputs?|format|note|system|assistant|context"
    r"|queries|requests|num[\s_]*queries"
)
_TEMPLATE_START = re.compile(
    rf"^\W*(?:\[\s*/?(?:{_LABELS}|inst)\s*\]|(?:{_LABELS})\s*[:：]|requirements\b)",
    re.IGNORECASE,
)
_TEMPLATE_TAG = re.compile(r"<\s*/?\s*tool_data\s*>|\{(?:tool_name|tool_description|num_queries)\}", re.IGNORECASE)


@dataclass
class FilterResult:
    kept: list[str]
    drops: Counter = field(default_factory=Counter)
    reasons: list[str | None] = field(default_factory=list)  # one per input query, None where kept


def _ngrams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def description_overlap(query: str, description: str) -> float:
    """Share of the query's word n-grams (n = 4, or its length when shorter) that also occur in the description."""
    q = words(query)
    if not q:
        return 0.0
    n = min(DESCRIPTION_NGRAM, len(q))
    q_grams = [tuple(q[i : i + n]) for i in range(len(q) - n + 1)]
    d_grams = _ngrams(words(description), n)
    return sum(g in d_grams for g in q_grams) / len(q_grams)


def echoes_prompt(query: str, *, prompt: str, description: str) -> bool:
    if _TEMPLATE_START.match(query) or _TEMPLATE_TAG.search(query):
        return True
    q = words(query)
    if len(q) < ECHO_NGRAM:
        return False
    template_grams = _ngrams(words(prompt), ECHO_NGRAM) - _ngrams(words(description), ECHO_NGRAM)
    return not _ngrams(q, ECHO_NGRAM).isdisjoint(template_grams)


@dataclass(frozen=True)
class QueryFilter:
    """The filters' settings for one tool's generated queries (see the module docstring)."""

    description: str  # the tool's own description
    prompt: str  # the prompt the queries answer
    min_words: int
    max_words: int
    max_description_overlap: float
    language: str

    def drop_reason(self, query: str) -> str | None:
        """Why ``query`` is dropped (the first reason in the module docstring's order), or None to keep it."""
        query = query.strip()
        if not query:
            return "empty"
        if echoes_prompt(query, prompt=self.prompt, description=self.description):
            return "echoes_prompt"
        n_words = word_count(query)
        if n_words < self.min_words:
            return "too_short"
        if n_words > self.max_words:
            return "too_long"
        if self.language and not is_language(query, self.language):
            return f"not_{self.language}"
        if description_overlap(query, self.description) > self.max_description_overlap:
            return "copies_description"
        return None


def filter_queries(queries: Sequence[str], **settings: Any) -> FilterResult:
    """Keep the queries that pass every filter; count the others by drop reason (see the module docstring).

    ``settings`` are the fields of :class:`QueryFilter`, by name.
    """
    query_filter = QueryFilter(**settings)
    result = FilterResult(kept=[])
    for query in queries:
        reason = query_filter.drop_reason(query)
        result.reasons.append(reason)
        if reason is None:
            result.kept.append(query.strip())
        else:
            result.drops[reason] += 1
    return result
