"""The quality gate of the scored catalog (``tools_scored.parquet``).

Per-row checks (ids, required fields, score ranges, enums) and catalog-level limits (size, share of
tools with a critical flaw, share with an unknown side effect, the crawl's drop share) are all
great-expectations expectations, run by :mod:`ecoagent.runtime.quality_gate`. ``auth_type`` may be null only where
the tool names it unknown: no row may pass a missing field off as a property of the tool
(``unknown_passed_as_known``, :func:`schemas.unknown_fields.unknown_passed_as_known`, must be 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

import polars as pl

from ecoagent.runtime.quality_gate import GateResult, metric_between, run_gate
from schemas.scored_tool import SIDE_EFFECTS
from schemas.tool_record import AuthType, Listing, Platform
from schemas.unknown_fields import unknown_passed_as_known
from scoring.settings import GateConfig

if TYPE_CHECKING:
    from great_expectations.expectations import Expectation

GATE_NAME = "scored_catalog"

REQUIRED_COLUMNS: tuple[str, ...] = (
    "tool_id", "platform", "listing", "package", "package_version", "name", "description", "parameters",
    "r_cons", "w_src", "r_qual", "r_static", "reliable", "critical_flaw", "side_effect",
    "side_effect_rule", "permission_scope", "prompt_tokens", "content_hash",
)  # fmt: skip
UNIT_INTERVAL_COLUMNS: tuple[str, ...] = ("r_cons", "w_src", "r_qual", "r_static")
ENUMS: dict[str, tuple[str, ...]] = {
    "platform": get_args(Platform),
    "listing": get_args(Listing),
    "auth_type": get_args(AuthType),
    "side_effect": SIDE_EFFECTS,
}


def _mostly(max_share: float) -> float:
    # "share of X <= max" is GX's "at least 1 - max of the rows are not X"; rounding keeps the limit
    # itself passing (1 - 0.7 is 0.30000000000000004 in floats).
    return min(1.0, max(0.0, round(1.0 - max_share, 12)))


def scored_catalog_expectations(cfg: GateConfig) -> list[Expectation]:
    """The expectations of the scored-catalog gate, built from the ``score.gate`` limits."""
    import great_expectations as gx

    E = gx.expectations
    exps: list[Expectation] = [
        E.ExpectTableRowCountToBeBetween(min_value=cfg.min_tools, description="at least gate.min_tools tools"),
        E.ExpectColumnValuesToBeUnique(column="tool_id"),
    ]
    # Empty descriptions are allowed: the flaws report them, the gate only wants the field present.
    exps += [E.ExpectColumnValuesToNotBeNull(column=c) for c in REQUIRED_COLUMNS]
    exps.append(E.ExpectColumnValueLengthsToBeBetween(column="name", min_value=1))
    exps += [E.ExpectColumnValuesToBeBetween(column=c, min_value=0, max_value=1) for c in UNIT_INTERVAL_COLUMNS]
    exps.append(E.ExpectColumnValuesToBeBetween(column="prompt_tokens", min_value=1, description="prompt_tokens > 0"))
    exps += [E.ExpectColumnValuesToBeInSet(column=c, value_set=list(values)) for c, values in ENUMS.items()]
    # Mostly-style shares rather than a column mean: an empty catalog then fails only the row count.
    exps += [
        E.ExpectColumnValuesToNotBeInSet(
            column="critical_flaw",
            value_set=[True],
            mostly=_mostly(cfg.max_critical_flaw_share),
            description=f"share of tools with a critical flaw ≤ {cfg.max_critical_flaw_share} "
            "(gate.max_critical_flaw_share)",
        ),
        E.ExpectColumnValuesToNotBeInSet(
            column="side_effect",
            value_set=["unknown"],
            mostly=_mostly(cfg.max_unknown_side_effect_share),
            description=f"share of side_effect == unknown ≤ {cfg.max_unknown_side_effect_share} "
            "(gate.max_unknown_side_effect_share)",
        ),
        metric_between(
            "unknown_passed_as_known",
            min_value=0,
            max_value=0,
            description="no tool presents a field its source could not show as known (auth_type null only where "
            "named in unknown_fields; a reduced copy's auth 'none' or empty parameter schema named unknown)",
        ),
        metric_between(
            "drop_share",
            min_value=0.0,
            max_value=cfg.max_drop_share,
            description="records dropped by the crawl over records extracted (gate.max_drop_share)",
        ),
    ]
    return exps


def crawl_drop_share(crawl_summary: dict) -> float:
    """Dropped records over extracted ones (kept + dropped); 0 when the crawl extracted nothing."""
    drops = sum(crawl_summary["drops_by_reason"].values())
    total = crawl_summary["tools"] + drops
    return drops / total if total else 0.0


def run_scored_catalog_gate(scored: pl.DataFrame, crawl_summary: dict, cfg: GateConfig, out_dir: str) -> GateResult:
    """Validate the scored catalog and the crawl's drop share; the caller decides whether to ``enforce``."""
    metrics = {"drop_share": crawl_drop_share(crawl_summary),
               "unknown_passed_as_known": float(unknown_passed_as_known(scored))}  # fmt: skip
    return run_gate(GATE_NAME, scored, scored_catalog_expectations(cfg), cfg.report_dir or out_dir, metrics=metrics)
