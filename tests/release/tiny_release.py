"""A tiny real release for the RATED tests: the release builder's own test stage outputs, built for real."""

from __future__ import annotations

from pathlib import Path

from release.build import build_release
from tests.release.test_build import CONFIG, CREATED, make_stage_outputs

TOOLS = list(range(10))


def build_tiny_release(root: Path, tools: list[int] = TOOLS, workflows: bool = False,
                       alternatives: dict[int, set[int]] | None = None) -> Path:  # fmt: skip
    """10 tools, 8 Syn and 4 Real queries each, split by the release builder; returns the release folder.

    ``workflows``: the release carries the workflow set too (:mod:`tests.release.workflow_outputs`: graded qrels,
    an alternative, views, the label stage's temporal splits); ``alternatives``: more of its qrels made alternatives,
    ``{template id: tool indices}`` (:func:`tests.release.workflow_outputs.as_alternatives`)."""
    inputs = make_stage_outputs(root / "stages", tools, syn_per_tool=8, real_per_tool=4)
    if workflows or alternatives:
        from tests.release.workflow_outputs import add_workflows

        add_workflows(inputs, CONFIG, alternatives)
    folder = root / "release" / "1.0.0"
    build_release(inputs, folder, version="1.0.0", config=CONFIG, created=CREATED)
    return folder


def build_release_pair(root: Path) -> Path:
    """A first release of tools 0-7 and the next one with tools 8 and 9 added: it has a cold-start split."""
    first = root / "release" / "1.0.0"
    build_release(make_stage_outputs(root / "v1", list(range(8)), syn_per_tool=8, real_per_tool=4), first,
                  version="1.0.0", config=CONFIG, created=CREATED)  # fmt: skip
    second = root / "release" / "1.1.0"
    inputs = make_stage_outputs(root / "v2", TOOLS, syn_per_tool=8, real_per_tool=4)
    build_release(inputs, second, version="1.1.0", config=CONFIG, previous=first, created=CREATED)
    return second
