"""Imports run downward only (docs/architecture.md, "Floors"): checked on the real tree, shown to catch planted breaks.

Floors, lowest first: the ground floor (``ecoagent`` the core, ``schemas`` the data contracts), the stages, downstream
(RATED and the selector), the entry points (``pipeline``: the CLI and orchestration), and the scripts that use them
(``dags``, ``benchmarks``) with the benchmarks' shared code (``benchmarking``). A module may import its own package
and the floors ``MAY_IMPORT`` names: never its own floor or above, and downstream never a stage (it reads a release
through the core). A package of ``SHARED_WITH`` is also imported from its own floor, by the packages named there and
no other: ``benchmarking`` by the benchmark scripts (and the tests, which have no floor). Every import counts: module
level, inside a function (the stages import heavy modules lazily) and under ``TYPE_CHECKING``. No import cycle
either: not between packages, and not between the modules of one package (``a.x`` imports ``a.y`` imports ``a.x``).
The core's test doubles (``ecoagent.testing``) sit on the ground floor so that the tests and the scripts can import
them, and nothing of the pipeline does.
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
    "history": 1,
    "rated": 2,
    "selector": 2,
    "pipeline": 3,
    "dags": 4,
    "benchmarks": 4,
    "benchmarking": 4,
}
FLOOR_NAMES = {0: "the ground floor", 1: "a stage", 2: "downstream", 3: "an entry point", 4: "the scripts' floor"}
MAY_IMPORT = {0: set(), 1: {0}, 2: {0}, 3: {0, 1, 2}, 4: {0, 1, 2, 3}}
# a package that the packages named may import from its own floor: the benchmark scripts' shared code
SHARED_WITH = {"benchmarking": {"benchmarks"}}


def module_name(root: Path, path: Path) -> str:
    """The dotted name of a file under ``root``: ``a/b/c.py`` is ``a.b.c``, ``a/b/__init__.py`` is ``a.b``."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path, module: str) -> set[tuple[str, ...]]:
    """Every import of one file, anywhere in it, as the dotted names it may mean, the most specific first.

    ``import a.b`` is ``("a.b",)``; ``from a.b import c`` is ``("a.b.c", "a.b")``: the module ``a.b.c`` when there
    is one, else a name defined in ``a.b``. Relative imports are resolved against the file's ``module`` name.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update((alias.name,) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # from . import x, from ..y import z
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *([node.module] if node.module else [])])
            found.update((f"{base}.{alias.name}", base) for alias in node.names)
    return found


def imported_packages(path: Path, packages: set[str], module: str = "") -> set[str]:
    """The top-level packages of ``packages`` that one file imports, anywhere in it."""
    return {names[-1].split(".")[0] for names in imported_names(path, module)} & packages


def python_modules(root: Path, floors: dict[str, int]) -> dict[str, Path]:
    """``{dotted module name: file}`` for every Python file of the floored packages under ``root``."""
    return {module_name(root, path): path for package in floors for path in sorted((root / package).rglob("*.py"))}


def import_graph(root: Path, floors: dict[str, int]) -> dict[tuple[str, str], set[str]]:
    """``{(package, file): packages it imports}`` for every Python file of the floored packages under ``root``."""
    return {
        (module.split(".")[0], str(path.relative_to(root))): imported_packages(path, set(floors), module)
        for module, path in python_modules(root, floors).items()
    }


def module_graph(root: Path, floors: dict[str, int]) -> dict[str, set[str]]:
    """``{module: the other modules of its own top-level package that it imports}``.

    An edge goes to the module an import names (``from a.b import c``: ``a.b.c`` when that is a module, else
    ``a.b``), not to the packages above it that Python initializes on the way: a package's ``__init__`` that
    re-exports its modules is no cycle with them unless one of them imports the package itself.
    """
    modules = python_modules(root, floors)
    edges: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        for names in imported_names(path, module):
            target = next((name for name in names if name in modules), None)
            if target is not None and target != module and target.split(".")[0] == module.split(".")[0]:
                edges[module].add(target)
    return edges


def floor_violations(root: Path, floors: dict[str, int] = FLOORS) -> list[str]:
    """Every import that reaches sideways or up, and every cycle between packages or between the modules of one
    package, as readable lines."""
    problems = []
    edges: dict[str, set[str]] = defaultdict(set)
    for (package, file), imported in import_graph(root, floors).items():
        for other in sorted(imported - {package}):
            edges[package].add(other)
            if floors[other] not in MAY_IMPORT[floors[package]] and package not in SHARED_WITH.get(other, ()):
                problems.append(
                    f"{file}: {package} ({FLOOR_NAMES[floors[package]]}) imports {other} "
                    f"({FLOOR_NAMES[floors[other]]})"
                )
    problems += [f"import cycle between packages: {' -> '.join(cycle)}" for cycle in _cycles(edges)]
    problems += [
        f"import cycle inside {cycle[0].split('.')[0]}: {' -> '.join(cycle)}"
        for cycle in _cycles(module_graph(root, floors))
    ]
    return problems


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each node that can reach itself (depth-first search), each cycle once."""
    cycles: dict[frozenset[str], list[str]] = {}
    for start in sorted(edges):
        stack = [(start, [start])]
        seen = set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(edges.get(node, ())):
                if nxt == start:
                    cycles.setdefault(frozenset(path), [*path, start])
                    stack = []
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    return list(cycles.values())


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
        # the benchmarks' shared code used by anything but the benchmark scripts: an entry point, a DAG file, the core
        ({"pipeline/cli.py": "from benchmarking.record import write_record\n"},
         "pipeline/cli.py: pipeline (an entry point) imports benchmarking (the scripts' floor)"),
        ({"dags/ecoagent_refresh.py": "def f():\n    import benchmarking.measure\n"},
         "dags (the scripts' floor) imports benchmarking (the scripts' floor)"),
        ({"ecoagent/config.py": "from benchmarking import measure\n"},
         "ecoagent (the ground floor) imports benchmarking (the scripts' floor)"),
        # and the shared code reaching into a script
        ({"benchmarking/cold_run.py": "from benchmarks.crawl import main\n"},
         "benchmarking/cold_run.py: benchmarking (the scripts' floor) imports benchmarks (the scripts' floor)"),
    ],
)  # fmt: skip
def test_a_planted_violation_is_caught(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    _plant(tmp_path, {f"{p}/__init__.py": "" for p in FLOORS} | files)
    problems = floor_violations(tmp_path)
    assert any(expected in line for line in problems), problems


def test_the_benchmark_scripts_import_their_shared_code(tmp_path: Path) -> None:
    # benchmarks -> benchmarking, on one floor, and both down to the entry points and the core: no violation
    _plant(tmp_path, {f"{p}/__init__.py": "" for p in FLOORS} | {
        "benchmarks/crawl.py": "from benchmarking.measure import timed\nfrom pipeline.stages import STAGES\n",
        "benchmarking/measure.py": "from ecoagent.runtime.progress import ProgressLog\nimport pipeline.cli\n",
    })  # fmt: skip
    assert floor_violations(tmp_path) == []


def test_a_planted_cycle_is_caught(tmp_path: Path) -> None:
    # two packages on floors of their own that import each other: the cycle is reported beside the upward edge
    floors = {"low": 0, "high": 1}
    _plant(tmp_path, {"low/__init__.py": "import high\n", "high/__init__.py": "import low\n"})
    problems = floor_violations(tmp_path, floors)
    assert "import cycle between packages: high -> low -> high" in problems
    assert any("low/__init__.py: low" in line for line in problems)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # two modules of the core, one importing the other under TYPE_CHECKING (the cycle llm.cache <-> llm.client had)
        ({"ecoagent/llm/__init__.py": "",
          "ecoagent/llm/cache.py": "from ecoagent.llm.client import LLMResponse\n",
          "ecoagent/llm/client.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                    "    from ecoagent.llm.cache import ResponseCache\n"},
         "import cycle inside ecoagent: ecoagent.llm.cache -> ecoagent.llm.client -> ecoagent.llm.cache"),
        # three modules of a stage in a ring, relative imports and a lazy one inside a function
        ({"release/build.py": "from .card import render_card\n",
          "release/card.py": "from release import croissant\n",
          "release/croissant.py": "def f():\n    from . import build\n"},
         "import cycle inside release: release.build -> release.card -> release.croissant -> release.build"),
        # a module importing its own package, whose __init__ re-exports that module
        ({"rated/__init__.py": "from rated.report import table\n", "rated/report.py": "import rated\n"},
         "import cycle inside rated: rated -> rated.report -> rated"),
    ],
)  # fmt: skip
def test_a_planted_module_cycle_is_caught(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    _plant(tmp_path, {f"{p}/__init__.py": "" for p in FLOORS} | files)
    problems = floor_violations(tmp_path)
    assert expected in problems, problems


def test_a_package_reexporting_its_modules_is_no_cycle(tmp_path: Path) -> None:
    # the __init__ imports its modules, and they import each other by absolute name, one way: no cycle
    _plant(tmp_path, {f"{p}/__init__.py": "" for p in FLOORS} | {
        "ecoagent/llm/__init__.py": "from ecoagent.llm.backends import open_llm\nfrom ecoagent.llm import cache\n",
        "ecoagent/llm/backends.py": "from ecoagent.llm.cache import ResponseCache\nimport ecoagent.llm.request\n",
        "ecoagent/llm/cache.py": "from ecoagent.llm.request import LLMResponse\n",
        "ecoagent/llm/request.py": "from ecoagent.errors import EcoAgentError\n",
    })  # fmt: skip
    assert floor_violations(tmp_path) == []


# The core's test doubles (ecoagent/testing/: the stand-in LLM server) are for the tests and the benchmark scripts:
# the pipeline itself never imports them.
TEST_DOUBLES = "ecoagent.testing"
SCRIPTS = ("benchmarks", "benchmarking")  # the benchmark scripts and their shared code may use them


def users_of_test_doubles(root: Path, floors: dict[str, int] = FLOORS) -> list[str]:
    """Every module of the floored packages, other than the scripts and the doubles themselves, that imports
    ``ecoagent.testing``."""
    found = []
    for module, path in python_modules(root, floors).items():
        if module.split(".")[0] in SCRIPTS or module == TEST_DOUBLES or module.startswith(f"{TEST_DOUBLES}."):
            continue
        names = {name for names in imported_names(path, module) for name in names}
        if any(name == TEST_DOUBLES or name.startswith(f"{TEST_DOUBLES}.") for name in names):
            found.append(f"{path.relative_to(root)}: imports {TEST_DOUBLES}")
    return found


def test_the_pipeline_never_imports_the_test_doubles() -> None:
    assert users_of_test_doubles(REPO) == []


def test_a_planted_use_of_the_test_doubles_is_caught(tmp_path: Path) -> None:
    _plant(tmp_path, {f"{p}/__init__.py": "" for p in FLOORS} | {
        "ecoagent/testing/__init__.py": "",
        "ecoagent/testing/standin_llm.py": "from ecoagent.config import load_config\n",
        "synth/generate.py": "def f():\n    from ecoagent.testing.standin_llm import StandInOpenAI\n",
        "ecoagent/llm/__init__.py": "from ecoagent.testing import standin_llm\n",
        "benchmarks/paper_scale.py": "from ecoagent.testing.standin_llm import PaperScaleResponder\n",
    })  # fmt: skip
    assert users_of_test_doubles(tmp_path) == ["ecoagent/llm/__init__.py: imports ecoagent.testing",
                                               "synth/generate.py: imports ecoagent.testing"]  # fmt: skip
