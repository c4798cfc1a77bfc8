"""The run layout: every folder of a run root named in one place; the newest release by version number."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ecoagent.config import PROJECT_ROOT, load_config
from ecoagent.layout import (
    CRAWL_FILES,
    LABEL_FILES,
    RATED_FILES,
    RELEASE_FILES,
    SCORE_FILES,
    SYNTH_FILES,
    RunLayout,
    newest_release,
)

ALL_FILES = (CRAWL_FILES, SCORE_FILES, SYNTH_FILES, LABEL_FILES, RELEASE_FILES, RATED_FILES)


def _release(root: Path, name: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "manifest.json").write_text("{}")


def test_newest_by_version_number_and_never_a_hidden_copy(tmp_path: Path) -> None:
    for name in ("2026.11.3", "2026.11.29", ".2026.12.1.tmp-abcd1234"):
        _release(tmp_path, name)
    (tmp_path / "2026.12.9").mkdir()  # no manifest: not a release
    assert newest_release(tmp_path) == str(tmp_path / "2026.11.29")  # 29 > 3, although "2026.11.3" > "2026.11.29"
    assert newest_release(tmp_path, exclude="2026.11.29") == str(tmp_path / "2026.11.3")
    assert newest_release(tmp_path / "missing") is None


def test_every_folder_of_a_run_root_is_named_once() -> None:
    from pipeline.stages import STAGES, releases_folder

    layout = RunLayout("/data/store/")
    assert [layout.folder(s.name) for s in STAGES] == [f"/data/store/{s.name}" for s in STAGES]
    assert releases_folder(layout) == "/data/store/release"
    assert layout.versioned("rated", "2026.11.29") == "/data/store/rated/2026.11.29"
    assert layout.partition("crawl", "n8n") == "/data/store/crawl_shards/n8n"
    run = layout.run("manual__2026-11-29T12:00:00+00:00")
    assert run.folder("score") == "/data/store/runs/manual__2026-11-29T12_00_00_00_00/score"
    assert layout.llm_cache == Path("/data/store/llm/responses.sqlite")


def test_object_storage_roots_keep_their_scheme_and_have_no_sqlite_cache() -> None:
    layout = RunLayout("s3://bucket/ecoagent")
    assert layout.folder("synth") == "s3://bucket/ecoagent/synth" and not layout.is_local
    with pytest.raises(ValueError, match=r"llm\.cache_path"):
        _ = layout.llm_cache
    assert RunLayout("file:///tmp/x").folder("crawl") == "/tmp/x/crawl"


def test_the_store_is_the_default_root_and_out_wins(tmp_path: Path) -> None:
    config = load_config("default", [f"store={tmp_path / 'store'}"], environ={})
    assert RunLayout.of(config).root == str(tmp_path / "store")
    assert RunLayout.of(config, str(tmp_path / "out")).root == str(tmp_path / "out")
    relative = load_config("default", ["store=data/elsewhere"], environ={})
    assert RunLayout.of(relative).root == str(PROJECT_ROOT / "data" / "elsewhere")


# Names too common to belong to one stage: the crawlers read packages' own README.md files, "gate" and "model"
# are also words of JSON keys and expectation names. Their release and RATED uses go through the layout anyway.
COMMON_WORDS = {"README.md", "gate", "model"}
SOURCE_PACKAGES = ("ecoagent", "schemas", "crawlers", "scoring", "synth", "labeling", "release", "rated", "selector",
                   "pipeline", "dags", "benchmarks")  # fmt: skip


def declared_file_names() -> set[str]:
    return {name for files in ALL_FILES for name in files.names()} - COMMON_WORDS


def _docstrings(tree: ast.AST) -> set[int]:
    nodes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, nodes) and node.body and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }  # fmt: skip


def spelled_file_names(root: Path, packages: tuple[str, ...] = SOURCE_PACKAGES) -> list[str]:
    """``file:line: name`` for every string literal outside the layout that spells a declared output file name."""
    names, found = declared_file_names(), []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if path == root / "ecoagent" / "layout.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            skip = _docstrings(tree)
            found += [
                f"{path.relative_to(root)}:{node.lineno}: {node.value}"
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
                and id(node) not in skip
            ]  # fmt: skip
    return found


def test_output_file_names_are_spelled_only_in_the_layout() -> None:
    assert spelled_file_names(PROJECT_ROOT) == []


def test_a_consumer_spelling_a_file_name_is_caught(tmp_path: Path) -> None:
    (tmp_path / "release").mkdir()
    (tmp_path / "release" / "build.py").write_text(
        '"""Reads tools_scored.parquet (a docstring may name it)."""\n'
        'TOOLS = "tools_scored.parquet"\n'
    )
    assert spelled_file_names(tmp_path, ("release",)) == ["release/build.py:2: tools_scored.parquet"]
    assert {"tools.parquet", "syn_queries.parquet", "label_summary.json", "manifest.json", "metrics.json"} <= (
        declared_file_names()
    )
