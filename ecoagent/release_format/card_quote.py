"""What a release's card says about what was measured on the release after it was built.

The release build writes the card (``README.md``) before anything is measured on the release; RATED measures
afterwards (the replay's test of the reliability prior). The card keeps a place for those findings in its first
lines: two HTML comments, invisible on the Hub, with nothing between them as built (:data:`EMPTY_BLOCK`).
:func:`quote_in_card` puts a quote between them, replacing the one there, and writes the card's new hash into
``manifest.json`` in the same generation of the folder (:meth:`ecoagent.store.StageFolder.amend`), so the release
still verifies. The data files and every other manifest entry are untouched, so
:func:`~ecoagent.release_format.integrity.content_sha256`, which RATED's steps are keyed by, stays the same. The
repository's tracked copy (``releases/<version>/``) follows when it is a copy of the same build.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ecoagent.errors import BadInput
from ecoagent.layout import RELEASE_FILES, TRACKED_RELEASE_FILES
from ecoagent.release_format.integrity import ReleaseIntegrityError, content_sha256
from ecoagent.store import ArtifactStore, StageFolder
from ecoagent.text.redaction import redact

START = "<!-- measured on this release after it was built -->"
END = "<!-- end of what was measured after the build -->"
EMPTY_BLOCK = f"{START}\n{END}\n"  # what the release build writes into the card's first lines

CARD, MANIFEST = RELEASE_FILES.card, RELEASE_FILES.manifest


@dataclass(frozen=True)
class QuotedCard:
    """What :func:`quote_in_card` did: the card's location, whether it changed, its sha256, the tracked copy."""

    card: str
    changed: bool
    sha256: str
    tracked: str | None  # the repository's copy brought along, when there is one of this build


def with_quote(card: str, quote: str, where: str = CARD) -> str:
    """``card`` with ``quote`` (Markdown; empty: none) between the markers, in place of what was there."""
    start, end = card.find(START), card.find(END)
    if start < 0 or end < start:
        raise BadInput(f"{where} has no place for what was measured after the build (a card written before "
                       "2026-12-07): rebuild the release with `ecoagent release build`")  # fmt: skip
    body = f"\n{quote.strip()}\n\n" if quote.strip() else ""
    return f"{card[: start + len(START)]}\n{body}{card[end:]}"


def quote_in_card(release: str | Path, quote: str, tracked: Path | None = None) -> QuotedCard:
    """Put ``quote`` into the card of the release folder ``release`` (a local path or the store's URL) and its
    hash into the manifest; the same into ``tracked/<version>/`` when that holds a copy of the same build. The card
    must match its manifest first: a card edited by hand is refused, not overwritten."""
    source = ArtifactStore(str(release))
    if not source.exists(MANIFEST):
        raise BadInput(f"{source.url()} is not a release folder (no {MANIFEST}): pass the folder `ecoagent release "
                       "build` wrote")  # fmt: skip
    manifest = source.read_json(MANIFEST)
    card = source.fs.cat(source.path(CARD))
    entry = (manifest.get("files") or {}).get(CARD) or {}
    if hashlib.sha256(card).hexdigest() != entry.get("sha256"):
        raise ReleaseIntegrityError(f"release {source.url()} does not match its manifest: {CARD} differs "
                                    f"(ecoagent release verify {source.url()})")  # fmt: skip
    updated = with_quote(card.decode(), redact(quote)[0], source.url(CARD)).encode()
    digest = hashlib.sha256(updated).hexdigest()
    changed = updated != card
    if changed:
        manifest["files"][CARD] = {"bytes": len(updated), "sha256": digest}
        with StageFolder(str(release), marker=MANIFEST).amend() as store:
            store.write_bytes(updated, CARD)
            store.write_json(manifest, MANIFEST)  # as the build writes it: only the card's entry differs
    copy = tracked / str(manifest.get("version")) if tracked is not None else None
    same_build = copy is not None and (copy / MANIFEST).is_file() and \
        content_sha256(ArtifactStore(str(copy)).read_json(MANIFEST)) == content_sha256(manifest)  # fmt: skip
    if same_build:
        track_release(release, copy)
    return QuotedCard(source.url(CARD), changed, digest, str(copy) if same_build else None)


def track_release(release: str | Path, tracked: Path) -> None:
    """Copy the release's manifest, card and changelog into ``tracked`` (the repository's ``releases/<version>/``),
    the three replaced together like a stage folder."""
    built = ArtifactStore(str(release))
    with StageFolder(str(tracked), TRACKED_RELEASE_FILES).replace() as store:
        for name in TRACKED_RELEASE_FILES:
            store.write_bytes(built.fs.cat(built.path(name)), name)
