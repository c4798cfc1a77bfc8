"""Where a run's outputs live: the one place that knows the folders under a run root.

A run root (the artifact store, ``--out DIR`` of ``ecoagent run``, or one Airflow run's partition) holds::

    <root>/<stage>/                            one folder per stage or step, named by it (``folder(stage.name)``):
                                               crawl, score, synth, label, history; the release stage's holds
                                               <version>/ folders (the Hub-ready releases)
    <root>/<stage>_shards/<partition>/         a partitioned stage's partitions (the refresh DAG's per-platform
                                               crawls), merged into its folder
    <root>/history_months/<YYYY-MM>/<stage>/   the history step's months, each crawled and scored
    <root>/rated/<version>/                    ``ecoagent rated`` on a release (the CLI and the DAG alike)
    <root>/runs/<run_id>/                      one Airflow run: a run root of its own, same layout
    <root>/<stage>_llm/                        an orchestrated LLM stage's plan, requests and shards' answers
    <root>/llm/responses.sqlite                the LLM response cache (a local root only)

The CLI, the stages, the DAGs and the release build all ask a :class:`RunLayout`; a stage's folder is named by the
stage itself (:attr:`ecoagent.stage.Stage.name`), never spelled here. The files each stage writes into its folder
are declared here (:data:`CRAWL_FILES` ... :data:`RATED_FILES`): producers and consumers use these names, and
``tests/ecoagent/test_layout.py`` fails when a module spells one of them itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ecoagent.config import Config

_MARKERS: dict[str, str] = {}  # a declared file name -> the marker of the folder it lives in
_PRODUCERS: dict[str, str] = {}  # a declared file name -> the command writing it (its stage says so: made_by)


def commit_marker(name: str) -> str | None:
    """The file that commits the folder ``name`` (a declared output file) lives in; None for undeclared files."""
    return _MARKERS.get(name)


def producer_of(name: str) -> str:
    """The CLI command that writes the declared file ``name`` (its stage declares it), for messages."""
    if name not in _PRODUCERS:
        _register_installed_stages()
    return _PRODUCERS.get(name, f"<the stage writing {name}>")


def _register_installed_stages() -> None:
    """Import the ``stage`` module of every installed stage package (found by its ``ecoagent.settings`` entry point),
    so a body function called on its own (a library call, a test) still names the command that makes its input."""
    from importlib import import_module, util
    from importlib.metadata import entry_points

    for entry in entry_points(group="ecoagent.settings"):
        module = entry.value.split(":")[0].rsplit(".", 1)[0] + ".stage"
        if util.find_spec(module) is not None:
            import_module(module)


class StageFiles:
    """The files one stage writes into its folder, by role: ``CRAWL_FILES.tools`` is ``"tools.parquet"``.

    ``marker`` names the role of the file that commits the folder on object storage (written last, see
    :mod:`ecoagent.store`): a reader trusts a folder there only once that file is in it.
    """

    def __init__(self, *, marker: str | None = None, **names: str) -> None:
        self.__dict__.update(names)
        self._names = tuple(names.values())
        self.marker = names[marker] if marker else None
        if self.marker:
            _MARKERS.update(dict.fromkeys(self._names, self.marker))

    def names(self) -> tuple[str, ...]:
        """Every declared file name, in declaration order."""
        return self._names

    def made_by(self, command: str) -> None:
        """The CLI command writing these files (``crawl``, ``release build``): the stage declaring them says so."""
        _PRODUCERS.update(dict.fromkeys(self._names, command))


CRAWL_FILES = StageFiles(marker="summary", tools="tools.parquet", summary="crawl_summary.json",
                         fetch_manifest="fetch_manifest.json", drops="crawl_drops.json",
                         resolved_sources="sources.resolved.yaml",
                         livemcpbench_tool_map="livemcpbench_tool_map.json",
                         # every n8n node version's actions, defaults and catalog tool (crawlers/n8n/action_table.py)
                         n8n_actions="n8n_actions.parquet")  # fmt: skip
SCORE_FILES = StageFiles(marker="summary", tools="tools_scored.parquet", summary="score_summary.json",
                         reliability_plot="reliability_by_platform.png", gate_report="scored_catalog_gate.md",
                         gate_results="scored_catalog_gate.json")  # fmt: skip
SYNTH_FILES = StageFiles(marker="summary", queries="syn_queries.parquet", pairs="syn_pairs.parquet",
                         summary="synth_summary.json")  # fmt: skip
LABEL_FILES = StageFiles(marker="summary", queries="real_queries.parquet", pairs="real_pairs.parquet",
                         review_sample="review_sample.csv", summary="label_summary.json",
                         gold_queries="gold_queries.parquet", gold_qrels="gold_qrels.parquet",
                         gold_mapping="gold_mapping.json", gold_pairs="gold_pairs.parquet",
                         # label.workflows (labeling/workflows): n8n workflow templates, labelled by construction
                         workflow_queries="workflow_queries.parquet", workflow_qrels="workflow_qrels.parquet",
                         workflow_mapping="workflow_mapping.json", workflow_pairs="workflow_pairs.parquet",
                         workflow_review_sample="workflow_review_sample.csv",
                         workflow_review_key="workflow_review_key.csv",
                         # label.package_requests (labeling/package_requests): the packages' own example requests
                         package_request_queries="package_request_queries.parquet",
                         package_request_qrels="package_request_qrels.parquet",
                         package_request_report="package_request_report.json")  # fmt: skip
# a release folder's own files (its data files are named by release.build.data_path)
RELEASE_FILES = StageFiles(marker="manifest", manifest="manifest.json", card="README.md", changelog="CHANGELOG.md",
                           croissant="croissant.json", gate_folder="gate", gate_report="release_gate.md",
                           gate_leakage="leakage.json", gate_secrets="secrets.json",
                           gate_personal_data="personal_data.json")  # fmt: skip
TRACKED_RELEASE_FILES = (RELEASE_FILES.manifest, RELEASE_FILES.card, RELEASE_FILES.changelog)  # in releases/<v>/
# RATED's folder (rated/stage.py): one file per step (train, Table 1, Table 2, the replay, the paper-scale view,
# Table 3: what each found and the fingerprint it is reused by), the report and metrics.json rendered from them, what
# the card step quoted in the release's card, the models
RATED_FILES = StageFiles(train="train.json", table1="table1.json", table2="table2.json", replay="replay.json",
                         paper_scale="paper_scale_tables.json", table3="table3.json", metrics="metrics.json",
                         report="report.md", card="card.json", model_folder="model",
                         # the record beside the chosen model, and the static query encoder made from it
                         train_record="rated_train.json", static_query_encoder="static-query-encoder")  # fmt: skip
# a RATED folder commits by the trained model's record (the train step writes the folder first, each later step
# adds its file to it)
RATED_MARKER = f"{RATED_FILES.model_folder}/{RATED_FILES.train_record}"
# an LLM stage's exchange folder in an orchestrated run (<run>/<stage>_llm/): the plan computed once, its requests
# (what the shard tasks answer), and one answers file per shard
LLM_FILES = StageFiles(marker="requests", plan="plan.pkl", requests="requests.jsonl", answers="answers")

# the history step (history/, `ecoagent history`): the paper's Figure 1, every tool's first month and what happened
# to each tool month by month (tool_events: removed, renamed, deprecated, ...; schemas/tool_event.py)
HISTORY_FILES = StageFiles(marker="summary", table="figure1.json", markdown="figure1.md", plot="figure1.png",
                           first_seen="first_seen.parquet", tool_events="tool_events.parquet",
                           publish_times="publish_times.json", failure="failure_prediction.json",
                           failure_plot="failure_by_decile.png", summary="history_summary.json")  # fmt: skip

SEMVER = re.compile(r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def safe_run_id(run_id: str) -> str:
    """A run id as one folder name (manual__2026-11-29T12:00:00+00:00 has ':' and '+')."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in run_id)


def newest_release(release_root: str | Path, exclude: str | None = None) -> str | None:
    """The most recent release folder under ``release_root`` (a local path or an fsspec URL), by version, other than
    ``exclude``; None if none. A folder is a release once its manifest is there (the file that commits it).

    Hidden folders are copies being promoted (``.<version>.tmp-*``), never a release yet.
    """
    import fsspec

    fs, root = fsspec.core.url_to_fs(str(release_root))
    root = root.rstrip("/")
    if not fs.isdir(root):
        return None
    names = (e["name"].rstrip("/").rsplit("/", 1)[-1] for e in fs.ls(root, detail=True) if e["type"] == "directory")
    candidates = sorted((n for n in names if n != exclude and not n.startswith(".")), key=_version_key, reverse=True)
    newest = next((n for n in candidates if fs.exists(f"{root}/{n}/{RELEASE_FILES.manifest}")), None)
    if newest is None:
        return None
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return f"{root}/{newest}" if protocol in ("file", "local") else f"{protocol}://{root}/{newest}"


def _version_key(name: str) -> tuple:
    # 2026.11.3 < 2026.11.29: compare versions as numbers, not strings
    match = SEMVER.match(name)
    return (1, *map(int, match.groups())) if match else (0, name)


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
        """The folder of the stage (or step) ``name`` under the root: ``layout.folder(stage.name)``."""
        return f"{self.root}/{name}"

    def partition(self, stage: str, partition: str) -> str:
        """One partition of a stage the DAG runs per partition (the crawl: one platform), before the merge."""
        return self.folder(f"{stage}_shards/{partition}")

    def versioned(self, stage: str, version: str) -> str:
        """The folder a stage keeps for one release ``version`` (RATED: ``<root>/rated/<version>``)."""
        return self.folder(f"{stage}/{version}")

    def llm_exchange(self, stage: str) -> str:
        """Where an orchestrated run's LLM stage keeps its plan, its requests and its shards' answers."""
        return self.folder(f"{stage}_llm")

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
