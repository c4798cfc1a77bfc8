"""Build a Hub-ready EcoAgent release folder from the stage outputs.

``build_release(inputs, out_dir, version=..., config=...)`` reads the crawl, score, synth and label outputs and
writes, into ``out_dir`` (the lead's ``<store>/release/<version>/``):

- one Parquet file per config and split, ``<config>/<split>-00000-of-00001.parquet``:

  ============================  =====================================  ==========================================
  config                        columns                                splits
  ============================  =====================================  ==========================================
  ``tools``                     every column of tools_scored.parquet,  ``train`` (HF's name for a single table)
                                and ``status``: active, deprecated,
                                removed since <YYYY-MM>
  ``tool-events``               tool_id, platform, package, event,     ``train``; only with a history's tool events
                                month, last_seen, evidence,
                                new_tool_id (schemas/tool_event.py)
  ``syn-corpus``/``real-corpus`` ``_id``, ``title``, ``text`` + platform, ``corpus`` (MTEB: the one split of a
                                r_static, reliable                     corpus); both configs read one file
  ``syn-queries``               ``_id``, ``text``, intent_type,        train / validation / test / cold_start
                                on_topic
  ``syn-qrels``/``real-qrels``  ``query-id``, ``corpus-id``, ``score`` train / validation / test / cold_start
  ``real-queries``              ``_id``, ``text``, source, category    train / validation / test / cold_start
  ``syn-pairs``                 query_id, tool_id, label,              train / validation / test / cold_start
                                negative_type, split
  ``gold-corpus``               the corpus file                        ``corpus``
  ``gold-queries``              ``_id``, ``text``, category,           ``test`` only
                                complete, ambiguous
  ``gold-qrels``                ``query-id``, ``corpus-id``, ``score``, ``test`` only (several tools per query)
                                alternative (score 0: acceptable, not
                                required)
  ``workflows-corpus``,         the corpus file                        ``corpus``
  ``workflows-title-corpus``
  ``workflows-queries``         ``_id``, ``text`` (the task: title +   train / validation / test / cold_start
                                cleaned description), title,
                                template_id, views, created_at,
                                author_name, author_username,
                                author_verified, url, stripped,
                                test_cold_start
  ``workflows-qrels``           ``query-id``, ``corpus-id``, ``score`` train / validation / test / cold_start
                                (the grade: 2 or 1; 0 for an
                                alternative), alternative
  ``workflows-title-queries``   ``_id``, ``text`` (the title)          train / validation / test / cold_start
  ``workflows-title-qrels``     the rows of ``workflows-qrels``        train / validation / test / cold_start
  ``workflows-disjoint-corpus`` the corpus file                        ``corpus``
  ``workflows-disjoint-queries`` the columns of ``workflows-queries``  train / validation / test (by service)
                                but ``test_cold_start``
  ``workflows-disjoint-qrels``  the rows of ``workflows-qrels`` of     train / validation / test (by service)
                                its queries
  ``package-requests-corpus``   the corpus file                        ``corpus``
  ``package-requests-queries``  ``_id``, ``text``, platform, package,  train / validation / test (by package)
                                version, license, member, line,
                                heading, tie, label_level
  ``package-requests-qrels``    ``query-id``, ``corpus-id``, ``score`` train / validation / test (by package)
  ============================  =====================================  ==========================================

  The gold configs (the human-annotated LiveMCPBench tasks mapped to catalog tools by the label stage,
  :mod:`labeling.gold`) are there when the label stage wrote them (``label.gold``); their mapping report is
  ``gold-mapping.json``, listed in the manifest like every other file.

  The workflows configs (n8n.io workflow templates labelled by construction, :mod:`labeling.workflows`) are there
  when the label stage wrote the workflow set (``label.workflows.enabled``): the queries of status ``kept`` with at
  least one qrel on this catalog, in the label stage's grouped temporal split (clone families together, the newest
  months test). ``score`` is the grade (2: the title names the tool's service; 1: only the description does);
  ``alternative`` marks a tool of a node stored without parameters (operation unknown): acceptable, not required.
  ``test_cold_start`` marks a test query with a tool no train or validation query has (the label stage's
  cold-start view); the ``cold_start`` split is the release's, as for Real (tools new since the previous release).
  The title track shares the queries' ids and qrels, its text the title alone. ``workflows-disjoint`` is the task
  view split by service (:mod:`release.workflows_disjoint`): no tool of a test query's qrels is a tool of a train or
  validation query, a query whose tools fall in two splits is left out (counted in the manifest's
  ``stats.workflows_disjoint``); it is released when it has train and test queries. Their mapping report, per node
  type, is ``workflow-mapping.json``, listed in the manifest. A label folder without workflow files gives the same
  release, byte for byte, as before the workflow set existed.

  The package-requests configs (the example requests of the LangChain, LlamaIndex, CrewAI and MCP packages' own
  docs, :mod:`labeling.package_requests`) are there when the label stage wrote them (``label.package_requests``)
  and they have train and test queries: each request with its tools on this catalog (``label_level`` ``tool``: the
  tool the docs give it to; ``package``: the package's tool set, one of which serves it), split by package so that
  no tool is in two splits. Their report is ``package-request-report.json``.

  ``tools.status`` and ``tool-events`` come from the newest ``ecoagent history`` folder's ``tool_events.parquet``
  (:mod:`history.events`: removed, renamed, restored, deprecated, package_deprecated, description_changed, each
  with its month and evidence): a tool whose newest removal or rename was not followed by its return is ``removed
  since`` that month, any other tool ``deprecated`` or ``active`` by the catalog's ``deprecated`` flag. Without a
  history (or one written before it had tool events) the status is the catalog's flag alone, and the card says so.

  Configs and file names follow MTEB's multi-subset retrieval layout (``{subset}-corpus``, ``{subset}-queries``,
  ``{subset}-qrels``), so ``mteb``'s ``RetrievalDatasetLoader(..., config="syn")`` reads a split directly.
  **Empty splits are not written and not listed** in the card: ``datasets`` refuses a listed split with no rows
  ("corresponds to no data"), so an initial release has no ``cold_start`` split, and a tiny build may have no
  ``validation`` split. The gate requires non-empty train and test splits.
- ``README.md`` (the dataset card, :mod:`release.card`), with Table 1's lexical rows (TF-IDF, BM25) on the staged
  release's test sets at both corpus scales (:mod:`release.baselines`), ``croissant.json`` (Croissant 1.0 + RAI,
  validated with mlcroissant, :mod:`release.croissant`), ``CHANGELOG.md`` (:mod:`release.changelog`),
  ``manifest.json`` (:mod:`release.manifest`) and the gate report under ``gate/``.

The steps, each in its module: read the inputs (:mod:`release.inputs`), make the tables (:mod:`release.tables`),
collect the release info and the manifest (:mod:`release.manifest`), score the baselines (:mod:`release.baselines`),
write the changelog (:mod:`release.changelog`).

Splits. Real queries arrive split (:mod:`labeling.split`). Syn queries are split here with the same
:func:`ecoagent.text.splits.assign_splits` (grouped by normalized text and near-duplicate cluster, a group's split a
pure function of (seed, group id), ratios ``release.syn_split_ratios``, near-duplicates above
``label.dedup_threshold``, the same setting the gate's leakage check uses); groups that share a synth ``dedup_cluster``
are merged and take the split of their smallest group id, so a refresh never moves an existing group.

Temporal cold start. With a ``previous`` release folder, a tool whose ``tool_id`` is not among the previous
release's tools is *new*. Every query with a new positive tool (syn: its tool; real: any verified tool) moves,
with its whole near-duplicate group, out of train/validation/test into the ``cold_start`` split, and its
qrels and pairs go with it: no model trained on this release's train split has seen a new tool as a positive.
A tool is new for one release only: in the next refresh its queries fall back into the split
``assign_splits`` gives their group, which it gave all along.

The build writes everything into a temporary sibling folder (:class:`ecoagent.store.StageFolder`, as every stage
does), runs the release gate on it, and only then renames it to ``out_dir`` (replacing a previous build of the
same version); a killed build's temporary folder is removed when the next build of that version starts. A failing
gate removes the temporary folder, keeps its report in ``<out_dir>.gate-failed/`` and raises ``QualityGateFailed``.
Parquet is written by :class:`ArtifactStore` (no statistics, one row group, sorted rows), and nothing but ``created``
depends on the clock, so two builds of the same inputs with the same ``created`` (``SOURCE_DATE_EPOCH``) have
identical checksums.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from ecoagent.config import Config, ConfigError
from ecoagent.hashing import sha256_file
from ecoagent.layout import HISTORY_FILES, RELEASE_FILES, SEMVER
from ecoagent.runtime import context
from ecoagent.runtime.quality_gate import GateResult, QualityGateFailed
from ecoagent.store import ArtifactStore, StageFolder
from ecoagent.text.personal_data import KINDS as PERSONAL_DATA_KINDS
from ecoagent.text.personal_data import scrub_frame
from ecoagent.text.redaction import redact, redact_frame, redact_value
from release.baselines import release_baselines
from release.changelog import changelog
from release.embeddings import embedding_tables
from release.inputs import ReleaseInputs, read_inputs, read_previous
from release.manifest import release_info, release_manifest
from release.tables import (
    CORPUS_SPLIT,
    GOLD_SPLIT,
    PACKAGE_REQUESTS,
    WORKFLOWS,
    file_table,
    personal_text_columns,
    release_tables,
)

__all__ = ["ReleaseInputs", "ReleaseResult", "build_release", "build_time", "data_path", "release_version"]

log = logging.getLogger(__name__)

CORPUS_FILE = f"corpus/{CORPUS_SPLIT}-00000-of-00001.parquet"
GOLD_MAPPING = "gold-mapping.json"
FIGURE_1 = HISTORY_FILES.plot  # the newest `ecoagent history` curve, embedded in the card
FAILURE_FIGURE = HISTORY_FILES.failure_plot  # its failure rate by r_static decile, embedded in the card
WORKFLOW_MAPPING = "workflow-mapping.json"
PACKAGE_REQUEST_REPORT = "package-request-report.json"


@dataclass
class ReleaseResult:
    folder: str  # a local path or an fsspec URL (the store's)
    version: str
    manifest: dict
    gate: GateResult
    previous: str | None = None


def default_version(now: datetime | None = None) -> str:
    """The UTC date as MAJOR.MINOR.PATCH without leading zeros (Croissant wants semantic versions)."""
    now = now or datetime.now(UTC)
    return f"{now.year}.{now.month}.{now.day}"


def release_version(config: Config, version: str | None = None) -> str:
    """``version``, else ``release.version``, else the UTC date; an error naming the setting unless it is semantic."""
    version = version or config.release.version or default_version()
    if not SEMVER.match(version):
        raise ConfigError(
            f"release version {version!r} must look like MAJOR.MINOR.PATCH, e.g. 2026.11.29 "
            "(setting release.version or --version; Croissant requires a semantic version)"
        )
    return version


def build_time() -> str:
    """The release's ``created`` time: ``SOURCE_DATE_EPOCH`` when set (the reproducible-builds convention: two
    builds of the same inputs are then byte-identical, manifest included), else now; UTC, ISO 8601, seconds."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None:
        if not epoch.isdigit():
            raise ConfigError(f"SOURCE_DATE_EPOCH={epoch!r} must be a Unix time in whole seconds")
        return datetime.fromtimestamp(int(epoch), UTC).isoformat(timespec="seconds")
    return datetime.now(UTC).isoformat(timespec="seconds")


def build_release(
    inputs: ReleaseInputs, out_dir: str | Path, *, version: str, config: Config, previous: str | Path | None = None,
    created: str | None = None, min_split_rows: int = 1,
) -> ReleaseResult:  # fmt: skip
    """Build, gate and finalize the release folder ``out_dir``; see the module docstring.

    ``previous``: the previous release folder (its ``tools`` config and manifest), for the changelog and the
    cold-start split. ``created``: ISO timestamp recorded in the manifest and card (default: now, UTC).
    ``min_split_rows``: the gate's minimum rows of the train and test splits of queries and qrels.
    """
    out_dir, previous = str(out_dir), str(previous) if previous is not None else None
    _check_folders(version, out_dir, previous)
    created = created or build_time()
    # the whole folder is written beside its place (a local staging folder for object storage) and renamed in
    # (uploaded, the manifest last) once gated (ecoagent.store.StageFolder); a killed build's hidden folder is
    # removed here, before anything else
    folder = StageFolder(out_dir, marker=RELEASE_FILES.manifest)
    with context.phase("read the stage folders", 1) as reading:
        stage = read_inputs(inputs)
        prev = read_previous(previous) if previous is not None else None
        reading.advance()
    with context.phase("build the configs' tables", 1) as building:
        tables, stats = release_tables(stage, config, prev)
        building.advance()
    _clean_tables(tables, stats)
    vector_tables, embeddings = embedding_tables(tables[("syn-corpus", CORPUS_SPLIT)], config)
    tables |= vector_tables
    with folder.replace() as store:
        layout = _write_tables(store, tables)
        info = release_info(stage, config, prev, version, created, layout, file_table(store.local_path, layout, tables),
                            stats)  # fmt: skip
        info["embeddings"] = embeddings
        # Table 1's lexical rows for the card, both scales: counted set by set (a phase per scale)
        info["baselines"] = release_baselines(store.local_path, layout, version, config.seed,
                                              config.evaluation.head_tools)
        with context.phase("card, Croissant file and changelog", 1) as writing:
            _write_text_files(store, info, stage, prev, _mapping_reports(stage, tables))
            writing.advance()
        with context.phase("the release gate (great-expectations)", 1) as gating:
            gate = _run_gate(store.local_path, out_dir, info, config, min_split_rows)
            gating.advance()
        manifest = redact_value(release_manifest(info, gate))[0]
        store.write_json(manifest, RELEASE_FILES.manifest)
    failed = ArtifactStore(_gate_failed_folder(out_dir))
    if failed.exists():
        failed.fs.rm(failed.root, recursive=True)
    report_name = (gate.report_path or RELEASE_FILES.gate_report).rsplit("/", 1)[-1]
    gate.report_path = folder.url(RELEASE_FILES.gate_folder, report_name)
    log.info("release %s written to %s", version, out_dir)
    return ReleaseResult(folder=folder.url(), version=version, manifest=manifest, gate=gate, previous=previous)


def _clean_tables(tables: dict[tuple[str, str], pl.DataFrame], stats: dict) -> None:
    """Every table passes the one secret redaction (:mod:`ecoagent.text.redaction`; the text files pass it when
    written) and the text of every query, corpus document and tool the one personal-data scrub
    (:mod:`ecoagent.text.personal_data`); the gate then checks none is left. The counts go to ``stats``:
    ``redacted_values``, and ``personal_data_scrubbed`` by config and kind, with a total that counts a file the
    corpus configs share once."""
    stats["redacted_values"] = 0
    by_config: dict[str, Counter[str]] = {}
    by_file: dict[str, Counter[str]] = {}
    with context.phase("redact secrets and personal data in the tables", len(tables)) as redacting:
        for key, frame in tables.items():
            tables[key], count = redact_frame(frame)
            stats["redacted_values"] += count
            tables[key], found = scrub_frame(tables[key], personal_text_columns(key[0]))
            by_config.setdefault(key[0], Counter()).update(found)
            by_file[data_path(*key)] = found
            redacting.advance()
    stats["personal_data_scrubbed"] = {
        "total": {kind: sum(found[kind] for found in by_file.values()) for kind in PERSONAL_DATA_KINDS},
        "by_config": {name: dict(sorted(found.items())) for name, found in sorted(by_config.items()) if found},
    }


def _check_folders(version: str, out_dir: str, previous: str | None) -> None:
    """The version must name a folder and a Hub tag; the previous release must not be the folder being built."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", version):
        raise ValueError(
            f"release version {version!r} must be usable as a folder and a Hub tag (letters, digits . _ -)"
        )
    if previous is not None and ArtifactStore(previous).url() == ArtifactStore(out_dir).url():
        raise ValueError(f"the previous release {previous} is the folder being built; pass the one before it")


def _write_tables(store: ArtifactStore, tables: dict[tuple[str, str], pl.DataFrame]) -> dict[str, dict[str, str]]:
    """Write every non-empty table to its data file; returns the layout ``{config: {split: path}}``."""
    layout: dict[str, dict[str, str]] = {}
    with context.phase("write the data files", len(tables)) as writing:
        for (config_name, split), frame in tables.items():
            writing.advance()
            if frame.is_empty():
                continue  # an empty listed split does not load (see the module docstring)
            path = data_path(config_name, split)
            layout.setdefault(config_name, {})[split] = path
            if not store.exists(path):  # the two corpus configs share one file
                store.write_parquet(frame, *path.split("/"))
    return layout


def _mapping_reports(stage: dict, tables: dict[tuple[str, str], pl.DataFrame]) -> dict[str, dict]:
    """``{file name: report}``: the label stage's mapping report of each set the release carries (gold, workflows)."""
    reports = {}
    if stage["gold_mapping"] is not None and ("gold-queries", GOLD_SPLIT) in tables:
        reports[GOLD_MAPPING] = stage["gold_mapping"]
    if stage["workflow_mapping"] is not None and (f"{WORKFLOWS}-corpus", CORPUS_SPLIT) in tables:
        reports[WORKFLOW_MAPPING] = stage["workflow_mapping"]
    if stage.get("package_request_report") is not None and (f"{PACKAGE_REQUESTS}-corpus", CORPUS_SPLIT) in tables:
        reports[PACKAGE_REQUEST_REPORT] = stage["package_request_report"]
    return reports


def _write_text_files(store: ArtifactStore, info: dict, stage: dict, prev: dict | None,
                      reports: dict[str, dict]) -> None:  # fmt: skip
    """The mapping reports, card, Croissant file and changelog, each redacted, and their checksums in
    ``info["files"]``; the Croissant file's validation warnings in ``info``."""
    from release.card import render_card
    from release.croissant import build_croissant, validate_croissant

    folder = store.local_path
    text_files = [RELEASE_FILES.card, RELEASE_FILES.croissant, RELEASE_FILES.changelog]
    for name, report in reports.items():
        store.write_text(_json_text(redact_value(report)[0]), name)
        text_files.append(name)
    if stage.get("history"):
        store.write_bytes(stage["history"]["plot"], FIGURE_1)
        text_files.append(FIGURE_1)
        if stage["history"].get("failure_plot"):
            store.write_bytes(stage["history"]["failure_plot"], FAILURE_FIGURE)
            text_files.append(FAILURE_FIGURE)
    store.write_text(redact(render_card(info))[0], RELEASE_FILES.card)
    store.write_text(_json_text(redact_value(build_croissant(info, folder))[0]), RELEASE_FILES.croissant)
    info["croissant_warnings"] = validate_croissant(folder / RELEASE_FILES.croissant)
    store.write_text(redact(changelog(info, stage["tools"], prev))[0], RELEASE_FILES.changelog)
    for name in text_files:
        info["files"][name] = {"sha256": sha256_file(folder / name), "bytes": (folder / name).stat().st_size}


def _json_text(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _run_gate(folder: Path, out_dir: str, info: dict, config: Config, min_split_rows: int) -> GateResult:
    """The gate verifies the (local, staged) folder against the file table the manifest will hold, then checks the
    data; a failed gate's report is copied to ``<out_dir>.gate-failed/`` and :class:`QualityGateFailed` is raised."""
    from release.gate import run_release_gate

    gate = run_release_gate(
        folder, folder / RELEASE_FILES.gate_folder, min_split_rows=min_split_rows,
        dedup_threshold=config.label.dedup_threshold, files=info["files"],
    )  # fmt: skip
    if not gate.success:
        failed = ArtifactStore(_gate_failed_folder(out_dir))
        if failed.exists():
            failed.fs.rm(failed.root, recursive=True)
        reports = ArtifactStore(str(folder / RELEASE_FILES.gate_folder))
        for name in reports.files():
            failed.write_bytes(reports.fs.cat(reports.path(name)), *name.split("/"))
        gate.report_path = failed.url((gate.report_path or RELEASE_FILES.gate_report).rsplit("/", 1)[-1])
        raise QualityGateFailed(gate)
    return gate


def _gate_failed_folder(out_dir: str) -> str:
    return f"{out_dir.rstrip('/')}.gate-failed"


def data_path(config_name: str, split: str) -> str:
    """Where a config's split lives inside the release (Hub ``push_to_hub`` naming)."""
    if config_name.endswith("-corpus"):
        return CORPUS_FILE
    return f"{config_name}/{split}-00000-of-00001.parquet"
