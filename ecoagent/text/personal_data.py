"""The project's one rule for personal data in released text: e-mail addresses, phone numbers, sample-data rows.

Authors of crawled text (n8n workflow descriptions, tool docs) paste sample data into it: a table row with a
person's name, phone number and e-mail address. A release must not carry it, so the rule below is applied where
the release's tables are built (``release.build``), at the source where lines still exist (the workflow
description cleaning, ``labeling.workflows.cleaning``), and checked by the release gate. The rule, kind by kind:

- ``email``: ``local@domain.tld``, the top-level domain of letters (an image file such as ``icon@2x.png`` is not
  one); replaced by ``[email]``.
- ``phone``: an international number (``+`` and a country code, then digit groups split by spaces, dashes or a
  parenthesised group: 8 to 15 digits in all); a North American number written ``(555) 123-4567``,
  ``555-123-4567`` or ``555.123.4567`` (optionally ``1-`` / ``1.`` before it, the area code not starting with 0
  or 1); or any run of 7 to 15 digits right after a phone cue (``phone``, ``tel``, ``telephone``, ``mobile``,
  ``cellphone``, ``whatsapp``, ``fax``, optionally ``number`` / ``no.`` and a ``:``, ``=`` or ``|``): the number
  is replaced by ``[phone]``, the cue stays. No other digits are a phone: a bare digit run carries no sign of being
  one (an id, a timestamp, a count), and versions, dates, times, prices, ``1,000,000``, ports, IP addresses and
  ISO timestamps have none of these shapes; a match may not touch a letter, digit, ``@``, ``-`` or ``/``, nor
  continue as a decimal.
- ``sample_row``: a line of a table: three or more cells, split by ``|`` (a Markdown row), else by tabs, ``;`` or
  ``,``, each cell at most :data:`MAX_CELL_WORDS` words; it is sample data when a cell holds an e-mail address or a
  phone number, or when one cell is a person's name (two or three capitalised words) and another a bare contact
  number (7 to 15 digits, an optional ``+``). Such a line is dropped whole. A text of one line is never a table
  (dropping it would leave nothing): there only its e-mails and phones are replaced.

:func:`scrub` applies the rule to a text and counts what it removed by kind; :func:`find_personal_data` counts the
same without changing anything (never the values); :func:`scrub_frame` / :func:`scan_frame` do both over the named
string columns of a table.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

import polars as pl

EMAIL = "email"
PHONE = "phone"
SAMPLE_ROW = "sample_row"
KINDS = (EMAIL, PHONE, SAMPLE_ROW)
PLACEHOLDERS = {EMAIL: "[email]", PHONE: "[phone]"}
MAX_CELL_WORDS = 8
MIN_ROW_CELLS = 3

_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+"
    r"(?!(?:png|jpe?g|gif|svg|webp)(?![A-Za-z]))[A-Za-z]{2,24}(?![\w-])"
)
# a phone may not touch a word character, @, - or /, nor continue as a decimal (1.5, 2,000)
_START = r"(?<![\w@/.+-])"
_END = r"(?![\w@/-]|[.,]\d)"
_PHONE = re.compile(
    _START + r"(?:"
    r"\+[1-9]\d{0,2}(?:[ -]?\(\d{1,4}\)|[ -]?\d{1,4})(?:[ -]?\d{2,4}){1,5}"  # international
    r"|(?:1[ -]?)?\([2-9]\d{2}\) ?\d{3}[ .-]\d{4}"  # (555) 123-4567
    r"|(?:1-)?[2-9]\d{2}-\d{3}-\d{4}"  # 555-123-4567
    r"|(?:1\.)?[2-9]\d{2}\.\d{3}\.\d{4}"  # 555.123.4567
    r")" + _END
)
_CUED_PHONE = re.compile(
    r"(?P<cue>(?i:\b(?:phone|tel|telephone|mobile|cell ?phone|whatsapp|fax)\.?"
    r"(?:[ _-]?(?:number|num|no\.?|#))?)\s*[:=|]?\s*)"
    r"(?P<number>\+?\d(?:[ ()-]?\d){6,14})" + _END
)
_MIN_PHONE_DIGITS, _MAX_PHONE_DIGITS = 8, 15
_NAME_CELL = re.compile(r"[A-Z][a-z]+(?:[ '-][A-Z][a-z]+){1,2}")
_NUMBER_CELL = re.compile(r"\+?\d{7,15}")
# every kind needs an @ or 7 digits: a vectorized pass keeps the strings that may hold one
_PREFILTER_DIGITS = 7


def _phone(match: re.Match[str]) -> bool:
    """An international match must hold 8 to 15 digits (the North American shapes always do)."""
    digits = sum(char.isdigit() for char in match.group(0))
    return _MIN_PHONE_DIGITS <= digits <= _MAX_PHONE_DIGITS


def _cells(line: str) -> list[str]:
    """The line's non-empty cells: split by ``|`` when it has one, else by tabs, else ``;``, else ``,``."""
    body = line.strip().strip("|")
    separator = next((s for s in ("|", "\t", ";") if s in body), ",")
    return [cell.strip() for cell in body.split(separator) if cell.strip()]


def is_sample_row(line: str) -> bool:
    """Whether ``line`` is a table row of sample personal data (module docstring): it is dropped whole, since its
    other cells (a name, an address, an order) belong to the same person."""
    cells = _cells(line)
    if len(cells) < MIN_ROW_CELLS or any(len(cell.split()) > MAX_CELL_WORDS for cell in cells):
        return False
    if any(_EMAIL.search(cell) or _has_phone(cell) for cell in cells):
        return True
    names = [i for i, cell in enumerate(cells) if _NAME_CELL.fullmatch(cell)]
    numbers = [i for i, cell in enumerate(cells) if _NUMBER_CELL.fullmatch(cell)]
    return bool(names and numbers)


def _has_phone(text: str) -> bool:
    return any(_phone(m) for m in _PHONE.finditer(text)) or _CUED_PHONE.search(text) is not None


def _replace_phones(text: str) -> tuple[str, int]:
    count = 0

    def formatted(match: re.Match[str]) -> str:
        nonlocal count
        if not _phone(match):
            return match.group(0)
        count += 1
        return PLACEHOLDERS[PHONE]

    text = _PHONE.sub(formatted, text)
    text, cued = _CUED_PHONE.subn(lambda m: m.group("cue") + PLACEHOLDERS[PHONE], text)
    return text, count + cued


def _drop_sample_rows(text: str) -> tuple[str, int]:
    lines = text.splitlines(keepends=True)
    if len(lines) < 2:
        return text, 0
    kept = [line for line in lines if not is_sample_row(line)]
    return "".join(kept), len(lines) - len(kept)


def scrub(text: str) -> tuple[str, Counter[str]]:
    """``text`` without personal data (sample-data rows dropped, e-mails and phones replaced by placeholders), and
    what was removed, by kind."""
    found: Counter[str] = Counter()
    if not text or not _may_hold(text):
        return text, found
    text, found[SAMPLE_ROW] = _drop_sample_rows(text)
    text, found[EMAIL] = _EMAIL.subn(PLACEHOLDERS[EMAIL], text)
    text, found[PHONE] = _replace_phones(text)
    return text, +found


def find_personal_data(text: str) -> Counter[str]:
    """What :func:`scrub` would remove from ``text``, by kind; never the values."""
    return scrub(text)[1]


def _may_hold(text: str) -> bool:
    return "@" in text or sum(char.isdigit() for char in text) >= _PREFILTER_DIGITS


def _candidates(series: pl.Series) -> pl.Series:
    """A mask of the strings that may hold personal data (an ``@`` or 7 digits): most strings hold neither."""
    return (series.str.contains("@", literal=True) | (series.str.count_matches(r"\d") >= _PREFILTER_DIGITS)).fill_null(
        False
    )


def scrub_frame(frame: pl.DataFrame, columns: Iterable[str]) -> tuple[pl.DataFrame, Counter[str]]:
    """``frame`` with :func:`scrub` applied to each of ``columns`` it has (string columns), and the counts by kind."""
    total: Counter[str] = Counter()
    changed = []
    for name in _text_columns(frame, columns):
        values = frame[name].to_list()
        before = total.total()
        for i in _candidates(frame[name]).arg_true().to_list():
            values[i], found = scrub(values[i])
            total += found
        if total.total() > before:
            changed.append(pl.Series(name, values, dtype=pl.String))
    return (frame.with_columns(changed) if changed else frame), total


def scan_frame(frame: pl.DataFrame, columns: Iterable[str]) -> Counter[tuple[str, str]]:
    """``(column, kind) -> matches`` of personal data in each of ``columns`` that ``frame`` has; never the values."""
    found: Counter[tuple[str, str]] = Counter()
    for name in _text_columns(frame, columns):
        series = frame[name]
        for text in series.filter(_candidates(series)).to_list():
            found.update({(name, kind): n for kind, n in find_personal_data(text).items()})
    return found


def _text_columns(frame: pl.DataFrame, columns: Iterable[str]) -> list[str]:
    return [name for name in columns if frame.schema.get(name) == pl.String]
