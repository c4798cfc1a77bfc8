"""No function of the project's source is longer than 60 lines: a longer one is split into named steps.

A function's length is its ``def`` line to its last line (``end_lineno - lineno + 1``, decorators not counted). A
function nested in another counts on its own, and the outer function's span includes it, so a closure that makes its
outer function too long becomes a module-level helper. Checked on the real tree, and shown to catch a planted
61-line function while passing a 60-line one.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 60
# The source packages (tests/ is not one); a package that does not exist in this tree is skipped.
PACKAGES = ("ecoagent", "schemas", "crawlers", "scoring", "synth", "labeling", "release", "rated", "selector",
            "pipeline", "dags", "benchmarks", "benchmarking", "history")  # fmt: skip


def long_functions(source: str, path: str = "<string>") -> list[tuple[str, int, str, int]]:
    """``(path, line, qualified name, lines)`` of every function in ``source`` longer than :data:`MAX_LINES`.

    The qualified name joins the enclosing classes and functions with dots (``Ctx.resolve``, ``outer.inner``).
    """
    found: list[tuple[str, int, str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                lines = child.end_lineno - child.lineno + 1
                if lines > MAX_LINES:
                    found.append((path, child.lineno, name, lines))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source, filename=path), "")
    return found


def source_files() -> list[Path]:
    folders = [REPO / package for package in PACKAGES if (REPO / package).is_dir()]
    return [path for folder in folders for path in sorted(folder.rglob("*.py"))]


def too_long_in_tree() -> list[tuple[str, int, str, int]]:
    found = []
    for path in source_files():
        found += long_functions(path.read_text(encoding="utf-8"), path.relative_to(REPO).as_posix())
    return found


def _listing(found: list[tuple[str, int, str, int]]) -> str:
    return "\n".join(f"{path}:{line} {name} ({lines} lines)" for path, line, name, lines in found)


def test_no_function_is_longer_than_60_lines() -> None:
    assert source_files(), "no source file found: the package list is wrong"
    found = too_long_in_tree()
    assert not found, f"split these into named steps of at most {MAX_LINES} lines:\n{_listing(found)}"


def _planted(lines: int, name: str = "planted") -> str:
    """A function of exactly ``lines`` lines (``def`` line included)."""
    return f"def {name}():\n" + "    x = 0\n" * (lines - 2) + "    return x\n"


def test_a_planted_61_line_function_is_caught_and_a_60_line_one_is_not() -> None:
    assert long_functions(_planted(61), "planted.py") == [("planted.py", 1, "planted", 61)]
    assert long_functions(_planted(60), "planted.py") == []
    assert long_functions("async " + _planted(61)) == [("<string>", 1, "planted", 61)]


def test_a_nested_function_counts_on_its_own_and_inside_its_outer_one() -> None:
    nested = "class Holder:\n    def method(self):\n" + textwrap.indent(_planted(61, "inner"), " " * 8)
    found = long_functions(nested)
    assert [(name, lines) for _, _, name, lines in found] == [("Holder.method", 62), ("Holder.method.inner", 61)]
    short_outer = "def outer():\n" + textwrap.indent(_planted(58, "inner"), "    ")  # 59 lines in all
    assert long_functions(short_outer) == []
