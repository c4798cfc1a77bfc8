"""The offline retrievers of Table 1, built from the ``rated`` config section.

Lexical (TF-IDF, BM25) always run. Dense encoders are named in ``rated.dense_models`` (display name ->
model spec); a hub model that cannot load here (``HF_HUB_OFFLINE=1`` or no network) is skipped and the
reason is kept for the report, never silently dropped. A cross-encoder re-ranker (``rated.reranker``)
re-scores the trained RATED retriever's top ``rated.reranker_top_n``, as the paper's BGE-Reranker row
re-ranks DRAGON's top 50. The hybrids fuse BM25 with a dense retriever by reciprocal rank fusion, the selector's
fusion (``rated.hybrid``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from ecoagent.release_format.reader import Corpus
from ecoagent.retrieval.embedding.models import ModelUnavailable
from ecoagent.retrieval.fusion import FusedRetriever
from ecoagent.retrieval.rankers import BM25Retriever, CrossEncoderReranker, DenseRetriever, Retriever, TfidfRetriever
from rated.settings import RatedConfig

log = logging.getLogger(__name__)


@dataclass
class Baselines:
    retrievers: list[Retriever] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # name -> why it did not run


def offline_baselines(settings: RatedConfig, corpus: Corpus, cache_dir: Path | None) -> Baselines:
    """Fit TF-IDF, BM25 and every configured dense encoder on the corpus."""
    from ecoagent.runtime import context

    out = Baselines()
    with context.phase("fit the offline baselines", 2 + len(settings.dense_models)) as fitting:
        for retriever in (TfidfRetriever(), BM25Retriever()):
            out.retrievers.append(retriever.fit(corpus))
            fitting.advance()
        for name, spec in settings.dense_models.items():
            _fit_dense(out, name, spec, settings, corpus, cache_dir)
            fitting.advance()
    return out


def _fit_dense(out: Baselines, name: str, spec: str, settings: RatedConfig, corpus: Corpus,
               cache_dir: Path | None) -> None:  # fmt: skip
    """A dense baseline fitted into ``out``, or skipped with the reason (a hub model offline)."""
    retriever = DenseRetriever(
        name,
        spec,
        cache_dir=cache_dir,
        query_prefix=settings.query_prefixes.get(name, ""),
        tool_prefix=settings.tool_prefixes.get(name, ""),
        setting=f"rated.dense_models[{name!r}]",
        device=settings.train.device,
    )
    try:
        out.retrievers.append(retriever.fit(corpus))
    except (ModelUnavailable, OSError) as exc:  # a hub model offline: say so in the report
        log.warning("skipping %s: %s", name, exc)
        out.skipped[name] = str(exc).splitlines()[0][:300]


def reranker(settings: RatedConfig, first_stage: Retriever, corpus: Corpus) -> tuple[Retriever | None, str | None]:
    """The configured cross-encoder over ``first_stage`` (fitted), or (None, why not)."""
    if not settings.reranker:
        return None, "no cross-encoder configured (rated.reranker)"
    name = f"Cross-encoder re-ranker ({settings.reranker.rsplit('/', 1)[-1]}, top {settings.reranker_top_n})"
    try:
        reranking = CrossEncoderReranker(name, settings.reranker, first_stage, settings.reranker_top_n,
                                         device=settings.train.device)  # fmt: skip
        return reranking.fit(corpus), None
    except (ModelUnavailable, OSError) as exc:
        return None, str(exc).splitlines()[0][:300]


def hybrid_retrievers(settings: RatedConfig, retrievers: list[Retriever]) -> list[Retriever]:
    """BM25 fused with ``rated.hybrid.dense`` and with RATED (Full), where both are among ``retrievers``."""
    by_name = {r.name: r for r in retrievers}
    bm25 = next((r for r in retrievers if isinstance(r, BM25Retriever)), None)
    out = []
    for dense_name in (settings.hybrid.dense, "RATED (Full)"):
        if bm25 is not None and dense_name in by_name:
            label = "RATED" if dense_name == "RATED (Full)" else dense_name.split(" (")[0]
            hybrid = settings.hybrid
            out.append(FusedRetriever(f"Hybrid (BM25 + {label}, RRF)", [bm25, by_name[dense_name]], hybrid.k,
                                      hybrid.weights, hybrid.depth, lexical=[True, False]))  # fmt: skip
    return out
