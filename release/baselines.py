"""Table 1's lexical rows in the card: TF-IDF and BM25 on the release's own test sets, on the full catalog and on
the paper-scale view.

The release is read from its staged data files as a user reads it (:func:`release_from_layout`), and scored as RATED's
Table 1 scores it (:func:`ecoagent.retrieval.evaluation.offline_table`: MRR with a 95 % bootstrap interval over queries,
success@1, recall@5, nDCG@10, stale@5). The two lexical retrievers need no model, so every release, built offline on a
laptop or in production, carries them: a reader sees how hard each test set is at each scale before running anything,
and what the community tools do to retrieval. Beside them, the query-blind popularity row (every tool by how many
train queries require it) on every set with a train split, and ``workflows/test``'s ``tail`` and ``unseen`` subsets
(:mod:`ecoagent.retrieval.head_tail`): how much of a figure the head of n8n's tools alone explains. The dense rows
and RATED's come from ``ecoagent rated``, whose report holds the whole table.
"""

from __future__ import annotations

from pathlib import Path

from ecoagent.release_format.reader import Release, release_from_layout
from ecoagent.release_format.views import PAPER_SCALE_LISTINGS, listing_view
from ecoagent.retrieval.evaluation import offline_table
from ecoagent.retrieval.rankers import BM25Retriever, TfidfRetriever

# the sets a reader reports on, in the card's order (a set the release lacks is skipped)
CARD_SETS = ("workflows/test", "workflows/test:tail", "workflows/test:unseen", "workflows-disjoint/test", "gold/test",
             "package-requests/test", "real/test", "syn/test")  # fmt: skip


def lexical_table(release: Release, seed: int, head_size: int) -> dict:
    """Table 1 of TF-IDF and BM25 on :data:`CARD_SETS` of ``release``: ``{"tools", "table1", "sets"}``."""
    retrievers = [TfidfRetriever().fit(release.corpus), BM25Retriever().fit(release.corpus)]
    table1, judged = offline_table(release, retrievers, CARD_SETS, seed, head_size)
    return {"tools": len(release.corpus), "table1": table1, "sets": judged, "head_tools": head_size}


def release_baselines(folder: Path, layout: dict[str, dict[str, str]], version: str, seed: int,
                      head_size: int) -> dict:  # fmt: skip
    """The card's baseline table at both scales: ``{"full": ..., "paper_scale": ... or {"skipped": why}}``; the
    paper-scale view (:data:`PAPER_SCALE_LISTINGS`) also says how many queries of each set it leaves out.
    ``head_size``: ``evaluation.head_tools``, the head the ``tail`` subsets leave out."""
    release = release_from_layout(folder, layout, version)
    out = {"full": lexical_table(release, seed, head_size)}
    try:
        view, _, dropped = listing_view(release, PAPER_SCALE_LISTINGS)
    except ValueError as exc:
        out["paper_scale"] = {"skipped": str(exc)}
    else:
        out["paper_scale"] = {**lexical_table(view, seed, head_size), "listings": list(PAPER_SCALE_LISTINGS),
                              "queries_left_out": {name: dropped.get(name, 0) for name in CARD_SETS}}  # fmt: skip
    return out
