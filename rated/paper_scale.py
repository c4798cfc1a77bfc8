"""Table 1 and Table 2 at the paper's scale: the release's platform and official tools (about 5,000), beside the
full catalog (:func:`ecoagent.release_format.views.listing_view`).

Each retriever of the full run is carried onto the view as if fitted on it: a dense retriever keeps its (cached)
tool vectors of the view's tools, which is exactly what fitting it on the view would embed; TF-IDF and BM25 are
fitted again, so their statistics are the view's; the hybrids are fused again from those. A retriever that cannot
be carried (a cross-encoder over the full catalog's first stage) is listed as skipped.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from ecoagent.release_format.reader import Release
from ecoagent.release_format.views import listing_view
from ecoagent.retrieval.fusion import FusedRetriever
from ecoagent.retrieval.rankers import BM25Retriever, DenseRetriever, Retriever, TfidfRetriever
from ecoagent.runtime import context
from rated.baselines import hybrid_retrievers
from rated.settings import RatedConfig


def view_retrievers(retrievers: list[Retriever], view: Release, rows) -> tuple[list[Retriever], dict[str, str]]:
    """``(the retrievers carried onto the view, {name: why not} for the others)``; hybrids are left to the caller."""
    carried: list[Retriever] = []
    skipped: dict[str, str] = {}
    for retriever in retrievers:
        if isinstance(retriever, DenseRetriever):
            moved = copy.copy(retriever)
            moved.tool_vectors = retriever.tool_vectors[rows]
            carried.append(moved)
        elif isinstance(retriever, TfidfRetriever | BM25Retriever):
            carried.append(copy.copy(retriever).fit(view.corpus))
        elif not isinstance(retriever, FusedRetriever):
            skipped[retriever.name] = "not carried onto the view (it re-ranks the full catalog's first stage)"
    return carried, skipped


@dataclass(frozen=True)
class PaperScale:
    view: Release  # the release restricted to the listings
    retrievers: list[Retriever]  # carried onto it, hybrids fused again
    trained: DenseRetriever  # RATED (Full) on the view
    skipped: dict[str, str]  # retrievers not carried, and why
    record: dict  # listings, tool counts, queries dropped per split


def paper_scale_view(release: Release, retrievers: list[Retriever], trained: DenseRetriever,
                     settings: RatedConfig) -> PaperScale:  # fmt: skip
    """The paper-scale view of ``release`` (``rated.paper_scale.listings``) with ``retrievers`` carried onto it."""
    listings = tuple(settings.paper_scale.listings)
    view, rows, dropped = listing_view(release, listings)
    context.say(f"paper-scale view ({', '.join(listings)}): {len(view.corpus)} of {len(release.corpus)} tools")
    carried, skipped = view_retrievers(retrievers, view, rows)
    carried += hybrid_retrievers(settings, carried)
    view_trained = next(r for r in carried if r.name == trained.name)
    record = {"listings": list(listings), "tools": len(view.corpus), "full_tools": len(release.corpus),
              "queries_dropped": dropped, "skipped": skipped}  # fmt: skip
    return PaperScale(view, carried, view_trained, skipped, record)
