"""What the crawl says about itself: the lines the CLI prints and a DAG task logs."""

from __future__ import annotations

from ecoagent.layout import CRAWL_FILES
from ecoagent.text.markdown import markdown_table
from schemas.unknown_fields import unknown_counts_text

COVERAGE = ("description", "parameters", "auth", "endpoints", "doc_urls", "categories")
MAX_ERRORS_SHOWN = 10


def summary_lines(summary: dict, out: str) -> list[str]:
    """Tools and field coverage per platform, drops, counting rules, near-duplicates, package errors, timings."""
    header = ["platform", "tools", "packages", "description", "parameters", "auth", "endpoints", "docs", "categories"]
    rows = [
        [platform, row["tools"], f"{row['packages_with_tools']}/{row['packages']}",
         *(f"{row['coverage'][k]:.0%}" for k in COVERAGE)]
        for platform, row in summary["per_platform"].items()
    ]  # fmt: skip
    rows.append(["all", summary["tools"], summary["packages"]["total"],
                 *(f"{summary['coverage'][k]:.0%}" for k in COVERAGE)])  # fmt: skip
    lines = [f"crawl: {summary['tools']} tools ({summary['status']})", *markdown_table(header, rows, 1)]
    if summary["drops_by_reason"]:
        lines.append("dropped records by reason: " + _counts(summary["drops_by_reason"]))
    if summary["skipped_by_reason"]:
        lines.append("not counted as tools: " + _counts(summary["skipped_by_reason"]))
    if ruled := [platform for platform, rule in summary["counting_rules"].items() if rule]:
        # the rule itself runs to some 1,900 characters: a console line points at where it is kept
        lines.append(f"counting rules ({', '.join(ruled)}): in {CRAWL_FILES.summary} (counting_rules) and "
                     "docs/stages/crawl.md (Counting rules)")
    nd = summary["near_duplicates"]
    lines.append(
        f"near-duplicates (reported, kept): {nd['same_description_groups']} same-description groups "
        f"({nd['same_description_tools']} tools), {nd['same_name_groups']} same-name groups across packages"
    )
    if "same_service_groups" in nd:
        lines.append(
            f"same service in several packages (kept, flagged service_group): {nd['same_service_groups']} groups "
            f"({nd['same_service_tools']} tools), {nd['same_service_cross_listing_groups']} across listings"
            + (f" ({_counts(nd['same_service_by_listings'])})" if nd["same_service_by_listings"] else "")
        )
    return [*lines, *_listings(summary), *_package_errors(summary), *_totals(summary, out)]


def _listings(summary: dict) -> list[str]:
    """Packages read, tools and what was not counted, per listing."""
    rows = [
        [listing, f"{row['packages_read']}/{row['packages']}", row["packages_with_tools"], row["tools"],
         sum(row["not_counted_by_reason"].values()), _counts(row.get("read_from", {})) or "-",
         _counts(row.get("fetch_missed_by_reason", {})) or "-", unknown_counts_text(row.get("unknown_fields", {}))]
        for listing, row in summary.get("per_listing", {}).items()
    ]  # fmt: skip
    if not rows:
        return []
    lines = markdown_table(["listing", "packages read", "with tools", "tools", "not counted", "read from",
                            "fetch missed", "unknown fields (tools)"], rows, 1)  # fmt: skip
    if "community_listing" in summary:
        head = summary["community_listing"]
        lines.append(f"community listing: {head['packages']} packages ({_counts(head['packages_by_listing'])}) "
                     f"from {head['database']} of {head['data_package']}")  # fmt: skip
    return lines


def _counts(counts: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in counts.items())


def _package_errors(summary: dict) -> list[str]:
    errors = summary["package_errors"]
    if not errors:
        return []
    lines = [f"{len(errors)} recorded errors in {summary['packages']['with_errors']} packages:"]
    lines += [f"  {e['package']}: {e['where']}: {e['reason'][:160]}" for e in errors[:MAX_ERRORS_SHOWN]]
    if len(errors) > MAX_ERRORS_SHOWN:
        lines.append(f"  ... and {len(errors) - MAX_ERRORS_SHOWN} more in {CRAWL_FILES.summary}")
    return lines


def _totals(summary: dict, out: str) -> list[str]:
    lines = [
        f"cache hits {summary['cache']['hits']}, misses {summary['cache']['misses']}; "
        f"fetch {summary['seconds']['fetch']}s, extract {summary['seconds']['extract']}s, "
        f"total {summary['seconds']['total']}s",
        f"outputs: {out}",
    ]
    if summary["status"] == "partial":
        lines.append("crawl was partial: some packages recorded errors (exit code 3)")
    return lines
