"""A catalog-anchored query stream for Table 2 when a release's real queries are too few.

The dynamic evaluation needs a stream with enough distinct queries and gold tools for the failing set
to mean something (the issue: >= 200 queries, >= 50 gold tools). A release built on the embedded
profile has a handful of real test queries, so the simulator would fail 3 tools out of 9 and call it
a benchmark. This module builds the stream the issue describes instead, anchored on the real catalog:

- **Anchors**: ``n_queries`` distinct catalog tools drawn at random (seeded); validation and test use
  disjoint anchors, so what is tuned on one is not measured on the other.
- **Query vectors**: each anchor gets one real query of the release (a *template*, cycled) moved
  rigidly onto it: the Householder reflection that maps the template's closest gold tool onto the
  anchor (``H = I - 2 w w^T``, ``w`` along ``e_gold - e_anchor``) keeps the query's cosine to its gold
  exactly and its norm, so the top-1 cosine and margin over the catalog stay close to the real
  queries' (measured and reported in ``calibration``).
- **Gold sets**: the anchor plus, for each further gold tool of the template, the catalog tool
  nearest to that tool's reflection: a template with two equivalent tools yields a query with two.
- **Popularity**: Zipf(``zipf``) over the queries in their random order; the simulator draws the
  stream with these weights, so gold-tool frequencies are skewed as real traffic is and "skip the top
  10 %" spares the popular tools.

Everything lives in the trained ranker's embedding space (its tool vectors and its encoding of the
template queries), with the catalog's own ``r_static``. No text is involved, so only dense policies
on that ranker can run on it (the lexical baselines need query text).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ecoagent.retrieval.rankers import top_k
from rated.simulator import SimulationInputs


@dataclass(frozen=True)
class AnchoredStream:
    name: str
    inputs: SimulationInputs
    anchors: list[int]
    calibration: dict  # real templates vs synthetic queries: top-1 cosine, margin, R@1, gold per query


def _reflect(v: np.ndarray, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The reflection that swaps unit vectors ``source`` and ``target``, applied to ``v``."""
    w = source - target
    norm2 = float(w @ w)
    if norm2 < 1e-12:
        return v
    return v - 2.0 * (w @ v) / norm2 * w


def zipf_weights(n: int, exponent: float) -> np.ndarray:
    """Draw weights ``1 / rank^exponent`` for ranks 1..n, normalized."""
    weights = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** exponent
    return weights / weights.sum()


def retrieval_profile(query_vectors: np.ndarray, tool_vectors: np.ndarray, gold: Sequence) -> dict:
    """Median top-1 cosine and margin (top-1 minus top-2) over the catalog, R@1, mean gold per query."""
    scores = np.asarray(query_vectors, dtype=np.float64) @ np.asarray(tool_vectors, dtype=np.float64).T
    best_two = -np.sort(-scores, axis=1)[:, :2] if scores.shape[1] > 1 else np.hstack([scores, scores])
    top1 = np.argmax(scores, axis=1)
    return {
        "queries": len(gold),
        "top1_cosine_median": round(float(np.median(best_two[:, 0])), 4),
        "margin_median": round(float(np.median(best_two[:, 0] - best_two[:, 1])), 4),
        "recall_at_1": round(float(np.mean([int(t) in set(g) for t, g in zip(top1, gold, strict=True)])), 4),
        "gold_per_query": round(float(np.mean([len(g) for g in gold])), 3),
    }


def anchored_streams(
    tool_vectors: np.ndarray,
    r_static: np.ndarray,
    template_vectors: np.ndarray,
    template_gold: Sequence[Sequence[int]],
    n_queries: int = 200,
    zipf: float = 1.0,
    k: int = 10,
    seed: int = 0,
) -> tuple[AnchoredStream, AnchoredStream]:
    """``(validation, test)``: two catalog-anchored streams on disjoint anchors (see the module doc)."""
    tools = np.asarray(tool_vectors, dtype=np.float64)
    templates = np.asarray(template_vectors, dtype=np.float64)
    if len(templates) == 0:
        raise ValueError("a catalog-anchored stream needs at least one template query with gold tools")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(tools))
    per_stream = min(n_queries, len(tools) // 2)
    streams = []
    for name, anchors in (("validation", order[per_stream : 2 * per_stream]), ("test", order[:per_stream])):
        streams.append(anchored_stream(name, anchors, tools, r_static, templates, template_gold, zipf, k, rng))
    return streams[0], streams[1]


def anchored_stream(
    name: str,
    anchors: np.ndarray,
    tools: np.ndarray,
    r_static: np.ndarray,
    templates: np.ndarray,
    template_gold: Sequence[Sequence[int]],
    zipf: float,
    k: int,
    rng: np.random.Generator,
) -> AnchoredStream:
    """One catalog-anchored stream on the given ``anchors`` (catalog rows; see the module doc)."""
    # cycle the templates in a seeded order so each real query is used about equally often
    picks = np.concatenate([rng.permutation(len(templates)) for _ in range(-(-len(anchors) // len(templates)))])
    vectors, gold = [], []
    for anchor, pick in zip(anchors.tolist(), picks.tolist(), strict=False):
        v, golds = templates[pick], list(template_gold[pick])
        closest = max(golds, key=lambda g: float(v @ tools[g]))
        moved = _reflect(v, tools[closest], tools[anchor])
        vectors.append(moved / np.linalg.norm(moved))
        chosen = [anchor]
        for other in golds:
            if other == closest:
                continue
            similarity = tools @ _reflect(tools[other], tools[closest], tools[anchor])
            similarity[chosen] = -np.inf
            chosen.append(int(np.argmax(similarity)))
        gold.append(chosen)
    query_vectors = np.asarray(vectors, dtype=np.float32)
    scores = query_vectors @ tools.T.astype(np.float32)
    candidates = top_k(scores, min(k, len(tools)))
    inputs = SimulationInputs(
        query_vectors,
        candidates,
        np.take_along_axis(scores, candidates, axis=1),
        gold,
        r_static,
        tool_vectors=tools.astype(np.float32),
        popularity=zipf_weights(len(gold), zipf),
    )
    calibration = {
        "real": retrieval_profile(templates, tools, template_gold),
        "anchored": retrieval_profile(query_vectors, tools, gold),
        "distinct_gold_tools": len({t for g in gold for t in g}),
        "zipf": zipf,
    }
    return AnchoredStream(f"catalog-anchored {name}", inputs, anchors.tolist(), calibration)
