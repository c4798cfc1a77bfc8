"""Where a run's outputs live: the one place that knows the folders under a run root.

A run root (the artifact store, ``--out DIR`` of ``ecoagent run``, or one Airflow run's partition) holds::

    <root>/crawl/  score/  synth/  label/      one folder per stage
    <root>/crawl_shards/<platform>/            the refresh DAG's per-platform crawls, merged into crawl/
    <root>/release/<version>/                  built releases (the Hub-ready folders)
    <root>/rated/<version>/                    ``ecoagent rated`` on a release
    <root>/runs/<run_id>/                      one Airflow run: a run root of its own, same layout
    <root>/llm/responses.sqlite                the LLM response cache (a local root only)

The CLI, the stages (their default input and output folders), the DAGs and the release build all ask a
:class:`RunLayout`, so a folder name is written here and nowhere else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ecoagent.config import Config

STAGES = ("crawl", "score", "synth", "label")

SEMVER = re.compile(r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def safe_run_id(run_id: str) -> str:
    """A run id as one folder name (manual__2026-11-29T12:00:00+00:00 has ':' and '+')."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in run_id)


def newest_release(release_root: str | Path, exclude: str | None = None) -> Path | None:
    """The most recent release folder under ``release_root`` (by version), other than ``exclude``; None if none.

    Hidden folders are copies being promoted (``.<version>.tmp-*``), never a release yet.
    """
    root = Path(release_root)
    if not root.is_dir():
        return None
    folders = sorted(
        (
            p
            for p in root.iterdir()
            if (p / "manifest.json").is_file() and p.name != exclude and not p.name.startswith(".")
        ),
        key=_version_key,
    )
    return folders[-1] if folders else None


def _version_key(folder: Path) -> tuple:
    # 2026.11.3 < 2026.11.29: compare versions as numbers, not strings
    match = SEMVER.match(folder.name)
    return (1, *map(int, match.groups())) if match else (0, folder.name)


@dataclass(frozen=True)
class RunLayout:
    """The folders of one run root: a local path or an fsspec URL (``s3://bucket/ecoagent``)."""

    root: str

    def __post_init__(self) -> None:
        # file:// is a local folder: keep plain paths so what we print and store is one spelling
        object.__setattr__(self, "root", str(self.root).removeprefix("file://").rstrip("/") or "/")

    @classmethod
    def of(cls, config: Config, out: str | None = None) -> RunLayout:
        """``out`` when given (as the user wrote it), else the configured store (a local one under the project root)."""
        if out:
            return cls(out)
        store = config.store.removeprefix("file://")
        return cls(store if "://" in store else str(config.resolve_path(store)))

    @property
    def is_local(self) -> bool:
        return "://" not in self.root

    def folder(self, name: str) -> str:
        return f"{self.root}/{name}"

    @property
    def crawl(self) -> str:
        return self.folder("crawl")

    @property
    def score(self) -> str:
        return self.folder("score")

    @property
    def synth(self) -> str:
        return self.folder("synth")

    @property
    def label(self) -> str:
        return self.folder("label")

    def crawl_shard(self, platform: str) -> str:
        return self.folder(f"crawl_shards/{platform}")

    @property
    def releases(self) -> str:
        return self.folder("release")

    def release(self, version: str) -> str:
        return f"{self.releases}/{version}"

    def rated(self, version: str) -> str:
        return self.folder(f"rated/{version}")

    def run(self, run_id: str) -> RunLayout:
        """One orchestrated run's own root: a rerun of a task overwrites its own outputs, runs never mix."""
        return RunLayout(self.folder(f"runs/{safe_run_id(run_id)}"))

    @property
    def llm_cache(self) -> Path:
        if not self.is_local:
            raise ValueError(
                f"store={self.root!r} is not a local folder and the LLM response cache is a SQLite file: "
                "set llm.cache_path to a local path"
            )
        return Path(self.root) / "llm" / "responses.sqlite"
