"""The module index: cross-module MRO, class attributes, unparseable modules."""

from __future__ import annotations

import ast

from crawlers.python.index import ClassRef
from tests.crawlers.python.helpers import package_index


def test_mro_through_in_package_base_is_memoized_and_reaches_external() -> None:
    index = package_index(
        {
            "p/base.py": "from langchain_core.tools import BaseTool\nclass B(BaseTool):\n    name: str = 'b'\n",
            "p/leaf.py": "from p.base import B\nclass L(B):\n    pass\n",
        }
    )
    leaf = ClassRef(index.module("p.leaf"), index.module("p.leaf").classes["L"])
    assert [c.node.name for c in index.mro(leaf)] == ["L", "B"]
    assert index.external_bases(leaf) == {"langchain_core.tools.BaseTool"}
    owner, value, _ = index.class_attr(leaf, "name")
    assert owner.node.name == "B" and ast.literal_eval(value) == "b"


def test_syntax_error_is_recorded_not_raised() -> None:
    index = package_index({"good.py": "X = 1\n", "bad.py": "def (:\n"})
    assert [m.name for m in index.modules()] == ["good"]
    assert index.errors and index.errors[0][0] == "bad.py"


def test_python_312_type_statements_and_parameters_are_read_on_older_pythons() -> None:
    source = (
        "type Limit = int\n"
        "class Box[T](Base):\n"
        "    def get[U](self, n: Limit) -> T: ...\n"
        "async def fetch[T: str](url): pass\n"
    )
    index = package_index({"p/m.py": source})
    info = index.module("p.m")
    assert not index.errors
    assert ast.unparse(info.constants["Limit"]) == "int"
    assert set(info.classes) == {"Box"} and set(info.functions) == {"fetch"}
    assert info.classes["Box"].body[0].lineno == 3  # the same lines as the source


def test_what_the_downgrade_cannot_mend_is_still_an_error() -> None:
    # PEP 701: the same quotes inside an f-string's braces
    index = package_index({"p/m.py": 'type Limit = int\nx = f"{a["b"]}"\n'})
    assert index.module("p.m") is None and index.errors[0][0] == "p/m.py"
