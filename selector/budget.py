"""Greedy packing of tool definitions into a prompt token budget (real tokens: ``prompt_tokens``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def pack(
    core_rows: Iterable[int],
    ranked_rows: Iterable[int],
    tokens: np.ndarray | Sequence[int],
    budget: int,
    max_tools: int | None = None,
) -> tuple[list[int], list[int], int]:
    """Core tools first, then candidates in rank order, while the budget holds.

    A tool that does not fit is skipped and the next (possibly smaller) ones are still tried: one
    huge schema must not crowd out several small relevant tools. ``max_tools`` caps the number of
    non-core tools. Returns (core rows kept, candidate rows kept, tokens used).
    """
    used = 0
    core_kept: list[int] = []
    for row in core_rows:
        if used + tokens[row] <= budget:
            used += int(tokens[row])
            core_kept.append(int(row))
    picked: list[int] = []
    taken = set(core_kept)
    for row in ranked_rows:
        if max_tools is not None and len(picked) >= max_tools:
            break
        if row in taken:
            continue
        if used + tokens[row] <= budget:
            used += int(tokens[row])
            picked.append(int(row))
            taken.add(int(row))
    return core_kept, picked, used
