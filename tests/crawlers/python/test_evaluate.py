"""The safe evaluator: constants across modules and re-exports, f-strings, comprehensions."""

from __future__ import annotations

import ast

from crawlers.python.evaluate import Evaluator
from crawlers.python.index import PackageIndex
from tests.crawlers.python.helpers import package_index

PROMPTS = '''
import textwrap
BASE = "Search the web."
LONG = textwrap.dedent("""
    Use this tool
    carefully.
""").strip()
JOINED = BASE + " " + "Input is a query."
NAMES = ["a", "b"]
'''


def _eval(index: PackageIndex, module: str, expr: str):
    ev = Evaluator(index)
    return ev.eval(index.module(module), ast.parse(expr, mode="eval").body), ev.flags


def test_relative_imports_and_reexports_resolve_constants_across_modules() -> None:
    index = package_index(
        {
            "pkg/__init__.py": "from .prompts import BASE as EXPORTED\n",
            "pkg/prompts.py": PROMPTS,
            "pkg/tools/__init__.py": "",
            "pkg/tools/search.py": "from ..prompts import JOINED, LONG\nfrom pkg import EXPORTED\n",
        }
    )
    assert _eval(index, "pkg.tools.search", "JOINED") == ("Search the web. Input is a query.", {"constant_ref"})
    assert _eval(index, "pkg.tools.search", "LONG")[0] == "Use this tool\ncarefully."
    assert _eval(index, "pkg.tools.search", "EXPORTED")[0] == "Search the web."


def test_fstring_keeps_literal_parts_and_flags() -> None:
    index = package_index({"m.py": "def plat(): return 'x'\n"})
    value, flags = _eval(index, "m", "f'Run on this {plat()} machine.'")
    assert value == "Run on this {plat()} machine."
    assert "fstring" in flags


def test_comprehension_and_starred_tuple() -> None:
    index = package_index({"m.py": "T = (('a', 'aa'), ('b', 'ab'))\nN = ['x', 'y']\n"})
    assert _eval(index, "m", "[*T]")[0] == [("a", "aa"), ("b", "ab")]
    assert _eval(index, "m", "[(n, f'a{n}') for n in N]")[0] == [("x", "ax"), ("y", "ay")]
