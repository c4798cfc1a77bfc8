"""Build a release from one run's stage folders: the step shared by ``ecoagent run``, ``ecoagent
release build`` and the refresh DAG.

``<root>/{crawl,score,synth,label}/`` -> ``<root>/release/<version>/`` (the Hub-ready folder), and
a copy of its manifest, card and changelog in the repository's ``releases/<version>/``.
"""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

from ecoagent.config import Config
from ecoagent.release.build import ReleaseInputs, ReleaseResult, build_release

TRACKED_FILES = ("manifest.json", "README.md", "CHANGELOG.md")


SEMVER = re.compile(r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def default_version(now: datetime | None = None) -> str:
    """The UTC date as MAJOR.MINOR.PATCH without leading zeros (Croissant wants semantic versions)."""
    now = now or datetime.now(UTC)
    return f"{now.year}.{now.month}.{now.day}"


def _version_key(folder: Path) -> tuple:
    # 2026.11.3 < 2026.11.29: compare versions as numbers, not strings
    match = SEMVER.match(folder.name)
    return (1, *map(int, match.groups())) if match else (0, folder.name)


def newest_release(release_root: Path, exclude: str | None = None) -> Path | None:
    """The most recent release folder under ``release_root`` (by version name), other than ``exclude``.

    Hidden folders are copies being promoted (``.<version>.tmp-*``), never a release yet.
    """
    if not release_root.is_dir():
        return None
    folders = sorted(
        (
            p
            for p in release_root.iterdir()
            if (p / "manifest.json").is_file() and p.name != exclude and not p.name.startswith(".")
        ),
        key=_version_key,
    )
    return folders[-1] if folders else None


def release_run(
    config: Config,
    root: str,
    version: str | None = None,
    previous: str | None = None,
    created: str | None = None,
    track: bool = True,
) -> ReleaseResult:
    """Build ``<root>/release/<version>`` from the stage folders under ``root``."""
    root_path = Path(root)
    version = version or config.release.version or default_version()
    if not SEMVER.match(version):
        raise ValueError(
            f"release version {version!r} must look like MAJOR.MINOR.PATCH, e.g. 2026.11.29 "
            "(setting release.version or --version; Croissant requires a semantic version)"
        )
    prev = Path(previous or config.release.previous) if (previous or config.release.previous) else None
    prev = prev or newest_release(root_path / "release", exclude=version)
    inputs = ReleaseInputs(*(str(root_path / stage) for stage in ("crawl", "score", "synth", "label")))
    result = build_release(inputs, root_path / "release" / version, version=version, config=config, previous=prev,
                           created=created)  # fmt: skip
    if track:
        tracked = config.resolve_path(config.release.repo_releases_dir) / version
        tracked.mkdir(parents=True, exist_ok=True)
        for name in TRACKED_FILES:
            shutil.copyfile(result.folder / name, tracked / name)
    return result
