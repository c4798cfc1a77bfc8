"""The pinned source list: which package, from which registry, at which version."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import yaml

from ecoagent.packages.source import Source

PLATFORMS = ("langchain", "crewai", "llamaindex", "n8n", "mcp")


def load_sources(path: Path, platforms: list[str] | None = None) -> list[Source]:
    """Read and check the source list; a bad row is an error naming the file and the row."""
    try:
        rows = (yaml.safe_load(path.read_text()) or {}).get("sources", [])
    except FileNotFoundError as exc:
        raise ValueError(f"source list {path} not found (setting crawl.sources)") from exc
    sources: list[Source] = []
    for i, row in enumerate(rows):
        try:
            src = Source(**{k: str(v) for k, v in row.items()})
        except TypeError as exc:
            raise ValueError(f"{path}: source row {i} {row!r}: {exc}") from exc
        if src.platform not in PLATFORMS or src.registry not in ("pypi", "npm"):
            raise ValueError(f"{path}: source row {i} has platform {src.platform!r} / registry {src.registry!r}")
        if platforms is None or src.platform in platforms:
            sources.append(src)
    keys = [s.key for s in sources]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{path}: duplicate source rows: {sorted({k for k in keys if keys.count(k) > 1})}")
    return sources


def dump_sources(sources: list[Source]) -> str:
    return yaml.safe_dump({"sources": [asdict(s) for s in sources]}, sort_keys=False, width=200)
