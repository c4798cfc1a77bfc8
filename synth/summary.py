"""What the synth stage says about itself: the lines the CLI prints and a DAG task logs."""

from __future__ import annotations

from ecoagent.text.markdown import markdown_table
from schemas.unknown_fields import ANY, unknown_counts_text


def summary_lines(summary: dict, out: str) -> list[str]:
    """The round trip per platform, requests, drops, pairs and a sample of kept queries for a person to read."""
    rt = summary.get("round_trip") or {}
    k = rt.get("top_k", 10)
    rows = [
        [platform, row["queries"], f"{row['top1']:.0%}", f"{row[f'top{k}']:.0%}",
         f"{row[f'top{k}_same_service']:.0%}", f"{row['median_rank']:.0f}"]
        for platform, row in (rt.get("per_platform") or {}).items()
    ]  # fmt: skip
    pairs = summary["pairs"]
    header = ["platform", "queries", "round-trip top-1", "top-k", "top-k same service", "median rank"]
    lines = [
        f"synth: {summary['queries_kept']} queries for {summary['tools_with_queries']} tools",
        *markdown_table(header, rows, right_align_from=1),
        f"tools selected {summary['tools_selected']} ({summary['selection']}), requests {summary['requests']} "
        f"({summary['requests_cached_before']} cached, {summary['requests_failed']} failed), "
        f"model {summary['generator_model']}, prompt {summary['prompt_version']}",
        "drops by reason: " + ", ".join(f"{key}={value}" for key, value in summary["drops_by_reason"].items()),
        f"pairs: {pairs['positive']} positive, {pairs['hard_negative']} hard and {pairs['random_negative']} random "
        f"negatives; intents {summary['intent_types']}",
    ]
    if summary.get("not_a_benchmark"):
        lines.append(f"note: {summary['not_a_benchmark']}")
    lines += _unknown_lines(summary.get("unknown_fields") or {})
    lines.append("a random sample of kept queries, for a person to read:")
    lines += [f"  [{item['tool']}] {item['query']}  (round-trip rank {item['roundtrip_rank']})"
              for item in summary["review_sample"][:10]]  # fmt: skip
    return [*lines, f"total {summary['seconds']['total']}s", f"outputs: {out}"]


def _unknown_lines(unknown: dict) -> list[str]:
    """The selected tools with fields their source could not show, per listing, and their queries; none: no line."""
    counts = {listing: c for listing, c in (unknown.get("per_listing") or {}).items() if c.get(ANY)}
    if not counts:
        return []
    return ["selected tools with unknown fields (the prompt shows name and description only): "
            + "; ".join(f"{listing} {unknown_counts_text(c)}" for listing, c in counts.items())
            + f"; {unknown['queries_of_tools_with_unknown_fields']} kept queries are theirs"]  # fmt: skip
