"""Views of a release: the paper-scale view (its platform and official tools) and the catalog as of a month.

The RATED paper's catalog has about 5,000 tools: the platforms' own nodes and integrations and the official MCP
servers. A release of ours also carries the community listings (27,000 n8n community nodes on the default crawl), so
:func:`listing_view` gives the release as the paper's catalog would be: the tools of the chosen listings, in corpus
order, and every query split re-indexed onto them. A query keeps its place only when every tool it requires is in the
view (a task that needs a community node cannot be solved by a catalog without it); an alternative outside the view
is dropped from its acceptable set. How many queries each split loses is returned beside the view.

:func:`as_of_view` gives the release as an agent saw the catalog in one month of its history: the tools that existed
that month (``tools.first_seen``), each with its status then (:mod:`ecoagent.release_format.tool_status`), and the
queries re-indexed by the same rule. So a retriever can be evaluated against the catalog of a task's date::

    from ecoagent.release_format.reader import load_release
    from ecoagent.release_format.views import as_of_view
    view, rows, info = as_of_view(load_release("data/release/2026.12.7"), "2025-06")
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import polars as pl

from ecoagent.release_format.reader import Corpus, QuerySet, Release, tool_events
from ecoagent.release_format.tool_status import REMOVED_SINCE, check_month, statuses

PAPER_SCALE_LISTINGS = ("platform", "official")
# tools.first_seen beside a month: a tool whose package the history does not follow (a community listing's), and one
# of a followed package that no month of the history holds (newer than it)
FIRST_SEEN_UNKNOWN = "unknown"
FIRST_SEEN_NOT_SEEN = "not seen"


def listing_view(release: Release, listings: tuple[str, ...] | list[str] = PAPER_SCALE_LISTINGS,
                 ) -> tuple[Release, np.ndarray, dict[str, int]]:  # fmt: skip
    """``(the release restricted to the tools of `listings`, their rows in the full corpus, queries dropped per
    split)``. Raises ValueError naming the listings the release has when none of ``listings`` is among them."""
    listing = release.tools["listing"].to_list()
    rows = np.array([i for i, name in enumerate(listing) if name in set(listings)], dtype=np.int64)
    if not len(rows):
        raise ValueError(f"release {release.version}: no tool in the listings {list(listings)}; it has "
                         f"{sorted(set(listing))} (rated.paper_scale.listings)")  # fmt: skip
    view, dropped = rows_view(release, rows)
    return view, rows, dropped


def as_of_view(release: Release, month: str, untracked: bool = False) -> tuple[Release, np.ndarray, dict]:
    """``(the release as of `month`, the kept tools' rows in the full corpus, what was kept and dropped)``.

    A tool is kept when its ``first_seen`` month is ``month`` or earlier; a tool whose first month is ``unknown`` (its
    package is not followed by the history: the community listings) only with ``untracked``. Its ``status`` is the
    status at ``month``: a tool removed later is ``active`` here, one removed by then stays in the view as ``removed
    since`` (an agent's catalog still listed it; calling it failed). Queries follow :func:`listing_view`'s rule.
    Raises ValueError when ``month`` is not ``YYYY-MM``, when the release has no history (no ``tools.first_seen``)
    or when no tool existed that month (naming the first month there is)."""
    check_month(month, "as_of")
    tools = release.tools
    if "first_seen" not in tools.columns:
        raise ValueError(f"release {release.version}: no tools.first_seen, so no as_of view; it was built without the "
                         "catalog history (run `ecoagent history`, then `ecoagent release build`)")  # fmt: skip
    first_seen = tools["first_seen"].to_list()
    known = sorted(m for m in set(first_seen) if m not in (FIRST_SEEN_UNKNOWN, FIRST_SEEN_NOT_SEEN))
    keep = [i for i, m in enumerate(first_seen)
            if (m == FIRST_SEEN_UNKNOWN and untracked) or (m in known and m <= month)]  # fmt: skip
    if not known or month < known[0]:
        raise ValueError(f"release {release.version}: no tool existed in {month}; its history starts in "
                         f"{known[0] if known else 'no month'} (as_of)")  # fmt: skip
    rows = np.asarray(keep, dtype=np.int64)
    view, dropped = rows_view(release, rows)
    status = statuses(view.tools["tool_id"].to_list(), view.tools["deprecated"].to_list(), tool_events(release),
                      month)  # fmt: skip
    view = replace(view, tools=view.tools.with_columns(pl.Series("status", status, dtype=pl.String)))
    kinds = Counter("removed" if s.startswith(REMOVED_SINCE) else s for s in status)
    info = {
        "month": month,
        "tools": len(rows),
        "not_yet": sum(m in known and m > month for m in first_seen) + first_seen.count(FIRST_SEEN_NOT_SEEN),
        "untracked": first_seen.count(FIRST_SEEN_UNKNOWN),
        "untracked_kept": untracked,
        "status": dict(sorted(kinds.items())),
        "queries_dropped": dropped,
    }
    return view, rows, info


def rows_view(release: Release, rows: np.ndarray) -> tuple[Release, dict[str, int]]:
    """``(the release restricted to the corpus rows `rows`, queries dropped per split)``: the corpus, the tools table
    and every query split re-indexed onto them (the module docstring's rule)."""
    corpus = _corpus_rows(release.corpus, rows)
    position = np.full(len(release.corpus), -1, dtype=np.int64)
    position[rows] = np.arange(len(rows))
    query_sets: dict[str, QuerySet] = {}
    dropped: dict[str, int] = {}
    for name, queries in release.query_sets.items():
        kept = _queries_in_view(queries, position)
        dropped[name] = len(queries) - len(kept) if kept is not None else len(queries)
        if kept is not None:
            query_sets[name] = kept
    tools = release.tools.with_row_index("_row").filter(pl.col("_row").is_in(rows.tolist())).drop("_row")
    return replace(release, corpus=corpus, tools=tools, query_sets=query_sets), dropped


def _corpus_rows(corpus: Corpus, rows: np.ndarray) -> Corpus:
    take = rows.tolist()
    return Corpus([corpus.ids[i] for i in take], [corpus.titles[i] for i in take], [corpus.texts[i] for i in take],
                  corpus.r_static[rows], [corpus.platforms[i] for i in take])  # fmt: skip


def _queries_in_view(queries: QuerySet, position: np.ndarray) -> QuerySet | None:
    """The queries whose every required tool is in the view, re-indexed; None when none is left."""
    keep = [i for i, rows in enumerate(queries.relevant) if all(position[r] >= 0 for r in rows)]
    if not keep:
        return None

    def pick(values: list | None) -> list | None:
        return None if values is None else [values[i] for i in keep]

    acceptable = pick(queries.acceptable)
    if acceptable is not None:
        acceptable = [[int(position[r]) for r in rows if position[r] >= 0] for rows in acceptable]
    return QuerySet(
        name=queries.name,
        ids=pick(queries.ids),
        texts=pick(queries.texts),
        relevant=[[int(position[r]) for r in queries.relevant[i]] for i in keep],
        grades=pick(queries.grades),
        acceptable=acceptable,
        views=pick(queries.views),
        left_out=queries.left_out,
    )
