"""Language and word handling shared by the stages: what a word is, which language a short text is in, and
how a service name is normalized.

Two notions of a word. :func:`word_count` counts words as a reader does, for length rules (the paper's 5-120
words): whitespace-separated tokens, so ``https://api.github.com/users/x?ref=y#v2`` is one word, not a dozen; in
Chinese and Japanese, which do not separate words by spaces, each Han or kana character counts as one.
:func:`words` is the tokenizer of n-gram comparisons (copies of a description, echoes of a prompt, stop-word
shares): runs of letters or digits, lowercased, so punctuation never splits or joins an n-gram.

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
from functools import lru_cache

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "sv", "pl", "ru", "uk", "tr", "ar", "hi", "zh", "ja", "ko",
             "vi", "id")  # fmt: skip
LATIN_SCRIPT_LANGUAGES = {"en", "de", "fr", "es", "it", "pt", "nl", "sv", "pl", "tr", "vi", "id"}
# Longer than this, a "query" is a pasted prompt or document, not a question: the release gate's limit, which
# the label stage applies when it reads a source (BFCL live holds a 715-word system prompt)
MAX_QUERY_WORDS = 300
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


_CJK_CHAR = re.compile(rf"[{_CJK}]")


def words(text: str) -> list[str]:
    """Lowercased words for n-grams: runs of letters/digits, single Han/kana characters."""
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def word_count(text: str) -> int:
    """Words as a reader counts them: whitespace-separated tokens; a token's Han/kana characters count one each."""
    count = 0
    for token in text.split():
        cjk = len(_CJK_CHAR.findall(token))
        rest = _CJK_CHAR.sub(" ", token).split() if cjk else [token]
        count += cjk + len(rest)
    return count


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


def normalize_service(service: str | None) -> str:
    """A service name as a lowercase ``[a-z0-9_]`` identifier ("Google Sheets" -> ``google_sheets``); ``""`` if empty.

    This is the service part of a permission scope (``google_sheets.read``).
    """
    return re.sub(r"[^a-z0-9]+", "_", (service or "").lower()).strip("_")


def service_key(service: str | None) -> str:
    """What two tools of one service share: the normalized name without separators.

    n8n writes ``googlesheets`` where LangChain writes ``google_sheets``, so "same service" compares
    ``google_sheets``, ``Google Sheets`` and ``googlesheets`` as one.
    """
    return normalize_service(service).replace("_", "")
