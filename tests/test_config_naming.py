"""``config`` is the whole configuration and nothing else: one name for it, another for a section.

Every function of the source packages that takes a parameter named ``config`` annotates it
:class:`ecoagent.config.Config` (``Config``, ``Config | None``, ``Optional[Config]``, or the same as a string). A
section (``RatedConfig``, ``TrainConfig``, a selector's ``SelectorConfig``, ...) is ``settings``, and a dataset config
of a release (``"syn-queries"``) is ``config_name``. An unannotated ``config`` fails too: a reader cannot tell which
it holds. Checked on the real tree (nothing skipped), and shown to catch planted parameters.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The source packages (tests/ is not one); a package that does not exist in this tree is skipped.
PACKAGES = ("ecoagent", "schemas", "crawlers", "scoring", "synth", "labeling", "release", "history", "rated",
            "selector", "pipeline", "dags", "benchmarks")  # fmt: skip
WHOLE = "Config"


def _names_the_whole(annotation: ast.expr | None) -> bool:
    """Whether an annotation is the whole configuration: ``Config``, ``ecoagent.config.Config``, optional or not,
    written as an expression or as a string."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return _names_the_whole(ast.parse(annotation.value, mode="eval").body)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):  # Config | None
        sides = [annotation.left, annotation.right]
        return any(_names_the_whole(s) for s in sides) and all(_names_the_whole(s) or _is_none(s) for s in sides)
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in ("Optional", "typing.Optional"):
        return _names_the_whole(annotation.slice)
    return ast.unparse(annotation) in (WHOLE, f"ecoagent.config.{WHOLE}")


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def misnamed_configs(source: str, path: str = "<string>") -> list[str]:
    """``path:line function(config: annotation)`` for every parameter named ``config`` in ``source`` that is not
    annotated as the whole configuration (``-`` where it has no annotation)."""
    found = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.arg == "config" and not _names_the_whole(arg.annotation):
                written = ast.unparse(arg.annotation) if arg.annotation is not None else "-"
                found.append(f"{path}:{node.lineno} {getattr(node, 'name', '<lambda>')}(config: {written})")
    return found


def source_files() -> list[Path]:
    folders = [REPO / package for package in PACKAGES if (REPO / package).is_dir()]
    return [path for folder in folders for path in sorted(folder.rglob("*.py"))]


def test_config_is_always_the_whole_configuration() -> None:
    files = source_files()
    assert files, "no source file found: the package list is wrong"
    found = [hit for path in files
             for hit in misnamed_configs(path.read_text(encoding="utf-8"), path.relative_to(REPO).as_posix())]
    assert not found, ("a parameter named config holds something other than the whole Config: name a section "
                       "`settings` (a release's dataset config `config_name`), or annotate it Config:\n"
                       + "\n".join(found))  # fmt: skip


@pytest.mark.parametrize("annotation", ["Config", "Config | None", "None | Config", "Optional[Config]", '"Config"',
                                        '"Config | None"', "ecoagent.config.Config"])  # fmt: skip
def test_the_whole_configuration_passes(annotation: str) -> None:
    assert misnamed_configs(f"def run(config: {annotation}) -> None: ...\n") == []


@pytest.mark.parametrize("source, expected", [
    ("def fit(config: RatedConfig): ...\n", "<string>:1 fit(config: RatedConfig)"),
    ("def fit(config: 'TrainConfig | None' = None): ...\n", "<string>:1 fit(config: 'TrainConfig | None')"),
    ("class A:\n    def __init__(self, *, config: SelectorConfig): ...\n",
     "<string>:2 __init__(config: SelectorConfig)"),
    ("async def read(folder, config: str): ...\n", "<string>:1 read(config: str)"),
    ("def info(stage, config): ...\n", "<string>:1 info(config: -)"),
    ("def both(config: Config | RatedConfig): ...\n", "<string>:1 both(config: Config | RatedConfig)"),
    ("pick = lambda config: config.seed\n", "<string>:1 <lambda>(config: -)"),
])  # fmt: skip
def test_a_planted_section_named_config_is_caught(source: str, expected: str) -> None:
    assert misnamed_configs(source) == [expected]
