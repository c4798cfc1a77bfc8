"""A release restricted to some listings: the paper-scale view of a catalog (its platform and official tools).

The RATED paper's catalog has about 5,000 tools: the platforms' own nodes and integrations and the official MCP
servers. A release of ours also carries the community listings (27,000 n8n community nodes on the default crawl), so
:func:`listing_view` gives the release as the paper's catalog would be: the tools of the chosen listings, in corpus
order, and every query split re-indexed onto them. A query keeps its place only when every tool it requires is in the
view (a task that needs a community node cannot be solved by a catalog without it); an alternative outside the view
is dropped from its acceptable set. How many queries each split loses is returned beside the view.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl

from ecoagent.release_format.reader import Corpus, QuerySet, Release

PAPER_SCALE_LISTINGS = ("platform", "official")


def listing_view(release: Release, listings: tuple[str, ...] | list[str] = PAPER_SCALE_LISTINGS,
                 ) -> tuple[Release, np.ndarray, dict[str, int]]:  # fmt: skip
    """``(the release restricted to the tools of `listings`, their rows in the full corpus, queries dropped per
    split)``. Raises ValueError naming the listings the release has when none of ``listings`` is among them."""
    listing = release.tools["listing"].to_list()
    rows = np.array([i for i, name in enumerate(listing) if name in set(listings)], dtype=np.int64)
    if not len(rows):
        raise ValueError(f"release {release.version}: no tool in the listings {list(listings)}; it has "
                         f"{sorted(set(listing))} (rated.paper_scale.listings)")  # fmt: skip
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
    view = replace(release, corpus=corpus, tools=tools, query_sets=query_sets)
    return view, rows, dropped


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
