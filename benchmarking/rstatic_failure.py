"""The parts of ``benchmarks/rstatic_failure.py`` that rescore the history's tool-months: r_static with r_qual
against the other reference, and r_static under each other reading of eq. 4-5 (``score.readings``).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ecoagent.config import Config
from history.failure import Signal


def with_other_reference(rows: pl.DataFrame, config: Config, references: dict[str, str],
                         signals: list[Signal]) -> tuple[pl.DataFrame, list[Signal]]:  # fmt: skip
    """``rows`` with r_qual and r_static rescored against the ``score.r_qual_reference`` the months were not scored
    with (each month's z-scores over that month's tools; the rest of r_static as the month scored it), and a signal
    for each; unchanged when the months were scored against different references."""
    from scoring.reliability import R_QUAL_REFERENCES, static_prior
    from scoring.score import documentation_quality, scored_descriptions

    stored = {references.get(m, "catalog") for m in rows["month"].unique().to_list()}
    if len(stored) != 1:
        return rows, signals
    other = next(r for r in R_QUAL_REFERENCES if r not in stored)
    cfg = config.score.model_copy(update={"r_qual_reference": other})
    parts = []
    for part in rows.partition_by("month", maintain_order=True):
        r_qual = documentation_quality(part, scored_descriptions(part), cfg)
        r_static = static_prior(part["r_cons"].to_numpy(), part["w_src"].to_numpy(), r_qual, cfg.weights)
        parts.append(part.with_columns(pl.Series(f"r_qual_{other}", r_qual), pl.Series(f"r_static_{other}", r_static)))
    added = [Signal(f"r_static_{other}", f"r_static, r_qual against {other}", 1),
             Signal(f"r_qual_{other}", f"r_qual against {other}", 1)]  # fmt: skip
    return pl.concat(parts), [*signals[:4], *added, *signals[4:]]


def with_readings(rows: pl.DataFrame, config: Config, references: dict[str, str],
                  signals: list[Signal]) -> tuple[pl.DataFrame, list[Signal]]:  # fmt: skip
    """``rows`` (sorted by month) with ``r_static_<reading>`` of each of ``score.readings``, month by month: the
    month's r_cons and r_qual, the reading's name text and source weights, and its r_qual reference when it is not
    the one the month was scored with; and a signal for each."""
    from scoring.score import reading_r_static, score_embedder, scored_descriptions

    if not config.score.readings:
        return rows, signals
    embedder, months = score_embedder(config), rows.partition_by("month", maintain_order=True)
    for name, reading in config.score.readings.items():
        scores = []
        for part in months:
            stored = references.get(part["month"][0], "catalog")
            month_cfg = config.score.model_copy(update={"r_qual_reference": stored})
            scores.append(reading_r_static(part, reading, month_cfg, embedder, scored_descriptions(part),
                                           part["r_cons"].to_numpy(), part["r_qual"].to_numpy()))  # fmt: skip
        rows = rows.with_columns(pl.Series(f"r_static_{name}", np.concatenate(scores)))
        signals.insert(1, Signal(f"r_static_{name}", f"r_static, the {name} reading", 1))
    return rows, signals
