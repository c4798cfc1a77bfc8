"""Build a Hub-ready EcoAgent release folder from the stage outputs.

``build_release(inputs, out_dir, version=..., config=...)`` reads the crawl, score, synth and label outputs and
writes, into ``out_dir`` (the lead's ``<store>/release/<version>/``):

- one Parquet file per config and split, ``<config>/<split>-00000-of-00001.parquet``:

  ============================  =====================================  ==========================================
  config                        columns                                splits
  ============================  =====================================  ==========================================
  ``tools``                     every column of tools_scored.parquet   ``train`` (HF's name for a single table)
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
  ``gold-qrels``                ``query-id``, ``corpus-id``, ``score`` ``test`` only (several tools per query)
  ============================  =====================================  ==========================================

  The gold configs (the human-annotated LiveMCPBench tasks mapped to catalog tools by the label stage,
  :mod:`labeling.gold`) are there when the label stage wrote them (``label.gold``); their mapping report is
  ``gold-mapping.json``, listed in the manifest like every other file.

  Configs and file names follow MTEB's multi-subset retrieval layout (``{subset}-corpus``, ``{subset}-queries``,
  ``{subset}-qrels``), so ``mteb``'s ``RetrievalDatasetLoader(..., config="syn")`` reads a split directly.
  **Empty splits are not written and not listed** in the card: ``datasets`` refuses a listed split with no rows
  ("corresponds to no data"), so an initial release has no ``cold_start`` split, and a tiny build may have no
  ``validation`` split. The gate requires non-empty train and test splits.
- ``README.md`` (the dataset card, :mod:`release.card`), ``croissant.json`` (Croissant 1.0 + RAI,
  validated with mlcroissant, :mod:`release.croissant`), ``CHANGELOG.md``, ``manifest.json`` and the
  gate report under ``gate/``.

Splits. Real queries arrive split (labeling/splits.py). Syn queries are split here with the same
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
import shutil
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from ecoagent.config import Config, ConfigError
from ecoagent.hashing import sha256_file
from ecoagent.layout import CRAWL_FILES, LABEL_FILES, RELEASE_FILES, SCORE_FILES, SEMVER, SYNTH_FILES, RunLayout
from ecoagent.release_format.integrity import verify_release
from ecoagent.runtime.quality_gate import GateResult, QualityGateFailed
from ecoagent.store import ArtifactStore, StageFolder
from ecoagent.text.dedup import DisjointSets
from ecoagent.text.redaction import redact, redact_frame, redact_value

log = logging.getLogger(__name__)

SPLITS = ("train", "validation", "test")
COLD_START = "cold_start"
ALL_SPLITS = (*SPLITS, COLD_START)
CORPUS_SPLIT = "corpus"  # MTEB reads a corpus config's only split, whatever its name; "corpus" is the convention
TOOLS_SPLIT = "train"  # HF's split name for a dataset that is one table
CORPUS_FILE = f"corpus/{CORPUS_SPLIT}-00000-of-00001.parquet"
GOLD_SPLIT = "test"  # the gold set is an evaluation set only
GOLD_MAPPING = "gold-mapping.json"
NAME = "EcoAgent"


@dataclass
class ReleaseInputs:
    """The stage output folders a release is built from."""

    crawl_dir: str  # fetch_manifest.json, crawl_summary.json
    score_dir: str  # tools_scored.parquet, score_summary.json
    synth_dir: str  # syn_queries.parquet, syn_pairs.parquet, synth_summary.json
    label_dir: str  # real_*.parquet, label_summary.json, review_sample.csv; gold_*.parquet, gold_mapping.json

    @classmethod
    def under(cls, layout: RunLayout) -> ReleaseInputs:
        """The stage folders of one run root."""
        return cls(layout.crawl, layout.score, layout.synth, layout.label)


@dataclass
class ReleaseResult:
    folder: Path
    version: str
    manifest: dict
    gate: GateResult
    previous: Path | None = None


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


def data_path(config_name: str, split: str) -> str:
    """Where a config's split lives inside the release (Hub ``push_to_hub`` naming)."""
    if config_name.endswith("-corpus"):
        return CORPUS_FILE
    return f"{config_name}/{split}-00000-of-00001.parquet"


def build_release(
    inputs: ReleaseInputs,
    out_dir: Path,
    *,
    version: str,
    config: Config,
    previous: Path | None = None,
    created: str | None = None,
    min_split_rows: int = 1,
) -> ReleaseResult:
    """Build, gate and finalize the release folder ``out_dir``; see the module docstring.

    ``previous``: the previous release folder (its ``tools`` config and manifest), for the changelog and the
    cold-start split. ``created``: ISO timestamp recorded in the manifest and card (default: now, UTC).
    ``min_split_rows``: the gate's minimum rows of the train and test splits of queries and qrels.
    """
    from release.card import render_card
    from release.croissant import build_croissant, validate_croissant
    from release.gate import run_release_gate

    out_dir = Path(out_dir)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", version):
        raise ValueError(
            f"release version {version!r} must be usable as a folder and a Hub tag (letters, digits . _ -)"
        )
    created = created or build_time()
    if previous is not None and Path(previous).resolve() == out_dir.resolve():
        raise ValueError(f"the previous release {previous} is the folder being built; pass the one before it")

    # the whole folder is written beside its place and renamed in once gated (ecoagent.store.StageFolder);
    # a killed build's hidden folder is removed here, before anything else
    folder = StageFolder(str(out_dir))
    stage = _read_inputs(inputs)
    prev = _read_previous(Path(previous)) if previous is not None else None
    tables, stats = _tables(stage, config, prev)
    # Every table and text file passes the one redaction (ecoagent.text.redaction); the gate then checks none is left.
    redacted = 0
    for key, frame in tables.items():
        tables[key], count = redact_frame(frame)
        redacted += count
    stats["redacted_values"] = redacted

    with folder.replace() as store:
        tmp = Path(store.root)
        layout: dict[str, dict[str, str]] = {}
        for (config_name, split), frame in tables.items():
            if frame.is_empty():
                continue  # an empty listed split does not load (see the module docstring)
            path = data_path(config_name, split)
            layout.setdefault(config_name, {})[split] = path
            if not (tmp / path).exists():  # the two corpus configs share one file
                store.write_parquet(frame, *path.split("/"))
        files = _file_table(tmp, layout, tables)
        text_files = [RELEASE_FILES.card, RELEASE_FILES.croissant, RELEASE_FILES.changelog]
        if stage["gold_mapping"] is not None and ("gold-queries", GOLD_SPLIT) in tables:
            mapping = redact_value(stage["gold_mapping"])[0]
            store.write_text(json.dumps(mapping, indent=2, sort_keys=True, ensure_ascii=False) + "\n", GOLD_MAPPING)
            text_files.append(GOLD_MAPPING)
        info = _release_info(stage, config, prev, version, created, layout, files, stats)
        store.write_text(redact(render_card(info))[0], RELEASE_FILES.card)
        croissant = redact_value(build_croissant(info, tmp))[0]
        croissant_text = json.dumps(croissant, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        store.write_text(croissant_text, RELEASE_FILES.croissant)
        info["croissant_warnings"] = validate_croissant(tmp / RELEASE_FILES.croissant)
        store.write_text(redact(_changelog(info, stage["tools"], prev))[0], RELEASE_FILES.changelog)
        for name in text_files:
            info["files"][name] = {"sha256": sha256_file(tmp / name), "bytes": (tmp / name).stat().st_size}

        # the gate verifies the folder against the file table the manifest will hold, then checks the data
        gate = run_release_gate(
            tmp, tmp / RELEASE_FILES.gate_folder, min_split_rows=min_split_rows,
            dedup_threshold=config.label.dedup_threshold, files=info["files"],
        )  # fmt: skip
        if not gate.success:
            failed_dir = out_dir.parent / f"{out_dir.name}.gate-failed"
            shutil.rmtree(failed_dir, ignore_errors=True)
            shutil.move(str(tmp / RELEASE_FILES.gate_folder), str(failed_dir))
            gate.report_path = str(failed_dir / Path(gate.report_path or RELEASE_FILES.gate_report).name)
            raise QualityGateFailed(gate)

        manifest = redact_value(_manifest(info, gate))[0]
        store.write_json(manifest, RELEASE_FILES.manifest)
    shutil.rmtree(out_dir.parent / f"{out_dir.name}.gate-failed", ignore_errors=True)
    report_name = Path(gate.report_path or RELEASE_FILES.gate_report).name
    gate.report_path = str(out_dir / RELEASE_FILES.gate_folder / report_name)
    log.info("release %s written to %s", version, out_dir)
    return ReleaseResult(folder=out_dir, version=version, manifest=manifest, gate=gate, previous=previous)


# --------------------------------------------------------------------------- inputs


def _read_optional_json(store: ArtifactStore, name: str) -> Any:
    return store.read_json(name) if store.exists(name) else None


def _read_optional_parquet(store: ArtifactStore, name: str) -> pl.DataFrame | None:
    return store.read_parquet(name) if store.exists(name) else None


def _require(store: ArtifactStore, name: str, stage: str) -> pl.DataFrame:
    return store.read_table(name, stage)


def _read_inputs(inputs: ReleaseInputs) -> dict[str, Any]:
    crawl, score = ArtifactStore(inputs.crawl_dir), ArtifactStore(inputs.score_dir)
    synth, label = ArtifactStore(inputs.synth_dir), ArtifactStore(inputs.label_dir)
    return {
        "tools": _require(score, SCORE_FILES.tools, "score").sort("tool_id"),
        "score_summary": _read_optional_json(score, SCORE_FILES.summary) or {},
        "syn_queries": _require(synth, SYNTH_FILES.queries, "synth"),
        "syn_pairs": _require(synth, SYNTH_FILES.pairs, "synth"),
        "real_queries": _require(label, LABEL_FILES.queries, "label"),
        "real_pairs": _require(label, LABEL_FILES.pairs, "label"),
        "fetch_manifest": _read_optional_json(crawl, CRAWL_FILES.fetch_manifest) or [],
        "crawl_summary": _read_optional_json(crawl, CRAWL_FILES.summary) or {},
        "synth_summary": _read_optional_json(synth, SYNTH_FILES.summary) or {},
        "label_summary": _read_optional_json(label, LABEL_FILES.summary) or {},
        "review": _review_agreement(label),
        "gold_queries": _read_optional_parquet(label, LABEL_FILES.gold_queries),
        "gold_qrels": _read_optional_parquet(label, LABEL_FILES.gold_qrels),
        "gold_mapping": _read_optional_json(label, LABEL_FILES.gold_mapping),
    }


def _review_agreement(label: ArtifactStore) -> dict | None:
    """Agreement of a filled review sample with the verifier, when people have labelled some of it."""
    from ecoagent.release_format.review import read_agreement

    if label.protocol not in ("file", "local") or not label.exists(LABEL_FILES.review_sample):
        return None
    try:
        report = read_agreement(label.path(LABEL_FILES.review_sample))
    except ValueError as exc:  # not a review CSV: the card says no review, the build goes on
        log.warning("review sample not used: %s", exc)
        return None
    if not report.labelled:
        return None
    return {
        "labelled_pairs": report.labelled,
        "agreement": round(report.agreement, 4),
        "cohen_kappa": round(report.cohen_kappa, 4),
    }


def _read_previous(folder: Path) -> dict[str, Any]:
    parquet = sorted((folder / "tools").glob("*.parquet"))
    if not parquet:
        raise FileNotFoundError(
            f"previous release {folder} has no tools/*.parquet: pass the previous release folder of the data store "
            "(<store>/release/<version>/), not its text-only copy under releases/"
        )
    verify_release(folder)  # its tools decide the cold-start split and the changelog
    tools = pl.concat([pl.read_parquet(p, columns=["tool_id", "content_hash"]) for p in parquet])
    manifest_path, changelog_path = folder / RELEASE_FILES.manifest, folder / RELEASE_FILES.changelog
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    changelog = changelog_path.read_text() if changelog_path.exists() else ""
    return {
        "folder": str(folder),
        "tools": tools,
        "manifest": manifest,
        "changelog": changelog,
        "version": manifest.get("version", folder.name),
    }


# --------------------------------------------------------------------------- tables


def _tables(stage: dict, config: Config, prev: dict | None) -> tuple[dict[tuple[str, str], pl.DataFrame], dict]:
    from ecoagent.text.splits import assign_splits

    tools = stage["tools"]
    new_tools = set(tools["tool_id"]) - set(prev["tools"]["tool_id"]) if prev else set()
    # Syn: split here (the synth stage does not), grouped by text/near-duplicates and by synth's dedup_cluster.
    syn = stage["syn_queries"].sort("query_id")
    syn = _merge_dedup_clusters(
        assign_splits(syn, ratios=tuple(config.release.syn_split_ratios), seed=config.seed,
                      dedup_threshold=config.label.dedup_threshold, setting="release.syn_split_ratios")
    )  # fmt: skip
    syn_positive = syn.select("query_id", "tool_id")
    syn = _cold_start(syn, syn_positive, new_tools)

    # Real: keep the label stage's split; queries without a verified tool cannot be scored, so they leave.
    real_pairs = stage["real_pairs"]
    real_positive = real_pairs.filter(pl.col("label") == 1).select("query_id", "tool_id").unique().sort(pl.all())
    real_all = stage["real_queries"].sort("query_id")
    real = real_all.filter(pl.col("query_id").is_in(real_positive["query_id"].implode()))
    if "group_id" not in real.columns:  # the label stage's groups (with its paraphrase rule) when it wrote them
        # only the group ids are used (the split stays the label stage's), so the ratios are label's own
        groups = assign_splits(
            real.select("query_id", "text"), ratios=tuple(config.label.split_ratios), seed=config.seed,
            dedup_threshold=config.label.dedup_threshold, setting="label.split_ratios",
        )["group_id"]  # fmt: skip
        real = real.with_columns(groups)
    real = _cold_start(real, real_positive, new_tools)

    corpus = tools.select(
        pl.col("tool_id").alias("_id"),
        pl.col("name").alias("title"),
        pl.when(pl.col("description").str.strip_chars() != "")
        .then(pl.col("description"))
        .otherwise(pl.coalesce(pl.col("doc_summary"), pl.col("name")))
        .alias("text"),
        "platform",
        "r_static",
        "reliable",
    )
    syn_split = syn.select("query_id", "split")
    syn_pairs = (
        stage["syn_pairs"]
        .join(syn_split, on="query_id", how="inner")
        .select("query_id", "tool_id", "label", "negative_type", "split")
        .sort("query_id", "label", "negative_type", "tool_id", descending=[False, True, False, False])
    )
    syn_qrels = _qrels(syn_positive.join(syn_split, on="query_id"))
    real_qrels = _qrels(real_positive.join(real.select("query_id", "split"), on="query_id"))
    syn_q = syn.select(pl.col("query_id").alias("_id"), "text", "intent_type", "on_topic", "split")
    real_q = real.select(pl.col("query_id").alias("_id"), "text", "source", "category", "split")

    tables: dict[tuple[str, str], pl.DataFrame] = {("tools", TOOLS_SPLIT): tools}
    tables[("syn-corpus", CORPUS_SPLIT)] = corpus
    tables[("real-corpus", CORPUS_SPLIT)] = corpus
    for split in ALL_SPLITS:
        tables[("syn-queries", split)] = _split(syn_q, split, "_id")
        tables[("syn-qrels", split)] = _split(syn_qrels, split, "query-id", "corpus-id")
        tables[("syn-pairs", split)] = syn_pairs.filter(pl.col("split") == split)
        tables[("real-queries", split)] = _split(real_q, split, "_id")
        tables[("real-qrels", split)] = _split(real_qrels, split, "query-id", "corpus-id")
    gold_q, gold_r = stage["gold_queries"], stage["gold_qrels"]
    if gold_q is not None and gold_r is not None and len(gold_q):
        known = tools["tool_id"].implode()
        gold_r = gold_r.filter(pl.col("tool_id").is_in(known))  # the label stage mapped onto this very catalog
        gold_q = gold_q.filter(pl.col("query_id").is_in(gold_r["query_id"].implode()))
        tables[("gold-corpus", CORPUS_SPLIT)] = corpus
        tables[("gold-queries", GOLD_SPLIT)] = gold_q.select(
            pl.col("query_id").alias("_id"), "text", "category", "complete", "ambiguous"
        ).sort("_id")
        tables[("gold-qrels", GOLD_SPLIT)] = _qrels(gold_r.select("query_id", "tool_id").with_columns(
            pl.lit(GOLD_SPLIT).alias("split"))).drop("split").unique().sort("query-id", "corpus-id")  # fmt: skip
    stats = {
        "new_tools": sorted(new_tools),
        "real_queries_without_verified_tool": len(real_all) - len(real),
        "syn_cold_start_queries": int((syn["split"] == COLD_START).sum()),
        "real_cold_start_queries": int((real["split"] == COLD_START).sum()),
    }
    return tables, stats


def _merge_dedup_clusters(frame: pl.DataFrame) -> pl.DataFrame:
    """Join assign_splits groups that share a synth ``dedup_cluster``; a merged group takes its smallest id's split."""
    groups = DisjointSets()  # the smallest group id represents a merged component
    first_of_cluster: dict[str, str] = {}
    for gid, cluster in zip(frame["group_id"], frame["dedup_cluster"], strict=True):
        groups.find(gid)
        if cluster is not None:
            groups.union(gid, first_of_cluster.setdefault(cluster, gid))
    find = groups.find
    split_of = dict(zip(frame["group_id"], frame["split"], strict=True))
    roots = [find(g) for g in frame["group_id"]]
    return frame.with_columns(
        pl.Series("group_id", roots, dtype=pl.String),
        pl.Series("split", [split_of[r] for r in roots], dtype=pl.String),
    )


def _cold_start(queries: pl.DataFrame, positives: pl.DataFrame, new_tools: set[str]) -> pl.DataFrame:
    """Move every group holding a query with a new positive tool into the cold_start split."""
    if not new_tools:
        return queries
    cold_queries = set(positives.filter(pl.col("tool_id").is_in(sorted(new_tools)))["query_id"])
    cold_groups = set(queries.filter(pl.col("query_id").is_in(sorted(cold_queries)))["group_id"])
    return queries.with_columns(
        pl.when(pl.col("group_id").is_in(sorted(cold_groups)))
        .then(pl.lit(COLD_START))
        .otherwise("split")
        .alias("split")
    )


def _qrels(positive: pl.DataFrame) -> pl.DataFrame:
    return positive.select(
        pl.col("query_id").alias("query-id"),
        pl.col("tool_id").alias("corpus-id"),
        pl.lit(1, pl.Int32).alias("score"),
        "split",
    )


def _split(frame: pl.DataFrame, split: str, *sort: str) -> pl.DataFrame:
    return frame.filter(pl.col("split") == split).drop("split").sort(*sort)


def _file_table(folder: Path, layout: dict[str, dict[str, str]], tables: dict) -> dict[str, dict]:
    files: dict[str, dict] = {}
    for (config_name, split), frame in tables.items():
        path = layout.get(config_name, {}).get(split)
        if path and path not in files:
            files[path] = {
                "sha256": sha256_file(folder / path),
                "bytes": (folder / path).stat().st_size,
                "rows": len(frame),
            }
    return dict(sorted(files.items()))


# --------------------------------------------------------------------------- metadata


_URL_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")


def _scrub(value: Any) -> Any:
    """Config values as recorded: credentials embedded in a URL (user:pass@host) are removed."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v) for v in value]
    if isinstance(value, str):
        return _URL_USERINFO.sub("", value)
    return value


def _unique(frame: pl.DataFrame, column: str) -> list[str]:
    if column not in frame.columns:
        return []
    return sorted(str(v) for v in frame[column].drop_nulls().unique())


def _release_info(stage, config, prev, version, created, layout, files, stats) -> dict:
    synth_summary, label_summary = stage["synth_summary"], stage["label_summary"]
    syn_q = stage["syn_queries"]
    backend = synth_summary.get("backend") or config.llm.backend
    packages = sorted(
        (
            {k: p.get(k) for k in ("platform", "registry", "name", "version", "sha256")}
            for p in stage["fetch_manifest"]
            if not p.get("error")
        ),
        key=lambda p: (str(p["platform"]), str(p["name"])),
    )
    counts = {c: {s: files[p]["rows"] for s, p in splits.items()} for c, splits in sorted(layout.items())}
    return {
        "name": NAME,
        "version": version,
        "created": created,
        "previous_version": prev["version"] if prev else None,
        "layout": layout,
        "files": files,
        "counts": counts,
        "stats": stats,
        "packages": packages,
        "package_errors": sorted(p["name"] for p in stage["fetch_manifest"] if p.get("error")),
        "platforms": _unique(stage["tools"], "platform"),
        "platform_counts": dict(sorted(Counter(stage["tools"]["platform"].to_list()).items())),
        "tools": len(stage["tools"]),
        "reliable_share": round(float(stage["tools"]["reliable"].mean()), 4) if len(stage["tools"]) else 0.0,
        # other readings of eq. 4-5 measured by the score stage (score.readings), e.g. paper_compatible
        "reliable_share_readings": {
            name: {"share": r["reliable_share"], "description": r.get("description", "")}
            for name, r in stage["score_summary"].get("readings", {}).items()
        },
        "generator": {
            "backend": backend,
            "models": _unique(syn_q, "generator_model") or [config.llm.model],
            "prompt_versions": _unique(syn_q, "prompt_version") or [synth_summary.get("prompt_version")],
            "not_a_benchmark": backend == "embedded",
        },
        "real": _real_info(stage, config),
        "syn": _syn_info(stage),
        "gold": _gold_info(stage, layout),
        "models": {
            "embedder": config.score.embedder,
            "tokenizer": config.score.tokenizer,
            "generator_model": _unique(syn_q, "generator_model") or [config.llm.model],
            "retriever": label_summary.get("retriever", config.label.retriever),
            "verifier": label_summary.get("verifier_model", config.llm.model),
            "agreement_embedder": label_summary.get("agreement_embedder", config.label.agreement_embedder),
            "roundtrip_embedder": config.synth.roundtrip_embedder,
            "negative_embedder": config.synth.negative_embedder,
        },
        "seeds": {
            "seed": config.seed,
            "split_seed": config.seed,
            "split_ratios": list(config.release.syn_split_ratios),
            "generation_request_seed": "sha256(f'{seed}:{tool_id}')[:8] per tool (synth.generate.request_seed)",
        },
        "dedup_threshold": {"syn": config.synth.dedup_threshold, "real": config.label.dedup_threshold},
        "score": {
            "weights": list(config.score.weights),
            "quality_weights": list(config.score.quality_weights),
            "source_weights": dict(config.score.source_weights),
            "reliable_threshold": config.score.reliable_threshold,
        },
        "config": _scrub(config.model_dump(mode="json")),
    }


def _real_info(stage: dict, config: Config) -> dict:
    """How Real was labelled, as the label stage ran it: the deciding scores, the drops, the precision on gold."""
    summary = stage["label_summary"]
    cfg = config.label
    decided_by = summary.get("decided_by")
    if not decided_by:  # a label folder written before the stage recorded it: the configured verifier, said so
        model = cfg.agreement_embedder if summary.get("verifier", cfg.verifier) == "embedding" else config.llm.model
        decided_by = [{"verifier": summary.get("verifier", cfg.verifier), "model": model, "min_score": None}]
    evaluation = (summary.get("gold") or {}).get("evaluation") or {}
    precision = evaluation.get("precision")
    return {
        "sources": _unique(stage["real_queries"], "source") or [summary.get("source", cfg.source)],
        "verifier": summary.get("verifier", cfg.verifier),
        "decided_by": decided_by,
        "verifier_model": " + ".join(str(d["model"]) for d in decided_by),
        "retriever": summary.get("retriever", cfg.retriever),
        "top_k": summary.get("top_k", cfg.top_k),
        "min_cosine": summary.get("min_cosine", cfg.min_cosine),
        "agreement_embedder": summary.get("agreement_embedder", cfg.agreement_embedder),
        "queries_in": summary.get("queries_in"),
        "queries_after_filters": summary.get("queries_after_filters"),
        "queries_kept": summary.get("queries_kept"),
        "drops_by_reason": summary.get("drops_by_reason", {}),
        "llm": summary.get("llm", {}),
        "split_groups": summary.get("split_groups"),
        "review": stage["review"],
        "gold_evaluation": evaluation or None,
        "precision_on_gold": precision,
        "min_precision": config.release.min_real_precision,
        "not_a_benchmark": precision is None or precision < config.release.min_real_precision,
    }


def _syn_info(stage: dict) -> dict:
    """Syn coverage: tools with a released query over all tools, the on-topic share, the generation drops."""
    syn, tools = stage["syn_queries"], stage["tools"]
    with_queries = syn["tool_id"].n_unique() if len(syn) else 0
    summary = stage["synth_summary"]
    return {
        "tools_with_queries": with_queries,
        "tools": len(tools),
        "coverage": round(with_queries / len(tools), 4) if len(tools) else 0.0,
        "tools_selected": summary.get("tools_selected"),
        "selection": summary.get("selection"),
        "queries": len(syn),
        "on_topic_share": round(float(syn["on_topic"].mean()), 4) if len(syn) and "on_topic" in syn.columns else None,
        "drops_by_reason": summary.get("drops_by_reason", {}),
    }


def _gold_info(stage: dict, layout: dict) -> dict | None:
    """The gold set's mapping counts and provenance, when the release has it."""
    if "gold-queries" not in layout or stage["gold_mapping"] is None:
        return None
    report = stage["gold_mapping"]
    keep = ("source", "rule", "tasks", "gold_queries", "gold_queries_complete", "gold_qrels", "annotated", "mapped",
            "mapped_by_resolution", "ambiguous", "unmapped")  # fmt: skip
    info = {k: report.get(k) for k in keep}
    by_reason = (report.get("unmapped") or {}).get("by_reason", {})
    info["unmapped_by_reason"] = {reason: v.get("pairs") for reason, v in by_reason.items()}
    return info


def _manifest(info: dict, gate: GateResult) -> dict:
    return {
        "name": info["name"],
        "version": info["version"],
        "created": info["created"],
        "previous_version": info["previous_version"],
        "sources": {
            "packages": info["packages"],
            "package_errors": info["package_errors"],
            "real_query_sources": info["real"]["sources"],
            **({"gold": info["gold"]["source"]} if info["gold"] else {}),
        },
        "labels": {
            "real_decided_by": info["real"]["decided_by"],
            "real_precision_on_gold": info["real"]["precision_on_gold"],
            "real_not_a_benchmark": info["real"]["not_a_benchmark"],
        },
        "models": info["models"],
        "generator_backend": info["generator"]["backend"],
        "prompt_versions": info["generator"]["prompt_versions"],
        "seeds": info["seeds"],
        "config": info["config"],
        "configs": info["layout"],
        "counts": info["counts"],
        "stats": {k: (len(v) if isinstance(v, list) else v) for k, v in info["stats"].items()},
        "files": info["files"],
        "croissant_warnings": info.get("croissant_warnings", []),
        "gate": {"name": gate.name, "success": gate.success, "expectations": len(gate.results)},
    }


# --------------------------------------------------------------------------- changelog


def tool_changes(current: pl.DataFrame, previous: pl.DataFrame) -> dict[str, list[str]]:
    """Tool ids added, removed and changed (same id, different content_hash) from ``previous`` to ``current``."""
    cur = dict(zip(current["tool_id"], current["content_hash"], strict=True))
    old = dict(zip(previous["tool_id"], previous["content_hash"], strict=True))
    return {
        "added": sorted(set(cur) - set(old)),
        "removed": sorted(set(old) - set(cur)),
        "changed": sorted(t for t in set(cur) & set(old) if cur[t] != old[t]),
    }


def _query_counts(counts: dict) -> dict[str, int]:
    return {c: sum(counts.get(c, {}).values()) for c in ("syn-queries", "real-queries", "syn-qrels", "real-qrels")}


def _changelog(info: dict, tools: pl.DataFrame, prev: dict | None) -> str:
    lines = [f"## {info['version']} ({info['created'][:10]})", ""]
    now = _query_counts(info["counts"])
    if prev is None:
        lines += ["Initial release.", "", f"- tools: {info['tools']}"]
        lines += [f"- {k}: {v}" for k, v in now.items()]
    else:
        changes = tool_changes(tools, prev["tools"])
        before = _query_counts(prev["manifest"].get("counts", {}))
        lines += [f"Changes since {prev['version']}.", "", f"- tools: {len(prev['tools'])} -> {info['tools']}"]
        lines += [f"- {k}: {before.get(k, 0)} -> {v}" for k, v in now.items()]
        lines += [
            f"- cold_start queries (their positive tool is new): syn {info['stats']['syn_cold_start_queries']}, "
            f"real {info['stats']['real_cold_start_queries']}"
        ]
        for kind, ids in changes.items():
            lines += ["", f"### Tools {kind} ({len(ids)})", ""]
            lines += [f"- `{t}`" for t in ids] or ["- none"]
    body = "\n".join(lines) + "\n"
    older = (prev or {}).get("changelog", "")
    if older.startswith("# Changelog"):
        older = older.split("\n", 1)[1].lstrip("\n")
    return "# Changelog\n\n" + body + ("\n" + older if older else "")
