"""A template's description cut down to what the workflow does: the ``task`` view of a query.

n8n.io descriptions are marketing-style Markdown: emoji headings, "How to set up" sections, credential steps,
links to the author's other offers, and sometimes lines that name node types outright ("Type: httpRequest"),
which would turn retrieval into string matching against node names. :func:`clean_description` keeps the part
that says what the workflow does:

1. HTML entities are decoded; emoji, Markdown emphasis, images, code blocks and inline code marks are removed
   (a link keeps its text); bullets and numbering are dropped.
2. The text is read as sections: a heading is a Markdown ``#`` line, or a short line without final punctuation
   standing alone. A section whose heading speaks of setup, installation, prerequisites, requirements,
   credentials, configuration, customisation, getting help, the author or pricing (:data:`DROPPED_SECTIONS`) is
   removed up to the next heading that opens a kept section (a Markdown heading, or one that speaks of what the
   workflow does, :data:`KEPT_SECTIONS`: a sub-heading of a setup section does not end it); headings
   themselves are structure, not text, and are removed too.
3. Lines anywhere are removed when they hold a URL, a marketing phrase (:data:`MARKETING`), a credential or
   setup instruction (:data:`SETUP_LINE`), or a node type (``n8n-nodes-base.x``, ``Type: httpRequest``, or a
   camel-case word that is an n8n node's name); a table row of sample personal data (an author's test rows: a
   name, a phone number, an e-mail address) is removed before anything else reads it, by the project's one rule
   (:func:`ecoagent.text.personal_data.is_sample_row`), since the lines are joined into one paragraph afterwards and
   a row could no longer be told apart.
4. What is left is joined into one paragraph (each line ends with a full stop) and cut at the last sentence end
   before ``max_chars`` (a word boundary when there is none), and to ``max_words`` words.

``task_text(title, description)`` is the title, then the cleaned description; the ``title`` view is the title.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Collection

from ecoagent.text.personal_data import is_sample_row

DROPPED_SECTIONS = re.compile(
    r"set ?up|setting up|install|prerequisite|requirement|credential|configur|customi[sz]|getting started|"
    r"how to use|before you (begin|start)|need help|support|contact|about (me|us|the author)|author|pricing|"
    r"disclaimer|troubleshoot|faq|who am i|hire|consult|sample document|files|notes?$|tips?$|resources?$|"
    r"important|good to know|what you need|you will need|you'll need|quick start|deploy",
    re.IGNORECASE,
)
# a heading that ends a dropped section (a sub-heading inside "Setup", "Google Sheets Preparation", does not)
KEPT_SECTIONS = re.compile(
    r"what|how it works|overview|feature|use ?case|description|workflow|summary|purpose|process|flow|steps?\b|"
    r"output|result|benefit|why|ideal for|who is (this|it) for|highlights|capabilit|in short|tl;?dr",
    re.IGNORECASE,
)
MARKETING = re.compile(
    r"need help|join (the|our|my) community|free for community|paid workflows?|reach out|contact (me|us)|"
    r"follow (me|us)|hire (me|us)|subscribe|book a (call|meeting|demo)|consulting|my (other )?templates|"
    r"check out (my|our)|buy me|discount|coupon|affiliate|sponsored|questions\?|feedback\?|happy automating|"
    r"let'?s connect|connect with me|custom (workflow|automation|development)|dm me|email me|ready to deploy",
    re.IGNORECASE,
)
SETUP_LINE = re.compile(
    r"^(import|activate|copy (the|your)|paste|configure|set up|setup|add (your|the) (api|credential|key|token)|"
    r"replace|update the|insert your|enter your|create (a|an|your) .*(account|credential|api key|token)|"
    r"get (a|an|your) .*(api key|token)|make sure|ensure|don'?t forget|remember to)\b|"
    r"\b(api[ _-]?key|credentials?|oauth2?|access token|bearer token|client secret|client id)\b",
    re.IGNORECASE,
)
_URL = re.compile(r"https?://|www\.\S", re.IGNORECASE)
_NODE_TYPE = re.compile(r"n8n-nodes-[\w-]+|@n8n/[\w.-]+|\b(?:node\s*)?type\s*:\s*\w+", re.IGNORECASE)
_CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z0-9]*\b")
_MD_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
_EMPHASIS = re.compile(r"[*_`~]+")
_HEADING_MARK = re.compile(r"^\s*#{1,6}\s*")
_BULLET = re.compile(r"^\s*(?:[-*+•·▪►>]+|\d{1,2}\s*[.)]|step\s+\d+\s*[:.)-]?)\s*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_HEADING_WORDS = 8


def strip_symbols(text: str) -> str:
    """Emoji and other pictographs removed (Unicode symbols ``So``/``Sk``, variation selectors, joiners)."""
    out = []
    for char in text:
        if unicodedata.category(char) in ("So", "Sk", "Cs", "Co") or char in "\ufe0f\ufe0e\u200d\u20e3":
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)


def _plain(text: str) -> str:
    text = html.unescape(text)
    text = _CODE_BLOCK.sub(" ", text)
    text = _MD_IMAGE.sub(" ", text)
    text = _MD_LINK.sub(r"\1", text)
    return strip_symbols(text)


def _is_heading(raw: str, line: str) -> bool:
    """A Markdown heading, or a short line without final punctuation that is not a list item."""
    if _HEADING_MARK.match(raw):
        return True
    words = line.split()
    return (0 < len(words) <= _HEADING_WORDS and not _BULLET.match(raw) and not _SENTENCE_END.search(line[-1:])
            and line[-1:] not in ",;")  # fmt: skip


def _names_node_type(line: str, node_names: Collection[str]) -> bool:
    if _NODE_TYPE.search(line):
        return True
    return any(word in node_names for word in _CAMEL.findall(line))


def kept_lines(description: str, node_names: Collection[str] = ()) -> list[str]:
    """The description's lines that say what the workflow does (module docstring, steps 1-3)."""
    kept: list[str] = []
    dropping = False
    for raw in _plain(description).splitlines():
        if is_sample_row(raw):
            continue
        line = " ".join(_EMPHASIS.sub(" ", _BULLET.sub("", _HEADING_MARK.sub("", raw))).split()).strip(" :-–—|")
        if not line:
            continue
        if _is_heading(raw, line):
            if DROPPED_SECTIONS.search(line):
                dropping = True
            elif not dropping or _HEADING_MARK.match(raw) or KEPT_SECTIONS.search(line):
                dropping = False
            continue
        if dropping or _URL.search(line) or MARKETING.search(line) or SETUP_LINE.search(line):
            continue
        if _names_node_type(line, node_names):
            continue
        kept.append(line)
    return kept


def _cut(text: str, max_chars: int, max_words: int | None) -> str:
    if max_words is not None:
        words = text.split()
        if len(words) > max_words:
            text = " ".join(words[:max_words])
    if len(text) <= max_chars and (max_words is None or len(text.split()) <= max_words):
        return text
    head = text[:max_chars]
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    if ends and ends[-1] > max_chars // 2:
        return head[: ends[-1]].strip()
    return head.rsplit(" ", 1)[0].strip() if " " in head else head


def clean_description(
    description: str, node_names: Collection[str] = (), max_chars: int = 1500, max_words: int | None = None
) -> str:
    """The cleaned description as one paragraph of at most ``max_chars`` characters (module docstring)."""
    lines = kept_lines(description, node_names)
    sentences = [line if _SENTENCE_END.search(line[-1:]) else f"{line}." for line in lines]
    return _cut(" ".join(sentences), max_chars, max_words)


def task_text(title: str, cleaned: str) -> str:
    """The ``task`` view: the title as a sentence, then the cleaned description."""
    head = title.strip()
    if head and not _SENTENCE_END.search(head[-1:]):
        head += "."
    return f"{head} {cleaned}".strip()
