"""What a release's qrels judge: the one rule every reader of a ``*-qrels`` config applies.

A qrels frame has ``query-id``, ``corpus-id``, ``score`` (the grade: 1, or 2/1 where the subset is graded) and,
where the subset has them, an ``alternative`` column: a tool that is **acceptable, not required** (the workflow
set's tools of a node stored without its parameters, whose operation is unknown; the gold set's same-named tools of
another server). The rule (:data:`ALTERNATIVE_RULE`):

- the **judged set** of a query is its qrels with ``score > 0`` and ``alternative`` false (an alternative is
  released with ``score`` 0, so MTEB never counts it as relevant either), with the score as the
  gain of nDCG; recall is the share of the judged set found, so a missed alternative is never a miss;
- an **alternative** is taken out of that query's ranking before it is scored (a condensed list, as unjudged
  documents are in condensed-list evaluation): ranking it high neither helps nor hurts, and the judged tools below
  it move up;
- a query whose every positive qrel is an alternative has nothing required to find: it is left out, and counted.

A frame without the ``alternative`` column (Syn, Real, a gold set without alternatives) reads as every qrel
required, so the rule is the same for every subset. The shipped MTEB task applies the whole rule too
(:mod:`ecoagent.release_format.mteb_task`); MTEB's stock task would not: it evaluates an alternatives-only query (nDCG
0, averaged in) and keeps an alternative in the ranking as a non-relevant document.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

ALTERNATIVE_RULE = (
    "a qrel marked `alternative` is acceptable, not required: it is left out of the judged set (so missing it is "
    "not a miss) and taken out of that query's ranking before scoring (ranking it high neither helps nor hurts); a "
    "query whose qrels are all alternatives is left out and counted; grades are the gains of nDCG"
)


@dataclass(frozen=True)
class Judgements:
    """One qrels frame read by the rule of this module: documents are the frame's ``corpus-id`` values."""

    required: dict[str, dict[str, int]]  # query -> {tool: grade > 0}: the judged set, never empty
    acceptable: dict[str, set[str]]  # query -> tools acceptable, not required (queries in ``required`` only)
    only_acceptable: frozenset[str]  # queries whose every positive qrel is an alternative: left out


def judge(qrels: pl.DataFrame, known: set[str] | dict[str, int] | None = None) -> Judgements:
    """Read ``qrels`` (with or without an ``alternative`` column) into :class:`Judgements`.

    ``known``: the corpus ids a reader can score (a qrel on another tool is ignored, as if absent); None keeps all.
    """
    alternative = pl.col("alternative").fill_null(False) if "alternative" in qrels.columns else pl.lit(False)
    # an alternative is released with score 0 (never relevant to MTEB): it is read by its column, not its score
    rows = (qrels.select("query-id", "corpus-id", "score", alternative.alias("alt"))
            .filter((pl.col("score") > 0) | pl.col("alt")))  # fmt: skip
    required: dict[str, dict[str, int]] = {}
    acceptable: dict[str, set[str]] = {}
    for qid, doc, score, alt in rows.iter_rows():
        if known is not None and doc not in known:
            continue
        if alt:
            acceptable.setdefault(qid, set()).add(doc)
        else:
            grades = required.setdefault(qid, {})
            grades[doc] = max(int(score), grades.get(doc, 0))
    for qid, docs in acceptable.items():  # a tool both required and an alternative is required
        docs.difference_update(required.get(qid, {}))
    only = frozenset(q for q in acceptable if q not in required)
    return Judgements(required, {q: d for q, d in acceptable.items() if q in required and d}, only)
