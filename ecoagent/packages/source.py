"""One registry package at one version: what the crawl fetches, and what the label stage fetches its data from; and
the YAML lists of packages (the crawl's source list, LiveMCPBench's server table) read row by row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, TypeVar

import yaml

Row = TypeVar("Row")


@dataclass(frozen=True)
class Source:
    platform: str  # the crawl's platform, or "data" for a data package that is only read
    registry: Literal["pypi", "npm"]
    name: str
    version: str
    listing: str = "platform"

    @property
    def key(self) -> str:
        return f"{self.registry}:{self.name}@{self.version}"

    def with_version(self, version: str) -> Source:
        return replace(self, version=version)


def read_rows(path: Path, key: str, make: Callable[[dict], Row], *, what: str, row: str, setting: str) -> list[Row]:
    """The rows under ``key`` of a YAML file, each made into a record by ``make``; a missing file, or a row ``make``
    refuses with a ``TypeError``, is a ``ValueError`` naming the file, the row and the setting."""
    try:
        rows = (yaml.safe_load(path.read_text()) or {}).get(key, [])
    except FileNotFoundError as exc:
        raise ValueError(f"{what} {path} not found (setting {setting})") from exc
    out: list[Row] = []
    for i, fields in enumerate(rows):
        try:
            out.append(make(fields))
        except TypeError as exc:
            raise ValueError(f"{path}: {row} row {i} {fields!r}: {exc} (setting {setting})") from exc
    return out
