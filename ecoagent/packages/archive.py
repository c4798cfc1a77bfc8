"""Read package archives (wheels, sdists, npm tarballs) in memory, refusing anything unsafe.

Nothing is extracted to disk. A member with an absolute path, a ``..`` component or a link
(symlink or hard link) makes the whole archive unsafe: such a package is refused, with a recorded
error, rather than partly read. A single member above the size limit is skipped and reported,
the rest of the package is still read.
"""

from __future__ import annotations

import posixpath
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

DEFAULT_MAX_MEMBER_BYTES = 25 * 1024 * 1024


class ArchiveError(Exception):
    """The archive cannot be read at all (corrupt, unknown format)."""


class UnsafeArchiveError(ArchiveError):
    """The archive holds a member that could escape an extraction directory."""


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
    max_member_bytes: int = DEFAULT_MAX_MEMBER_BYTES,
) -> ArchiveContents:
    """Read the members for which ``want(member_path)`` is true.

    Every member name is checked, wanted or not: one unsafe member refuses the archive.
    Paths inside tarballs (npm, sdist) are returned without their top folder.
    """
    name = path.name
    try:
        if name.endswith((".whl", ".zip")):
            return _read_zip(path, want, max_member_bytes)
        if name.endswith((".tgz", ".tar.gz")):
            return _read_tar(path, want, max_member_bytes, strip_root=True)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise ArchiveError(f"cannot read archive {name}: {type(exc).__name__}: {exc}") from exc
    raise ArchiveError(f"unknown archive format: {name}")


def _read_zip(path: Path, want: Callable[[str], bool], limit: int) -> ArchiveContents:
    out = ArchiveContents()
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        for info in infos:
            check_member_name(info.filename)
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                raise UnsafeArchiveError(f"symlink in archive member {info.filename!r}")
        for info in infos:
            if info.is_dir() or not want(info.filename):
                continue
            if info.file_size > limit:
                out.errors.append((info.filename, f"member_too_large: {info.file_size} bytes > {limit}"))
                continue
            out.files[info.filename] = zf.read(info)
    return out


def _read_tar(path: Path, want: Callable[[str], bool], limit: int, strip_root: bool) -> ArchiveContents:
    out = ArchiveContents()
    with tarfile.open(path, mode="r:*") as tf:
        for member in tf:  # streaming: the big n8n tarball is read once, front to back
            check_member_name(member.name)
            if member.issym() or member.islnk():
                raise UnsafeArchiveError(f"link in archive member {member.name!r} -> {member.linkname!r}")
            if not member.isfile():
                continue
            rel = posixpath.normpath(_strip_npm_root(member.name) if strip_root else member.name)
            if not want(rel):
                continue
            if member.size > limit:
                out.errors.append((rel, f"member_too_large: {member.size} bytes > {limit}"))
                continue
            fh = tf.extractfile(member)
            if fh is not None:
                out.files[rel] = fh.read()
    return out
