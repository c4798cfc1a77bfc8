"""Where a run's outputs live: the one place that knows the folders under a run root.

A run root (the artifact store, ``--out DIR`` of ``ecoagent run``, or one Airflow run's partition) holds::

    <root>/crawl/  score/  synth/  label/      one folder per stage
    <root>/crawl_shards/<platform>/            the refresh DAG's per-platform crawls, merged into crawl/
                                               (a partitioned stage's partitions: <stage>_shards/<partition>/)
    <root>/release/<version>/                  built releases (the Hub-ready folders)
    <root>/rated/<version>/                    ``ecoagent rated`` on a release
    <root>/history/                            ``ecoagent history``: the catalog month by month (Figure 1)
    <root>/history_months/<YYYY-MM>/crawl|score/   one month's catalog, crawled and scored
    <root>/runs/<run_id>/                      one Airflow run: a run root of its own, same layout
    <root>/llm/responses.sqlite                the LLM response cache (a local root only)

The CLI, the stages (their default input and output folders), the DAGs and the release build all ask a
:class:`RunLayout`, so a folder name is written here and nowhere else. The files each stage writes into its folder
are declared here too (:data:`CRAWL_FILES` ... :data:`RATED_FILES`): producers and consumers use these names, and
``tests/ecoagent/test_layout.py`` fails when a module spells one of them itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ecoagent.config import Config

STAGES = ("crawl", "score", "synth", "label")


class StageFiles:
    """The files one stage writes into its folder, by role: ``CRAWL_FILES.tools`` is ``"tools.parquet"``."""

    def __init__(self, **names: str) -> None:
        self.__dict__.update(names)
        self._names = tuple(names.values())

    def names(self) -> tuple[str, ...]:
        """Every declared file name, in declaration order."""
        return self._names


CRAWL_FILES = StageFiles(tools="tools.parquet", summary="crawl_summary.json", fetch_manifest="fetch_manifest.json",
                         drops="crawl_drops.json", resolved_sources="sources.resolved.yaml",
                         livemcpbench_tool_map="livemcpbench_tool_map.json")  # fmt: skip
SCORE_FILES = StageFiles(tools="tools_scored.parquet", summary="score_summary.json",
                         reliability_plot="reliability_by_platform.png", gate_report="scored_catalog_gate.md",
                         gate_results="scored_catalog_gate.json")  # fmt: skip
SYNTH_FILES = StageFiles(queries="syn_queries.parquet", pairs="syn_pairs.parquet", summary="synth_summary.json")
LABEL_FILES = StageFiles(queries="real_queries.parquet", pairs="real_pairs.parquet", review_sample="review_sample.csv",
                         summary="label_summary.json", gold_queries="gold_queries.parquet",
                         gold_qrels="gold_qrels.parquet", gold_mapping="gold_mapping.json",
                         gold_pairs="gold_pairs.parquet")  # fmt: skip
# a release folder's own files (its data files are named by release.build.data_path)
RELEASE_FILES = StageFiles(manifest="manifest.json", card="README.md", changelog="CHANGELOG.md",
                           croissant="croissant.json", gate_folder="gate", gate_report="release_gate.md",
                           gate_leakage="leakage.json", gate_secrets="secrets.json")  # fmt: skip
TRACKED_RELEASE_FILES = (RELEASE_FILES.manifest, RELEASE_FILES.card, RELEASE_FILES.changelog)  # in releases/<v>/
RATED_FILES = StageFiles(metrics="metrics.json", report="report.md", model_folder="model",
                         train_record="rated_train.json")  # fmt: skip  # the record beside the chosen model

# --- the history step (pipeline/history.py, `ecoagent history`): the paper's Figure 1 and every tool's first month
HISTORY_FILES = StageFiles(table="figure1.json", markdown="figure1.md", plot="figure1.png",
                           first_seen="first_seen.parquet", publish_times="publish_times.json",
                           summary="history_summary.json")  # fmt: skip
# --- end of the history step's files

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

    # the stage folders most callers name (every stage's is folder(stage.name))
    crawl = property(lambda self: self.folder("crawl"))
    score = property(lambda self: self.folder("score"))
    synth = property(lambda self: self.folder("synth"))
    label = property(lambda self: self.folder("label"))

    def partition(self, stage: str, partition: str) -> str:
        """One partition of a stage the DAG runs per partition (the crawl: one platform), before the merge."""
        return self.folder(f"{stage}_shards/{partition}")

    @property
    def releases(self) -> str:
        return self.folder("release")

    def release(self, version: str) -> str:
        return f"{self.releases}/{version}"

    def rated(self, version: str) -> str:
        return self.folder(f"rated/{version}")

    # --- the history step
    @property
    def history(self) -> str:
        return self.folder("history")

    def history_month(self, month: str, stage: str) -> str:
        """One month's catalog as it stood then: its crawl or score folder."""
        return self.folder(f"history_months/{month}/{stage}")

    # --- end of the history step

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
