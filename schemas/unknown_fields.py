"""Unknown is not absent: reading a tool's ``unknown_fields`` (the fields its source could not show).

A field named there is not known: ``auth_type`` is null, a list or the parameter schema is left empty, and neither
says "none". Every consumer asks :func:`is_known` before reading such a field as evidence, and counts the unknowns
with :func:`unknown_field_counts`; the gates count the rows that pass a missing field off as a property of the tool
(:func:`unknown_passed_as_known`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from schemas.tool_record import UNKNOWN_FIELDS

# the flag of a tool read from a reduced copy of its description (n8n-mcp's listing copy of a community node)
REDUCED_COPY_FLAG = "description_from_listing"
ANY = "tools_with_any"  # the key of unknown_field_counts that counts the tools with at least one unknown field
# the columns passes_unknown_as_known reads
UNKNOWN_CHECK_COLUMNS = ("auth_type", "auth_credentials", "parameters", "flags", "unknown_fields")


def is_known(tool: Mapping, field: str) -> bool:
    """Whether the tool's source showed ``field`` (a row of the catalog, as a dict)."""
    return field not in (tool.get("unknown_fields") or ())


def unknown_field_counts(unknown_fields: Iterable[Sequence[str] | None]) -> dict[str, int]:
    """Tools with any unknown field (:data:`ANY`), then per field of :data:`UNKNOWN_FIELDS` the tools it is unknown
    for; ``unknown_fields``: each tool's column value."""
    counts = dict.fromkeys((ANY, *UNKNOWN_FIELDS), 0)
    for fields in unknown_fields:
        if fields:
            counts[ANY] += 1
        for field in fields or ():
            counts[field] += 1
    return counts


def unknown_counts_text(counts: dict[str, int]) -> str:
    """:func:`unknown_field_counts` in a table cell: the tools with an unknown field, then the nonzero counts per
    field (``3 (auth_type=3, parameters=1)``); "-" when none."""
    fields = ", ".join(f"{k}={v}" for k, v in counts.items() if k != ANY and v)
    return f"{counts.get(ANY, 0)} ({fields})" if fields else "-"


def _empty_schema(parameters: str | None) -> bool:
    try:
        return not (json.loads(parameters or "{}").get("properties") or {})
    except (ValueError, AttributeError):
        return False


def passes_unknown_as_known(tool: Mapping) -> bool:
    """A row that presents a missing field as a property of the tool: ``auth_type`` null without being named
    unknown, or set while named unknown; a tool read from a reduced copy with auth "none" and no credential, or with
    an empty parameter schema, not named unknown."""
    if "auth_type" in tool and (not is_known(tool, "auth_type")) != (tool["auth_type"] is None):
        return True
    if REDUCED_COPY_FLAG not in (tool.get("flags") or ()):
        return False
    if tool.get("auth_type") == "none" and not tool.get("auth_credentials"):
        return True
    return is_known(tool, "parameters") and _empty_schema(tool.get("parameters"))


def unknown_passed_as_known(tools: pl.DataFrame) -> int:
    """How many rows of a catalog present a missing field as known (:func:`passes_unknown_as_known`): the score and
    release gates want 0. A catalog without ``unknown_fields`` (written before the column) names nothing unknown."""
    columns = [c for c in UNKNOWN_CHECK_COLUMNS if c in tools.columns]
    return sum(passes_unknown_as_known(tool) for tool in tools.select(columns).iter_rows(named=True))
