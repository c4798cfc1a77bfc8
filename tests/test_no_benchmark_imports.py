"""No test imports ``benchmarks``: what the tests and the benchmark scripts share lives below them.

The benchmarks are scripts (floor 4, docs/architecture.md "Floors"), and nothing imports a script. The stand-in LLM
server is a core room (``ecoagent/testing/``), the side-effect agreement is scoring's (``scoring/side_effect/
agreement.py``), and the results page is checked by running ``benchmarks/record.py --check``. The smoke tests of the
scripts (``tests/benchmarks/``) run a script, or load its file, as a person runs it (``tests/benchmarks/scripts.py``).
Checked on every module under ``tests/``, every import anywhere in it (module level, inside a function, under
``TYPE_CHECKING``, ``importlib.import_module("benchmarks...")`` and ``__import__``), and shown to catch planted ones.

Nor does a test load a script's file by path to call inside it: ``runpy.run_path`` only as ``__main__`` (a script run
as a person runs it, ``tests/benchmarks/scripts.py: run_script``), and no ``spec_from_file_location``,
``SourceFileLoader`` or ``exec`` naming a benchmark (the DAG tests load ``dags/`` files that way, which Airflow does
too). What a test needs from a script it gets from ``benchmarking/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PACKAGE = "benchmarks"
IMPORTERS = {"import_module", "__import__"}  # importlib.import_module("benchmarks.x"), __import__("benchmarks")
FILE_LOADERS = {"spec_from_file_location", "SourceFileLoader", "exec"}


def _is_benchmarks(module: str | None) -> bool:
    return module is not None and (module == PACKAGE or module.startswith(f"{PACKAGE}."))


def benchmark_imports(source: str, package: str = "tests") -> list[str]:
    """``line: what`` for every import of ``benchmarks`` in one module's ``source`` (``package``: the module's own
    package, against which a relative import is resolved)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if _is_benchmarks(a.name)]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: resolved against the module's package (from .. import benchmarks)
                parts = package.split(".")
                module = ".".join([*parts[: len(parts) - node.level + 1], *([module] if module else [])])
            names = [module, *(f"{module}.{a.name}".lstrip(".") for a in node.names)]
            if any(_is_benchmarks(name) for name in names):
                found.append(f"{node.lineno}: from {module or '.'} import {', '.join(a.name for a in node.names)}")
        elif isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            first = node.args[0] if node.args else None
            named = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
            if called in IMPORTERS and _is_benchmarks(named):
                found.append(f"{node.lineno}: {called}({named!r})")
    return found


def test_no_module_under_tests_imports_benchmarks() -> None:
    found = {
        str(path.relative_to(TESTS.parent)): hits
        for path in sorted(TESTS.rglob("*.py"))
        if (hits := benchmark_imports(path.read_text(encoding="utf-8"), _package(path)))
    }
    assert found == {}, "move what the tests need out of benchmarks/ (see this file's docstring)"


def _called_name(node: ast.Call) -> str | None:
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)


def path_loads(source: str) -> list[str]:
    """``line: what`` for every call in ``source`` that loads a Python file by path other than as ``__main__``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        called = _called_name(node)
        if called == "load_script" or (called in FILE_LOADERS and "benchmark" in ast.unparse(node).lower()):
            found.append(f"{node.lineno}: {called}(...)")
        elif called == "run_path":
            run_name = next((k.value for k in node.keywords if k.arg == "run_name"), None)
            as_main = isinstance(run_name, ast.Constant) and run_name.value == "__main__"
            if not as_main:
                found.append(f"{node.lineno}: run_path(...) not as __main__")
    return found


def test_no_test_loads_a_script_file_to_reach_inside_it() -> None:
    found = {str(p.relative_to(TESTS.parent)): hits for p in sorted(TESTS.rglob("*.py"))
             if p.name != Path(__file__).name and (hits := path_loads(p.read_text(encoding="utf-8")))}  # fmt: skip
    assert found == {}, "run the script (tests/benchmarks/scripts.py: run_script) or move the part to benchmarking/"


@pytest.mark.parametrize(
    "planted",
    [
        "import runpy\nns = runpy.run_path('benchmarks/cold_run.py', run_name='benchmark_cold_run')",
        "from runpy import run_path\nns = run_path('benchmarks/cold_run.py')",
        "import importlib.util\nspec = importlib.util.spec_from_file_location('x', 'benchmarks/refresh.py')",
        "from importlib.machinery import SourceFileLoader\nm = SourceFileLoader('x', 'benchmarks/x.py').load_module()",
        "exec(open('benchmarks/measure.py').read())",
        "script = load_script('rstatic_failure')",
    ],
)
def test_a_planted_path_load_is_caught(planted: str) -> None:
    assert path_loads(planted), planted


def test_running_a_script_as_main_or_loading_a_dag_file_is_not_a_path_load() -> None:
    assert path_loads("import runpy\nrunpy.run_path(str(path), run_name='__main__')") == []
    assert path_loads("spec = importlib.util.spec_from_file_location('x', DAGS_FOLDER / 'ecoagent_refresh.py')") == []


def _package(path: Path) -> str:
    return ".".join(path.relative_to(TESTS.parent).parent.parts)


@pytest.mark.parametrize(
    "planted",
    [
        "from benchmarks.standin_llm import StandInOpenAI",
        "import benchmarks.record as record",
        "from benchmarks import cold_run",
        "import benchmarks",
        "def helper():\n    from benchmarks.measure import timed\n    return timed",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from benchmarks.record import write_record",
        "from .. import benchmarks",
        "import importlib\nscript = importlib.import_module('benchmarks.crawl')",
        "cold_run = __import__('benchmarks.cold_run')",
    ],
)
def test_a_planted_import_is_caught(planted: str) -> None:
    assert benchmark_imports(planted), planted


@pytest.mark.parametrize(
    "clean",
    [
        # running a script, naming one in a string or a comment, and other packages whose name starts alike
        "cmd = [sys.executable, 'benchmarks/paper_scale.py', '--scale', '0.01']",
        "from tests.benchmarks.scripts import run_script\nran = run_script('crawl')",
        "from ecoagent.testing.standin_llm import StandInOpenAI  # was benchmarks.standin_llm",
        "import benchmarks_extra\nfrom benchmarksuite import x",
        "from . import scripts",
    ],
)
def test_what_is_not_an_import_of_benchmarks_passes(clean: str) -> None:
    assert benchmark_imports(clean, "tests.benchmarks") == []


def test_a_planted_module_under_a_test_tree_is_found(tmp_path: Path) -> None:
    # the same walk as the real check, on a tree with one offending module deep inside
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "test_x.py").write_text("import os\n\ndef test():\n    from benchmarks import record\n")
    (tmp_path / "test_ok.py").write_text("import subprocess\n")
    found = {p.name: hits for p in sorted(tmp_path.rglob("*.py")) if (hits := benchmark_imports(p.read_text()))}
    assert found == {"test_x.py": ["4: from benchmarks import record"]}
