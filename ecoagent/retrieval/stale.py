"""stale@k and replacement recall@k: does a retriever surface tools that are gone or going when a live one exists?

For a query ``q`` with ranking ``top_k(q)``, a tool ``t`` is **stale** when its ``tools.status`` is not ``active``
(deprecated, or removed since a month of the history) and an active tool of the same service exists in the catalog
(so a better answer was there to give):

    stale@k(q) = |{t in top_k(q) : t stale}| / k

averaged over the queries, with a 95 % bootstrap interval over them. **Replacement recall@k** counts, over the pairs
``(q, t)`` with ``t`` stale in ``top_k(q)`` and a replacement the platform names (``tools.replacement``, matched to a
catalog tool of the same platform by its name or source symbol), the share whose replacement is in ``top_k(q)`` too.
A release without a ``status`` column reads every tool as active, its deprecated flag aside.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ecoagent.release_format.reader import QuerySet
from ecoagent.retrieval.rankers import top_k
from ecoagent.statistics import bootstrap_interval


def inactive_rows(tools: pl.DataFrame) -> np.ndarray:
    """One flag per corpus row: its ``tools.status`` is not ``active`` (without the column: its deprecated flag)."""
    if "status" in tools.columns:
        return tools["status"].fill_null("active").ne("active").to_numpy().astype(bool)
    return tools["deprecated"].fill_null(False).to_numpy().astype(bool)


def stale_rows(tools: pl.DataFrame) -> np.ndarray:
    """One flag per corpus row: not active, and an active tool of its service exists."""
    inactive = inactive_rows(tools)
    services = tools["service"].fill_null("").to_list()
    live = {service for service, gone in zip(services, inactive, strict=True) if not gone and service}
    return np.array([gone and service in live for service, gone in zip(services, inactive, strict=True)])


def replacement_rows(tools: pl.DataFrame) -> dict[int, list[int]]:
    """Each row whose ``replacement`` names a catalog tool of its platform -> the rows of that tool."""
    if "replacement" not in tools.columns:
        return {}
    by_name: dict[tuple[str, str], list[int]] = {}
    for row, (platform, name, symbol) in enumerate(tools.select("platform", "name", "source_symbol").iter_rows()):
        for key in {name, symbol} - {None, ""}:
            by_name.setdefault((platform, key), []).append(row)
    out = {}
    for row, (platform, replacement) in enumerate(tools.select("platform", "replacement").iter_rows()):
        if replacement:
            found = by_name.get((platform, replacement.rsplit(".", 1)[-1].strip()), [])
            if found := [r for r in found if r != row]:
                out[row] = found
    return out


def stale_metrics(scores: np.ndarray, queries: QuerySet, tools: pl.DataFrame, k: int = 5, seed: int = 0) -> dict:
    """``stale@k`` with its interval, and replacement recall@k over the stale tools with a named replacement."""
    stale, replacements = stale_rows(tools), replacement_rows(tools)
    ranked = top_k(queries.condensed(scores), k)
    per_query = stale[ranked].sum(axis=1) / k
    low, high = bootstrap_interval(per_query, seed=seed)
    pairs = [(set(row.tolist()), replacements[t]) for row in ranked for t in row.tolist()
             if stale[t] and t in replacements]  # fmt: skip
    recalled = sum(any(r in top for r in found) for top, found in pairs)
    return {f"stale@{k}": round(float(per_query.mean()), 6), f"stale@{k}_ci95": [round(low, 6), round(high, 6)],
            "stale_tools": int(stale.sum()), f"replacement_recall@{k}": round(recalled / len(pairs), 6) if pairs
            else None, "replacement_pairs": len(pairs)}  # fmt: skip
