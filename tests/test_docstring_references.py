"""Docstrings name modules that exist: a module moved or renamed leaves no stale name behind in the prose.

Every module, class and function docstring of the source packages is read for what it names of the project:

- a dotted name that starts with a source package (``ecoagent.text.splits``, :mod:`release.card`,
  :class:`ecoagent.store.StageFolder`, ``rated.train.source``) must be a module, a name defined in one (a class's
  own names one level further), or a setting of the configuration (``section.key``, read from the defaults of
  :func:`ecoagent.config.config_model`);
- a relative module reference (:mod:`.cache` in ``ecoagent/retrieval/embedding/``) must be a module of that package;
- a path under a source package, ``tests/``, ``docs/`` or ``config/`` (``labeling/split.py``, ``pipeline/runner.py``)
  must exist; a placeholder component in capitals (``docs/results/NAME.json``) is not checked.

A bare name (``stage``, :meth:`encode`) is left alone: what it means depends on where it stands. Checked on the real
tree, and shown to catch planted stale names.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("ecoagent", "schemas", "crawlers", "scoring", "synth", "labeling", "release", "history", "rated",
            "selector", "pipeline", "dags", "benchmarks")  # fmt: skip
# Names spelled like a module that are not one, each with what it is.
NOT_MODULES = {
    "ecoagent.settings": "the entry-point group of the settings sections (pyproject.toml)",
    "ecoagent/release": "the Airflow asset a release emits",
}
_PACKAGE = "|".join(PACKAGES)
DOTTED = re.compile(rf"(?<![\w./\"'-])((?:{_PACKAGE})(?:\.\w+)+)")
RELATIVE = re.compile(r":mod:`~?(\.\w+(?:\.\w+)*)`")
PATH = re.compile(rf"(?<![\w./<>-])((?:{_PACKAGE}|tests|docs|config)/[\w./-]*\w)")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*$")


def docstrings(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, text)`` of the module's docstring and of every class's and function's in it."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=False)
            if text:
                found.append((node.body[0].lineno, text))
    return found


def _defined(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """The names a module or class body defines, imports or assigns (inside ``if`` and ``try`` blocks too)."""
    names: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update((n.id, node) for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update(((a.asname or a.name).split(".")[0], node) for a in node.names)
        elif isinstance(node, ast.If | ast.Try):
            blocks = [node.body, node.orelse, *(h.body for h in getattr(node, "handlers", []))]
            for block in blocks:
                names.update(_defined(block))
    return names


def _class_names(node: ast.ClassDef) -> set[str]:
    """A class's own names: its body's, and the ``self.x`` its methods assign."""
    assigned = {t.attr for n in ast.walk(node) if isinstance(n, ast.Assign | ast.AnnAssign)
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}  # fmt: skip
    return set(_defined(node.body)) | assigned


@cache
def _module_names(path: Path) -> dict[str, ast.AST]:
    return _defined(ast.parse(path.read_text(encoding="utf-8")).body)


def module_file(root: Path, parts: list[str]) -> Path | None:
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def resolves(root: Path, dotted: str) -> bool:
    """Whether ``a.b.c`` is a module under ``root`` or a name defined in one (a class's own names one level on)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        found = module_file(root, parts[:cut])
        if found is not None:
            break
    else:
        return False
    rest = parts[cut:]
    if not rest:
        return True
    node = _module_names(found).get(rest[0])
    if node is None:
        return False
    if isinstance(node, ast.ClassDef) and len(rest) > 1:
        return rest[1] in _class_names(node) or bool(node.bases)  # a base class may define it
    return True


@cache
def _settings() -> dict:
    from ecoagent.config import make_config

    return make_config().model_dump()


def is_setting(dotted: str, settings: dict | None = None) -> bool:
    """Whether ``section.key...`` names a setting (a key of the default configuration, at any depth)."""
    tree: object = _settings() if settings is None else settings
    for part in dotted.split("."):
        if not isinstance(tree, dict) or part not in tree:
            return False
        tree = tree[part]
    return True


def stale_references(source: str, path: str, root: Path = REPO, settings: dict | None = None) -> list[str]:
    """``path:line name`` for every name in the docstrings of ``source`` (the file ``path`` under ``root``) that is
    neither a module, a name in one, a setting nor an existing path."""
    package = ".".join(Path(path).with_suffix("").parts[:-1])  # a module's package (an __init__'s is itself)
    found = []
    for line, text in docstrings(ast.parse(source, filename=path)):
        for name in dict.fromkeys(m.group(1) for m in DOTTED.finditer(text)):
            if name not in NOT_MODULES and not resolves(root, name) and not is_setting(name, settings):
                found.append(f"{path}:{line} {name}")
        for name in dict.fromkeys(m.group(1) for m in RELATIVE.finditer(text)):
            if module_file(root, [*package.split("."), *name.lstrip(".").split(".")]) is None:
                found.append(f"{path}:{line} {name}")
        for name in dict.fromkeys(m.group(1).rstrip("/") for m in PATH.finditer(text)):
            components = [Path(c).stem for c in name.split("/")]
            if name in NOT_MODULES or any(PLACEHOLDER.match(c) for c in components):
                continue
            if not (root / name).exists() and not (root / f"{name}.py").exists():
                found.append(f"{path}:{line} {name}")
    return found


def test_docstrings_name_modules_that_exist() -> None:
    files = [p for package in PACKAGES if (REPO / package).is_dir() for p in sorted((REPO / package).rglob("*.py"))]
    assert files, "no source file found: the package list is wrong"
    found = [hit for p in files
             for hit in stale_references(p.read_text(encoding="utf-8"), p.relative_to(REPO).as_posix())]  # fmt: skip
    assert not found, "docstrings name what is not there (moved, renamed or removed?):\n" + "\n".join(found)


@pytest.fixture
def planted_tree(tmp_path: Path) -> Path:
    """A tree with ``ecoagent/`` (a module ``store`` with a class ``Store``, a room ``text`` with ``splits``)."""
    (tmp_path / "ecoagent" / "text").mkdir(parents=True)
    (tmp_path / "ecoagent" / "__init__.py").write_text("")
    (tmp_path / "ecoagent" / "store.py").write_text("class Store:\n    def read(self): ...\n")
    (tmp_path / "ecoagent" / "text" / "__init__.py").write_text("")
    (tmp_path / "ecoagent" / "text" / "splits.py").write_text("def assign(): ...\n")
    return tmp_path


SETTINGS = {"release": {"version": None, "syn_split_ratios": [0.8]}}


@pytest.mark.parametrize("docstring", [
    "The store (:mod:`ecoagent.store`), :class:`ecoagent.store.Store` and :meth:`ecoagent.store.Store.read`.",
    "Split by :func:`ecoagent.text.splits.assign` (``ecoagent/text/splits.py``, the room ``ecoagent/text/``).",
    "See :mod:`.splits` and ``release.syn_split_ratios``; the ``ecoagent/release`` asset, ``ecoagent.settings``.",
    "A placeholder: ``docs/results/NAME.json``; a sentence that ends in ecoagent.store.",
])  # fmt: skip
def test_what_exists_passes(planted_tree: Path, docstring: str) -> None:
    source = f'"""{docstring}"""\n'
    assert stale_references(source, "ecoagent/text/__init__.py", planted_tree, SETTINGS) == []


@pytest.mark.parametrize("docstring, stale", [
    ("Read by :mod:`ecoagent.release_reader`.", "ecoagent.release_reader"),
    ("Split by ``ecoagent.text.splitting.assign``.", "ecoagent.text.splitting.assign"),
    ("Kept in :class:`ecoagent.store.Vault`.", "ecoagent.store.Vault"),
    ("Read with :meth:`ecoagent.store.Store.write`.", "ecoagent.store.Store.write"),
    ("A runner (``pipeline/runners``) makes it.", "pipeline/runners"),
    ("Real queries arrive split (labeling/splits.py).", "labeling/splits.py"),
    ("See :mod:`.dedup`.", ".dedup"),
    ("The setting ``release.syn_ratios``.", "release.syn_ratios"),
])  # fmt: skip
def test_a_planted_stale_name_is_caught(planted_tree: Path, docstring: str, stale: str) -> None:
    source = f'"""Module.\n\n{docstring}\n"""\n\n\ndef f():\n    """Clean."""\n'
    assert stale_references(source, "ecoagent/text/__init__.py", planted_tree, SETTINGS) == [
        f"ecoagent/text/__init__.py:1 {stale}"]
    in_a_function = f'def f():\n    """{docstring}"""\n'
    assert stale_references(in_a_function, "ecoagent/text/__init__.py", planted_tree, SETTINGS) == [
        f"ecoagent/text/__init__.py:2 {stale}"]
