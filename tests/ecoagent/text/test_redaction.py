"""The one list of secret formats: each format is found and redacted, documentation is left alone."""

from __future__ import annotations

import json

import polars as pl
import pytest

from ecoagent.text.redaction import (
    _PREFILTER,
    REDACTED,
    SECRET_FORMATS,
    find_secrets,
    redact,
    redact_frame,
    redact_value,
    sanitize,
    scan_frame,
)
from tests.planted_secrets import SAMPLES, TEXT, URL


@pytest.mark.parametrize(("name", "text", "secret"), SAMPLES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(SAMPLES)])
def test_each_format_is_found_and_redacted(name: str, text: str, secret: str) -> None:
    embedded = f"See the docs. {text} Then call the tool."
    assert name in find_secrets(embedded)
    assert pl.Series([embedded]).str.contains(_PREFILTER)[0]  # the vectorized prefilter keeps it
    clean, count = redact(embedded)
    assert count >= 1 and secret not in clean and REDACTED in clean
    assert clean.startswith("See the docs. ") and clean.endswith(" Then call the tool.")
    assert find_secrets(clean) == [] and redact(clean) == (clean, 0)  # nothing left, and idempotent


def test_every_format_has_a_sample() -> None:
    assert {f.name for f in SECRET_FORMATS} == {name for name, _, _ in SAMPLES}


def test_context_around_a_secret_is_kept() -> None:
    assert redact("GET https://x.example/v1?q=1&api_key=zq81Lm2Pp0Wx9Ty&page=2")[0] == (
        f"GET https://x.example/v1?q=1&api_key={REDACTED}&page=2"
    )
    assert redact("Authorization: Bearer 8f3b2c9d1e0a7f6b5c4d3e2f1a0b9c8d")[0] == f"Authorization: Bearer {REDACTED}"
    assert redact("https://deploy:S3cr3tPassw0rd9@registry.example/v2")[0] == f"https://{REDACTED}@registry.example/v2"
    every = redact(URL)[0]
    assert every.startswith(f"https://{REDACTED}@api.planted.example/v1/items?key0={REDACTED}&")
    assert find_secrets(every) == []


@pytest.mark.parametrize(
    "text",
    [
        "https://api.weather.example/v1/current?q={city}&key={key}",  # a template
        'Pass api_key="your_key" to the constructor',
        "?api_key=YOUR_API_KEY&token=<token>&secret=${SECRET}&key=xxxxxxxx",
        "http://username:password@myproxy:3128",  # the proxy syntax, documented
        "api_key: the API key of your account (string, required)",
        "Bearer authentication with an access token",
        "scikit-learn, sk-learn-compatible estimators",
        "https://github.com/org/repo/blob/0123456789abcdef0123456789abcdef01234567/tool.py",
        "AKIA is the prefix of an access key id",
        "-----BEGIN CERTIFICATE-----",
    ],
)
def test_documentation_about_keys_is_not_a_secret(text: str) -> None:
    assert find_secrets(text) == [] and redact(text) == (text, 0)


def test_redact_value_keeps_the_shape_and_valid_json() -> None:
    schema = {"type": "object", "properties": {"token": {"type": "string", "default": TEXT, "description": TEXT}},
              TEXT: [URL, 3, None]}  # fmt: skip
    clean, count = redact_value(schema)
    assert count >= len(SAMPLES) and json.loads(json.dumps(clean))["type"] == "object"
    assert list(clean["properties"]) == ["token"] and clean[redact(TEXT)[0]][1:] == [3, None]
    assert find_secrets(json.dumps(clean)) == []
    # a PEM block in JSON text (newlines escaped) is still one block
    pem = next(text for name, text, _ in SAMPLES if name == "private_key_block")
    assert find_secrets(json.dumps({"default": pem})) == ["private_key_block"]


def test_redact_frame_reaches_nested_columns_and_keeps_the_schema() -> None:
    frame = pl.DataFrame(
        {
            "id": [1, 2],
            "text": [TEXT, "plain"],
            "urls": [[URL, "https://docs.example/"], []],
            "links": [[{"url": URL, "kind": "endpoint"}], [{"url": "https://ok.example/", "kind": "doc"}]],
        }
    )
    assert {column for column, _ in scan_frame(frame)} == {"text", "urls", "links"}
    clean, count = redact_frame(frame)
    assert clean.schema == frame.schema and count > 0
    assert scan_frame(clean) == {}
    assert clean["text"][1] == "plain" and clean["urls"][0][1] == "https://docs.example/"
    assert redact_frame(clean) == (clean, 0)


def test_sanitize_masks_known_values_every_format_and_loose_assignments() -> None:
    message = f"HTTP 401 from https://u:pw9@host/v1?api_key=abc123 token=zzz {TEXT} my-own-secret-value"
    clean = sanitize(message, secrets=("my-own-secret-value",))
    for gone in ("pw9@", "abc123", "token=zzz", "my-own-secret-value"):
        assert gone not in clean
    assert not [part for _, _, part in SAMPLES if part in clean[:490]]
    assert len(sanitize("x" * 5000)) == 500
