"""Graded relevance: how much of a template's text supports each of its catalog tools.

A tool's **service names** are the words a text uses to name the service the tool calls: its display name
(parenthesised parts read as names of their own: "SerpApi (Google Search)"), that name without a vendor word
("Google Sheets" -> "sheets", "Microsoft Outlook" -> "outlook") or a product suffix ("Pinecone Vector Store" ->
"pinecone", "Jira Software" -> "jira"), its first word when that is a brand ("WhatsApp Business Cloud" ->
"whatsapp"), its ``service`` ("quickbooks"), and the aliases of ``service_aliases.yaml`` ("GPT-4o" -> OpenAI).
Names are matched as whole word sequences, ignoring case, punctuation and a plural "s" ("GPT-4o" reads as
"gpt 4o", "Google Sheet" as "Google Sheets").

- **2**: the title names the tool's service;
- **1**: only the (cleaned, cut) description names it;
- **0**: no text of the query names it: the tool is not a label (counted in the mapping report as
  ``unsupported``), since a reader of the query could not know it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import yaml

ALIASES_FILE = Path(__file__).with_name("service_aliases.yaml")
VENDORS = frozenset({"google", "microsoft", "aws", "amazon", "azure", "zoho", "ibm", "oracle", "cisco", "adobe"})
SUFFIXES = ("vector store", "business cloud", "software", "online", "crm", "api", "cloud", "io", "com")
# words that name no service on their own, even as the first word of a display name
_GENERIC_TEXT = (
    "data cloud email mail chat drive calendar docs tasks contacts forms ads analytics storage translate video "
    "image search text file files web message messages business api app send simple action quick one elastic "
    "microsoft google evaluation formerly vector store the and for"
)
GENERIC = frozenset(_GENERIC_TEXT.split())
_TOKEN = re.compile(r"[a-z0-9]+")
_PAREN = re.compile(r"\(([^)]*)\)")


def tokens(text: str) -> tuple[str, ...]:
    """Lowercase words, a plural "s" dropped ("Google Sheet" and "Google Sheets" read alike)."""
    return tuple(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                 for w in _TOKEN.findall(text.lower()))  # fmt: skip


@cache
def aliases() -> dict[str, tuple[str, ...]]:
    data = yaml.safe_load(ALIASES_FILE.read_text()) or {}
    return {service: tuple(names) for service, names in data.items()}


def _without_suffix(words: tuple[str, ...]) -> tuple[str, ...]:
    for suffix in SUFFIXES:
        tail = tokens(suffix)
        if len(words) > len(tail) and words[-len(tail) :] == tail:
            return words[: -len(tail)]
    return words


def service_names(display_name: str, service: str) -> frozenset[tuple[str, ...]]:
    """The word sequences that name a tool's service (module docstring)."""
    names: set[tuple[str, ...]] = set()
    phrases = [_PAREN.sub(" ", display_name), *_PAREN.findall(display_name)]
    for phrase in phrases:
        words = tuple(w for w in tokens(phrase) if w != "formerly")
        for form in (words, _without_suffix(words)):
            if form:
                names.add(form)
            if len(form) > 1 and form[0] in VENDORS:
                names.add(form[1:])
        if len(words) > 1 and words[0] not in GENERIC and words[0] not in VENDORS and len(words[0]) >= 4:
            names.add(words[:1])
    if service:
        names.add((service,))
    names.update(tokens(alias) for alias in aliases().get(service, ()))
    # a one-letter or generic single word names nothing ("x", "drive" alone)
    return frozenset(n for n in names if n and not (len(n) == 1 and (len(n[0]) < 2 or n[0] in GENERIC)))


def names_service(text_tokens: tuple[str, ...], names: Iterable[tuple[str, ...]]) -> bool:
    """Whether the token sequence holds one of ``names`` as consecutive whole words."""
    at: dict[str, list[int]] = {}
    for i, token in enumerate(text_tokens):
        at.setdefault(token, []).append(i)
    for name in names:
        for start in at.get(name[0], ()):
            if text_tokens[start : start + len(name)] == name:
                return True
    return False


def grade(title_tokens: tuple[str, ...], description_tokens: tuple[str, ...], names: frozenset) -> int:
    """2 when the title names the service, 1 when only the description does, 0 when no text does."""
    if names_service(title_tokens, names):
        return 2
    return 1 if names_service(description_tokens, names) else 0
