"""The project's one list of secret formats: redaction of crawled text, the release gate's scan, error messages.

:data:`SECRET_FORMATS` names each credential shape we know (provider keys, cloud keys, tokens, private key blocks,
credentials in URLs). Three users share it:

- :func:`redact` / :func:`redact_value` / :func:`redact_frame` replace every match with ``[REDACTED]`` (the
  crawl's records, fetched doc summaries, every table and text file of a release);
- :func:`find_secrets` / :func:`scan_frame` count what still matches, by format name and never by value (the
  release gate fails on any);
- :func:`sanitize` masks error messages (the LLM client, the embedded server's log tail, a failed download)
  with the same formats plus looser ``name: value`` shapes, since a false positive costs nothing in a message.

The formats are precise on purpose: crawled text talks about keys all the time ("api_key: the API key",
``?key={key}``, ``YOUR_API_KEY``, ``http://username:password@proxy``) and those are documentation, not secrets.
Over the 4,614-tool catalog of 2026-11-30 (146,003 strings, 8.8 MB) no format matches.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

REDACTED = "[REDACTED]"
_MAX_MESSAGE_CHARS = 500

# A template or a placeholder is documentation: ``{key}``, ``${TOKEN}``, ``<your key>``, ``YOUR_API_KEY``, ``xxxx``.
_END = r"(?![^&#\s\"'<>])"  # the value ends here
_NOT_A_PLACEHOLDER = rf"(?![{{<$%:\[*])(?!(?i:your|my)[_-]?)(?![A-Z_]+{_END})(?!(?i:x{{4,}}){_END})"
_QUERY_NAMES = (
    r"api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|id[_-]?token|token|secret"
    r"|client[_-]?secret|key|password|passwd|pwd|sig|signature"
)
_ASSIGNED_NAMES = r"api[_-]?key|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|password|token|secret"


@dataclass(frozen=True)
class SecretFormat:
    """One credential shape. The named group ``secret`` is what gets replaced (the rest, e.g. ``?api_key=``, stays).

    ``cues``: lower-case substrings one of which every match contains; a string with none is skipped without
    running the pattern (most strings have none, and running every pattern is what makes a catalog pass slow).
    """

    name: str
    pattern: re.Pattern[str]
    cues: tuple[str, ...] = ()
    min_length: int = 0

    def may_match(self, text: str, lowered: str) -> bool:
        return len(text) >= self.min_length and (not self.cues or any(cue in lowered for cue in self.cues))


def _format(name: str, pattern: str, cues: tuple[str, ...], min_length: int = 0) -> SecretFormat:
    compiled = re.compile(pattern)
    if "secret" not in compiled.groupindex:
        compiled = re.compile(f"(?P<secret>{pattern})")
    return SecretFormat(name, compiled, cues, min_length)


SECRET_FORMATS: tuple[SecretFormat, ...] = (
    # a PEM block; without its END line (a truncated default) everything up to a quote or the end goes
    _format("private_key_block",
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
            r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=[\"'<]|$))", ("private key",)),
    _format("anthropic_key", r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9]{2,8}-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),
    _format("stripe_key", r"(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,}",
            ("k_live_", "k_test_", "whsec_")),
    # legacy sk-..., sk-proj-..., sk-svcacct-..., and the sk-live-/sk-test- forms other providers use
    _format("openai_key", r"(?<![A-Za-z0-9])sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}", ("sk-",)),
    _format("aws_access_key_id", r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])",
            ("akia", "asia", "abia", "acca", "a3t"), 20),
    _format("aws_secret_access_key",
            r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?"
            r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", ("secret",), 40),
    # the bare 40-character form: base64 letters with upper, lower, a digit and a / or + (a hex hash has none)
    _format("aws_secret_access_key",
            r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
            r"(?=[A-Za-z0-9/+]{0,39}[0-9])(?=[A-Za-z0-9/+]{0,39}[/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
            ("/", "+"), 40),
    _format("github_token", r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _format("slack_token", r"(?<![A-Za-z0-9])(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})",
            ("xox", "xapp-")),
    _format("slack_webhook", r"hooks\.slack\.com/services/(?P<secret>T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+)",
            ("hooks.slack.com",)),
    _format("google_api_key", r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}", ("aiza",), 39),
    _format("google_oauth", r"(?<![A-Za-z0-9])(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[A-Za-z0-9_-]{20,})",
            ("ya29.", "gocspx-")),
    _format("huggingface_token", r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}", ("hf_",), 33),
    _format("jwt", r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}", ("eyj",)),
    _format("bearer_token", r"(?i:\bbearer\s+)(?P<secret>(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{16,}=*)",
            ("bearer",)),
    # user:password@ in a URL, unless the password is a placeholder (http://username:password@proxy:3128)
    _format("url_credentials",
            r"(?i:\b[a-z][a-z0-9+.-]*://)(?P<secret>[^/\s:@\"'<>]+:(?![{<$%\[*])"
            r"(?!(?i:password|passwd|pass|pwd|secret|token|changeme|x+)@)[^/\s@\"'<>]+)@", ("://",)),
    _format("url_query_secret",
            rf"[?&;#](?i:{_QUERY_NAMES})=(?P<secret>{_NOT_A_PLACEHOLDER}[^&#\s\"'<>]{{6,}})",
            ("key=", "token=", "secret=", "password=", "passwd=", "pwd=", "sig=", "signature=")),
    # api_key = "..." in code or prose: a quoted value without spaces and with a digit
    _format("assigned_secret",
            rf"(?i:\b(?:{_ASSIGNED_NAMES}))\s*[:=]\s*[\"'](?P<secret>{_NOT_A_PLACEHOLDER}"
            r"(?=[^\"'\s]*[0-9])[^\"'\s]{8,})[\"']", ("key", "token", "secret", "password")),
)

# A superset of every format, in the syntax polars' (Rust) regex engine takes: tables are prefiltered in one
# vectorized pass and only the strings it keeps go through the Python patterns (tests check it keeps every sample).
_PREFILTER = (
    r"(?i)private key|sk-|k_live_|k_test_|whsec_|akia|asia|abia|acca|a3t|gh[pousr]_|github_pat_|xox|xapp-"
    r"|hooks\.slack\.com|aiza|ya29\.|gocspx-|hf_|eyj|bearer|://[^/\s]*@|[A-Za-z0-9/+]{40}"
    r"|(?:key|token|secret|password|passwd|pwd|sig|signature)[\"']?\s*[:=]"
)

# Error messages only: any "name: value" / "name=value" and short key fragments. Too loose for crawled text.
_MESSAGE_ONLY = (
    (re.compile(r"(?i)((?:api[_-]?key|access[_-]?token|token|key|secret|password)[\"']?\s*[=:]\s*[\"']?)[^\s&'\",;]+"),
     r"\1***"),
    (re.compile(r"(?i)(bearer\s+)[^\s'\",;]+"), r"\1***"),
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@"), r"\1***:***@"),
    (re.compile(r"\b(sk|hf|rk)[-_][A-Za-z0-9_\-]{8,}"), r"\1-***"),
)


def _masked(match: re.Match[str], mask: str) -> str:
    start, end = match.span("secret")
    offset = match.start()
    text = match.group(0)
    return text[: start - offset] + mask + text[end - offset :]


def redact(text: str, mask: str = REDACTED) -> tuple[str, int]:
    """``text`` with every known secret format replaced by ``mask``, and how many were replaced."""
    count = 0
    if not text:
        return text, count
    lowered = text.lower()
    for fmt in SECRET_FORMATS:
        if fmt.may_match(text, lowered):
            text, n = fmt.pattern.subn(lambda m: _masked(m, mask), text)
            if n:
                count += n
                lowered = text.lower()
    return text, count


def find_secrets(text: str) -> list[str]:
    """The name of the format of every match in ``text``; never the values."""
    if not text:
        return []
    lowered = text.lower()
    return [fmt.name for fmt in SECRET_FORMATS if fmt.may_match(text, lowered) for _ in fmt.pattern.finditer(text)]


def redact_value(value: Any, only: set[str] | None = None) -> tuple[Any, int]:
    """Redact every string inside ``value`` (dict keys and values, lists, tuples), keeping its shape.

    ``only``: the strings that may hold a secret (:func:`_candidates`); the others are returned untouched.
    """
    if isinstance(value, str):
        return (value, 0) if only is not None and value not in only else redact(value)
    if isinstance(value, dict):
        out, total = {}, 0
        for key, item in value.items():
            new_key, n_key = redact_value(key, only) if isinstance(key, str) else (key, 0)
            new_item, n_item = redact_value(item, only)
            out[new_key] = new_item
            total += n_key + n_item
        return out, total
    if isinstance(value, list | tuple):
        items = [redact_value(item, only) for item in value]
        return type(value)(item for item, _ in items), sum(n for _, n in items)
    return value, 0


def _strings(value: Any) -> list[str]:
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return out


def _candidates(strings: list[str]) -> set[str]:
    """The ``strings`` that pass the vectorized prefilter (a superset of those holding a secret)."""
    series = pl.Series(strings, dtype=pl.String)
    return set(series.filter(series.str.contains(_PREFILTER)).unique().to_list()) if len(series) else set()


def _has_text(dtype: pl.DataType) -> bool:
    if dtype == pl.String:
        return True
    if isinstance(dtype, pl.List | pl.Array):
        return _has_text(dtype.inner)
    if isinstance(dtype, pl.Struct):
        return any(_has_text(f.dtype) for f in dtype.fields)
    return False


def redact_frame(frame: pl.DataFrame) -> tuple[pl.DataFrame, int]:
    """Redact every string of every column (nested lists and structs too); the frame keeps its schema."""
    total = 0
    columns = []
    for name, dtype in frame.schema.items():
        if not _has_text(dtype):
            continue
        values = frame[name].to_list()
        only = _candidates(_strings(values))
        if not only:
            continue
        values, count = redact_value(values, only)
        if count:
            total += count
            columns.append(pl.Series(name, values, dtype=dtype))
    return (frame.with_columns(columns) if columns else frame), total


def scan_value(value: Any) -> Counter[str]:
    """Matches by format name over every string inside ``value`` (dict keys too); never the values."""
    found: Counter[str] = Counter()
    strings = _strings(value)
    only = _candidates(strings)
    for text in strings:
        if text in only:
            found.update(find_secrets(text))
    return found


def scan_frame(frame: pl.DataFrame) -> Counter[tuple[str, str]]:
    """``(column, format) -> matches`` over every string of ``frame``, nested ones included."""
    found: Counter[tuple[str, str]] = Counter()
    for name, dtype in frame.schema.items():
        if _has_text(dtype):
            found.update({(name, fmt): n for fmt, n in scan_value(frame[name].to_list()).items()})
    return found


def sanitize(message: str, secrets: Sequence[str] = ()) -> str:
    """An error message safe to log or store: known secrets and key-looking strings masked, length capped."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            message = message.replace(secret, "***")
    message, _ = redact(message, mask="***")
    for pattern, replacement in _MESSAGE_ONLY:
        message = pattern.sub(replacement, message)
    return message if len(message) <= _MAX_MESSAGE_CHARS else message[: _MAX_MESSAGE_CHARS - 3] + "..."
