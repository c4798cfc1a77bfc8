"""Verify a release folder against its ``manifest.json``: every reader of a release calls this first.

``manifest.json`` lists every file of the release under ``files`` (path -> ``sha256``, ``bytes``). A release is
intact when each listed file is there with that size and hash, and nothing else is: any other file (a parquet
file dropped in beside the real ones would become a split ``datasets`` loads) is refused too. Two paths are not
listed, by design:

- ``manifest.json`` itself (it cannot hold its own hash: its sha256 is printed by ``ecoagent release publish``,
  written into the Hub tag's message and returned by :func:`verify_release`, so a reader can compare it with the
  published one: ``ecoagent release verify FOLDER --manifest-sha256 HASH``);
- ``gate/``, the release gate's report: the gate writes it before the manifest exists and again every time it
  is run, with a timestamp, so it cannot have a fixed hash. It is a report about the data, not data: no loader
  reads it and ``publish`` does not upload it.

Readers: :func:`ecoagent.release_format.reader.load_release` (RATED, the selector service), the release gate, ``ecoagent
release publish`` and ``ecoagent release verify``. A mismatch raises :class:`ReleaseIntegrityError` (exit 1)
with one line naming the file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ecoagent.errors import EcoAgentError
from ecoagent.hashing import sha256_file
from ecoagent.layout import RELEASE_FILES

MANIFEST = RELEASE_FILES.manifest
UNLISTED_FOLDERS = (RELEASE_FILES.gate_folder,)  # see the module docstring


def content_sha256(manifest: dict) -> str:
    """sha256 of ``manifest`` as canonical JSON with the card's own entry left out: what an evaluation of the
    release is computed from. The card may then quote what was measured on the release after it was built
    (:mod:`ecoagent.release_format.card_quote`) without making those measurements stale."""
    files = {k: v for k, v in (manifest.get("files") or {}).items() if k != RELEASE_FILES.card}
    return hashlib.sha256(json.dumps({**manifest, "files": files}, sort_keys=True).encode()).hexdigest()


class ReleaseIntegrityError(EcoAgentError, RuntimeError):
    """A release file differs from ``manifest.json``, is missing from it, or the manifest is unusable."""


@dataclass
class Verification:
    """What :func:`check_release` found. ``problems``: one line each, naming the file; empty when intact."""

    folder: Path
    version: str | None = None
    manifest_sha256: str | None = None
    files: list[str] = field(default_factory=list)  # the verified files (manifest paths), manifest.json excluded
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _unsafe(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return not parts or path.startswith(("/", "\\")) or ".." in parts or "\\" in path or path == MANIFEST


def _present(folder: Path) -> tuple[set[str], list[str]]:
    """Every file under ``folder`` (posix paths) except the manifest and the unlisted folders; links as problems."""
    found: set[str] = set()
    problems: list[str] = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if rel == MANIFEST or rel.split("/", 1)[0] in UNLISTED_FOLDERS:
            continue
        if path.is_symlink():
            problems.append(f"{rel}: a link, not a file (a release holds files only)")
        elif path.is_file():
            found.add(rel)
    return found, problems


def check_release(
    folder: str | Path, expected: dict[str, dict] | None = None, *, manifest_sha256: str | None = None
) -> Verification:
    """Compare ``folder`` with its manifest's file table, or with ``expected`` (the build's own, before the
    manifest is written). ``manifest_sha256``: the published hash the manifest itself must have. Never raises
    for what it finds: every problem is a line in the result."""
    folder = Path(folder)
    result = Verification(folder)
    if expected is None:
        manifest_path = folder / MANIFEST
        if not manifest_path.is_file():
            result.problems.append(f"{MANIFEST}: missing (is this a release folder? ecoagent release build)")
            return result
        data = manifest_path.read_bytes()
        result.manifest_sha256 = hashlib.sha256(data).hexdigest()
        if manifest_sha256 and result.manifest_sha256 != manifest_sha256.strip().lower():
            result.problems.append(
                f"{MANIFEST}: sha256 {result.manifest_sha256} is not the published {manifest_sha256.strip()}"
            )
        try:
            manifest = json.loads(data)
        except ValueError as exc:
            result.problems.append(f"{MANIFEST}: not JSON ({exc})")
            return result
        expected = manifest.get("files") if isinstance(manifest, dict) else None
        if not isinstance(expected, dict) or not expected:
            result.problems.append(f"{MANIFEST}: no file table ('files'); rebuild the release")
            return result
        result.version = str(manifest.get("version")) if manifest.get("version") is not None else None

    present, links = _present(folder)
    result.problems += links
    for rel, entry in sorted(expected.items()):
        if _unsafe(rel) or not isinstance(entry, dict):
            result.problems.append(f"{rel}: not a file path inside the release ({MANIFEST} is corrupt)")
            continue
        path = folder / rel
        if rel not in present:
            result.problems.append(f"{rel}: listed in {MANIFEST} but missing")
            continue
        size = path.stat().st_size
        if size != entry.get("bytes"):
            result.problems.append(f"{rel}: {size} bytes, {MANIFEST} says {entry.get('bytes')}")
            continue
        digest = sha256_file(path)
        if digest != entry.get("sha256"):
            result.problems.append(f"{rel}: sha256 {digest[:16]}... differs from {MANIFEST} ({entry.get('sha256')})")
            continue
        result.files.append(rel)
    for rel in sorted(present - set(expected)):
        result.problems.append(f"{rel}: not listed in {MANIFEST}")
    return result


def verify_release(
    folder: str | Path, expected: dict[str, dict] | None = None, *, manifest_sha256: str | None = None
) -> Verification:
    """:func:`check_release`, raising :class:`ReleaseIntegrityError` on the first problem (one line, the count
    of the others)."""
    result = check_release(folder, expected, manifest_sha256=manifest_sha256)
    if result.problems:
        more = len(result.problems) - 1
        tail = f" (and {more} more: ecoagent release verify {folder})" if more else ""
        raise ReleaseIntegrityError(f"release {folder} does not match its manifest: {result.problems[0]}{tail}")
    return result
