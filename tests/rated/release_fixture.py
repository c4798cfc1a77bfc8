"""A tiny real release for the RATED tests: the release builder's own test stage outputs, built for real."""

from __future__ import annotations

from pathlib import Path

from ecoagent.release.build import build_release
from tests.ecoagent.release.test_build import CONFIG, CREATED, make_stage_outputs

TOOLS = list(range(10))


def build_tiny_release(root: Path, tools: list[int] = TOOLS) -> Path:
    """10 tools, 8 Syn and 4 Real queries each, split by the release builder; returns the release folder."""
    inputs = make_stage_outputs(root / "stages", tools, syn_per_tool=8, real_per_tool=4)
    folder = root / "release" / "1.0.0"
    build_release(inputs, folder, version="1.0.0", config=CONFIG, created=CREATED)
    return folder
