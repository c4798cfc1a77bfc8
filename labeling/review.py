"""Human review of the verifier: export a stratified sample to CSV for people to label.

The paper: "Human experts review a stratified sample of 200 queries and agree with the LLM verifier on 94% of
cases." :func:`export_review_sample` draws the queries and writes one row per (query, candidate tool) pair for a
person to label; :mod:`ecoagent.release_format.review` reads the filled file back (the release build reads it too) and
measures
agreement and Cohen's kappa with the human label as ground truth.

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
from pathlib import Path
from typing import Any

import polars as pl

from ecoagent.release_format.review import BLIND_COLUMNS, REVIEW_COLUMNS, trim_text

# Which score decides the label for each value of the pairs' `verifier` column (config label.verifier).
# "both": the LLM is asked last, about the pairs the agreement passed
DECIDING_SCORE = {"llm": "llm_score", "embedding": "agreement_score", "both": "llm_score"}

# Score bands of a query's best deciding score. 0.85 is the keep threshold (label.min_verifier_score); the
# band below it is where the verifier is least sure, so it gets its own stratum rather than being lumped with
# clear rejects.
BANDS: list[tuple[float, str]] = [(0.5, "<0.5"), (0.85, "0.5-0.85"), (math.inf, ">=0.85")]
UNSCORED_BAND = "unscored"

# Long descriptions make the sheet unreadable; the reviewer needs the gist, the tool_id finds the rest.
DESCRIPTION_CHARS = 300

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
    blind_key: str | Path | None = None,
) -> int:
    """Write a review CSV for a stratified sample of ``size`` queries; return the number of rows written.

    With ``blind_key`` the sheet is blind: its retrieval_cosine, verifier_score and verifier_label are blank, the
    rows of a query come in a seeded random order (sorted by retrieval rank they would tell which pairs were
    retrieved), and those columns go to ``blind_key`` (query_id, tool_id and the three), which
    :func:`ecoagent.release_format.review.read_agreement` joins back (``key=``).

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
    query_info, tool_info = _query_and_tool_info(scored, queries, tools)
    chosen = _draw(_strata(scored, query_info), size, seed)
    rows = (
        scored.filter(pl.col("query_id").is_in(sorted(chosen)))
        .join(query_info, on="query_id", how="left")
        .join(tool_info, on="tool_id", how="left")
        .sort(["query_id", "retrieval_cosine", "tool_id"], descending=[False, True, False], nulls_last=True)
    )
    out = _sheet_rows(rows)
    if blind_key is not None:
        out = _blinded(out, Path(blind_key), seed)
    _write_csv_atomic(Path(path), REVIEW_COLUMNS, out)
    return len(out)


def _query_and_tool_info(
    scored: pl.DataFrame, queries: pl.DataFrame, tools: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The text and source of each query, the name and description of each tool; refuses a pair naming neither."""
    query_info = queries.select("query_id", "text", "source").unique("query_id", keep="first")
    unknown_q = scored.join(query_info, on="query_id", how="anti")["query_id"].unique().sort().to_list()
    if unknown_q:
        raise ValueError(f"pairs reference {len(unknown_q)} query_id(s) missing from queries, e.g. {unknown_q[:3]}")
    tool_info = tools.select("tool_id", "name", "description").unique("tool_id", keep="first")
    unknown_t = scored.join(tool_info, on="tool_id", how="anti")["tool_id"].unique().sort().to_list()
    if unknown_t:
        raise ValueError(f"pairs reference {len(unknown_t)} tool_id(s) missing from tools, e.g. {unknown_t[:3]}")
    return query_info, tool_info


def _strata(scored: pl.DataFrame, query_info: pl.DataFrame) -> dict[tuple[str, str], list[str]]:
    """The query ids of each stratum (source, band of the query's best deciding score), in query_id order."""
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
    return members


def _draw(members: dict[tuple[str, str], list[str]], size: int, seed: int) -> set[str]:
    """Each stratum's quota of queries, drawn by an RNG of its own (a change in one leaves the others' draws)."""
    quota = allocate({k: len(v) for k, v in members.items()}, size)
    chosen: set[str] = set()
    for stratum, ids in members.items():
        rng = random.Random(f"{seed}:{stratum[0]}:{stratum[1]}")
        chosen.update(rng.sample(sorted(ids), quota.get(stratum, 0)))
    return chosen


def _sheet_rows(rows: pl.DataFrame) -> list[list[str]]:
    """The review sheet's rows (:data:`REVIEW_COLUMNS`) of the sampled pairs."""
    return [
        [
            str(r["query_id"]),
            r["text"] or "",
            str(r["tool_id"]),
            r["name"] or "",
            trim_text(r["description"], DESCRIPTION_CHARS),
            _fmt(r["retrieval_cosine"]),
            _fmt(r["_deciding"]),
            "" if r["label"] is None else str(int(r["label"])),
            "",
            "",
        ]
        for r in rows.iter_rows(named=True)
    ]


_HIDDEN = [REVIEW_COLUMNS.index(c) for c in BLIND_COLUMNS]


def _blinded(rows: list[list[str]], key: Path, seed: int) -> list[list[str]]:
    """The sheet's rows with the :data:`BLIND_COLUMNS` blank and shuffled within each query; the key written."""
    _write_csv_atomic(key, ["query_id", "tool_id", *BLIND_COLUMNS], [[r[0], r[2], *(r[i] for i in _HIDDEN)]
                                                                     for r in rows])  # fmt: skip
    by_query: dict[str, list[list[str]]] = {}
    for row in rows:
        by_query.setdefault(row[0], []).append([("" if i in _HIDDEN else v) for i, v in enumerate(row)])
    out: list[list[str]] = []
    for query_id, members in by_query.items():
        random.Random(f"{seed}:{query_id}").shuffle(members)
        out.extend(members)
    return out


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
