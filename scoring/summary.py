"""What the score stage says about itself: the lines the CLI prints and a DAG task logs."""

from __future__ import annotations

from ecoagent.text.markdown import markdown_table
from schemas.unknown_fields import unknown_counts_text


def summary_lines(summary: dict, out: str) -> list[str]:
    """Reliable shares per platform and per reading, the score distribution, side effects, tokens, the cache."""
    header = ["platform", "tools", "reliable", "mean r_static", "critical flaw", "any flaw", "read-only",
              "unknown tier"]  # fmt: skip
    rows = [
        [platform, row["tools"], f"{row['reliable_share']:.1%}", f"{row['r_static_mean']:.3f}",
         f"{row['critical_flaw_share']:.1%}", f"{row['any_flaw_share']:.1%}", row["side_effect"]["read_only"],
         row["side_effect"]["unknown"]]
        for platform, row in summary["per_platform"].items()
    ]  # fmt: skip
    dist = summary["distribution"]["r_static"]
    lines = [
        f"score: {summary['tools']} tools",
        *markdown_table(header, rows, 1),
        f"reliable (r_static >= {summary['reliable_threshold']}): {summary['reliable']} of {summary['tools']} = "
        f"{summary['reliable_share']:.1%} (the paper reports {summary['paper_reliable_share']:.1%}); "
        f"r_static median {dist['quantiles']['median']:.3f}, p10 {dist['quantiles']['p10']:.3f}, "
        f"p90 {dist['quantiles']['p90']:.3f}",
    ]
    for name, reading in summary.get("readings", {}).items():
        lines.append(
            f"reliable under the {name.replace('_', '-')} reading"
            + (f" ({reading['description']})" if reading["description"] else "")
            + f": {reading['reliable']} of {summary['tools']} = {reading['reliable_share']:.1%} "
            f"(ours: {summary['reliable_share']:.1%})"
        )
    tokens, cache = summary["prompt_tokens"], summary["embedding_cache"]
    return [
        *lines,
        *listing_lines(summary),
        "r_static histogram: " + ", ".join(f"{k}: {v}" for k, v in dist["histogram"].items()),
        "side effects: " + ", ".join(f"{k}={v}" for k, v in summary["side_effect"].items()),
        f"prompt tokens: total {tokens['total']:,}, median {tokens['median']:.0f}, p90 {tokens['p90']:.0f}"
        + _schema_unknown(tokens),
        f"embedding cache hits {cache['hits']}, misses {cache['misses']}; total {summary['seconds']['total']}s",
        f"outputs: {out}",
    ]


def _schema_unknown(tokens: dict) -> str:
    unknown = tokens.get("schema_unknown") or {}
    if not unknown.get("tools"):
        return ""
    return (f"; {unknown['tools']} tools whose parameter schema is unknown counted apart (what the source showed: "
            f"{unknown['total_lower_bound']:,} tokens, a lower bound)")  # fmt: skip


def listing_lines(summary: dict) -> list[str]:
    """Per listing: tools, the reliable share, the w_src each platform took and why, the tools with unknown fields."""
    rows = [
        [listing, row["tools"], f"{row['reliable_share']:.1%}",
         ", ".join(f"{p} {r['w_src']} ({r['weight']})" for p, r in row["per_platform"].items()),
         unknown_counts_text(row.get("unknown", {}).get("fields", {}))]
        for listing, row in summary.get("per_listing", {}).items()
    ]  # fmt: skip
    if not rows:
        return []
    reasons = [f"w_src of {listing}: {row['w_src_rule']}" for listing, row in summary["per_listing"].items()]
    header = ["listing", "tools", "reliable", "w_src (weight)", "unknown fields (tools)"]
    return [*markdown_table(header, rows, 1), *reasons]

