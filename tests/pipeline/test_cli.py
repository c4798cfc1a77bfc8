import json

from typer.testing import CliRunner

from pipeline.cli import app
from tests.fixture_packages import build_fixture_mirror, fixture_overrides

runner = CliRunner()


def _set_args(mirror, cache):
    return [arg for item in fixture_overrides(mirror, cache) for arg in ("--set", item)]


def test_crawl_writes_to_out_and_prints_the_summary(tmp_path):
    sources = build_fixture_mirror(tmp_path / "mirror")
    out = tmp_path / "out"
    args = ["crawl", "--out", str(out), "--profile", "fixture", "--sources", str(sources)]
    result = runner.invoke(app, [*args, *_set_args(tmp_path / "mirror", tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    assert "crawl: 8 tools (complete)" in result.output
    assert "counting rule (n8n)" in result.output
    assert json.loads((out / "crawl_summary.json").read_text())["tools"] == 8


def test_run_goes_from_crawl_to_a_loadable_release(tmp_path):
    # the LLM is a local OpenAI-compatible server with scripted answers (the server backend's code path);
    # the real embedded model runs in tests/synth and tests/ecoagent/llm
    from tests.fake_openai import FakeOpenAI
    from tests.labeling.fixtures import build_bfcl_wheel
    from tests.synth.test_generate import _respond

    mirror = tmp_path / "mirror"
    build_fixture_mirror(mirror)
    build_bfcl_wheel(mirror)

    def reply(body: dict, content: str) -> str:
        return '{"score": 0.9}' if "response_format" in body else _respond(body, content)

    with FakeOpenAI(respond=reply) as server:
        extra = [
            f"crawl.sources={mirror / 'sources.yaml'}",
            f"store={tmp_path / 'store'}",
            f"embedding.cache_dir={tmp_path / 'emb'}",
            "llm.backend=server",
            f"llm.base_url={server.base_url}",
            "llm.model=fake",
            "label.min_agreement_score=0.0",
            "label.min_cosine=0.0",
            "release.version=2026.11.29",
            f"release.repo_releases_dir={tmp_path / 'releases'}",
        ]
        args = [
            "run",
            "--out",
            str(tmp_path / "out"),
            "--profile",
            "fixture",
            *(a for e in extra for a in ("--set", e)),
        ]
        result = runner.invoke(app, [*args, *_set_args(mirror, tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    for stage in ("crawl", "score", "synth", "label"):
        assert (tmp_path / "out" / stage).is_dir(), stage
    release = tmp_path / "out" / "release" / "2026.11.29"
    assert (release / "manifest.json").exists() and (release / "croissant.json").exists()
    assert sorted(p.name for p in (tmp_path / "releases" / "2026.11.29").iterdir()) == [
        "CHANGELOG.md", "README.md", "manifest.json",
    ]  # fmt: skip
    # the score stage prints the paper-compatible reliable share beside ours, and the card carries it
    assert "reliable under the paper-compatible reading" in result.output
    card = (tmp_path / "releases" / "2026.11.29" / "README.md").read_text()
    assert "under the paper-compatible reading (the authors' code: raw names" in card


def test_bad_override_is_a_clear_config_error(tmp_path):
    result = runner.invoke(app, ["crawl", "--out", str(tmp_path), "--set", "crawl.workers=lots"])
    assert result.exit_code == 2
    assert "crawl.workers" in result.output


def test_config_prints_the_resolved_profile():
    result = runner.invoke(app, ["config", "--profile", "production"])
    assert result.exit_code == 0
    assert json.loads(result.output)["profile"] == "production"


def test_rated_without_a_release_says_where_it_looked(tmp_path):
    result = runner.invoke(app, ["rated", "--set", f"store={tmp_path / 'store'}"])
    assert result.exit_code == 2
    assert "no release under" in result.output and "ecoagent run" in result.output


def test_rated_on_a_folder_that_is_not_a_release_names_it(tmp_path):
    result = runner.invoke(app, ["rated", "--release", str(tmp_path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "manifest.json" in result.output


def test_rated_with_a_hub_encoder_offline_names_the_setting(tmp_path, monkeypatch):
    from tests.release.tiny_release import build_tiny_release

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder = build_tiny_release(tmp_path)
    args = ["rated", "--release", str(folder), "--out", str(tmp_path / "out"), "--profile", "production",
            "--set", f"embedding.cache_dir={tmp_path / 'emb'}", "--set", "rated.dense_models={}"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "rated.train.encoder" in result.output and "HF_HUB_OFFLINE" in result.output


def test_failures_are_one_line_with_the_exit_code_of_their_kind(tmp_path):
    missing = runner.invoke(app, ["score", "--in", str(tmp_path / "nothing"), "--out", str(tmp_path / "out")])
    assert missing.exit_code == 1
    assert "score failed" in missing.output and "ecoagent crawl" in missing.output
    assert "Traceback" not in missing.output
    moved = runner.invoke(app, ["config", "--set", f"score.embedding_cache={tmp_path}"])
    assert moved.exit_code == 2 and "embedding.cache_dir" in moved.output
