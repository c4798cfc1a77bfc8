"""Every script under ``benchmarks/`` has its smoke test here (``test_<script>.py``), and no function of theirs is
longer than 60 lines (a long ``main`` is split into named steps)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.benchmarks.scripts import BENCHMARKS

HERE = Path(__file__).resolve().parent
MAX_LINES = 60


def long_functions(source: str, limit: int = MAX_LINES) -> list[str]:
    """``name: lines`` of every function (methods and nested ones too) longer than ``limit`` lines."""
    return [f"{node.name}: {node.end_lineno - node.lineno + 1}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno - node.lineno + 1 > limit]  # fmt: skip


def test_every_script_has_a_smoke_test() -> None:
    scripts = sorted(p.stem for p in BENCHMARKS.glob("*.py"))
    assert len(scripts) >= 29
    missing = [name for name in scripts if not (HERE / f"test_{name}.py").is_file()]
    assert missing == [], f"give each a smoke test, tests/benchmarks/test_<script>.py: {missing}"


def test_no_function_of_a_script_is_longer_than_60_lines() -> None:
    found = {p.name: hits for p in sorted(BENCHMARKS.glob("*.py")) if (hits := long_functions(p.read_text()))}
    assert found == {}, "split each into named steps of at most 60 lines"


def test_the_length_check_catches_a_planted_long_function() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(60))
    assert long_functions(f"def main():\n{body}\n") == ["main: 61"]
    assert long_functions(f"class A:\n    def run(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n") == [
        "run: 61"]  # fmt: skip
    assert long_functions("def short():\n    return 1\n") == []
