"""Turn an LLM completion into a list of candidate user queries.

The prompt asks for one query per line. Chat models decorate the list (numbering, bullets, quotes, bold,
"Query 3:" labels, a "Here are ten queries:" preamble); base models do not stop after the list but continue
the few-shot pattern with a new "Tool: ..." block, whose queries belong to a tool the model made up. So the
parser cleans each line and stops at the first line that opens a new block.
"""

from __future__ import annotations

import re

# A line that opens a new few-shot block or repeats the prompt's scaffolding: "Tool:", "[Tool]", "### Tool name:",
# "Example 3:", "Description:", "tool_name:", "<tool_data>", "[Requirements]"... Queries after it describe another
# (invented) tool or are part of an echoed prompt, so everything from here on is discarded.
_BLOCK_LABELS = (
    r"tool(?:[\s_]*(?:name|description))?|api|function|description|tool[\s_]*data|task|inputs?|requirements"
    r"|num[\s_]*queries|example(?:\s*\d+)?|parameters"
)
_BLOCK_START = re.compile(
    rf"^\s*(?:#+\s*|\*\*|__)?(?:\[\s*(?:{_BLOCK_LABELS})\s*\]|(?:{_BLOCK_LABELS})\s*(?:\*\*|__)?\s*:"
    r"|<\s*/?\s*tool_data\s*>)",
    re.IGNORECASE,
)
# End-of-text markers some base models print literally: the text ends there, even mid-line.
END_OF_TEXT_MARKERS = ("</s>", "<|endoftext|>", "<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<eos>")
_END_OF_TEXT = re.compile("|".join(map(re.escape, END_OF_TEXT_MARKERS)))
# Markdown rules that separate blocks.
_STOP_LINE = re.compile(r"^\s*(?:-{3,}|\*{3,}|={3,})\s*$")
# A header or chat preamble, not a query: "Queries:", "Requests:", "[Output]", "Here are 10 queries for this tool:".
_HEADER = re.compile(
    r"""
    ^\s*(?:\#+\s*)?(?:\*\*)?                                # an optional heading mark or bold
    (?:(?:user\s+|example\s+|sample\s+)?(?:queries|questions|requests|output|answer)\b.*  # "Example queries"
      |(?:here\s+(?:are|is)|sure\b|certainly\b|below\s+(?:are|is)|okay\b|ok\b).*         # a chat preamble
    )[:：]\s*(?:\*\*)?\s*$                                    # ... ending in a colon
    |^\s*\[\s*(?:output|answer|queries|requests)\s*\]\s*$   # "[Output]"
    """,
    re.IGNORECASE | re.VERBOSE,
)
_NUMBERING = re.compile(r"^\s*(?:\(\d{1,3}\)|\[\d{1,3}\]|\d{1,3}\s*[.):\]](?=\s|$))\s*")
_BULLET = re.compile(r"^\s*(?:[-*•·‣▪◦–—+>]\s+)+")
# "Query:", "Query 3:", "Q:", "User:", "Request 2 -" labels in front of the text itself.
_LABEL = re.compile(
    r"^\s*(?:\*\*|__)?(?:user\s+)?(?:query|question|request|prompt|q|user)(?:\s*\d{1,3})?\s*(?:\*\*|__)?\s*(?:[:：]|\s[-–—](?=\s))\s*",
    re.IGNORECASE,
)
_QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "„": "“", "`": "`", "「": "」"}


def _strip_markdown(line: str) -> str:
    line = re.sub(r"^\s*#+\s+", "", line)  # heading marks
    line = re.sub(r"(\*\*|__)(.+?)\1", r"\2", line)  # bold
    line = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", line)  # italics
    line = re.sub(r"(?<!`)`([^`]+)`(?!`)", r"\1", line)  # inline code around the whole query or a word
    return line.replace("**", "").strip()


def _strip_quotes(line: str) -> str:
    # Repeated because models nest them ("'...'") or put a quote inside bold.
    while len(line) >= 2 and line[0] in _QUOTE_PAIRS and line[-1] == _QUOTE_PAIRS[line[0]]:
        line = line[1:-1].strip()
    # An opening quote the model never closed (cut at max_tokens) or a trailing one after a period.
    if line[:1] in _QUOTE_PAIRS and _QUOTE_PAIRS[line[0]] not in line[1:]:
        line = line[1:].strip()
    return line


def _clean(line: str) -> str:
    previous = None
    # Decorations stack in any order ("1. **Query:** \"...\""), so peel until nothing changes.
    while previous != line:
        previous = line
        line = _NUMBERING.sub("", line, count=1)
        line = _BULLET.sub("", line, count=1)
        line = _strip_markdown(line)
        line = _LABEL.sub("", line, count=1)
        line = _strip_quotes(line)
    return re.sub(r"\s+", " ", line).strip()


def parse_queries(text: str) -> list[str]:
    """One query per line, cleaned; stops at a line that starts a new few-shot block.

    Removes numbering ("1.", "2)", "(3)", "[4]"), bullets ("-", "*", "•"), surrounding quotes, "Query:"-style labels
    and markdown emphasis; drops blank lines, list headers ("Queries:") and chat preambles ("Here are ...:").
    Stops at "Tool:", "[Tool]", "Description:", "Example 2:", "tool_name:", "<tool_data>", "---" or an end-of-text
    marker, because base models continue the few-shot pattern with queries for a tool of their own invention.
    """
    queries: list[str] = []
    end = _END_OF_TEXT.search(text)
    if end:
        text = text[: end.start()]
    for raw in text.splitlines():
        if not raw.strip():
            continue
        if _STOP_LINE.match(raw) or _BLOCK_START.match(raw):
            break
        if _HEADER.match(raw):
            continue
        query = _clean(raw)
        if query:
            queries.append(query)
    return queries
