"""Read package archives (wheels, sdists, npm tarballs) in memory, refusing anything unsafe or too big.

Nothing is extracted to disk. A member with an absolute path, a ``..`` component or a link
(symlink or hard link) makes the whole archive unsafe: such a package is refused, with a recorded
error, rather than partly read. A single member above the size limit is skipped and reported,
the rest of the package is still read.

Budgets per package (:class:`ArchiveLimits`, the crawl's ``crawl.max_package_bytes`` and
``crawl.max_package_members``): an archive with more members than allowed, or whose wanted members
hold more unpacked bytes than allowed, is refused as a whole (:class:`ArchiveTooLarge`). Both are
checked before anything is decompressed where the format says so up front (a zip's end record and
central directory), and again while reading (a tar stream, a zip whose sizes lie), member by member:
what is held in memory never passes the byte budget, whatever the archive claims.
"""

from __future__ import annotations

import logging
import os
import posixpath
import sqlite3
import tarfile
import tempfile
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO

DEFAULT_MAX_MEMBER_BYTES = 25 * 1024 * 1024
DEFAULT_MAX_PACKAGE_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_PACKAGE_MEMBERS = 100_000
_CHUNK = 1 << 20

log = logging.getLogger(__name__)


class ArchiveError(Exception):
    """The archive cannot be read at all (corrupt, unknown format)."""


class UnsafeArchiveError(ArchiveError):
    """The archive holds a member that could escape an extraction directory."""


class ArchiveTooLarge(ArchiveError):
    """The archive exceeds a per-package budget (members or unpacked bytes); the message names the setting."""


@dataclass(frozen=True)
class ArchiveLimits:
    """What one package may cost. ``section``: the config section these come from, named in errors ("crawl")."""

    member_bytes: int = DEFAULT_MAX_MEMBER_BYTES
    package_bytes: int = DEFAULT_MAX_PACKAGE_BYTES
    package_members: int = DEFAULT_MAX_PACKAGE_MEMBERS
    section: str | None = None

    def _limit(self, name: str, value: int) -> str:
        return f"{self.section}.{name}={value}" if self.section else f"the limit {value}"

    def too_many_members(self, archive: str, count: int) -> ArchiveTooLarge:
        return ArchiveTooLarge(
            f"package_too_large: {archive} has {count} members, more than "
            f"{self._limit('max_package_members', self.package_members)}"
        )

    def too_many_bytes(self, archive: str, count: int, declared: bool) -> ArchiveTooLarge:
        what = "its members to read hold" if declared else "reading its members passed"
        return ArchiveTooLarge(
            f"package_too_large: {archive}: {what} {count} bytes unpacked, more than "
            f"{self._limit('max_package_bytes', self.package_bytes)}"
        )


# The data packages the project pins and reads (bfcl-eval 2026.3.23: 13.6 MB unpacked; LiveMCPBench's tool dump
# is one 17.6 MB member with its embeddings; n8n-mcp 2.87.0's template database is one 68.9 MB SQLite file) are
# bigger than package code and not crawled input.
DATA_PACKAGE_LIMITS = ArchiveLimits(member_bytes=128 * 1024 * 1024, package_bytes=512 * 1024 * 1024)


@dataclass
class ArchiveContents:
    files: dict[str, bytes] = field(default_factory=dict)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (member, reason)


def check_member_name(name: str) -> None:
    """Raise UnsafeArchiveError for an absolute path or a ``..`` component."""
    if name.startswith(("/", "\\")) or PurePosixPath(name).is_absolute() or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchiveError(f"absolute path in archive member {name!r}")
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        raise UnsafeArchiveError(f"'..' in archive member {name!r}")


def _strip_npm_root(name: str) -> str:
    # npm tarballs and sdists put everything under one top folder ("package/", "name-1.0/")
    return name.split("/", 1)[1] if "/" in name else name


def read_archive(
    path: Path,
    want: Callable[[str], bool],
    limits: ArchiveLimits = ArchiveLimits(),  # frozen, so one shared default is safe
) -> ArchiveContents:
    """Read the members for which ``want(member_path)`` is true, within ``limits``.

    Every member name is checked, wanted or not: one unsafe member refuses the archive.
    Paths inside tarballs (npm, sdist) are returned without their top folder.
    """
    name = path.name
    try:
        if name.endswith((".whl", ".zip")):
            return _read_zip(path, want, limits)
        if name.endswith((".tgz", ".tar.gz")):
            return _read_tar(path, want, limits, strip_root=True)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise ArchiveError(f"cannot read archive {name}: {type(exc).__name__}: {exc}") from exc
    raise ArchiveError(f"unknown archive format: {name}")


def _zip_declared_members(fh: BinaryIO) -> int | None:
    """The member count a zip's end-of-central-directory record declares (zip64 too), read before the
    directory itself is parsed; None when there is no end record (``zipfile`` then reports the corruption)."""
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    tail_size = min(size, 22 + 0xFFFF)  # the end record plus the longest archive comment
    fh.seek(size - tail_size)
    tail = fh.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or at + 22 > len(tail):
        return None
    count = int.from_bytes(tail[at + 10 : at + 12], "little")
    locator = at - 20
    if count == 0xFFFF and locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
        fh.seek(int.from_bytes(tail[locator + 8 : locator + 16], "little"))
        record = fh.read(56)
        if record[:4] == b"PK\x06\x06":
            count = int.from_bytes(record[32:40], "little")
    return count


def _read_capped(fh: BinaryIO, allowed: int) -> bytes | None:
    """Up to ``allowed`` bytes of ``fh``, or None when it holds more."""
    chunks, held = [], 0
    while block := fh.read(min(_CHUNK, allowed - held + 1)):
        held += len(block)
        if held > allowed:
            return None
        chunks.append(block)
    return b"".join(chunks)


def _read_zip(path: Path, want: Callable[[str], bool], limits: ArchiveLimits) -> ArchiveContents:
    out = ArchiveContents()
    with path.open("rb") as raw:
        declared = _zip_declared_members(raw)
        if declared is not None and declared > limits.package_members:
            raise limits.too_many_members(path.name, declared)
        with zipfile.ZipFile(raw) as zf:
            infos = zf.infolist()
            if len(infos) > limits.package_members:
                raise limits.too_many_members(path.name, len(infos))
            for info in infos:
                check_member_name(info.filename)
                if (info.external_attr >> 16) & 0o170000 == 0o120000:
                    raise UnsafeArchiveError(f"symlink in archive member {info.filename!r}")
            wanted = []
            for info in infos:
                if info.is_dir() or not want(info.filename):
                    continue
                if info.file_size > limits.member_bytes:
                    reason = f"member_too_large: {info.file_size} bytes > {limits.member_bytes}"
                    out.errors.append((info.filename, reason))
                    continue
                wanted.append(info)
            total = sum(info.file_size for info in wanted)
            if total > limits.package_bytes:  # refused before a byte is decompressed
                raise limits.too_many_bytes(path.name, total, declared=True)
            held = 0
            for info in wanted:
                with zf.open(info) as member:
                    data = _read_capped(member, min(info.file_size, limits.package_bytes - held))
                if data is None:  # the member unpacks to more than its header says
                    raise limits.too_many_bytes(path.name, held + info.file_size + 1, declared=False)
                held += len(data)
                out.files[info.filename] = data
    return out


def _read_tar(path: Path, want: Callable[[str], bool], limits: ArchiveLimits, strip_root: bool) -> ArchiveContents:
    out = ArchiveContents()
    members = held = 0
    with tarfile.open(path, mode="r:*") as tf:
        for member in tf:  # streaming: the big n8n tarball is read once, front to back
            members += 1
            if members > limits.package_members:
                raise limits.too_many_members(path.name, members)
            check_member_name(member.name)
            if member.issym() or member.islnk():
                raise UnsafeArchiveError(f"link in archive member {member.name!r} -> {member.linkname!r}")
            if not member.isfile():
                continue
            rel = posixpath.normpath(_strip_npm_root(member.name) if strip_root else member.name)
            if not want(rel):
                continue
            if member.size > limits.member_bytes:
                out.errors.append((rel, f"member_too_large: {member.size} bytes > {limits.member_bytes}"))
                continue
            if held + member.size > limits.package_bytes:
                raise limits.too_many_bytes(path.name, held + member.size, declared=False)
            fh = tf.extractfile(member)
            if fh is not None:
                data = _read_capped(fh, member.size)
                if data is None:
                    raise limits.too_many_bytes(path.name, held + member.size + 1, declared=False)
                held += len(data)
                out.files[rel] = data
    return out


def read_data_members(wheel: Path, want: Callable[[str], bool], drops: Counter) -> dict[str, bytes] | None:
    """The wanted members of a pinned data package (:data:`DATA_PACKAGE_LIMITS`), or None when the archive
    cannot be read at all (counted as ``unreadable_archive``); each member skipped for its size is counted as
    ``member_too_large``. Both are logged: a data source that shrinks must say why."""
    try:
        contents = read_archive(wheel, want, DATA_PACKAGE_LIMITS)
    except ArchiveError as exc:  # includes UnsafeArchiveError: the whole package is refused
        log.warning("cannot read %s: %s", wheel, exc)
        drops["unreadable_archive"] += 1
        return None
    for member, reason in contents.errors:
        log.warning("%s: skipped %s: %s", wheel.name, member, reason)
        drops["member_too_large"] += 1
    return contents.files


def read_data_sqlite(wheel: Path, member: str, query: str, drops: Counter) -> list[dict] | None:
    """The rows of ``query`` over the SQLite database ``member`` of a pinned data package, each a dict by column;
    None when the archive cannot be read (:func:`read_data_members` counts it) or has no such member (counted as
    ``missing_file``). The database is written to a temporary file and opened read-only; a database the query
    cannot read raises ``sqlite3.DatabaseError`` for the caller to name its settings."""
    files = read_data_members(wheel, lambda name: name == member, drops)
    if files is None:
        return None
    if member not in files:
        drops["missing_file"] += 1
        return None
    with tempfile.TemporaryDirectory(prefix="ecoagent-sqlite-") as tmp:
        path = Path(tmp) / PurePosixPath(member).name
        path.write_bytes(files.pop(member))
        connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        connection.row_factory = sqlite3.Row
        try:
            return [dict(row) for row in connection.execute(query)]
        finally:
            connection.close()
