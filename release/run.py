"""Build a release from one run's stage folders: what the release stage (:mod:`release.stage`) runs for
``ecoagent run``, ``ecoagent release build`` and the refresh DAG alike.

The stage folders (``ReleaseInputs``) -> ``<root>/release/<version>/`` (the Hub-ready folder; the root a local folder
or object storage), and a copy of its manifest, card and changelog in the repository's ``releases/<version>/``.
"""

from __future__ import annotations

from ecoagent.config import Config
from ecoagent.layout import newest_release
from ecoagent.release_format.card_quote import track_release
from release.build import ReleaseInputs, ReleaseResult, build_release, release_version


def release_run(
    config: Config,
    inputs: ReleaseInputs,
    releases: str,
    *,
    version: str | None = None,
    previous: str | None = None,
    previous_releases: str | None = None,
    created: str | None = None,
    track: bool = True,
) -> ReleaseResult:
    """Build ``<releases>/<version>`` from ``inputs``.

    ``version``: else ``release.version``, else the UTC date. ``previous``: else ``release.previous``, else the
    newest release under ``previous_releases`` (default: ``releases``), other than this version.
    """
    version = release_version(config, version)
    prev = previous or config.release.previous or newest_release(previous_releases or releases, exclude=version)
    result = build_release(inputs, f"{str(releases).rstrip('/')}/{version}", version=version, config=config,
                           previous=prev, created=created)  # fmt: skip
    if track:
        track_release(result.folder, config.resolve_path(config.release.repo_releases_dir) / version)
    return result
