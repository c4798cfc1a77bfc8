"""Fixtures shared across test packages: a tiny real release (RATED, the release reader, the retrievers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.release.tiny_release import build_tiny_release


@pytest.fixture(scope="session")
def tiny_release(tmp_path_factory) -> Path:
    return build_tiny_release(tmp_path_factory.mktemp("rated-release"))
