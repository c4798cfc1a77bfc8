"""Tool rows shaped like the crawl's, and a classify helper keyed by tool_id."""

from __future__ import annotations

import polars as pl

from scoring.side_effect import classify_side_effects


def tool(tool_id: str, **kw) -> dict:
    row = {
        "tool_id": tool_id,
        "platform": "langchain",
        "package": "pkg",
        "service": "svc",
        "source_symbol": tool_id,
        "name": tool_id,
        "display_name": "",
        "description": "",
        "http_methods": [],
        "categories": [],
    }
    row.update(kw)
    return row


def n8n(symbol: str, label: str, service: str = "slack", **kw) -> dict:
    node = symbol.split(":")[0]
    return tool(
        f"n8n:n8n-nodes-base:{symbol}",
        platform="n8n",
        package="n8n-nodes-base",
        service=service,
        source_symbol=symbol,
        name=f"{node.title()}: {label}",
        display_name=node.title(),
        description=f"Consume {node.title()} API. {label}.",
        **kw,
    )


def classify(*rows: dict) -> dict[str, dict]:
    out = classify_side_effects(pl.DataFrame(list(rows)))
    return {r["tool_id"]: r for r in out.to_dicts()}
