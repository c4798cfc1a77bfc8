"""The whole refresh with the store on object storage: an S3 server the test starts itself (moto's server mode on
127.0.0.1, the real S3 HTTP API through s3fs), every stage through to a verified release, then ``ecoagent rated``
reading that release from the store and writing its folder there.

The LLM is the stand-in OpenAI-compatible server behind the production client (the server backend); the crawl reads
the fixture mirror. Nothing of the run is written to the local disk but the worker's caches (packages, embeddings,
the LLM response cache) and the staging folders a stage commits from.
"""

from __future__ import annotations

import json

import polars as pl
from typer.testing import CliRunner

from ecoagent.layout import CRAWL_FILES, LABEL_FILES, RATED_MARKER, RELEASE_FILES, SCORE_FILES, SYNTH_FILES
from ecoagent.store import ArtifactStore
from pipeline.cli import app
from tests.fixture_packages import build_fixture_mirror, fixture_overrides
from tests.object_store import BUCKET, s3_server

VERSION = "2026.11.29"


def test_the_fixture_refresh_and_rated_with_the_store_on_s3(tmp_path, monkeypatch):
    from ecoagent.layout import newest_release
    from ecoagent.release_format.integrity import verify_release
    from ecoagent.release_format.reader import local_release
    from ecoagent.testing.standin_llm import StandInOpenAI
    from tests.labeling.fixtures import build_bfcl_wheel
    from tests.synth.test_generate import _respond

    mirror = tmp_path / "mirror"
    build_fixture_mirror(mirror)
    build_bfcl_wheel(mirror)
    monkeypatch.setenv("ECOAGENT_RELEASE_CACHE", str(tmp_path / "release-copies"))
    monkeypatch.chdir(tmp_path)  # nothing may land in the working folder either
    store = f"s3://{BUCKET}/eco"
    with s3_server(), StandInOpenAI(respond=lambda body, content: _respond(body, content)) as llm:
        settings = [
            *fixture_overrides(mirror, tmp_path / "packages"),
            f"crawl.sources={mirror / 'sources.yaml'}",
            f"store={store}",
            f"embedding.cache_dir={tmp_path / 'emb'}",
            f"llm.cache_path={tmp_path / 'llm' / 'responses.sqlite'}",
            "llm.backend=server",
            f"llm.base_url={llm.base_url}",
            "llm.model=fake",
            "label.min_agreement_score=0.0",
            "label.min_cosine=0.0",
            f"release.version={VERSION}",
            f"release.repo_releases_dir={tmp_path / 'releases'}",
            # RATED's protocol on a tiny release, as small as it goes: this test is about where it reads and writes
            "rated.simulation.seeds=[0]",
            "rated.simulation.scenarios=[persistent]",
            "rated.simulation.steps=600",
            "rated.simulation.recovery_step=500",
            "rated.anchored.queries=20",
            "rated.tuning.figure4_w1=[0.7]",
            "rated.tuning.figure4_gammas=[0.9]",
            "rated.latency_steps=20",
        ]
        sets = [a for s in settings for a in ("--set", s)]
        result = CliRunner().invoke(app, ["run", "--profile", "fixture", *sets])
        assert result.exit_code == 0, result.output

        root = ArtifactStore(store)
        for folder, files in (("crawl", CRAWL_FILES), ("score", SCORE_FILES), ("synth", SYNTH_FILES),
                              ("label", LABEL_FILES)):  # fmt: skip
            assert root.exists(folder, files.marker), folder  # each stage folder committed by its summary
        assert root.exists("score", SCORE_FILES.gate_report)  # the gate's report joined the committed folder
        release = newest_release(root.url("release"))
        assert release == f"{store}/release/{VERSION}"
        copy = local_release(release)  # downloaded once, then verified like any release folder
        assert verify_release(copy).version == VERSION
        assert root.files() and all(not f.startswith("release/.") for f in root.files())
        names = ArtifactStore(release).files()
        assert RELEASE_FILES.manifest in names and f"{RELEASE_FILES.gate_folder}/{RELEASE_FILES.gate_report}" in names
        manifest = json.loads((copy / RELEASE_FILES.manifest).read_text())
        for rel, entry in manifest["files"].items():  # the bytes in the store are the bytes the manifest lists
            assert ArtifactStore(release).fs.size(ArtifactStore(release).path(rel)) == entry["bytes"], rel
        assert sorted(p.name for p in (tmp_path / "releases" / VERSION).iterdir()) == [
            "CHANGELOG.md", "README.md", "manifest.json"]  # fmt: skip

        # the datasets loader reads a config of the release from the store; its offline mode (HF_HUB_OFFLINE=1 in
        # the tests) refuses every remote URL, s3:// on 127.0.0.1 included, so it is lifted for this one call
        import datasets

        monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)

        from ecoagent.release_format.reader import hf_data_files

        real = datasets.load_dataset("parquet", data_files=hf_data_files(release, "real-queries"),
                                     cache_dir=str(tmp_path / "hf"))  # fmt: skip
        assert real["train"].num_rows == manifest["counts"]["real-queries"]["train"]

        rated = CliRunner().invoke(app, ["rated", "--profile", "fixture", *sets])
        assert rated.exit_code == 0, rated.output
        out = ArtifactStore(root.url("rated", VERSION))
        assert out.exists(RATED_MARKER)  # committed by the trained encoder's record, uploaded last
        metrics = out.read_json("metrics.json")
        assert metrics["release"] == {"folder": release, "version": VERSION}
        assert "report.md" in out.files()
    assert not (tmp_path / "data").exists() and not list(tmp_path.glob("*.parquet"))
    assert pl.read_parquet(copy / manifest["configs"]["tools"]["train"]).height == manifest["counts"]["tools"]["train"]
