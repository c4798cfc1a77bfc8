from __future__ import annotations

from pathlib import Path

import pytest

from tests.rated.release_fixture import build_tiny_release


@pytest.fixture(scope="session")
def tiny_release(tmp_path_factory) -> Path:
    return build_tiny_release(tmp_path_factory.mktemp("rated-release"))
