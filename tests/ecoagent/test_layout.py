"""The run layout: every folder of a run root named in one place; the newest release by version number."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecoagent.config import PROJECT_ROOT, load_config
from ecoagent.layout import RunLayout, newest_release


def _release(root: Path, name: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "manifest.json").write_text("{}")


def test_newest_by_version_number_and_never_a_hidden_copy(tmp_path: Path) -> None:
    for name in ("2026.11.3", "2026.11.29", ".2026.12.1.tmp-abcd1234"):
        _release(tmp_path, name)
    (tmp_path / "2026.12.9").mkdir()  # no manifest: not a release
    assert newest_release(tmp_path) == tmp_path / "2026.11.29"  # 29 > 3, although "2026.11.3" > "2026.11.29"
    assert newest_release(tmp_path, exclude="2026.11.29") == tmp_path / "2026.11.3"
    assert newest_release(tmp_path / "missing") is None


def test_every_folder_of_a_run_root_is_named_once() -> None:
    layout = RunLayout("/data/store/")
    assert (layout.crawl, layout.score, layout.synth, layout.label) == tuple(
        f"/data/store/{stage}" for stage in ("crawl", "score", "synth", "label")
    )
    assert layout.release("2026.11.29") == "/data/store/release/2026.11.29"
    assert layout.rated("2026.11.29") == "/data/store/rated/2026.11.29"
    assert layout.crawl_shard("n8n") == "/data/store/crawl_shards/n8n"
    run = layout.run("manual__2026-11-29T12:00:00+00:00")
    assert run.score == "/data/store/runs/manual__2026-11-29T12_00_00_00_00/score"
    assert layout.llm_cache == Path("/data/store/llm/responses.sqlite")


def test_object_storage_roots_keep_their_scheme_and_have_no_sqlite_cache() -> None:
    layout = RunLayout("s3://bucket/ecoagent")
    assert layout.synth == "s3://bucket/ecoagent/synth" and not layout.is_local
    with pytest.raises(ValueError, match=r"llm\.cache_path"):
        _ = layout.llm_cache
    assert RunLayout("file:///tmp/x").crawl == "/tmp/x/crawl"


def test_the_store_is_the_default_root_and_out_wins(tmp_path: Path) -> None:
    config = load_config("default", [f"store={tmp_path / 'store'}"], environ={})
    assert RunLayout.of(config).label == f"{tmp_path / 'store'}/label"
    assert RunLayout.of(config, str(tmp_path / "out")).label == f"{tmp_path / 'out'}/label"
    relative = load_config("default", ["store=data/elsewhere"], environ={})
    assert RunLayout.of(relative).root == str(PROJECT_ROOT / "data" / "elsewhere")
