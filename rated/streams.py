"""Table 2's query streams: which split of a release (or the catalog-anchored stream of :mod:`rated.anchored`) the
failure-injection simulator draws its steps from, and each retriever's inputs on it (its candidates, scores, gold).

The test stream is the first split of ``rated.stream`` that is big enough (``rated.min_stream_queries`` queries,
``rated.min_stream_gold_tools`` gold tools), else the anchored stream built from the release's real queries; the
validation stream is chosen the same way from ``rated.validation_stream``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecoagent.config import Config
from ecoagent.release_format.reader import QuerySet, Release, query_set
from ecoagent.retrieval.rankers import DenseRetriever, Retriever, top_k
from rated.anchored import anchored_streams
from rated.simulator import Method, SimulationInputs


def simulation_inputs(
    scores: np.ndarray,
    query_vectors: np.ndarray,
    gold: list[list[int]],
    r_static: np.ndarray,
    k: int,
    tool_vectors: np.ndarray | None = None,
    popularity: np.ndarray | None = None,
) -> SimulationInputs:
    candidates = top_k(scores, k)
    sem = np.take_along_axis(scores, candidates, axis=1)
    # a tool taken out of a query's ranking (-inf: an alternative) enters its K candidates only when the catalog has
    # fewer than K others; it stays last, at the lowest cosine, so the fused score stays finite
    sem = np.where(np.isfinite(sem), sem, -1.0)
    return SimulationInputs(query_vectors, candidates, sem, gold, r_static, tool_vectors=tool_vectors,
                            popularity=popularity)  # fmt: skip


def stream_popularity(queries: QuerySet, config: Config) -> tuple[np.ndarray | None, str]:
    """``(draw weights or None for uniform, how the stream is drawn in words)`` under ``rated.stream_popularity``:
    weight = the query's views where the split carries them, uniform otherwise."""
    if config.rated.stream_popularity == "views" and queries.views is not None and sum(queries.views) > 0:
        views = np.asarray(queries.views, dtype=np.float64)
        unseen = int((views <= 0).sum())
        return views, (
            f"drawn by views (weight = views, median {np.median(views):.0f}, max {views.max():.0f}"
            + (f"; {unseen} queries with no views are never drawn)" if unseen else ")")
        )
    why = "rated.stream_popularity = uniform" if config.rated.stream_popularity == "uniform" else "no views"
    return None, f"drawn uniformly ({why})"


def query_inputs(
    retriever: Retriever,
    queries: QuerySet,
    vectors: np.ndarray,
    release: Release,
    config: Config,
    tool_vectors: np.ndarray | None = None,
) -> SimulationInputs:
    """A retriever's simulation inputs on a release split: its scores with each query's acceptable tools out of the
    ranking (:meth:`QuerySet.condensed`), the judged tools as gold, drawn by :func:`stream_popularity`."""
    popularity, _ = stream_popularity(queries, config)
    scores = queries.condensed(retriever.score(queries.texts))
    return simulation_inputs(scores, vectors, queries.relevant, release.corpus.r_static, config.rated.top_k,
                             tool_vectors, popularity)  # fmt: skip


@dataclass
class Stream:
    """One query stream of the dynamic evaluation, with the retrievers that can run on it."""

    name: str
    kind: str  # "release": a query split of the release; "anchored": rated.anchored
    inputs: SimulationInputs  # the trained ranker's
    statics: list[Method]  # static rows on other retrievers (release streams only: they need query text)
    note: str  # why this stream, in one sentence
    calibration: dict | None = None


def _distinct_gold(queries) -> int:
    return len({t for rel in queries.relevant for t in rel})


def _size(spec: str, queries: QuerySet | None) -> str:
    if queries is None:
        return f"{spec}: absent"
    left_out = f", {queries.left_out} with only alternatives left out" if queries.left_out else ""
    return f"{queries.name}: {len(queries)} queries, {_distinct_gold(queries)} gold tools{left_out}"


def first_query_set(release: Release, specs: list[str]) -> QuerySet | None:
    """The first of ``specs`` the release has (any size)."""
    return next((q for q in (query_set(release, spec) for spec in specs) if q is not None), None)


def _release_stream(
    role: str, queries: QuerySet, release: Release, statics: list[Retriever], ranker: DenseRetriever, config: Config
) -> Stream:
    """A release split as a stream: the trained ranker's inputs, and every other retriever's on the test stream."""
    vectors = ranker.encode_queries(queries.texts)
    inputs = query_inputs(ranker, queries, vectors, release, config, ranker.tool_vectors)
    rows = []
    if role == "test":
        rows = [Method(f"{r.name} (static)", "static", query_inputs(r, queries, vectors, release, config))
                for r in statics]  # fmt: skip
    _, drawn = stream_popularity(queries, config)
    return Stream(queries.name, "release", inputs, rows, f"{_size(queries.name, queries)}; {drawn}")


class AnchoredStreams:
    """The catalog-anchored streams of a release (:mod:`rated.anchored`), built once when first asked for."""

    def __init__(self, release: Release, ranker: DenseRetriever, config: Config) -> None:
        self.release, self.ranker, self.config = release, ranker, config
        self.built: dict | None = None

    def get(self, role: str) -> Stream | None:
        rated = self.config.rated
        if self.built is None:
            templates = query_set(self.release, rated.anchored.templates)
            if templates is None:
                return None
            assert self.ranker.tool_vectors is not None
            validation, test = anchored_streams(
                self.ranker.tool_vectors,
                self.release.corpus.r_static,
                self.ranker.encode_queries(templates.texts),
                templates.relevant,
                n_queries=rated.anchored.queries,
                zipf=rated.anchored.zipf,
                k=rated.top_k,
                seed=self.config.seed,
            )
            self.built = {"validation": validation, "test": test, "templates": templates.name}
        stream = self.built[role]
        note = (
            f"catalog-anchored: {len(stream.inputs.gold)} real queries of {self.built['templates']} moved onto "
            f"distinct catalog tools, Zipf({rated.anchored.zipf:g}) popularity (rated/anchored.py)"
        )
        return Stream(stream.name, "anchored", stream.inputs, [], note, stream.calibration)


def choose_streams(release: Release, statics: list[Retriever], ranker: DenseRetriever, config: Config) -> dict:
    """``{"validation": Stream, "test": Stream, "comparison": Stream}`` (any may be None): for each role the first
    split of ``rated.stream`` / ``rated.validation_stream`` that is big enough (``rated.min_stream_queries`` queries,
    ``rated.min_stream_gold_tools`` gold tools), else the catalog-anchored stream built from the release's real
    queries; ``comparison`` is the anchored test stream beside a release test stream (``rated.anchored.compare``)."""
    rated = config.rated
    anchored = AnchoredStreams(release, ranker, config)
    streams: dict[str, Stream | None] = {}
    for role, specs in (("validation", rated.validation_stream), ("test", rated.stream)):
        tried = [(spec, query_set(release, spec)) for spec in specs]
        chosen = next((q for _, q in tried if q is not None and len(q) >= rated.min_stream_queries
                       and _distinct_gold(q) >= rated.min_stream_gold_tools), None)  # fmt: skip
        if chosen is not None:
            streams[role] = _release_stream(role, chosen, release, statics, ranker, config)
            continue
        stream = anchored.get(role)
        if stream is not None:
            sizes = "; ".join(_size(spec, q) for spec, q in tried)
            stream.note = (
                f"{sizes}: below rated.min_stream_queries = {rated.min_stream_queries} / "
                f"rated.min_stream_gold_tools = {rated.min_stream_gold_tools}; {stream.note}"
            )
        streams[role] = stream
    test = streams["test"]
    streams["comparison"] = None
    if test is not None and test.kind == "release" and rated.anchored.compare:
        comparison = anchored.get("test")
        if comparison is not None:
            comparison.note = f"for comparison with {test.name}: {comparison.note}"
        streams["comparison"] = comparison
    return streams
