"""Fixtures shared across test packages: a tiny real release (RATED, the release reader, the retrievers)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.release.tiny_release import build_tiny_release

# datasets caches a local release folder by its name and card, not its files: tests that rebuild a release with the
# same version would read another test's rows from the shared ~/.cache. One fresh cache per test session.
os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="ecoagent-test-datasets-"))


@pytest.fixture(scope="session")
def tiny_release(tmp_path_factory) -> Path:
    return build_tiny_release(tmp_path_factory.mktemp("rated-release"))
