"""Where a run's outputs live: the one place that knows the folders under a run root.

A run root (the artifact store, ``--out DIR`` of ``ecoagent run``, or one Airflow run's partition) holds::

    <root>/crawl/  score/  synth/  label/      one folder per stage
    <root>/crawl_shards/<platform>/            the refresh DAG's per-platform crawls, merged into crawl/
    <root>/release/<version>/                  built releases (the Hub-ready folders)
    <root>/rated/<version>/                    ``ecoagent rated`` on a release
    <root>/runs/<run_id>/                      one Airflow run: a run root of its own, same layout
    <root>/llm/responses.sqlite                the LLM response cache (a local root only)

The CLI, the stages (their default input and output folders), the DAGs and the release build all ask a
:class:`RunLayout`, so a folder name is written here and nowhere else. The files each stage writes into its folder
are declared here too (:data:`CRAWL_FILES` ... :data:`RATED_FILES`): producers and consumers use these names, and
``tests/ecoagent/test_layout.py`` fails when a module spells one of them itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ecoagent.config import Config

STAGES = ("crawl", "score", "synth", "label")


@dataclass(frozen=True)
class StageFiles:
    """The files one stage writes into its folder."""

    def names(self) -> tuple[str, ...]:
        """Every declared file name, in declaration order."""
        return tuple(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True)
class CrawlFiles(StageFiles):
    tools: str = "tools.parquet"
    summary: str = "crawl_summary.json"
    fetch_manifest: str = "fetch_manifest.json"
    drops: str = "crawl_drops.json"
    resolved_sources: str = "sources.resolved.yaml"
    livemcpbench_tool_map: str = "livemcpbench_tool_map.json"  # each tool LiveMCPBench dumped -> its catalog tool_id
    # every n8n node version's actions, defaults and catalog tool (crawlers/n8n/action_table.py); the label stage
    # resolves workflow templates' nodes with it
    n8n_actions: str = "n8n_actions.parquet"


@dataclass(frozen=True)
class ScoreFiles(StageFiles):
    tools: str = "tools_scored.parquet"
    summary: str = "score_summary.json"
    reliability_plot: str = "reliability_by_platform.png"
    gate_report: str = "scored_catalog_gate.md"
    gate_results: str = "scored_catalog_gate.json"


@dataclass(frozen=True)
class SynthFiles(StageFiles):
    queries: str = "syn_queries.parquet"
    pairs: str = "syn_pairs.parquet"
    summary: str = "synth_summary.json"


@dataclass(frozen=True)
class LabelFiles(StageFiles):
    queries: str = "real_queries.parquet"
    pairs: str = "real_pairs.parquet"
    review_sample: str = "review_sample.csv"
    summary: str = "label_summary.json"
    gold_queries: str = "gold_queries.parquet"
    gold_qrels: str = "gold_qrels.parquet"
    gold_mapping: str = "gold_mapping.json"
    gold_pairs: str = "gold_pairs.parquet"
    # label.workflows (labeling/workflows): n8n workflow templates, labelled by construction
    workflow_queries: str = "workflow_queries.parquet"
    workflow_qrels: str = "workflow_qrels.parquet"
    workflow_mapping: str = "workflow_mapping.json"  # every node occurrence counted, per node type
    workflow_pairs: str = "workflow_pairs.parquet"  # the Real labeler's candidate pairs on them, scored
    workflow_review_sample: str = "workflow_review_sample.csv"  # blind: the native labels hidden
    workflow_review_key: str = "workflow_review_key.csv"


@dataclass(frozen=True)
class ReleaseFiles(StageFiles):
    """A release folder's own files (its data files are named by ``release.build.data_path``)."""

    manifest: str = "manifest.json"
    card: str = "README.md"
    changelog: str = "CHANGELOG.md"
    croissant: str = "croissant.json"
    gate_folder: str = "gate"
    gate_report: str = "release_gate.md"
    gate_leakage: str = "leakage.json"
    gate_secrets: str = "secrets.json"

    @property
    def tracked(self) -> tuple[str, ...]:
        """The files copied into the repository's ``releases/<version>/``."""
        return (self.manifest, self.card, self.changelog)


@dataclass(frozen=True)
class RatedFiles(StageFiles):
    metrics: str = "metrics.json"
    report: str = "report.md"
    model_folder: str = "model"
    train_record: str = "rated_train.json"  # beside the chosen model's weights


CRAWL_FILES = CrawlFiles()
SCORE_FILES = ScoreFiles()
SYNTH_FILES = SynthFiles()
LABEL_FILES = LabelFiles()
RELEASE_FILES = ReleaseFiles()
RATED_FILES = RatedFiles()

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
