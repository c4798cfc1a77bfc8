"""Build tiny real package archives for tests: wheels and npm tarballs made on the spot."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path


def _dist_name(name: str) -> str:
    return name.replace("-", "_")


def build_wheel(
    directory: Path,
    name: str,
    version: str,
    files: dict[str, str | bytes],
    metadata_extra: str = "",
) -> Path:
    """Write ``<name>-<version>-py3-none-any.whl`` holding ``files`` plus a dist-info METADATA."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{_dist_name(name)}-{version}-py3-none-any.whl"
    info = f"{_dist_name(name)}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata_extra}"
    with zipfile.ZipFile(path, "w") as zf:
        for rel, content in sorted(files.items()):
            zf.writestr(rel, content)
        zf.writestr(f"{info}/METADATA", metadata)
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    return path


def npm_tarball_name(name: str, version: str) -> str:
    return f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


def build_npm_tgz(
    directory: Path,
    name: str,
    version: str,
    files: dict[str, str | bytes],
    package_json: dict | None = None,
) -> Path:
    """Write an npm-style tarball (everything under ``package/``) like ``npm pack`` makes."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / npm_tarball_name(name, version)
    pj = {"name": name, "version": version, **(package_json or {})}
    members = {"package.json": json.dumps(pj, indent=2), **files}
    with tarfile.open(path, "w:gz") as tf:
        for rel, content in sorted(members.items()):
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(f"package/{rel}")
            info.size = len(data)
            info.mtime = 0
            tf.addfile(info, io.BytesIO(data))
    return path


def package_files(name: str, version: str, registry: str, files: dict[str, str | bytes], listing: str = "platform"):
    """A ``PackageFiles`` straight from a dict, for extractor unit tests that need no archive."""
    from crawlers.base import PackageFiles

    data = {k: (v.encode() if isinstance(v, str) else v) for k, v in files.items()}
    return PackageFiles(name=name, version=version, registry=registry, files=data, listing=listing)
