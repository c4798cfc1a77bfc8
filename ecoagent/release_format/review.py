"""The review-sample file and the agreement it measures: a filled ``review_sample.csv`` read back.

The label stage writes the sample (:func:`labeling.review.export_review_sample`); a person fills ``human_label``;
:func:`read_agreement` reads the file and computes agreement and Cohen's kappa with the human label as ground truth
(``ecoagent label agreement FILE`` prints it with :func:`format_agreement`, the release build puts it in the card).
The unit is a *pair* (query, candidate tool), because that is what the verifier decides.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
# What a blind sheet leaves blank, in a key file of its own (query_id, tool_id, these): the reviewer does not see them
BLIND_COLUMNS = ["retrieval_cosine", "verifier_score", "verifier_label"]

_TRUE = {"1", "yes", "true"}
_FALSE = {"0", "no", "false"}

def trim_text(text: str | None, limit: int) -> str:
    """One line of at most ``limit`` characters, cut with an ellipsis: readable in a sheet or a table cell."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


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


def _read_key(key: str | Path) -> dict[tuple[str, str], dict[str, str]]:
    """A blind sheet's key: (query_id, tool_id) -> the hidden columns."""
    with Path(key).open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in ("query_id", "tool_id", *BLIND_COLUMNS) if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{key} is not a review key: missing columns {', '.join(missing)}")
        return {(r["query_id"].strip(), r["tool_id"].strip()): {c: r[c] for c in BLIND_COLUMNS} for r in reader}


def read_agreement(path: str | Path, key: str | Path | None = None) -> AgreementReport:
    """Read a filled review CSV and compare ``human_label`` with ``verifier_label``.

    ``key``: the key of a blind sheet (:func:`labeling.review.export_review_sample` with ``blind_key``), whose
    hidden columns fill the sheet's blank ones by (query_id, tool_id).

    Rows are never guessed: a blank human_label counts under ``skipped["blank"]``, anything outside
    1/0/yes/no/true/false under ``skipped["invalid"]``, an unreadable verifier_label under
    ``skipped["invalid verifier_label"]``, and a second row for the same (query_id, tool_id) under
    ``skipped["duplicate"]`` (a copied row must not count twice). Fully blank lines are not rows.
    """
    path = Path(path)
    records = _read_records(path)
    if key is not None:
        hidden = _read_key(key)
        for r in records:
            r.update(hidden.get(((r.get("query_id") or "").strip(), (r.get("tool_id") or "").strip()), {}))
    confusion, disagreements, skipped = _compare(records)
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


def _read_records(path: Path) -> list[dict]:
    """The review CSV's non-blank rows, keyed by the lower-cased header; refuses a file without the needed columns."""
    # utf-8-sig: spreadsheet programs often add a BOM when the reviewer saves the file.
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        header = [(h or "").strip().lower() for h in (reader.fieldnames or [])]
        missing = [c for c in REQUIRED_READ_COLUMNS if c not in header]
        if missing:
            raise ValueError(f"{path} is not a review CSV: missing columns {', '.join(missing)}")
        reader.fieldnames = header
        return [r for r in reader if any((v or "").strip() for v in r.values() if isinstance(v, str))]


def _compare(records: list[dict]) -> tuple[dict[str, int], list[dict], Counter]:
    """The confusion table of the rows a person labelled, their disagreements, and the skipped rows by reason."""
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
            disagreements.append(_disagreement(r, key, verifier, human))
    return confusion, disagreements, skipped


def _disagreement(r: dict, key: tuple[str, str], verifier: int, human: int) -> dict:
    return {
        "query_id": key[0],
        "tool_id": key[1],
        "query": r.get("query") or "",
        "tool_name": r.get("tool_name") or "",
        "verifier_label": verifier,
        "human_label": human,
        "verifier_score": _score(r.get("verifier_score")),
        "notes": (r.get("notes") or "").strip(),
    }


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
    return trim_text(str(text), limit).replace("|", "\\|")


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
