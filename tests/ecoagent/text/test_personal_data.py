"""The one personal-data rule: e-mail addresses and phone numbers are found and replaced, sample-data rows dropped,
and the numbers and addresses that are no personal data (versions, dates, ids, prices, ports, images) left alone.

Every value here is made up (the 555 exchange, example domains)."""

from __future__ import annotations

from collections import Counter

import polars as pl
import pytest

from ecoagent.text.personal_data import (
    EMAIL,
    PHONE,
    PLACEHOLDERS,
    SAMPLE_ROW,
    _candidates,
    find_personal_data,
    is_sample_row,
    scan_frame,
    scrub,
    scrub_frame,
)

EMAILS = ["jane.roe@example.com", "a.b+tag@mail.example.co.uk", "sales-team@example.org", "x_y@example.io"]
PHONES = [
    "+1 (555) 010-4477",  # international, a parenthesised group
    "+44 20 7946 0958",
    "+15550104477",  # E.164
    "+91-98765-43210",
    "+33 1 23 45 67 89",
    "(555) 010-4477",
    "555-010-4477",
    "555.010.4477",
    "1-800-555-0199",
]
# (text, the cue it keeps)
CUED = [
    ("Phone: 5550104477", "Phone: "),
    ("WhatsApp number: 5550104477", "WhatsApp number: "),
    ("tel:+15550104477", "tel:"),
    ("Tel. 0301234567", "Tel. "),
    ("fax 5550104477", "fax "),
]
NOT_PERSONAL = [
    "version 1.2.3 and v2024.01.20.23288905",  # versions
    "on 2025-09-18, 16-05-2025 and 2025.12.31",  # dates
    "at 20:15:30",  # a time
    "created 2025-01-02T03:04:05-04:00 or 2024-01-01T12:00:00.000Z",  # ISO timestamps
    "id 4400100200300, form 123450067890123 and call 3005007001",  # bare ids: no sign of a phone
    "0a1b2c3d-4e5f-4a6b-b123-4567a8b9c0d1 and 12345678-1234-1234-1234-123456789012",  # uuids
    "arn:aws:acm:region:123456789012:certificate",
    "costs $1,234.56 or 1,000,000 rows, 0.001-0.003 or 2000-2500",  # prices, large numbers, ranges
    "localhost:8080 and 192.168.100.200",  # a port, an IP address
    "ts 1234567890.123456",  # a Slack timestamp
    "+12.5% or +0.0001234567",  # signed numbers
    "ISBN 978-3-16-148410-0, SSN-like 123-45-6789, 100-200-3000",
    "icon@2x.png, @n8n/nodes-langchain, pkg@1.2.3, user@localhost",  # no e-mail address
    "an iPhone 1234567 in cell 12345678",  # no phone cue
]


def _embedded(value: str) -> str:
    return f"Send the summary. {value} Then stop."


@pytest.mark.parametrize("value", EMAILS)
def test_an_email_address_is_found_and_replaced(value: str) -> None:
    clean, found = scrub(_embedded(value))
    assert found == Counter({EMAIL: 1}) and value not in clean
    assert clean == _embedded(PLACEHOLDERS[EMAIL])


@pytest.mark.parametrize("value", PHONES)
def test_a_phone_number_is_found_and_replaced(value: str) -> None:
    clean, found = scrub(_embedded(value))
    assert found == Counter({PHONE: 1}) and clean == _embedded(PLACEHOLDERS[PHONE])


@pytest.mark.parametrize(("value", "cue"), CUED)
def test_digits_after_a_phone_cue_are_a_phone_and_the_cue_stays(value: str, cue: str) -> None:
    clean, found = scrub(_embedded(value))
    assert found == Counter({PHONE: 1}) and clean == _embedded(cue + PLACEHOLDERS[PHONE])


@pytest.mark.parametrize("text", NOT_PERSONAL)
def test_what_is_no_personal_data_is_left_alone(text: str) -> None:
    assert find_personal_data(text) == Counter() and scrub(text) == (text, Counter())


ROWS = [
    "| Jane Roe | jane.roe@example.com | +1 555 010 4477 |",  # a Markdown row
    "| Phone Number | Contact phone number | (555) 010-4477 |",  # a field table's sample value
    "Jane Roe, jane.roe@example.com, 555-010-4477",  # CSV
    '"Jane","Roe","jane.roe@example.com"',
    "Jane Roe\t5550104477\tAustin",  # a name beside a bare contact number
    "| Mary Ann Roe | 8801000000001 | sent | verified |",
]
NOT_ROWS = [
    "| Name | Email | Phone |",  # a header: no values
    "| Step | What it does | Node |",
    "It reads the name, email and phone of each lead from a sheet, then writes them",  # prose with commas
    "Write to jane.roe@example.com when it fails",  # one cell
    "| Lead | a very long description cell that says much more than any sample value ever would | x@example.com |",
]


@pytest.mark.parametrize("line", ROWS)
def test_a_sample_data_row_is_recognised(line: str) -> None:
    assert is_sample_row(line)


@pytest.mark.parametrize("line", NOT_ROWS)
def test_a_line_that_is_no_sample_data_row_is_not(line: str) -> None:
    assert not is_sample_row(line)


def test_sample_rows_are_dropped_whole_and_the_rest_is_kept() -> None:
    text = "Leads land in a sheet.\n| Jane Roe | jane.roe@example.com | 555-010-4477 |\nErrors go to ops@example.com."
    clean, found = scrub(text)
    assert clean == f"Leads land in a sheet.\nErrors go to {PLACEHOLDERS[EMAIL]}."
    assert found == Counter({SAMPLE_ROW: 1, EMAIL: 1})
    assert find_personal_data(text) == found  # the count is what the scrub removes
    assert scrub(clean) == (clean, Counter())  # nothing left, and idempotent


def test_a_text_of_one_line_is_never_dropped_whole() -> None:
    line = "Jane Roe, jane.roe@example.com, 555-010-4477"
    assert scrub(line) == (f"Jane Roe, {PLACEHOLDERS[EMAIL]}, {PLACEHOLDERS[PHONE]}", Counter({EMAIL: 1, PHONE: 1}))


def test_frames_are_scrubbed_and_scanned_by_column_without_the_values() -> None:
    frame = pl.DataFrame({
        "_id": ["q1", "q2", "jane.roe@example.com"],
        "text": ["mail jane.roe@example.com", "call (555) 010-4477 now", None],
        "title": ["A title", "Another", "Third"],
        "views": [1, 2, 3],
    })  # fmt: skip
    columns = ("text", "title", "views", "missing")
    assert scan_frame(frame, columns) == Counter({("text", EMAIL): 1, ("text", PHONE): 1})
    clean, found = scrub_frame(frame, columns)
    assert found == Counter({EMAIL: 1, PHONE: 1})
    assert clean["text"].to_list() == ["mail [email]", "call [phone] now", None]
    assert clean["_id"].to_list() == frame["_id"].to_list() and clean.schema == frame.schema  # only the named columns
    assert scan_frame(clean, columns) == Counter()
    assert scrub_frame(frame, ("title",)) == (frame, Counter())


@pytest.mark.parametrize("text", [*EMAILS, *PHONES, *(value for value, _ in CUED), *ROWS])
def test_the_vectorized_prefilter_keeps_every_sample(text: str) -> None:
    assert _candidates(pl.Series([text]))[0]
