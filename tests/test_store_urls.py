"""No stage, release, RATED or selector module builds a ``pathlib.Path`` from a store URL (a static check).

The artifact store is an fsspec URL: ``Path("s3://bucket/x")`` is ``s3:/bucket/x``, a local path that silently
means something else. A store location is what the store and layout API hands out (``store.root``, ``.url()``,
``.path()``, ``layout.folder()`` / ``.release()`` / ``.versioned()`` / ``.releases``, ``newest_release()``, a stage's
``inputs[...]``) and any name a function binds to one of them; such a value may go to :class:`ArtifactStore` or
:class:`StageFolder`, never to ``Path``. A step that needs a local folder asks for one (``store.local_path``, the
staging folder of a stage, :func:`ecoagent.release_format.reader.local_release`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHECKED = (
    "crawlers", "scoring", "synth", "labeling", "release", "rated", "selector", "ecoagent/release_format", "dags",
)  # fmt: skip

STORE_CALLS = {"url", "path", "folder", "release", "versioned", "partition", "llm_exchange", "newest_release", "run"}
STORE_ATTRIBUTES = {"root", "releases", "final"}
STORE_MAPPINGS = {"inputs"}  # a stage's input folders, by stage name


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class _Finder(ast.NodeVisitor):
    """``Path(x)`` calls whose argument is (or is built from) a store location, per function."""

    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []
        self.tainted: set[str] = set()

    def is_store(self, node: ast.AST) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in STORE_CALLS:
                return True
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "newest_release":
                return True
            if isinstance(sub, ast.Attribute) and sub.attr in STORE_ATTRIBUTES and isinstance(sub.ctx, ast.Load):
                return True
            if isinstance(sub, ast.Subscript) and _name(sub.value) in STORE_MAPPINGS:
                return True
            if isinstance(sub, ast.Name) and sub.id in self.tainted:
                return True
        return False

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        outer, self.tainted = self.tainted, set()
        self.generic_visit(node)
        self.tainted = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        if self.is_store(node.value):
            for target in node.targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        self.tainted.add(sub.id)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if _name(node.func) in ("Path", "PurePath", "PosixPath") and any(self.is_store(a) for a in node.args):
            self.found.append((node.lineno, ast.unparse(node)))
        self.generic_visit(node)


def store_paths(source: str) -> list[tuple[int, str]]:
    finder = _Finder()
    finder.visit(ast.parse(source))
    return finder.found


def _modules() -> list[Path]:
    return sorted(p for folder in CHECKED for p in (REPO / folder).rglob("*.py"))


@pytest.mark.parametrize("module", _modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_path_is_built_from_a_store_location(module: Path) -> None:
    found = store_paths(module.read_text())
    assert not found, f"{module.relative_to(REPO)} builds a Path from a store location: {found}"


@pytest.mark.parametrize(
    "source",
    [
        "def f(store):\n    return Path(store.root) / 'x'",
        "def f(layout, v):\n    out = layout.release(v)\n    return Path(out)",
        "def f(inputs):\n    return Path(inputs['score'])",
        "def f(root):\n    newest = newest_release(root)\n    return Path(newest).name",
        "def f(store):\n    return Path(store.write_json({}, 'm.json'))\n".replace("write_json", "url"),
    ],
)
def test_the_check_catches_a_path_from_the_store(source: str) -> None:
    assert store_paths(source)


def test_the_check_leaves_local_paths_alone() -> None:
    source = "def f(store, c):\n    a = store.local_path / 'x'\n    return Path(__file__).parent, Path(c.x), a"
    assert store_paths(source) == []
