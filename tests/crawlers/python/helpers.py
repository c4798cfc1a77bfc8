"""Builders shared by the tests of ``crawlers.python``."""

from __future__ import annotations

from crawlers.python.index import PackageIndex


def package_index(files: dict[str, str]) -> PackageIndex:
    """A ``PackageIndex`` over source files given as text."""
    return PackageIndex({k: v.encode() for k, v in files.items()})
