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
