import json

from typer.testing import CliRunner

from ecoagent.cli import app
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


def test_run_puts_stage_outputs_under_out(tmp_path):
    build_fixture_mirror(tmp_path / "mirror")
    extra = ["--set", f"crawl.sources={tmp_path / 'mirror' / 'sources.yaml'}"]
    args = ["run", "--out", str(tmp_path / "out"), "--profile", "fixture", *extra]
    result = runner.invoke(app, [*args, *_set_args(tmp_path / "mirror", tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "crawl" / "tools.parquet").exists()


def test_bad_override_is_a_clear_config_error(tmp_path):
    result = runner.invoke(app, ["crawl", "--out", str(tmp_path), "--set", "crawl.workers=lots"])
    assert result.exit_code == 2
    assert "crawl.workers" in result.output


def test_config_prints_the_resolved_profile():
    result = runner.invoke(app, ["config", "--profile", "production"])
    assert result.exit_code == 0
    assert json.loads(result.output)["profile"] == "production"
