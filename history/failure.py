"""Does r_static predict failure? The history's months as a prediction task (issue 35, item 3).

For each month with ``ahead`` months of future in the history, every tool the month holds is one row: its scores as
that month scored them (``history_months/<YYYY-MM>/score/tools_scored.parquet``: the history step scores each month
with the score stage, so r_static and its sub-scores are kept per month), and a label, 1 when one of
:data:`FAILURE_EVENTS` (``tool_events.parquet``) happens to it in the ``ahead`` months after (``month < event month
<= month + ahead``), else 0. Beside the scores, ecosystem signals the history shows (:func:`ecosystem_signals`).

Each signal is oriented so that a higher value predicts a reliable tool (:data:`SIGNALS`); its failure score is the
value times -1, so an AUC above 0.5 means the signal, read that way, ranks the tools that fail above those that do
not. The intervals resample tools, not rows: a tool is in the pool once per month, and its months are not
independent (:func:`tool_weights`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import polars as pl

from ecoagent.figures import png_bytes
from ecoagent.layout import HISTORY_FILES, SCORE_FILES
from ecoagent.runtime import context
from ecoagent.statistics import bootstrap_counts, percentile_interval
from ecoagent.store import ArtifactStore
from history.months import MONTHS_FOLDER, add_months, month_end

# a tool that leaves the catalog, or that its maintainers or registry mark deprecated (restored and
# description_changed are no failure)
FAILURE_EVENTS = ("removed", "renamed", "deprecated", "package_deprecated")
# the month's scored columns the benchmark reads: the scores, and what the other readings of eq. 4-5 need
SCORED_COLUMNS = ("tool_id", "platform", "listing", "package", "package_version", "name", "display_name",
                  "description", "doc_summary", "categories", "r_static", "r_cons", "w_src", "r_qual")  # fmt: skip
VETTED_LISTINGS = ("official", "platform", "community-verified")  # someone other than the author vouches for it
DAYS_PER_MONTH = 365.25 / 12


@dataclass(frozen=True)
class Signal:
    column: str
    label: str
    direction: int  # +1: a higher value predicts a reliable tool; -1: a lower one does


SIGNALS = (
    Signal("r_static", "r_static", 1),
    Signal("r_cons", "r_cons", 1),
    Signal("w_src", "w_src", 1),
    Signal("r_qual", "r_qual", 1),
    Signal("months_since_release", "months since the package's last release (fewer: reliable)", -1),
    Signal("package_age_months", "package age, months since first seen (older: reliable)", 1),
    Signal("vetted_listing", "vetted listing: official, platform or verified (1: reliable)", 1),
)


@dataclass
class History:
    """What the benchmark reads of an ``ecoagent history`` output folder."""

    months: list[str]  # every month of the history, oldest first
    tools: pl.DataFrame  # :data:`SCORED_COLUMNS` and ``month``: every month's scored catalog, pooled
    events: pl.DataFrame  # tool_events.parquet
    publish_times: dict  # publish_times.json: {month: {"registry:name": [version, iso time]}}
    references: dict[str, str]  # month -> the r_qual reference its score summary names


def prediction_months(months: list[str], ahead: int) -> list[str]:
    """The months with ``ahead`` months of future in the history: ``month + ahead`` is a month of it."""
    return [m for m in months if add_months(m, ahead) <= months[-1]] if months else []


def load_history(history_dir: str | Path, score_name: str) -> History:
    """The month folders beside ``history_dir`` (``<root>/history_months/<YYYY-MM>/<score_name>/``: the score
    stage's name, which the caller gets from the stage) and its files."""
    folder = Path(history_dir)
    for name in (HISTORY_FILES.publish_times, HISTORY_FILES.tool_events):
        if not (folder / name).exists():
            raise FileNotFoundError(f"{folder / name} is missing: give the folder `ecoagent history` wrote (its "
                                    "default data/history/; a run before the tool events needs a rerun)")  # fmt: skip
    times = json.loads((folder / HISTORY_FILES.publish_times).read_text())
    events = pl.read_parquet(folder / HISTORY_FILES.tool_events)
    return history_of_months(folder.parent / MONTHS_FOLDER, times, events, score_name)


def history_of_months(months_dir: str | Path, publish_times: dict, events: pl.DataFrame, score_name: str) -> History:
    """The scored month folders under ``months_dir`` (``<YYYY-MM>/<score_name>/``) with the history's publish times
    (``{month: {"registry:name": [version, iso time]}}``) and tool events: what the history step has in hand before
    it writes its folder, and what :func:`load_history` reads back."""
    months, frames, references = sorted(publish_times), [], {}
    for month in months:
        scored = ArtifactStore(f"{str(months_dir).rstrip('/')}/{month}/{score_name}")
        if not publish_times[month] or not scored.exists(SCORE_FILES.tools):
            continue  # no package published yet: the month has no catalog
        frame = scored.read_parquet(SCORE_FILES.tools).select(SCORED_COLUMNS)
        frames.append(frame.with_columns(pl.lit(month).alias("month")))
        stated = scored.read_json(SCORE_FILES.summary).get("r_qual_reference") if scored.exists(SCORE_FILES.summary) \
            else None
        references[month] = stated or "catalog"  # a month scored before the setting: the whole catalog
    if not frames:
        raise FileNotFoundError(f"no scored month under {months_dir}: the history's month folders sit beside its "
                                "folder")  # fmt: skip
    return History(months, pl.concat(frames, how="vertical_relaxed"), events, publish_times, references)


def failure_labels(rows: pl.DataFrame, events: pl.DataFrame, ahead: int) -> pl.Series:
    """1 where one of :data:`FAILURE_EVENTS` happens to the row's tool after its ``month`` and at most ``ahead``
    months after it, else 0; in ``rows``' order."""
    horizon = {m: add_months(m, ahead) for m in rows["month"].unique().to_list()}
    failing = events.filter(pl.col("event").is_in(FAILURE_EVENTS)).select("tool_id", pl.col("month").alias("at"))
    keyed = rows.select("tool_id", "month").with_row_index("row").with_columns(
        pl.col("month").replace_strict(horizon, return_dtype=pl.String).alias("until"))
    hits = (keyed.join(failing, on="tool_id", how="inner")
            .filter((pl.col("at") > pl.col("month")) & (pl.col("at") <= pl.col("until")))["row"].unique())  # fmt: skip
    return keyed["row"].is_in(hits.implode()).cast(pl.Int8).alias("failed")


def _version_times(publish_times: dict) -> tuple[dict[tuple[str, str], datetime], dict[str, str]]:
    """``(package name, version) -> publish time`` and ``package name -> the first month that holds it``."""
    times: dict[tuple[str, str], datetime] = {}
    first: dict[str, str] = {}
    for month in sorted(publish_times):
        for key, (version, published) in publish_times[month].items():
            name = key.split(":", 1)[1]
            times[(name, version)] = datetime.fromisoformat(published)
            first.setdefault(name, month)
    return times, first


def _months_between(earlier: str, later: str) -> int:
    (y0, m0), (y1, m1) = map(int, earlier.split("-")), map(int, later.split("-"))
    return (y1 - y0) * 12 + m1 - m0


def ecosystem_signals(rows: pl.DataFrame, publish_times: dict) -> pl.DataFrame:
    """``rows`` with the signals the history shows beside the scores:

    - ``months_since_release``: from the publish time of the version the month took to the month's end (null where
      the history has no time for it);
    - ``package_age_months``: months since the first month of the history that holds the package (left-censored: a
      package older than ``history.since`` is as old as the history);
    - ``vetted_listing``: 1 for the official, platform and verified listings (:data:`VETTED_LISTINGS`), 0 else.
    """
    times, first = _version_times(publish_times)
    since, age = [], []
    for month, package, version in rows.select("month", "package", "package_version").iter_rows():
        published = times.get((package, version))
        since.append((month_end(month) - published).days / DAYS_PER_MONTH if published else None)
        age.append(_months_between(first[package], month) if package in first else None)
    return rows.with_columns(
        pl.Series("months_since_release", since, dtype=pl.Float64),
        pl.Series("package_age_months", age, dtype=pl.Float64),
        pl.col("listing").is_in(VETTED_LISTINGS).cast(pl.Float64).alias("vetted_listing"),
    )


def prediction_rows(history: History, ahead: int) -> pl.DataFrame:
    """Every tool of every month with ``ahead`` months of future: its scores, signals and ``failed`` label."""
    rows = history.tools.filter(pl.col("month").is_in(prediction_months(history.months, ahead)))
    rows = ecosystem_signals(rows, history.publish_times)
    return rows.with_columns(failure_labels(rows, history.events, ahead)).sort("month", "tool_id")


class RankedRows:
    """One signal's rows ordered once by failure score, their runs of tied scores found once: AUC-ROC and average
    precision of any weighting of the rows (a bootstrap draw's) then cost two sums, no sort.

    A row's weight is how many times a draw took it: the figures of a weighting are those of the sample with each row
    repeated that many times (tests check it against scikit-learn on the repeated sample)."""

    def __init__(self, labels: np.ndarray, scores: np.ndarray) -> None:
        order = np.argsort(scores, kind="stable")
        self.order = order
        self.labels = np.asarray(labels, dtype=np.float64)[order]
        ordered = np.asarray(scores, dtype=np.float64)[order]
        self.starts = np.r_[0, np.nonzero(np.diff(ordered))[0] + 1]  # first row of each run of tied scores

    def _groups(self, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Per run of tied scores, lowest first: the weight of its failures and of its other rows."""
        w = np.ones(len(self.labels)) if weights is None else np.asarray(weights, dtype=np.float64)[self.order]
        positive = w * self.labels
        return np.add.reduceat(positive, self.starts), np.add.reduceat(w - positive, self.starts)

    def auc(self, weights: np.ndarray | None = None) -> float:
        """Mann-Whitney's U over ``P N`` (a tie counts one half: sklearn's ``roc_auc_score``); nan with one class."""
        positive, negative = self._groups(weights)
        p, n = positive.sum(), negative.sum()
        if p == 0 or n == 0:
            return float("nan")
        below = np.cumsum(negative) - negative
        return float((positive * (below + 0.5 * negative)).sum() / (p * n))

    def average_precision(self, weights: np.ndarray | None = None) -> float:
        """``sum_n (R_n - R_{n-1}) P_n`` over the distinct scores, highest first (sklearn's
        ``average_precision_score``); nan without a failure or a non-failure."""
        positive, negative = self._groups(weights)
        p, n = positive.sum(), negative.sum()
        if p == 0 or n == 0:
            return float("nan")
        positive, negative = positive[::-1], negative[::-1]
        hits, taken = np.cumsum(positive), np.cumsum(positive + negative)
        precision = np.divide(hits, taken, out=np.zeros_like(hits), where=taken > 0)
        return float((positive / p * precision).sum())


def tool_weights(tool_ids: np.ndarray, resamples: int, seed: int = 0) -> Iterator[np.ndarray]:
    """Each bootstrap draw of tools as row weights: a row weighs the number of times the draw took its tool, so a
    tool's months are resampled together (the draws of :func:`~ecoagent.statistics.bootstrap_interval` over the
    tools in sorted order); no draw without a tool."""
    ids, index = np.unique(tool_ids, return_inverse=True)
    if len(ids):
        for counts in bootstrap_counts(len(ids), resamples, seed):
            yield counts[index]


@dataclass
class Measure:
    signal: str
    slice: str  # "all" or a platform
    rows: int
    tools: int
    failures: int
    auc: float
    auc_ci: tuple[float, float]
    average_precision: float
    ap_ci: tuple[float, float]

    @property
    def base_rate(self) -> float:
        return self.failures / self.rows if self.rows else float("nan")


def measure(rows: pl.DataFrame, signal: Signal, slice_name: str, resamples: int, seed: int = 0) -> Measure:
    """AUC and average precision of one signal (oriented, :data:`SIGNALS`) on ``rows``, with 95 % intervals over
    tools. Rows without the signal (a version without a publish time) are left out."""
    value = pl.col(signal.column).cast(pl.Float64)
    rows = rows.filter(value.is_not_null() & value.is_not_nan())
    failure_score = -signal.direction * rows[signal.column].cast(pl.Float64).to_numpy()
    labels = rows["failed"].cast(pl.Float64).to_numpy()
    ranked = RankedRows(labels, failure_score)
    draws = [(ranked.auc(w), ranked.average_precision(w)) for w in tool_weights(rows["tool_id"].to_numpy(), resamples,
                                                                                seed)] if len(rows) else []  # fmt: skip
    return Measure(
        signal=signal.label, slice=slice_name, rows=len(rows), tools=rows["tool_id"].n_unique(),
        failures=int(labels.sum()), auc=ranked.auc() if len(rows) else float("nan"),
        auc_ci=percentile_interval([a for a, _ in draws]),
        average_precision=ranked.average_precision() if len(rows) else float("nan"),
        ap_ci=percentile_interval([ap for _, ap in draws]),
    )  # fmt: skip


def measures(rows: pl.DataFrame, signals: list[Signal], resamples: int, seed: int = 0) -> list[Measure]:
    """Every signal pooled, then per platform."""
    slices = [("all", rows)] + [(p, rows.filter(pl.col("platform") == p)) for p in sorted(rows["platform"].unique())]
    out = []
    with context.phase("does r_static predict failure: signals x slices", len(slices) * len(signals)) as counting:
        for name, part in slices:
            for signal in signals:
                out.append(measure(part, signal, name, resamples, seed))
                counting.advance()
    return out


def decile_table(rows: pl.DataFrame, column: str = "r_static") -> list[dict]:
    """The failure rate by equal-count decile of ``column`` (lowest first; ties split in the rows' order)."""
    scores, labels = rows[column].to_numpy(), rows["failed"].to_numpy()
    if len(scores) == 0:
        return []
    order = np.argsort(scores, kind="stable")
    decile = np.empty(len(scores), dtype=np.int64)
    decile[order] = np.arange(len(scores)) * 10 // len(scores)
    table = []
    for d in range(10):
        inside = decile == d
        if inside.any():
            table.append({"decile": d + 1, "low": float(scores[inside].min()), "high": float(scores[inside].max()),
                          "rows": int(inside.sum()), "failures": int(labels[inside].sum()),
                          "rate": float(labels[inside].mean())})  # fmt: skip
    return table


def decile_plot(table: list[dict], base_rate: float, ahead: int) -> bytes:
    """The failure rate per r_static decile as bars, the pooled rate as a line (PNG bytes, the same per rerun)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=110)
    labels = [f"{row['decile']}\n{row['low']:.2f}-{row['high']:.2f}" for row in table]
    ax.bar(labels, [row["rate"] for row in table], color="tab:blue", label="failure rate in the decile")
    ax.axhline(base_rate, color="black", linestyle="--", label=f"all tools ({base_rate:.1%})")
    ax.set_xlabel("r_static decile (range)")
    ax.set_ylabel(f"share with an event within {ahead} months")
    ax.set_title("Failure rate by r_static decile (removed, renamed, deprecated)")
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(loc="upper right")
    fig.tight_layout()
    return png_bytes(fig)


def verdict(result: Measure) -> str:
    """What one AUC interval says, in words."""
    low, high = result.auc_ci
    if np.isnan(result.auc) or np.isnan(low):
        return "cannot be measured (no failure, or no tool without one)"
    if low <= 0.5 <= high:
        return "predicts nothing (AUC CI contains 0.5)"
    return "predicts failure (AUC CI above 0.5)" if low > 0.5 else "predicts the wrong way (AUC CI below 0.5)"


def finding(results: list[Measure], ahead: int) -> str:
    """The record's first figure: what was found, in one sentence or two."""
    pooled = [r for r in results if r.slice == "all"]
    static = next(r for r in pooled if r.signal == "r_static")
    head = (f"Over {static.rows:,} tool-months ({static.tools:,} tools), {static.failures:,} "
            f"({static.base_rate:.1%}) saw a removal, rename or deprecation within {ahead} months; r_static "
            f"{verdict(static)}: AUC {static.auc:.3f} [{static.auc_ci[0]:.3f}, {static.auc_ci[1]:.3f}].")  # fmt: skip
    measured = [r for r in pooled if not np.isnan(r.auc)]
    if not measured:
        return head
    best = max(measured, key=lambda r: r.auc)
    if best is static:
        return f"{head} No other pooled signal does better."
    return (f"{head} The best pooled signal is {best.signal}: AUC {best.auc:.3f} "
            f"[{best.auc_ci[0]:.3f}, {best.auc_ci[1]:.3f}], it {verdict(best)}.")  # fmt: skip


def failure_prediction(history: History, ahead: int, resamples: int, seed: int) -> tuple[dict, bytes | None]:
    """What the history step writes for the card: every signal of :data:`SIGNALS`, pooled and per platform, the
    r_static deciles and :func:`finding`; and the decile plot (None when no month has ``ahead`` months of future)."""
    rows = prediction_rows(history, ahead)
    if rows.is_empty():
        return {"months_ahead": ahead, "skipped": f"no month has {ahead} months of future in the history "
                f"({history.months[0]} to {history.months[-1]})"}, None  # fmt: skip
    results = measures(rows, list(SIGNALS), resamples, seed)
    deciles = decile_table(rows)
    base_rate = float(rows["failed"].mean())
    months = sorted(rows["month"].unique().to_list())
    report = {"months_ahead": ahead, "resamples": resamples, "seed": seed, "months": [months[0], months[-1]],
              "events": list(FAILURE_EVENTS), "rows": len(rows), "tools": rows["tool_id"].n_unique(),
              "failures": int(rows["failed"].sum()), "base_rate": base_rate, "finding": finding(results, ahead),
              "measures": [{**_without_nan(vars(r)), "verdict": verdict(r)} for r in results],
              "deciles": deciles}  # fmt: skip
    return report, decile_plot(deciles, base_rate, ahead)


def _without_nan(values: dict) -> dict:
    """A measure as strict JSON: a value (or interval end) that could not be measured is null."""

    def clean(v):
        if isinstance(v, tuple | list):
            return [clean(x) for x in v]
        return None if isinstance(v, float) and np.isnan(v) else v

    return {k: clean(v) for k, v in values.items()}
