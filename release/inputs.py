"""What a release is built from: the stage output folders (:class:`ReleaseInputs`), read into one dict, and the
previous release folder (its tools, manifest and changelog: the cold-start split and the changelog compare with it).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import polars as pl

from ecoagent.layout import CRAWL_FILES, HISTORY_FILES, LABEL_FILES, RELEASE_FILES, SCORE_FILES, SYNTH_FILES
from ecoagent.release_format.integrity import verify_release
from ecoagent.release_format.reader import local_release
from ecoagent.store import ArtifactStore

log = logging.getLogger(__name__)


@dataclass
class ReleaseInputs:
    """The stage output folders a release is built from."""

    crawl_dir: str  # fetch_manifest.json, crawl_summary.json, crawl_drops.json
    score_dir: str  # tools_scored.parquet, score_summary.json
    synth_dir: str  # syn_queries.parquet, syn_pairs.parquet, synth_summary.json
    label_dir: str  # real_*.parquet, label_summary.json, review_sample.csv; gold_*.parquet, gold_mapping.json;
    # workflow_*.parquet, workflow_mapping.json (label.workflows); package_request_* (label.package_requests)
    # `ecoagent history` folders (figure1.*, first_seen.parquet, tool_events.parquet), optional: the newest curve
    # found is used
    history_dirs: tuple[str, ...] = ()


def _read_optional_json(store: ArtifactStore, name: str) -> Any:
    return store.read_json(name) if store.exists(name) else None


def _read_optional_parquet(store: ArtifactStore, name: str) -> pl.DataFrame | None:
    return store.read_parquet(name) if store.exists(name) else None


def read_inputs(inputs: ReleaseInputs) -> dict[str, Any]:
    """Every stage output a release uses, by name; the optional ones are None, {} or [] when absent."""
    crawl, score = ArtifactStore(inputs.crawl_dir), ArtifactStore(inputs.score_dir)
    synth, label = ArtifactStore(inputs.synth_dir), ArtifactStore(inputs.label_dir)
    return {
        "tools": score.read_table(SCORE_FILES.tools).sort("tool_id"),
        "score_summary": _read_optional_json(score, SCORE_FILES.summary) or {},
        "syn_queries": synth.read_table(SYNTH_FILES.queries),
        "syn_pairs": synth.read_table(SYNTH_FILES.pairs),
        "real_queries": label.read_table(LABEL_FILES.queries),
        "real_pairs": label.read_table(LABEL_FILES.pairs),
        "fetch_manifest": _read_optional_json(crawl, CRAWL_FILES.fetch_manifest) or [],
        "crawl_summary": _read_optional_json(crawl, CRAWL_FILES.summary) or {},
        "crawl_drops": _read_optional_json(crawl, CRAWL_FILES.drops) or [],
        "synth_summary": _read_optional_json(synth, SYNTH_FILES.summary) or {},
        "label_summary": _read_optional_json(label, LABEL_FILES.summary) or {},
        "review": _review_agreement(label),
        "gold_queries": _read_optional_parquet(label, LABEL_FILES.gold_queries),
        "gold_qrels": _read_optional_parquet(label, LABEL_FILES.gold_qrels),
        "gold_mapping": _read_optional_json(label, LABEL_FILES.gold_mapping),
        "workflow_queries": _read_optional_parquet(label, LABEL_FILES.workflow_queries),
        "workflow_qrels": _read_optional_parquet(label, LABEL_FILES.workflow_qrels),
        "workflow_mapping": _read_optional_json(label, LABEL_FILES.workflow_mapping),
        "workflow_review": _review_agreement(label, LABEL_FILES.workflow_review_sample,
                                             LABEL_FILES.workflow_review_key),
        "package_request_queries": _read_optional_parquet(label, LABEL_FILES.package_request_queries),
        "package_request_qrels": _read_optional_parquet(label, LABEL_FILES.package_request_qrels),
        "package_request_report": _read_optional_json(label, LABEL_FILES.package_request_report),
        "history": read_history(inputs.history_dirs),
    }


def read_history(folders: tuple[str, ...]) -> dict[str, Any] | None:
    """The newest curve among the history folders (by its last month, then the folder order): its table, Markdown,
    plot, first-seen months, tool events and failure prediction (each None from a history written before it had
    it); None when no folder holds one."""
    found = []
    for folder in folders:
        store = ArtifactStore(folder)
        if all(store.exists(name) for name in (HISTORY_FILES.table, HISTORY_FILES.plot, HISTORY_FILES.first_seen)):
            found.append((store.read_json(HISTORY_FILES.table), store))
    if not found:
        return None
    table, store = max(found, key=lambda item: item[0]["until"])  # max keeps the first of equal ones
    return {
        "folder": store.url(),
        "table": table,
        "markdown": store.fs.cat(store.path(HISTORY_FILES.markdown)).decode() if store.exists(HISTORY_FILES.markdown)
        else "",
        "plot": store.fs.cat(store.path(HISTORY_FILES.plot)),
        "first_seen": store.read_parquet(HISTORY_FILES.first_seen),
        "tool_events": _read_optional_parquet(store, HISTORY_FILES.tool_events),
        # does r_static predict failure (history.failure); None from a history written before it was measured
        "failure": store.read_json(HISTORY_FILES.failure) if store.exists(HISTORY_FILES.failure) else None,
        "failure_plot": store.fs.cat(store.path(HISTORY_FILES.failure_plot))
        if store.exists(HISTORY_FILES.failure_plot) else None,
    }  # fmt: skip


def _review_agreement(label: ArtifactStore, sample: str = LABEL_FILES.review_sample,
                      key: str | None = None) -> dict | None:  # fmt: skip
    """Agreement of a filled review sample with the labels it shows (the verifier's, or a blind sheet's hidden
    ``key``), when people have labelled some of it; ``label_precision``: the share of the shown positive labels
    people confirmed, with its 95 % Wilson interval."""
    from ecoagent.release_format.review import read_agreement, wilson_interval

    if label.protocol not in ("file", "local") or not label.exists(sample):
        return None
    try:
        report = read_agreement(label.path(sample), label.path(key) if key and label.exists(key) else None)
    except ValueError as exc:  # not a review CSV: the card says no review, the build goes on
        log.warning("review sample not used: %s", exc)
        return None
    if not report.labelled:
        return None
    out = {
        "labelled_pairs": report.labelled,
        "agreement": round(report.agreement, 4),
        "cohen_kappa": round(report.cohen_kappa, 4),
    }
    if key is not None:  # the blind sheet of the workflow labels: how many of the native labels are right
        tp, fp = report.confusion["tp"], report.confusion["fp"]
        out["label_precision"] = round(tp / (tp + fp), 4) if tp + fp else None
        out["label_precision_ci95"] = [round(v, 4) for v in wilson_interval(tp, tp + fp)] if tp + fp else None
        out["labels_checked"] = tp + fp
    return out


def read_previous(release: str) -> dict[str, Any]:
    """The previous release folder (a local path or the store's URL, verified against its manifest): its tools' ids
    and content hashes, manifest, changelog and version."""
    folder = local_release(release)
    parquet = sorted((folder / "tools").glob("*.parquet"))
    if not parquet:
        raise FileNotFoundError(
            f"previous release {release} has no tools/*.parquet: pass the previous release folder of the data store "
            "(<store>/release/<version>/), not its text-only copy under releases/"
        )
    verify_release(folder)  # its tools decide the cold-start split and the changelog
    tools = pl.concat([pl.read_parquet(p, columns=["tool_id", "content_hash"]) for p in parquet])
    manifest_path, changelog_path = folder / RELEASE_FILES.manifest, folder / RELEASE_FILES.changelog
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    changelog = changelog_path.read_text() if changelog_path.exists() else ""
    return {
        "folder": release,
        "tools": tools,
        "manifest": manifest,
        "changelog": changelog,
        "version": manifest.get("version", folder.name),
    }
