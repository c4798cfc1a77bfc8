"""What the DAG tasks share: the release event carries the refresh's settings, and RATED runs with them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from pipeline.orchestration import rated_settings, release_event_extra, run_context
from pipeline.stages import releases_folder

REFRESH_PARAMS = {
    "profile": "fixture",
    "sample_size": 5,
    "shards": 2,
    "overrides": ["label.top_k=2", "llm.backend=embedded"],
    "out": None,  # set per test
    "version": None,
}
RATED_DEFAULTS = {"profile": "default", "overrides": [], "out": None, "release": None}  # an asset-triggered run's


def _refresh(tmp_path: Path) -> tuple[dict, dict]:
    params = {**REFRESH_PARAMS, "out": str(tmp_path / "root")}
    run = run_context(params, "scheduled__2026-12-06T00:00:00+00:00")
    folder = f"{releases_folder(run.root)}/2026.12.6"
    return params, release_event_extra(params, run, folder, "2026.12.6", "scheduled__2026-12-06T00:00:00+00:00")


def test_the_release_event_carries_the_refreshs_profile_overrides_and_root(tmp_path: Path) -> None:
    _, extra = _refresh(tmp_path)
    assert extra == {
        "folder": str(tmp_path / "root" / "release" / "2026.12.6"),
        "version": "2026.12.6",
        "run_id": "scheduled__2026-12-06T00:00:00+00:00",
        "profile": "fixture",
        "overrides": ["label.top_k=2", "llm.backend=embedded", "synth.sample_size=5"],
        "out": str(tmp_path / "root"),
    }


def test_an_event_triggered_rated_run_uses_the_refreshs_settings(tmp_path: Path) -> None:
    params, extra = _refresh(tmp_path)
    events = {"ecoagent/release": [SimpleNamespace(extra={"folder": "/old/release"}), SimpleNamespace(extra=extra)]}
    settings = rated_settings(RATED_DEFAULTS, events)
    assert settings == {
        "folder": extra["folder"],
        "profile": "fixture",
        "overrides": extra["overrides"],
        "out": str(tmp_path / "root"),
    }
    rated, refresh = run_context(settings, "r").config, run_context(params, "r").config
    assert rated.model_dump() == refresh.model_dump()  # the same config as the refresh that built the release
    assert rated.label.top_k == 2 and rated.synth.sample_size == 5 and rated.store == str(tmp_path / "root")


def test_a_manual_rated_run_uses_its_params(tmp_path: Path) -> None:
    params = {**RATED_DEFAULTS, "release": str(tmp_path / "r"), "profile": "fixture", "overrides": ["seed=3"]}
    assert rated_settings(params, {}) == {
        "folder": str(tmp_path / "r"), "profile": "fixture", "overrides": ["seed=3"], "out": None,
    }  # fmt: skip
    root = tmp_path / "root"
    (root / "release" / "2026.11.3").mkdir(parents=True)
    (root / "release" / "2026.11.3" / "manifest.json").write_text("{}")
    (root / "release" / "2026.11.29").mkdir()
    (root / "release" / "2026.11.29" / "manifest.json").write_text("{}")
    newest = rated_settings({**RATED_DEFAULTS, "out": str(root)}, None)
    assert newest["folder"] == str(root / "release" / "2026.11.29")
    with pytest.raises(FileNotFoundError, match="run ecoagent_refresh first"):
        rated_settings({**RATED_DEFAULTS, "out": str(tmp_path / "empty")}, None)
