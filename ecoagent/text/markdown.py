"""Markdown tables: the one writer behind the dataset card, the RATED report, the benchmarks' tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def markdown_cell(text: Any) -> str:
    """Text safe inside a table cell or a one-line list item: ``|`` escaped, newlines flattened."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence], right_align_from: int | None = None) -> list[str]:
    """The lines of a GitHub Markdown table; every cell goes through :func:`markdown_cell`.

    ``right_align_from``: columns from this index on are right-aligned (numbers); None: all left.
    """
    align = ["---:" if right_align_from is not None and i >= right_align_from else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in rows]
    return lines
