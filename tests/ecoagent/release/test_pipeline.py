"""newest_release: versions compared as numbers, folders being promoted never count."""

from __future__ import annotations

from pathlib import Path

from ecoagent.release.pipeline import newest_release


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
