"""One registry package at one version: what the crawl fetches, and what the label stage fetches its data from."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal


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
