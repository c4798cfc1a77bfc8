"""The release quality gate: great-expectations over a built release folder.

It reads the files the dataset card declares (:func:`release.card.read_configs`), i.e. what users will
load, and checks:

- per row (one long frame, one column per check; GX skips the nulls of the other tables' rows): tools'
  ``r_static`` in [0, 1], ``status`` active, deprecated or ``removed since YYYY-MM`` and ``tool_id`` present,
  ``tool-events``' ``event`` one of the known kinds (:data:`schemas.tool_event.EVENTS`), query length 1..300
  words, qrels ``score`` in {0, 1, 2, 3} (graded relevance allowed: the workflow qrels carry grades 1 and 2);
- per release (run-level metrics): rows of the train and test splits of ``{syn,real}-{queries,qrels}`` (and of
  ``workflows-*``, ``workflows-title-*`` and ``workflows-disjoint-*`` when the release has them) at least
  ``min_split_rows``; no tool in the qrels of two splits of ``workflows-disjoint`` (``tools_in_two_splits``: the
  view is tool-disjoint, :mod:`release.workflows_disjoint`);
  no leakage across train/validation/test (:func:`ecoagent.text.splits.check_no_leakage`: the number of
  problems must be 0) nor between ``cold_start`` and the other splits; no query id in two splits; no duplicate
  tool id; no tool presenting a field its source could not show as known (``unknown_passed_as_known``); every qrel's
  ``query-id`` among the queries of the same split and its ``corpus-id`` in the
  corpus. The gold subset (test only, when the release has it) gets the same id checks, and no gold question
  (nor its near-duplicate or template) may sit in a train or validation split of Syn, Real or Workflows:
  ``gold_in_training`` must be 0, since the gold set is never trained or tuned on.

Before any of that, the folder is verified against its manifest
(:func:`ecoagent.release_format.integrity.verify_release`;
during the build, against the file table the manifest will hold): an edited, missing or extra file refuses the
release with :class:`~ecoagent.release_format.integrity.ReleaseIntegrityError` naming it, and no data check runs on it.

Secrets: every string of every table and the text of every other file (card, Croissant, changelog) is scanned with
the project's secret formats (:mod:`ecoagent.text.redaction`); ``secret_matches`` must be 0. Which file, column and
format matched (never the value) goes to ``secrets.json``.

Personal data: the text of every query (``text`` and ``title`` of each ``*-queries`` config), corpus document and
tool (:func:`release.tables.personal_text_columns`) is checked with the project's one personal-data rule
(:mod:`ecoagent.text.personal_data`: e-mail addresses, phone numbers, sample-data rows), which the build applied;
``personal_data_matches`` must be 0. Which file, column and kind matched (never the value) goes to
``personal_data.json``.

The leakage problems themselves are logged and written to ``leakage.json`` beside the report, because a metric
only says how many there are.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ecoagent.layout import RELEASE_FILES
from ecoagent.release_format.integrity import UNLISTED_FOLDERS, verify_release
from ecoagent.runtime.quality_gate import GateResult, metric_between, run_gate
from ecoagent.text import personal_data
from ecoagent.text.redaction import find_secrets, scan_frame
from ecoagent.text.words import MAX_QUERY_WORDS
from release.tables import REQUIRED_VIEW_SPLITS, personal_text_columns
from schemas.tool_event import EVENTS, STATUS_PATTERN
from schemas.unknown_fields import unknown_passed_as_known

if TYPE_CHECKING:
    from great_expectations.expectations import Expectation

log = logging.getLogger(__name__)

GATE_NAME = "release"
SUBSETS = ("syn", "real")  # split into train / validation / test
# split too; checked like Syn and Real when present
OPTIONAL_SUBSETS = ("workflows", "workflows-title", "workflows-disjoint", "package-requests")
TOOL_DISJOINT_SUBSETS = ("workflows-disjoint", "package-requests")  # no tool in the qrels of two of its splits
GOLD = "gold"  # test only
TOOL_EVENTS_CONFIG = "tool-events"
REQUIRED_SPLITS = REQUIRED_VIEW_SPLITS  # a workflows view lacking one is not released (release.tables)
MIN_QUERY_WORDS = 1
QREL_SCORES = (0, 1, 2, 3)


def release_expectations(
    min_split_rows: int = 1,
    *,
    subsets: tuple[str, ...] = SUBSETS,
    min_query_words: int = MIN_QUERY_WORDS,
    max_query_words: int = MAX_QUERY_WORDS,
    qrel_scores: tuple[int, ...] = QREL_SCORES,
) -> list[Expectation]:
    """The release gate's expectations; ``min_split_rows`` is the minimum of each train and test split of each of
    ``subsets`` (Syn, Real and the workflow subsets the release has)."""
    import great_expectations as gx

    E = gx.expectations
    exps: list[Expectation] = [
        E.ExpectColumnValuesToBeBetween(
            column="tool_r_static", min_value=0, max_value=1, description="tools: r_static in [0, 1]"
        ),
        E.ExpectColumnValuesToBeBetween(
            column="query_words",
            min_value=min_query_words,
            max_value=max_query_words,
            description=f"queries: {min_query_words}..{max_query_words} words",
        ),
        E.ExpectColumnValuesToBeInSet(
            column="qrel_score", value_set=list(qrel_scores), description="qrels: score is a relevance grade"
        ),
        E.ExpectColumnValuesToMatchRegex(
            column="tool_status", regex=STATUS_PATTERN,
            description="tools: status is active, deprecated or removed since YYYY-MM",
        ),
        E.ExpectColumnValuesToBeInSet(
            column="tool_event", value_set=list(EVENTS), description="tool-events: event is a known kind"
        ),
        E.ExpectColumnValuesToNotBeNull(column="table"),
    ]
    for subset in subsets:
        exps += _subset_expectations(subset, min_split_rows)
        if subset in TOOL_DISJOINT_SUBSETS:
            exps.append(_zero(f"tools_in_two_splits.{subset}", f"{subset}: no tool in the qrels of two of "
                              "train/validation/test (a tool-disjoint view)"))  # fmt: skip
    exps += [
        _zero(f"dangling_query_ids.{GOLD}", "gold-qrels: every query-id is in gold-queries"),
        _zero(f"dangling_corpus_ids.{GOLD}", "gold-qrels: every corpus-id is in the corpus"),
        _zero("gold_in_training", "no gold question (nor a near-duplicate or template of it) in a train or validation "
              "split of " + " or ".join(subsets)),
        _zero("duplicate_tool_ids", "tools: tool_id unique"),
        _zero("unknown_passed_as_known", "tools: no field its source could not show presented as known (auth_type "
              "null only where named in unknown_fields; a reduced copy's auth 'none' or empty schema named unknown)"),
        _zero("secret_matches", "no file matches a secret format (secrets.json)"),
        _zero("personal_data_matches", "no query or tool text holds an e-mail address, a phone number or a sample-data "
              "row (personal_data.json)"),
    ]  # fmt: skip
    return exps


def _subset_expectations(subset: str, min_split_rows: int) -> list[Expectation]:
    """Syn's or Real's: rows in every required split of its queries and qrels, no leakage, no dangling id."""
    exps = [
        metric_between(f"rows.{subset}-{kind}.{split}", min_value=min_split_rows,
                       description=f"{subset}-{kind} {split} has >= {min_split_rows} rows")
        for kind in ("queries", "qrels")
        for split in REQUIRED_SPLITS
    ]  # fmt: skip
    return [
        *exps,
        _zero(f"leakage.{subset}", f"{subset}: no query text or near-duplicate in two of train/validation/test"),
        _zero(f"cold_start_leakage.{subset}", f"{subset}: no cold_start query text or near-duplicate in another split"),
        _zero(f"ids_in_two_splits.{subset}", f"{subset}: no query id in two splits"),
        _zero(f"dangling_query_ids.{subset}", f"{subset}-qrels: every query-id is in {subset}-queries (same split)"),
        _zero(f"dangling_corpus_ids.{subset}", f"{subset}-qrels: every corpus-id is in {subset}-corpus"),
    ]


def _zero(metric: str, description: str) -> Expectation:
    """The metric must be 0 (a count of problems)."""
    return metric_between(metric, min_value=0, max_value=0, description=description)


def secret_matches(folder: Path) -> dict[str, dict[str, int]]:
    """``{file: {"column: format" or "format": matches}}`` over every file of the release but the gate report."""
    from collections import Counter

    found: dict[str, dict[str, int]] = {}
    for path in sorted(Path(folder).rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if not path.is_file() or rel.split("/", 1)[0] in UNLISTED_FOLDERS:
            continue
        if path.suffix == ".parquet":
            hits = {f"{column}: {fmt}": n for (column, fmt), n in scan_frame(pl.read_parquet(path)).items()}
        else:
            hits = dict(Counter(find_secrets(path.read_text(encoding="utf-8", errors="replace"))))
        if hits:
            found[rel] = dict(sorted(hits.items()))
    return found


def personal_data_matches(folder: Path, configs: dict[str, dict[str, str]]) -> dict[str, dict[str, int]]:
    """``{file: {"column: kind": matches}}`` of personal data in the query and tool texts of the files ``configs``
    (the card's) names; a file several configs share (the corpus) is read once."""
    files = {path: personal_text_columns(name) for name, splits in configs.items() for path in splits.values()}
    found: dict[str, dict[str, int]] = {}
    for path, columns in sorted(files.items()):
        if columns:
            hits = personal_data.scan_frame(pl.read_parquet(Path(folder) / path), columns)
            if hits:
                found[path] = {f"{column}: {kind}": n for (column, kind), n in sorted(hits.items())}
    return found


def _read(folder: Path, splits: dict[str, str]) -> pl.DataFrame:
    frames = [
        pl.read_parquet(folder / path).with_columns(pl.lit(split).alias("split")) for split, path in splits.items()
    ]
    return pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame()


def _leakage(queries: pl.DataFrame, dedup_threshold: float) -> tuple[list[str], list[str]]:
    from ecoagent.text.splits import SPLITS, check_no_leakage

    if queries.is_empty():
        return [], []
    frame = queries.select(pl.col("_id").alias("query_id"), "text", "split")
    regular = check_no_leakage(frame.filter(pl.col("split").is_in(list(SPLITS))), dedup_threshold)
    # cold_start against everything else, as a two-way split (check_no_leakage knows only its three names)
    two_way = frame.with_columns(
        pl.when(pl.col("split") == "cold_start").then(pl.lit("test")).otherwise(pl.lit("train")).alias("split")
    )
    cold = check_no_leakage(two_way, dedup_threshold) if (frame["split"] == "cold_start").any() else []
    return regular, cold


def _gold_in_training(gold: pl.DataFrame, trained: list[pl.DataFrame], dedup_threshold: float):
    """(number of gold questions with a copy, near-duplicate or template in a train/validation split, the problems)."""
    from ecoagent.text.splits import check_no_leakage

    if gold.is_empty() or not trained:
        return 0.0, {"gold_in_training": []}
    frame = pl.concat(
        [
            gold.select(pl.col("_id").alias("query_id"), "text", pl.lit("test").alias("split")),
            *(t.select(pl.col("_id").alias("query_id"), "text", pl.lit("train").alias("split")) for t in trained),
        ]
    )
    found = check_no_leakage(frame, dedup_threshold)
    return float(len(found)), {"gold_in_training": found}


def release_metrics(folder: Path, dedup_threshold: float = 0.7) -> tuple[pl.DataFrame, dict[str, float], dict]:
    """The gate's long row frame, its run-level metrics, and the leakage problems by subset."""
    from release.card import read_configs

    folder = Path(folder)
    configs = read_configs(folder)
    rows, metrics = _tool_checks(_read(folder, configs.get("tools", {})))
    rows += _event_checks(_read(folder, configs.get(TOOL_EVENTS_CONFIG, {})))
    problems: dict[str, dict[str, list[str]]] = {}
    trained: list[pl.DataFrame] = []  # every train / validation query: no gold question may be there
    present = tuple(s for s in OPTIONAL_SUBSETS if f"{s}-queries" in configs)
    for subset in (*SUBSETS, *present, GOLD):
        queries = _read(folder, configs.get(f"{subset}-queries", {}))
        qrels = _read(folder, configs.get(f"{subset}-qrels", {}))
        corpus = _read(folder, configs.get(f"{subset}-corpus", {}))
        if subset == GOLD:
            metrics["gold_in_training"], problems[GOLD] = _gold_in_training(queries, trained, dedup_threshold)
        else:
            split_metrics, problems[subset] = _split_checks(subset, queries, qrels, dedup_threshold)
            metrics |= split_metrics
            if subset in TOOL_DISJOINT_SUBSETS:
                metrics[f"tools_in_two_splits.{subset}"] = _tools_in_two_splits(qrels)
            if len(queries):
                trained.append(queries.filter(pl.col("split").is_in(["train", "validation"])).select("_id", "text"))
        metrics[f"ids_in_two_splits.{subset}"] = _ids_in_two_splits(queries)
        id_metrics, qrel_rows = _qrel_checks(subset, queries, qrels, corpus)
        metrics |= id_metrics
        rows += qrel_rows
        if len(queries):
            rows.append(
                queries.select(
                    pl.lit(f"{subset}-queries").alias("table"),
                    pl.col("text").fill_null("").str.count_matches(r"\S+").cast(pl.Int64).alias("query_words"),
                )
            )
    return _row_frame(rows), metrics, problems


def _tool_checks(tools: pl.DataFrame) -> tuple[list[pl.DataFrame], dict[str, float]]:
    """The tools' rows of the gate frame (their ``r_static``), the duplicate tool id count and the rows that pass a
    field their source could not show off as known (:func:`schemas.unknown_fields.unknown_passed_as_known`)."""
    if tools.is_empty():
        return [], {"duplicate_tool_ids": 0.0, "unknown_passed_as_known": 0.0}
    # a tools table without its status column fails the status check on every row
    status = pl.col("status") if "status" in tools.columns else pl.lit("missing")
    rows = [tools.select(pl.lit("tools").alias("table"), pl.col("r_static").cast(pl.Float64).alias("tool_r_static"),
                         status.alias("tool_status"))]  # fmt: skip
    return rows, {"duplicate_tool_ids": float(len(tools) - tools["tool_id"].n_unique()),
                  "unknown_passed_as_known": float(unknown_passed_as_known(tools))}  # fmt: skip


def _event_checks(events: pl.DataFrame) -> list[pl.DataFrame]:
    """The tool events' rows of the gate frame (their ``event``), when the release has the config."""
    return [events.select(pl.lit("tool-events").alias("table"), pl.col("event").alias("tool_event"))] if len(events) \
        else []  # fmt: skip


def _split_checks(
    subset: str, queries: pl.DataFrame, qrels: pl.DataFrame, dedup_threshold: float
) -> tuple[dict[str, float], dict[str, list[str]]]:
    """A split subset's rows per required split and its leakage counts, and the leakage problems themselves."""
    metrics: dict[str, float] = {}
    for kind, frame in (("queries", queries), ("qrels", qrels)):
        for split in REQUIRED_SPLITS:
            n = float((frame["split"] == split).sum()) if len(frame) else 0.0
            metrics[f"rows.{subset}-{kind}.{split}"] = n
    regular, cold = _leakage(queries, dedup_threshold)
    metrics[f"leakage.{subset}"] = float(len(regular))
    metrics[f"cold_start_leakage.{subset}"] = float(len(cold))
    return metrics, {"leakage": regular, "cold_start_leakage": cold}


def _tools_in_two_splits(qrels: pl.DataFrame) -> float:
    """The tools (alternatives included) in the qrels of two or more of train/validation/test: 0 in a tool-disjoint
    view."""
    if qrels.is_empty():
        return 0.0
    regular = qrels.filter(pl.col("split").is_in(["train", "validation", "test"]))
    per_tool = regular.group_by("corpus-id").agg(pl.col("split").n_unique().alias("n"))
    return float((per_tool["n"] > 1).sum())


def _ids_in_two_splits(queries: pl.DataFrame) -> float:
    if queries.is_empty():
        return 0.0
    per_id = queries.group_by("_id").agg(pl.col("split").n_unique().alias("n"))
    return float((per_id["n"] > 1).sum())


def _qrel_checks(
    subset: str, queries: pl.DataFrame, qrels: pl.DataFrame, corpus: pl.DataFrame
) -> tuple[dict[str, float], list[pl.DataFrame]]:
    """The qrels whose query-id (in the same split) or corpus-id is unknown, and the qrels' rows of the gate frame."""
    if qrels.is_empty():
        return {f"dangling_query_ids.{subset}": 0.0, f"dangling_corpus_ids.{subset}": 0.0}, []
    known = queries.select(pl.col("_id").alias("query-id"), "split") if len(queries) else None
    dangling_q = qrels.join(known, on=["query-id", "split"], how="anti") if known is not None else qrels
    ids = corpus["_id"].implode() if len(corpus) else pl.Series([], dtype=pl.String).implode()
    metrics = {
        f"dangling_query_ids.{subset}": float(len(dangling_q)),
        f"dangling_corpus_ids.{subset}": float((~qrels["corpus-id"].is_in(ids)).sum()),
    }
    rows = [qrels.select(pl.lit(f"{subset}-qrels").alias("table"), pl.col("score").cast(pl.Int64).alias("qrel_score"))]
    return metrics, rows


def _row_frame(rows: list[pl.DataFrame]) -> pl.DataFrame:
    """The per-row checks' frame: every check's column present (all null when no table has it)."""
    frame = pl.concat(rows, how="diagonal") if rows else pl.DataFrame({"table": []}, schema={"table": pl.String})
    for column, dtype in (("tool_r_static", pl.Float64), ("query_words", pl.Int64), ("qrel_score", pl.Int64),
                          ("tool_status", pl.String), ("tool_event", pl.String)):
        if column not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype).alias(column))
    return frame


def run_release_gate(
    folder: Path,
    out_dir: Path | str | None,
    *,
    min_split_rows: int = 1,
    dedup_threshold: float = 0.7,
    files: dict[str, dict] | None = None,
) -> GateResult:
    """Run the release gate over ``folder``; reports go to ``out_dir``. The caller decides whether to enforce.

    ``files``: the file table to verify the folder against (the build's, before ``manifest.json`` exists);
    default: the folder's manifest. A mismatch raises ReleaseIntegrityError before any check runs.
    """
    from release.card import read_configs

    verify_release(folder, files)
    frame, metrics, problems = release_metrics(Path(folder), dedup_threshold)
    subsets = (*SUBSETS, *(s for s in OPTIONAL_SUBSETS if f"leakage.{s}" in metrics))
    secrets = secret_matches(Path(folder))
    metrics["secret_matches"] = float(sum(n for hits in secrets.values() for n in hits.values()))
    if secrets:
        log.warning("secret formats still match in %s", sorted(secrets))
    personal = personal_data_matches(Path(folder), read_configs(Path(folder)))
    metrics["personal_data_matches"] = float(sum(n for hits in personal.values() for n in hits.values()))
    if personal:
        log.warning("personal data still in %s", sorted(personal))
    for subset, found in problems.items():
        for kind, items in found.items():
            if items:
                log.warning("%s %s: %d problems, e.g. %s", subset, kind, len(items), items[:3])
    result = run_gate(
        GATE_NAME,
        frame,
        release_expectations(min_split_rows, subsets=subsets),
        None if out_dir is None else str(out_dir),
        metrics=metrics,
    )
    if out_dir is not None:
        Path(out_dir, RELEASE_FILES.gate_leakage).write_text(json.dumps(problems, indent=2, sort_keys=True) + "\n")
        Path(out_dir, RELEASE_FILES.gate_secrets).write_text(json.dumps(secrets, indent=2, sort_keys=True) + "\n")
        Path(out_dir, RELEASE_FILES.gate_personal_data).write_text(json.dumps(personal, indent=2, sort_keys=True)
                                                                   + "\n")  # fmt: skip
    return result
