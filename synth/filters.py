"""Quality filters for generated queries (the RATED paper, Section 2: 5-120 words, no copies, the right language).

Each query gets at most one drop reason, checked in this order (the first that applies is counted):

- ``empty``: nothing left after parsing;
- ``echoes_prompt``: the model repeated the prompt instead of answering it: the query starts with a template label
  (``Tool:``, ``Description:``, ``[Task]``, ``Requirements``, ``tool_name:``...), contains a template tag
  (``<tool_data>``, an unfilled ``{tool_name}``) or contains a run of ``ECHO_NGRAM`` words that occurs
  in the prompt but not in the tool description (so it came from the instructions or few-shot examples);
- ``too_short`` / ``too_long``: fewer than ``min_words`` or more than ``max_words`` words. A word is a run of letters
  or digits; in Chinese and Japanese, which do not separate words by spaces, each Han or kana character counts as one;
- ``not_<lang>``: the language rule below says the query is in another language;
- ``copies_description``: more than ``max_description_overlap`` of the query's word n-grams (n = 4, or the query's
  length when shorter) also occur in the tool description: the model paraphrased nothing.

Language rule. py3langid's naive Bayes model, restricted to ``LANGUAGES`` (the languages an instruction-tuned model
plausibly drifts into; fewer candidates mean fewer absurd guesses such as Danish for "get AAPL price"), with
calibrated probabilities. Short queries full of product names are hard, so a query is dropped only on clear evidence:

1. the target uses the Latin script and more than half of the query's letters are of another script (Chinese,
   Cyrillic, Arabic...): dropped, whatever the model says;
2. the top language is the target: kept;
3. the top language is another one, but with probability below ``LANG_MIN_PROB`` or a lead over the target below
   ``LANG_MIN_MARGIN``: undecided, kept;
4. target English only: the model is not near-certain (below ``LANG_SURE_PROB``) and at least ``EN_STOPWORD_SHARE``
   of the words are English function words: kept (an English sentence around foreign names);
5. otherwise dropped as ``not_<lang>``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

ECHO_NGRAM = 5  # five words in a row shared with the instructions are no coincidence
DESCRIPTION_NGRAM = 4

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "sv", "pl", "ru", "uk", "tr", "ar", "hi", "zh", "ja", "ko",
             "vi", "id")  # fmt: skip
LATIN_SCRIPT_LANGUAGES = {"en", "de", "fr", "es", "it", "pt", "nl", "sv", "pl", "tr", "vi", "id"}
LANG_MIN_PROB = 0.6
LANG_MIN_MARGIN = 0.3
LANG_SURE_PROB = 0.9
EN_STOPWORD_SHARE = 0.2
# English function words that are not also common words of the other candidate languages ("in", "an", "die", "was",
# "is", "me", "on" are left out for that reason).
_EN_STOPWORD_TEXT = (
    "the and of to for with my your our their what how which when where who whom why this that these those please "
    "can could would should will from about into onto there they them we us you it its it's i'm i've he she his her "
    "are be been being does did do has have had any some every each than then also just all"
)
EN_STOPWORDS = frozenset(_EN_STOPWORD_TEXT.split())

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)*")
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


def words(text: str) -> list[str]:
    """Lowercased words: runs of letters/digits, single Han/kana characters."""
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


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


@lru_cache(maxsize=8)
def _identifier(languages: tuple[str, ...]):
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(languages))
    return identifier


def _foreign_script_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(not unicodedata.name(c, "").startswith("LATIN") for c in letters) / len(letters)


def is_language(query: str, language: str) -> bool:
    """The module docstring's language rule."""
    if language in LATIN_SCRIPT_LANGUAGES and _foreign_script_share(query) > 0.5:
        return False
    candidates = LANGUAGES if language in LANGUAGES else (*LANGUAGES, language)
    ranked = dict(_identifier(candidates).rank(query))
    top, p_top = max(ranked.items(), key=lambda kv: kv[1])
    if top == language:
        return True
    if p_top < LANG_MIN_PROB or p_top - ranked.get(language, 0.0) < LANG_MIN_MARGIN:
        return True
    if language == "en" and p_top < LANG_SURE_PROB:
        tokens = words(query)
        if tokens and sum(t in EN_STOPWORDS for t in tokens) / len(tokens) >= EN_STOPWORD_SHARE:
            return True
    return False


def drop_reason(
    query: str,
    *,
    description: str,
    prompt: str,
    min_words: int,
    max_words: int,
    max_description_overlap: float,
    language: str,
) -> str | None:
    """Why ``query`` is dropped (the first reason in the module docstring's order), or None to keep it."""
    query = query.strip()
    if not query:
        return "empty"
    if echoes_prompt(query, prompt=prompt, description=description):
        return "echoes_prompt"
    n_words = len(words(query))
    if n_words < min_words:
        return "too_short"
    if n_words > max_words:
        return "too_long"
    if language and not is_language(query, language):
        return f"not_{language}"
    if description_overlap(query, description) > max_description_overlap:
        return "copies_description"
    return None


def filter_queries(
    queries: Sequence[str],
    *,
    description: str,
    prompt: str,
    min_words: int,
    max_words: int,
    max_description_overlap: float,
    language: str,
) -> FilterResult:
    """Keep the queries that pass every filter; count the others by drop reason (see the module docstring)."""
    result = FilterResult(kept=[])
    for query in queries:
        reason = drop_reason(
            query,
            description=description,
            prompt=prompt,
            min_words=min_words,
            max_words=max_words,
            max_description_overlap=max_description_overlap,
            language=language,
        )
        result.reasons.append(reason)
        if reason is None:
            result.kept.append(query.strip())
        else:
            result.drops[reason] += 1
    return result
