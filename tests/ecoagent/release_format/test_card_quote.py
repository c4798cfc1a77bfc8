"""A quote put into a built release's card: the release still verifies, only the card's manifest entry changes,
the tracked copy of the same build follows, and a card edited by hand or written without the place is refused."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from ecoagent.errors import BadInput
from ecoagent.release_format.card_quote import END, START, quote_in_card, track_release
from ecoagent.release_format.integrity import ReleaseIntegrityError, content_sha256, verify_release

QUOTE = "> **Does r_static lower FSR on real events?** With the reliability prior, RATED (Full) lowers FSR."


@pytest.fixture
def release(tiny_release: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "release" / "1.0.0"
    shutil.copytree(tiny_release, folder)
    return folder


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def test_the_built_card_has_an_empty_place_in_its_first_lines(release: Path) -> None:
    card = (release / "README.md").read_text()
    assert f"{START}\n{END}\n" in card
    title = card.index("\n# EcoAgent 1.0.0")
    assert title < card.index(START) < card.index("EcoAgent is a benchmark")


def test_a_quote_goes_into_the_card_and_its_hash_into_the_manifest_alone(release: Path, tmp_path: Path) -> None:
    before, card_before = _manifest(release), (release / "README.md").read_bytes()
    tracked = tmp_path / "releases"
    track_release(release, tracked / "1.0.0")
    quoted = quote_in_card(release, QUOTE, tracked)
    card = (release / "README.md").read_text()
    assert quoted.changed and f"{START}\n\n{QUOTE}\n\n{END}\n" in card
    verify_release(release)
    after = _manifest(release)
    assert {k: v for k, v in after.items() if k != "files"} == {k: v for k, v in before.items() if k != "files"}
    assert [k for k in after["files"] if after["files"][k] != before["files"][k]] == ["README.md"]
    assert content_sha256(after) == content_sha256(before)  # what RATED's steps are keyed by
    assert quoted.tracked == str(tracked / "1.0.0")
    assert (tracked / "1.0.0" / "README.md").read_text() == card
    assert _manifest(tracked / "1.0.0") == after

    again = quote_in_card(release, QUOTE, tracked)  # idempotent: nothing rewritten
    assert not again.changed and again.sha256 == quoted.sha256
    quote_in_card(release, "", tracked)  # an empty quote restores the card as built, byte for byte
    assert (release / "README.md").read_bytes() == card_before and _manifest(release) == before


def test_a_tracked_copy_of_another_build_is_left_alone(release: Path, tmp_path: Path) -> None:
    copy = tmp_path / "releases" / "1.0.0"
    copy.mkdir(parents=True)
    other = {**_manifest(release), "created": "another build"}
    (copy / "manifest.json").write_text(json.dumps(other))
    assert quote_in_card(release, QUOTE, tmp_path / "releases").tracked is None
    assert json.loads((copy / "manifest.json").read_text()) == other


def test_a_card_edited_by_hand_or_without_the_place_is_refused(release: Path) -> None:
    card = release / "README.md"
    built = card.read_text()
    card.write_text(built + "edited\n")
    with pytest.raises(ReleaseIntegrityError, match=r"README.md differs .*ecoagent release verify"):
        quote_in_card(release, QUOTE)
    card.write_text(built)

    # a card written before the place existed: its manifest vouches for it, but there is nowhere to quote
    old = built.replace(f"{START}\n{END}\n", "").encode()
    card.write_bytes(old)
    manifest = _manifest(release)
    manifest["files"]["README.md"] = {"bytes": len(old), "sha256": hashlib.sha256(old).hexdigest()}
    (release / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BadInput, match=r"no place for what was measured after the build.*ecoagent release build"):
        quote_in_card(release, QUOTE)
    with pytest.raises(BadInput, match=r"not a release folder"):
        quote_in_card(release / "tools", QUOTE)
