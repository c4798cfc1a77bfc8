"""What crosses every room stays in one place (docs/architecture.md, "Runners and the step context"): checked on the
real tree, and shown to catch planted breaks.

- **No progress callback passed by hand.** A stage reports phases to the context it runs in
  (:mod:`ecoagent.runtime.context`); a helper takes the *name* of its phase. No function outside the tests takes a
  ``progress`` parameter or is called with ``progress=``, and only the runtime and the runners make progress lines.
- **A stage's name lives on the stage.** Its ``name`` (and the ``inputs`` other stages declare) is the only
  spelling: no ``STAGE = "crawl"`` constant, no tuple of stage names, no ``layout.folder("score")``,
  ``stage_named("release")``, ``inputs["crawl"]`` or ``{"stage": "label"}`` anywhere else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pipeline.stages import STEPS

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("ecoagent", "schemas", "crawlers", "scoring", "synth", "labeling", "release", "history", "rated",
            "selector", "pipeline", "dags", "benchmarks", "benchmarking")  # fmt: skip
STAGE_NAMES = frozenset(s.name for s in STEPS)
# the calls that take a stage's name: a folder of a run root, a stage of the list, an input of a step
NAMED_BY = {"folder", "stage_named", "input", "partition", "llm_exchange", "history_month"}
# only the runtime makes lines of progress, and the runners choose how they show
LINE_MAKERS = {"ProgressLog", "LineReporter"}
MAY_MAKE_LINES = ("ecoagent/runtime/", "pipeline/runner.py", "pipeline/cli.py", "pipeline/orchestration.py",
                  "selector/__main__.py")  # the selector's start shows its own lines


def sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (REPO / package).rglob("*.py"))


def callbacks_by_hand(tree: ast.AST) -> list[str]:
    """Each ``progress`` parameter and ``progress=`` argument in ``tree``, as ``line: what``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.arg == "progress":
                    found.append(f"{node.lineno}: takes a progress callback")
        elif isinstance(node, ast.Call):
            found += [f"{node.lineno}: passes progress=" for k in node.keywords if k.arg == "progress"]
    return found


def line_makers(tree: ast.AST) -> list[str]:
    """Every use of the progress-line classes in ``tree``."""
    return [f"{node.lineno}: uses {node.id if isinstance(node, ast.Name) else node.attr}" for node in ast.walk(tree)
            if (isinstance(node, ast.Name) and node.id in LINE_MAKERS)
            or (isinstance(node, ast.Attribute) and node.attr in LINE_MAKERS)]  # fmt: skip


def _named(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and node.value in STAGE_NAMES else None


def spelled_stage_names(tree: ast.AST) -> list[str]:
    """Each stage name written outside its stage's own declaration, as ``line: how``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if called in NAMED_BY:
                found += [f"{node.lineno}: {called}({name!r})" for a in node.args if (name := _named(a))]
        elif isinstance(node, ast.Subscript) and _named(node.slice):
            target = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", "")
            if target.endswith("inputs"):
                found.append(f"{node.lineno}: {target}[{_named(node.slice)!r}]")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id.upper() in ("STAGE", "STAGES"):
                    values = node.value.elts if isinstance(node.value, ast.Tuple | ast.List) else [node.value]
                    found += [f"{node.lineno}: {target.id} = {name!r}" for v in values if (name := _named(v))]
        elif isinstance(node, ast.Dict):
            found += [f"{node.lineno}: {{'stage': {name!r}}}" for k, v in zip(node.keys, node.values, strict=True)
                      if isinstance(k, ast.Constant) and k.value == "stage" and (name := _named(v))]  # fmt: skip
    return found


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_progress_callback_is_passed_by_hand(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert callbacks_by_hand(tree) == [], path
    if not str(path.relative_to(REPO)).startswith(MAY_MAKE_LINES):
        assert line_makers(tree) == [], path


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_a_stage_name_is_spelled_on_its_stage_only(path: Path) -> None:
    assert spelled_stage_names(ast.parse(path.read_text(encoding="utf-8"))) == [], path


@pytest.mark.parametrize("planted", [
    "def embed(texts, progress=None):\n    pass",
    "encoder.encode(texts, progress=lambda done, total: None)",
    "run = lambda config, progress: None",
])  # fmt: skip
def test_the_callback_check_catches_a_planted_one(planted: str) -> None:
    assert callbacks_by_hand(ast.parse(planted))


@pytest.mark.parametrize("planted", [
    'STAGE = "score"',
    'STAGES = ("crawl", "score")',
    'folder = layout.folder("label")',
    'stage = stages.stage_named("release")',
    'crawl_dir = inputs["crawl"]',
    'crawl_dir = ctx.input("crawl")',
    'summary = {"stage": "synth", "tools": 3}',
    'out = layout.folder("rated")',  # the downstream stage is checked like the others
    'STAGE = "rated"',
])  # fmt: skip
def test_the_name_check_catches_a_planted_spelling(planted: str) -> None:
    assert spelled_stage_names(ast.parse(planted))


def test_the_downstream_stages_are_in_the_checked_list() -> None:
    # RATED is a stage of the contract (pipeline.stages.DOWNSTREAM): its name is spelled on it alone
    assert {"crawl", "score", "synth", "label", "release", "rated"} <= STAGE_NAMES


def test_the_name_check_leaves_other_words_alone() -> None:
    code = 'PAIRS = {"label": 1, "score": 0.5}\nrows = frame["label"]\nstage = STAGES[0].name\nlayout.folder(s.name)'
    assert spelled_stage_names(ast.parse(code)) == []
