"""The score stage's entry point: tier, rule, inverse tool and permission scope for every tool of a frame."""

from __future__ import annotations

import polars as pl

from scoring.side_effect.inverses import link_inverses
from scoring.side_effect.permission import permission_scope
from scoring.side_effect.rules import classify_one
from scoring.side_effect.tiers import REVERSIBLE

OUTPUT_SCHEMA = pl.Schema(
    {
        "tool_id": pl.String(),
        "side_effect": pl.String(),
        "side_effect_rule": pl.String(),
        "inverse_tool_id": pl.String(),
        "permission_scope": pl.String(),
    }
)

_COLUMNS = ("tool_id", "platform", "package", "service", "source_symbol", "name", "display_name", "description",
            "http_methods", "categories", "unknown_fields")  # fmt: skip


def classify_side_effects(tools: pl.DataFrame) -> pl.DataFrame:
    """One row per input tool, same order: tool_id, side_effect, side_effect_rule, inverse_tool_id, permission_scope."""
    present = [c for c in _COLUMNS if c in tools.columns]
    rows = tools.select(present).to_dicts()
    verdicts = [classify_one(r) for r in rows]
    links = link_inverses(rows, verdicts)
    out: dict[str, list] = {c: [] for c in OUTPUT_SCHEMA.names()}
    for row, verdict, (inverse, pair_rule) in zip(rows, verdicts, links, strict=True):
        side_effect, rule = verdict.side_effect, verdict.rule
        if pair_rule is not None:
            side_effect, rule = REVERSIBLE, pair_rule
        out["tool_id"].append(row.get("tool_id"))
        out["side_effect"].append(side_effect)
        out["side_effect_rule"].append(rule)
        out["inverse_tool_id"].append(inverse)
        out["permission_scope"].append(
            permission_scope(row.get("service"), row.get("package"), side_effect, verdict.arbitrary)
        )
    return pl.DataFrame(out, schema=OUTPUT_SCHEMA)
