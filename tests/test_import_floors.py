"""Imports run downward only (docs/architecture.md, "Floors"): checked on the real tree, shown to catch planted breaks.

Floors, lowest first: the ground floor (``ecoagent`` the core, ``schemas`` the data contracts), the stages, downstream
(RATED and the selector), the entry points (``pipeline``: the CLI and orchestration), and the scripts that use them
(``dags``, ``benchmarks``). A module may import its own package and the floors ``MAY_IMPORT`` names: never its own
floor or above, and downstream never a stage (it reads a release through the core). Every import counts: module
level, inside a function (the stages import heavy modules lazily) and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

FLOORS = {
    "ecoagent": 0,
    "schemas": 0,
    "crawlers": 1,
    "scoring": 1,
    "synth": 1,
    "labeling": 1,
    "release": 1,
    "rated": 2,
    "selector": 2,
    "pipeline": 3,
    "dags": 4,
    "benchmarks": 4,
}
FLOOR_NAMES = {0: "the ground floor", 1: "a stage", 2: "downstream", 3: "an entry point", 4: "a script"}
MAY_IMPORT = {0: set(), 1: {0}, 2: {0}, 3: {0, 1, 2}, 4: {0, 1, 2, 3}}


def imported_packages(path: Path, packages: set[str]) -> set[str]:
    """The top-level packages of ``packages`` that one file imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in packages)
    return found


def import_graph(root: Path, floors: dict[str, int]) -> dict[tuple[str, str], set[str]]:
    """``{(package, file): packages it imports}`` for every Python file of the floored packages under ``root``."""
    graph: dict[tuple[str, str], set[str]] = {}
    for package in floors:
        for path in sorted((root / package).rglob("*.py")):
            graph[(package, str(path.relative_to(root)))] = imported_packages(path, set(floors))
    return graph


def floor_violations(root: Path, floors: dict[str, int] = FLOORS) -> list[str]:
    """Every import that reaches sideways or up, and every cycle between packages, as readable lines."""
    problems = []
    edges: dict[str, set[str]] = defaultdict(set)
    for (package, file), imported in import_graph(root, floors).items():
        for other in sorted(imported - {package}):
            edges[package].add(other)
            if floors[other] not in MAY_IMPORT[floors[package]]:
                problems.append(
                    f"{file}: {package} ({FLOOR_NAMES[floors[package]]}) imports {other} "
                    f"({FLOOR_NAMES[floors[other]]})"
                )
    problems += [f"import cycle between packages: {' -> '.join(cycle)}" for cycle in _cycles(edges)]
    return problems


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each package that can reach itself (depth-first search)."""
    cycles = []
    for start in sorted(edges):
        stack = [(start, [start])]
        seen = set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(edges.get(node, ())):
                if nxt == start:
                    cycles.append([*path, start])
                    stack = []
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    return cycles


def test_every_package_has_a_floor() -> None:
    packages = {p.name for p in REPO.iterdir() if (p / "__init__.py").exists()} - {"tests"}
    missing = sorted(packages - set(FLOORS))
    assert not missing, f"give {missing} a floor in FLOORS and in docs/architecture.md"


def test_imports_run_downward_only() -> None:
    assert floor_violations(REPO) == []


def _plant(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # the core reaching up into a stage, inside a function (a lazy import counts)
        ({"ecoagent/store.py": "def f():\n    from synth.dedup import near_duplicates\n"},
         "ecoagent/store.py: ecoagent (the ground floor) imports synth (a stage)"),
        # one stage using another as a library
        ({"labeling/label.py": "import synth.filters\n"},
         "labeling/label.py: labeling (a stage) imports synth (a stage)"),
        # downstream reading a stage
        ({"selector/select.py": "from scoring import score\n"}, "selector (downstream) imports scoring (a stage)"),
        # a stage importing an entry point, under TYPE_CHECKING
        ({"release/build.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pipeline.cli\n"},
         "release (a stage) imports pipeline (an entry point)"),
    ],
)  # fmt: skip
def test_a_planted_violation_is_caught(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    _plant(tmp_path, {f"{p}/__init__.py": "" for p in FLOORS} | files)
    problems = floor_violations(tmp_path)
    assert any(expected in line for line in problems), problems


def test_a_planted_cycle_is_caught(tmp_path: Path) -> None:
    # two packages on floors of their own that import each other: the cycle is reported beside the upward edge
    floors = {"low": 0, "high": 1}
    _plant(tmp_path, {"low/__init__.py": "import high\n", "high/__init__.py": "import low\n"})
    problems = floor_violations(tmp_path, floors)
    assert "import cycle between packages: high -> low -> high" in problems
    assert any("low/__init__.py: low" in line for line in problems)
