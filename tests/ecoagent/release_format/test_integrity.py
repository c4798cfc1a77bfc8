"""Every file of a release against its manifest: edited, resized, missing, extra, linked, or a manifest not
the published one."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from ecoagent.release_format.integrity import ReleaseIntegrityError, check_release, verify_release
from ecoagent.release_format.reader import load_release
from tests.release.tampering import TOOLS_FILE, flip_byte, make_first_tool_harmless


@pytest.fixture
def release(tiny_release: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "1.0.0"
    shutil.copytree(tiny_release, folder)
    return folder


def test_an_intact_release_verifies_with_its_manifest_hash(release: Path) -> None:
    result = verify_release(release)
    manifest = json.loads((release / "manifest.json").read_text())
    assert result.ok and result.version == "1.0.0"
    assert sorted(result.files) == sorted(manifest["files"])
    assert result.manifest_sha256 == hashlib.sha256((release / "manifest.json").read_bytes()).hexdigest()
    assert (release / "gate" / "release_gate.md").exists()  # the gate's report is there and is not listed
    verify_release(release, manifest_sha256=result.manifest_sha256.upper())


def test_each_kind_of_tampering_is_one_line_naming_the_file(release: Path) -> None:
    make_first_tool_harmless(release)
    flip_byte(release, "croissant.json", offset=40)
    (release / "CHANGELOG.md").unlink()
    (release / "syn-queries" / "extra-00000-of-00001.parquet").write_bytes(b"PAR1")
    (release / "notes.txt").symlink_to(release / "README.md")
    problems = check_release(release).problems
    assert len(problems) == 5 and all("\n" not in p for p in problems)
    by_file = {p.split(":", 1)[0]: p for p in problems}
    assert set(by_file) == {TOOLS_FILE, "croissant.json", "CHANGELOG.md", "syn-queries/extra-00000-of-00001.parquet",
                            "notes.txt"}  # fmt: skip
    assert "listed in manifest.json but missing" in by_file["CHANGELOG.md"]
    assert "sha256" in by_file["croissant.json"] and "not listed" in by_file["syn-queries/extra-00000-of-00001.parquet"]
    assert "a link" in by_file["notes.txt"]
    with pytest.raises(ReleaseIntegrityError, match=r"\(and 4 more: ecoagent release verify ") as err:
        verify_release(release)
    assert err.value.exit_code == 1


def test_a_manifest_that_is_not_the_published_one_is_refused(release: Path) -> None:
    with pytest.raises(ReleaseIntegrityError, match=r"manifest\.json: sha256 .* is not the published 0{64}"):
        verify_release(release, manifest_sha256="0" * 64)


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        (None, "manifest.json: missing"),
        ("{not json", "manifest.json: not JSON"),
        ({"version": "1.0.0"}, "no file table"),
        ({"files": {"../outside.parquet": {"sha256": "0", "bytes": 1}}}, "../outside.parquet: not a file path"),
    ],
)
def test_an_unusable_manifest_is_a_problem(release: Path, manifest, problem: str) -> None:
    path = release / "manifest.json"
    if manifest is None:
        path.unlink()
    else:
        path.write_text(manifest if isinstance(manifest, str) else json.dumps(manifest))
    assert any(problem in p for p in check_release(release).problems)


@pytest.mark.parametrize("tamper", ["edit_row", "flip_byte"])
def test_load_release_refuses_a_tampered_release(release: Path, tamper: str) -> None:
    if tamper == "edit_row":
        make_first_tool_harmless(release)
    else:
        flip_byte(release, "real-qrels/test-00000-of-00001.parquet")
    file = TOOLS_FILE if tamper == "edit_row" else "real-qrels/test-00000-of-00001.parquet"
    with pytest.raises(ReleaseIntegrityError, match=rf"{file}: (sha256|\d+ bytes)"):
        load_release(release)
