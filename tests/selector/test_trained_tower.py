"""The selector serves a query tower ``ecoagent rated`` trained (``--model DIR``): queries through the tower, tools by
the release's vectors of the frozen tool tower, as RATED ranks them in Table 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from ecoagent.config import load_config
from ecoagent.layout import RATED_FILES
from ecoagent.release_format.reader import load_release
from ecoagent.release_format.vectors import embeddings_config, shipped_vectors
from ecoagent.retrieval.embedding.cache import Embedder
from selector.__main__ import _parser
from selector.encoders import (
    DEFAULT_DENSE_MODEL,
    FALLBACK_DENSE_MODEL,
    MINILM,
    DenseEncoder,
    resolve_dense_model,
    tool_model,
    tower_static_form,
    trained_tower,
)
from selector.select import SelectorConfig, ToolSelector

SMALL_TRAINING = ["rated.train.epochs=1", "rated.train.batch_size=8", "rated.train.max_length=32",
                  "rated.train.compare_sources=[]"]  # fmt: skip


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """The fixture release in a store (``<root>/release/<version>``), where RATED's folder goes beside it."""
    from tests.release.tiny_release import build_tiny_release

    return build_tiny_release(tmp_path_factory.mktemp("store"), workflows=True)


@pytest.fixture(scope="module")
def rated(release: Path) -> tuple[Path, dict]:
    """RATED's query tower, trained for real on the fixture release's workflow tasks (rated/encoder.py), and its
    static form made beside it as the train step makes it."""
    from rated.encoder import choose_encoder, static_query_encoder

    store = release.parent.parent
    out = store / "rated" / release.name  # as `ecoagent rated` lays it out (rated/stage.py)
    config = load_config("default", [*SMALL_TRAINING, f"embedding.cache_dir={store / 'embeddings'}"])
    choice = choose_encoder(load_release(release), config.rated, out, config.seed, store / "embeddings")
    model = out / RATED_FILES.model_folder
    made = static_query_encoder(load_release(release), config.rated, choice.trained, model,
                                choice.record["fingerprint"])  # fmt: skip
    return model, made


@pytest.fixture(scope="module")
def tower(rated: tuple[Path, dict]) -> Path:
    return rated[0]


def test_model_serves_the_trained_tower_over_the_releases_tool_vectors(
    release: Path, tower: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sentence_transformers import SentenceTransformer

    def refuse(self, texts):  # the tools are the frozen tower's: every vector comes with the release
        raise AssertionError(f"{self.name} embedded {len(texts)} texts")

    assert _parser().parse_args(["serve", "--release", str(release), "--model", str(tower)]).dense_model == str(tower)
    assert trained_tower(str(tower))["wanted"]["train"]["tool_tower"] == "frozen" and tool_model(str(tower)) == MINILM
    monkeypatch.setattr(Embedder, "_encode_missing", refuse)
    selector = ToolSelector.from_release(release, SelectorConfig(rankers=("dense",)), dense_model=str(tower),
                                         cache_dir=tmp_path / "embeddings")  # fmt: skip
    shipped = shipped_vectors(load_release(release), embeddings_config(MINILM))
    assert selector.dense is not None and np.array_equal(selector.dense.tool_vectors, shipped)

    query = load_release(release).query_sets["workflows/test"].texts[0]
    own = SentenceTransformer(str(tower), device="cpu").encode([query], normalize_embeddings=True)[0]
    served = selector.dense.encode_query(query)
    assert np.allclose(served, own, atol=1e-5)
    untrained = DenseEncoder(MINILM, tmp_path / "embeddings").encode_queries([query])[0]
    assert float(served @ untrained) < 0.9999  # the tower was trained: it is not MiniLM under another name
    ranked = selector.select_detailed(query, None, ["*"], 100_000, max_tools=3).ranked
    assert ranked[:3] == [selector.registry.ids[r] for r in np.argsort(-(shipped @ own), kind="stable")[:3]]


def test_a_static_form_of_the_tower_is_fitted_to_the_towers_query_vectors(release: Path, tower: Path,
                                                                         tmp_path: Path) -> None:  # fmt: skip
    from sentence_transformers import SentenceTransformer

    encoder = DenseEncoder(f"static:{tower}", tmp_path / "embeddings", models_dir=tmp_path / "models")
    texts = ["send the weekly report to the team chat", "look up a customer in the CRM"]
    targets = encoder.fitting_targets()(texts)
    own = SentenceTransformer(str(tower), device="cpu").encode(texts, normalize_embeddings=True)
    assert np.allclose(targets, own, atol=1e-5)  # the tower's query side, not MiniLM's tool side


def test_the_default_serves_the_static_form_rated_made_beside_the_tower(release: Path, rated: tuple[Path, dict],
                                                                       tmp_path: Path) -> None:  # fmt: skip
    tower, made = rated
    assert made is not None and made["fitted_on_texts"] > 0
    assert tower_static_form(str(tower)) == tower / RATED_FILES.static_query_encoder
    assert resolve_dense_model(DEFAULT_DENSE_MODEL, load_release(release)) == f"static:{tower}"
    # no fitting on the first start: the form is the one the train step made (an empty models folder stays empty)
    encoder = DenseEncoder(f"static:{tower}", tmp_path / "embeddings", models_dir=tmp_path / "models")
    assert not encoder.needs_fitting and not (tmp_path / "models").exists()
    query = load_release(release).query_sets["workflows/test"].texts[0]
    assert np.linalg.norm(encoder.encode_queries([query])[0]) == pytest.approx(1, abs=1e-5)
    selector = ToolSelector.from_release(release, cache_dir=tmp_path / "embeddings")
    assert selector.encoder is not None and selector.encoder.spec == f"static:{tower}"


def test_without_a_tower_of_this_release_the_default_is_minilms_static_form(tiny_release: Path, rated,
                                                                           tmp_path: Path) -> None:  # fmt: skip
    assert resolve_dense_model(DEFAULT_DENSE_MODEL, load_release(tiny_release)) == FALLBACK_DENSE_MODEL
    record = json.loads((rated[0] / RATED_FILES.train_record).read_text())
    copy = Path(shutil.copytree(tiny_release, tmp_path / "release" / tiny_release.name))
    model = tmp_path / "rated" / tiny_release.name / RATED_FILES.model_folder
    model.mkdir(parents=True)
    (model / RATED_FILES.train_record).write_text(json.dumps(record))
    assert resolve_dense_model(DEFAULT_DENSE_MODEL, load_release(copy)) == f"static:{model}"
    # a tower trained on another release is not this one's: its record names the release it was trained on
    record["wanted"]["release"] = "0.9.0"
    (model / RATED_FILES.train_record).write_text(json.dumps(record))
    assert resolve_dense_model(DEFAULT_DENSE_MODEL, load_release(copy)) == FALLBACK_DENSE_MODEL
