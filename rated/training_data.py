"""What the RATED encoder learns from: query splits of the release (``rated.train.source``), Syn or real.

Each query carries its **positives** (every required tool: a workflow's several nodes are each a positive) and the
tools that are **never its negatives** (its positives and its acceptable alternatives: an alternative is neither
right nor wrong, so the loss neither pulls nor pushes it). Syn queries bring their mined hard negatives
(``syn-pairs``); real and workflow queries bring none, and the catalog or the batch supplies the negatives.
"""

from __future__ import annotations

from dataclasses import dataclass

from ecoagent.release_format.reader import QuerySet, Release, TrainingPairs, query_set, syn_hard_negatives

SYN_SPLITS = {"syn/train": "train", "syn/validation": "validation"}


@dataclass(frozen=True)
class TrainingQueries:
    name: str  # the source spec it was read from, e.g. "workflows/train" or "workflows/train+syn/train"
    texts: list[str]
    positives: list[list[int]]  # corpus rows, each one a positive of the query
    excluded: list[list[int]]  # corpus rows that are never a negative of the query (positives + alternatives)
    hard_negatives: list[list[int]]  # mined negatives (Syn's), empty where the source has none

    def __len__(self) -> int:
        return len(self.texts)

    def pairs(self) -> TrainingPairs:
        """One (query, positive, hard negatives) triple per positive: the in-batch InfoNCE's rows."""
        out_q, out_p, out_n = [], [], []
        for text, positives, negatives in zip(self.texts, self.positives, self.hard_negatives, strict=True):
            for positive in positives:
                out_q.append(text)
                out_p.append(positive)
                out_n.append(negatives)
        return TrainingPairs(out_q, out_p, out_n)


def training_queries(release: Release, spec: str) -> TrainingQueries | None:
    """The queries of ``spec`` (a split or splits joined by ``+``) as training data; None when the release has none."""
    queries = query_set(release, spec)
    if queries is None:
        return None
    negatives: dict[str, list[int]] = {}
    for name, split in SYN_SPLITS.items():
        if name in spec.split("+") and name in release.query_sets:
            negatives.update(syn_hard_negatives(release, split))
    return from_query_set(queries, negatives)


def from_query_set(queries: QuerySet, hard_negatives: dict[str, list[int]] | None = None) -> TrainingQueries:
    """Training data of a judged query set: each relevant tool a positive, each alternative excluded."""
    acceptable = queries.acceptable or [[] for _ in queries.ids]
    hard_negatives = hard_negatives or {}
    excluded = [sorted({*rows, *others}) for rows, others in zip(queries.relevant, acceptable, strict=True)]
    return TrainingQueries(
        name=queries.name,
        texts=list(queries.texts),
        positives=[list(rows) for rows in queries.relevant],
        excluded=excluded,
        hard_negatives=[hard_negatives.get(qid, []) for qid in queries.ids],
    )


def first_training_source(release: Release, specs: list[str]) -> TrainingQueries | None:
    """The first of ``specs`` the release has queries for (a release without workflows falls back to Syn)."""
    for spec in specs:
        found = training_queries(release, spec)
        if found is not None and len(found):
            return found
    return None
