"""Human review of the verifier: export a stratified sample to CSV, read it back once filled, measure agreement.

The paper: "Human experts review a stratified sample of 200 queries and agree with the LLM verifier on 94% of
cases." :func:`export_review_sample` draws the queries and writes one row per (query, candidate tool) pair for a
person to label; :func:`read_agreement` reads the filled file and computes agreement and Cohen's kappa with the
human label as ground truth; :func:`format_agreement` renders the result next to the paper's figure.

Unit of agreement: a *pair* (query, candidate tool), because that is what the verifier decides. The paper's
"cases" may be queries; the formatted report says which unit this is so the two are not compared blindly.

Sampling is stratified by query ``source`` and by the band of the query's best *deciding* score (the score of
the verifier named in the pair's ``verifier`` column), so confident accepts, confident rejects and the borderline
band all get reviewed even when one of them dominates the data.
"""

from __future__ import annotations

import csv
import math
import os
import random
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

# Column order of the review CSV; a person fills human_label (and optionally notes).
REVIEW_COLUMNS = [
    "query_id",
    "query",
    "tool_id",
    "tool_name",
    "tool_description",
    "retrieval_cosine",
    "verifier_score",
    "verifier_label",
    "human_label",
    "notes",
]
# What read_agreement needs; the others may be deleted by the reviewer without harm.
REQUIRED_READ_COLUMNS = ["query_id", "query", "tool_id", "tool_name", "verifier_score", "verifier_label", "human_label"]

# Which score decides the label for each value of the pairs' `verifier` column (config label.verifier).
DECIDING_SCORE = {"llm": "llm_score", "embedding": "agreement_score"}

# Score bands of a query's best deciding score. 0.85 is the keep threshold (label.min_verifier_score); the
# band below it is where the verifier is least sure, so it gets its own stratum rather than being lumped with
# clear rejects.
BANDS: list[tuple[float, str]] = [(0.5, "<0.5"), (0.85, "0.5-0.85"), (math.inf, ">=0.85")]
UNSCORED_BAND = "unscored"

# Long descriptions make the sheet unreadable; the reviewer needs the gist, the tool_id finds the rest.
DESCRIPTION_CHARS = 300

_TRUE = {"1", "yes", "true"}
_FALSE = {"0", "no", "false"}

_PAIR_COLUMNS = ["query_id", "tool_id", "retrieval_cosine", "llm_score", "agreement_score", "label", "verifier"]
_QUERY_COLUMNS = ["query_id", "text", "source"]
_TOOL_COLUMNS = ["tool_id", "name", "description", "platform"]


def _require(frame: pl.DataFrame, columns: list[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} frame is missing columns: {', '.join(missing)}")


def score_band(score: float | None) -> str:
    """The band label of a deciding score (``None``/NaN: ``unscored``)."""
    if score is None or math.isnan(score):
        return UNSCORED_BAND
    for upper, name in BANDS:
        if score < upper:
            return name
    raise AssertionError("unreachable: the last band is unbounded")


def allocate(sizes: dict[Any, int], total: int) -> dict[Any, int]:
    """Proportional quotas summing to ``min(total, sum(sizes))``, at least one per non-empty stratum.

    Largest-remainder rounding; ties broken by stratum key, so the result is deterministic. When there are more
    non-empty strata than ``total``, the one-per-stratum floor wins and the quotas sum to the stratum count:
    a sample that silently drops a stratum would defeat the point of stratifying.
    """
    strata = sorted(k for k, n in sizes.items() if n > 0)
    population = sum(sizes[k] for k in strata)
    if population <= total:
        return {k: sizes[k] for k in strata}
    ideal = {k: total * sizes[k] / population for k in strata}
    quota = {k: min(sizes[k], max(1, math.floor(ideal[k]))) for k in strata}
    target = max(total, len(strata))
    while sum(quota.values()) < target:
        grow = [k for k in strata if quota[k] < sizes[k]]
        best = max(grow, key=lambda k: (ideal[k] - quota[k], sizes[k], _key(k)))
        quota[best] += 1
    while sum(quota.values()) > target:
        shrink = [k for k in strata if quota[k] > 1]
        best = max(shrink, key=lambda k: (quota[k] - ideal[k], sizes[k], _key(k)))
        quota[best] -= 1
    return quota


def _key(stratum: Any) -> str:
    # Strata are tuples of strings; a string form keeps max() comparisons total even with None inside.
    return repr(stratum)


def _trim(text: str | None, limit: int = DESCRIPTION_CHARS) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _fmt(value: float | None) -> str:
    return "" if value is None or math.isnan(value) else f"{value:.3f}"


def _deciding_scores(pairs: pl.DataFrame) -> pl.DataFrame:
    unknown = sorted(set(pairs["verifier"].drop_nulls().unique().to_list()) - set(DECIDING_SCORE))
    if unknown or pairs["verifier"].null_count():
        shown = unknown + (["<null>"] if pairs["verifier"].null_count() else [])
        raise ValueError(f"pairs.verifier must be one of {sorted(DECIDING_SCORE)}, got {shown}")
    expr = pl.when(pl.col("verifier") == "llm").then(pl.col("llm_score")).otherwise(pl.col("agreement_score"))
    return pairs.with_columns(expr.cast(pl.Float64).fill_nan(None).alias("_deciding"))


def export_review_sample(
    pairs: pl.DataFrame,
    queries: pl.DataFrame,
    tools: pl.DataFrame,
    path: str | Path,
    *,
    size: int = 200,
    seed: int,
) -> int:
    """Write a review CSV for a stratified sample of ``size`` queries; return the number of rows written.

    Strata are (query source, band of the query's best deciding score); quotas are proportional with at least
    one query per non-empty stratum (see :func:`allocate`). Only queries with at least one candidate pair can be
    reviewed, so the population is the queries present in ``pairs``. Each stratum draws from its own RNG seeded
    with (seed, stratum), so a change in one stratum does not reshuffle the others. Rows are sorted by query_id,
    then by retrieval rank: query ids are hashes, so this interleaves strata and the reviewer does not see all
    confident accepts in a row (which would anchor their judgement). The file is written atomically.
    """
    if size < 1:
        raise ValueError(f"review sample size must be at least 1, got {size}")
    _require(pairs, _PAIR_COLUMNS, "pairs")
    _require(queries, _QUERY_COLUMNS, "queries")
    _require(tools, _TOOL_COLUMNS, "tools")

    scored = _deciding_scores(pairs)
    query_info = queries.select("query_id", "text", "source").unique("query_id", keep="first")
    unknown_q = scored.join(query_info, on="query_id", how="anti")["query_id"].unique().sort().to_list()
    if unknown_q:
        raise ValueError(f"pairs reference {len(unknown_q)} query_id(s) missing from queries, e.g. {unknown_q[:3]}")
    tool_info = tools.select("tool_id", "name", "description").unique("tool_id", keep="first")
    unknown_t = scored.join(tool_info, on="tool_id", how="anti")["tool_id"].unique().sort().to_list()
    if unknown_t:
        raise ValueError(f"pairs reference {len(unknown_t)} tool_id(s) missing from tools, e.g. {unknown_t[:3]}")

    best = (
        scored.group_by("query_id")
        .agg(pl.col("_deciding").max().alias("best"))
        .join(query_info, on="query_id", how="left")
        .sort("query_id")
    )
    members: dict[tuple[str, str], list[str]] = {}
    for qid, best_score, source in best.select("query_id", "best", "source").iter_rows():
        stratum = (source if source is not None else "unknown", score_band(best_score))
        members.setdefault(stratum, []).append(qid)

    quota = allocate({k: len(v) for k, v in members.items()}, size)
    chosen: set[str] = set()
    for stratum, ids in members.items():
        rng = random.Random(f"{seed}:{stratum[0]}:{stratum[1]}")
        chosen.update(rng.sample(sorted(ids), quota.get(stratum, 0)))

    rows = (
        scored.filter(pl.col("query_id").is_in(sorted(chosen)))
        .join(query_info, on="query_id", how="left")
        .join(tool_info, on="tool_id", how="left")
        .sort(["query_id", "retrieval_cosine", "tool_id"], descending=[False, True, False], nulls_last=True)
    )
    out: list[list[str]] = []
    for r in rows.iter_rows(named=True):
        out.append(
            [
                str(r["query_id"]),
                r["text"] or "",
                str(r["tool_id"]),
                r["name"] or "",
                _trim(r["description"]),
                _fmt(r["retrieval_cosine"]),
                _fmt(r["_deciding"]),
                "" if r["label"] is None else str(int(r["label"])),
                "",
                "",
            ]
        )
    _write_csv_atomic(Path(path), REVIEW_COLUMNS, out)
    return len(out)


def _write_csv_atomic(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # newline="" hands line endings to the csv module, which writes RFC 4180's CRLF and quotes fields
        # holding commas, quotes or newlines.
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
            writer.writerow(header)
            writer.writerows(rows)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class AgreementReport:
    """Human vs verifier on a filled review CSV; the human label is the truth in ``confusion``."""

    rows: int
    labelled: int
    agreement: float  # NaN when nothing is labelled
    cohen_kappa: float  # NaN when nothing is labelled; 0 when either side is constant
    confusion: dict  # {"tp", "fp", "fn", "tn"}: "p" = verifier says 1, "t" = the human agrees
    disagreements: list[dict] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)


def parse_label(value: str | None) -> int | None:
    """1/0 for the accepted spellings (1/0, yes/no, true/false, any case), ``None`` for anything else."""
    text = (value or "").strip().lower()
    if text in _TRUE:
        return 1
    if text in _FALSE:
        return 0
    return None


def cohen_kappa(tp: int, fp: int, fn: int, tn: int) -> float:
    """Cohen's kappa of two binary raters from their 2x2 table; 0 when chance agreement is total.

    kappa = (p_o - p_e) / (1 - p_e). p_e = 1 only when both raters are constant on the same value; agreement is
    then perfect but carries no information beyond chance, so 0 (sklearn returns NaN there). When just one rater
    is constant the formula already gives 0.
    """
    n = tp + fp + fn + tn
    if n == 0:
        return math.nan
    p_o = (tp + tn) / n
    verifier_yes, human_yes = (tp + fp) / n, (tp + fn) / n
    p_e = verifier_yes * human_yes + (1 - verifier_yes) * (1 - human_yes)
    if 1 - p_e <= 1e-12:
        return 0.0
    return (p_o - p_e) / (1 - p_e)


def _score(value: str | None) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except ValueError:
        return None


def read_agreement(path: str | Path) -> AgreementReport:
    """Read a filled review CSV and compare ``human_label`` with ``verifier_label``.

    Rows are never guessed: a blank human_label counts under ``skipped["blank"]``, anything outside
    1/0/yes/no/true/false under ``skipped["invalid"]``, an unreadable verifier_label under
    ``skipped["invalid verifier_label"]``, and a second row for the same (query_id, tool_id) under
    ``skipped["duplicate"]`` (a copied row must not count twice). Fully blank lines are not rows.
    """
    path = Path(path)
    # utf-8-sig: spreadsheet programs often add a BOM when the reviewer saves the file.
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        header = [(h or "").strip().lower() for h in (reader.fieldnames or [])]
        missing = [c for c in REQUIRED_READ_COLUMNS if c not in header]
        if missing:
            raise ValueError(f"{path} is not a review CSV: missing columns {', '.join(missing)}")
        reader.fieldnames = header
        records = [r for r in reader if any((v or "").strip() for v in r.values() if isinstance(v, str))]

    skipped: Counter = Counter()
    seen: set[tuple[str, str]] = set()
    confusion = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    disagreements: list[dict] = []
    for r in records:
        human_raw = (r.get("human_label") or "").strip()
        if not human_raw:
            skipped["blank"] += 1
            continue
        human = parse_label(human_raw)
        if human is None:
            skipped["invalid"] += 1
            continue
        verifier = parse_label(r.get("verifier_label"))
        if verifier is None:
            skipped["invalid verifier_label"] += 1
            continue
        key = ((r.get("query_id") or "").strip(), (r.get("tool_id") or "").strip())
        if key in seen:
            skipped["duplicate"] += 1
            continue
        seen.add(key)
        cell = ("tp" if human else "fp") if verifier else ("fn" if human else "tn")
        confusion[cell] += 1
        if human != verifier:
            disagreements.append(
                {
                    "query_id": key[0],
                    "tool_id": key[1],
                    "query": r.get("query") or "",
                    "tool_name": r.get("tool_name") or "",
                    "verifier_label": verifier,
                    "human_label": human,
                    "verifier_score": _score(r.get("verifier_score")),
                    "notes": (r.get("notes") or "").strip(),
                }
            )
    labelled = sum(confusion.values())
    agreement = (confusion["tp"] + confusion["tn"]) / labelled if labelled else math.nan
    return AgreementReport(
        rows=len(records),
        labelled=labelled,
        agreement=agreement,
        cohen_kappa=cohen_kappa(**confusion),
        confusion=confusion,
        disagreements=disagreements,
        skipped=skipped,
    )


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval for a proportion; better than the normal interval near 0 or 1."""
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _cell(text: Any, limit: int = 80) -> str:
    return _trim(str(text), limit).replace("|", "\\|")


def format_agreement(report: AgreementReport, paper_agreement: float = 0.94, *, max_disagreements: int = 20) -> str:
    """A markdown block for the CLI: agreement with its 95 % interval against the paper, kappa, confusion."""
    c = report.confusion
    lines = ["### Human review vs verifier", ""]
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(report.skipped.items())) or "none"
    lines.append(f"- rows: {report.rows}, labelled: {report.labelled} (skipped: {skipped})")
    if not report.labelled:
        lines.append("- no labelled rows yet: fill `human_label` with 1 (the tool does what the query asks) or 0")
        return "\n".join(lines) + "\n"
    lo, hi = wilson_interval(c["tp"] + c["tn"], report.labelled)
    verdict = "inside" if lo <= paper_agreement <= hi else "outside"
    lines.append(
        f"- agreement (per query-tool pair): {report.agreement:.1%} (95% CI {lo:.1%}-{hi:.1%}); "
        f"paper: {paper_agreement:.0%}, {verdict} the interval"
    )
    lines.append(f"- Cohen's kappa: {report.cohen_kappa:.3f}")
    precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else math.nan
    recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else math.nan
    lines.append(f"- verifier precision {precision:.1%}, recall {recall:.1%} (human label as truth)")
    lines += [
        "",
        "| | human 1 | human 0 |",
        "|---|---:|---:|",
        f"| verifier 1 | {c['tp']} | {c['fp']} |",
        f"| verifier 0 | {c['fn']} | {c['tn']} |",
    ]
    if report.disagreements:
        shown = report.disagreements[:max_disagreements]
        lines += ["", f"Disagreements ({len(shown)} of {len(report.disagreements)}):", ""]
        lines += ["| query | tool | verifier | score | human | notes |", "|---|---|---:|---:|---:|---|"]
        for d in shown:
            score = "" if d["verifier_score"] is None else f"{d['verifier_score']:.3f}"
            lines.append(
                f"| {_cell(d['query'])} | {_cell(d['tool_name'], 40)} | {d['verifier_label']} | {score} "
                f"| {d['human_label']} | {_cell(d['notes'], 60)} |"
            )
    return "\n".join(lines) + "\n"
