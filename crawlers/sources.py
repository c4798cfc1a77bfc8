"""The pinned source list: which package, from which registry, at which version."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import yaml

from ecoagent.packages.source import Source, read_rows
from schemas.tool_record import LISTINGS

PLATFORMS = ("langchain", "crewai", "llamaindex", "n8n", "mcp")


def load_sources(path: Path, platforms: list[str] | None = None) -> list[Source]:
    """Read and check the source list; a bad row is an error naming the file and the row."""
    rows = read_rows(path, "sources", lambda row: Source(**{k: str(v) for k, v in row.items()}),
                     what="source list", row="source", setting="crawl.sources")  # fmt: skip
    sources: list[Source] = []
    for i, src in enumerate(rows):
        if src.platform not in PLATFORMS or src.registry not in ("pypi", "npm"):
            raise ValueError(f"{path}: source row {i} has platform {src.platform!r} / registry {src.registry!r}")
        if src.listing not in LISTINGS:
            raise ValueError(f"{path}: source row {i} has listing {src.listing!r}; one of {', '.join(LISTINGS)} "
                             "(setting crawl.sources)")  # fmt: skip
        if platforms is None or src.platform in platforms:
            sources.append(src)
    keys = [s.key for s in sources]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{path}: duplicate source rows: {sorted({k for k in keys if keys.count(k) > 1})}")
    return sources


def dump_sources(sources: list[Source]) -> str:
    return yaml.safe_dump({"sources": [asdict(s) for s in sources]}, sort_keys=False, width=200)
