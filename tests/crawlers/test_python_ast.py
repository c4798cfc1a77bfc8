"""The shared AST machinery: module index, evaluator, schemas, credential harvesting."""

from __future__ import annotations

import ast

from crawlers.python_ast import (
    ClassRef,
    Evaluator,
    PackageIndex,
    docstring_args,
    harvest_auth,
    model_schema,
    read_metadata,
    signature_schema,
)

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


def _index(files: dict[str, str]) -> PackageIndex:
    return PackageIndex({k: v.encode() for k, v in files.items()})


def _eval(index: PackageIndex, module: str, expr: str):
    ev = Evaluator(index)
    return ev.eval(index.module(module), ast.parse(expr, mode="eval").body), ev.flags


def test_relative_imports_and_reexports_resolve_constants_across_modules() -> None:
    index = _index(
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
    index = _index({"m.py": "def plat(): return 'x'\n"})
    value, flags = _eval(index, "m", "f'Run on this {plat()} machine.'")
    assert value == "Run on this {plat()} machine."
    assert "fstring" in flags


def test_comprehension_and_starred_tuple() -> None:
    index = _index({"m.py": "T = (('a', 'aa'), ('b', 'ab'))\nN = ['x', 'y']\n"})
    assert _eval(index, "m", "[*T]")[0] == [("a", "aa"), ("b", "ab")]
    assert _eval(index, "m", "[(n, f'a{n}') for n in N]")[0] == [("x", "ax"), ("y", "ay")]


def test_mro_through_in_package_base_is_memoized_and_reaches_external() -> None:
    index = _index(
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


def test_pydantic_required_rules() -> None:
    index = _index(
        {
            "m.py": '''
from typing import Optional
from pydantic import BaseModel, Field
class S(BaseModel):
    """Input."""
    a: str = Field(description="plain, no default")
    b: Optional[str]
    c: int = Field(..., description="ellipsis")
    d: int = Field(5, description="positional default")
    e: list[str] = Field(default_factory=list)
    f: Optional[str] = Field(default=None)
    g: bool = False
'''
        }
    )
    info = index.module("m")
    schema = model_schema(index, ClassRef(info, info.classes["S"]))
    assert schema["required"] == ["a", "b", "c"]
    props = schema["properties"]
    assert props["a"]["type"] == "string" and props["a"]["description"] == "plain, no default"
    assert props["d"]["default"] == 5 and props["e"]["type"] == "array"
    assert props["g"] == {"type": "boolean", "x-python-type": "bool", "default": False}


def test_signature_drops_plumbing_and_reads_annotated_and_args_section() -> None:
    index = _index(
        {
            "m.py": '''
from typing import Annotated, Optional
Count = Annotated[int, "How many."]
def run(self, query: str, limit: Count = 3, lang: Annotated[str, "Language."] = "en",
        run_manager: Optional[object] = None, *args, **kwargs) -> str:
    """Search.

    Args:
        query (str): The query
            to run.
        limit: ignored, Annotated wins.

    Returns:
        text
    """
'''
        }
    )
    info = index.module("m")
    schema = signature_schema(index, info, info.functions["run"])
    assert list(schema["properties"]) == ["query", "limit", "lang"]
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["description"] == "The query to run."
    assert schema["properties"]["limit"]["description"] == "How many."
    assert schema["properties"]["lang"]["description"] == "Language."


def test_docstring_args_stops_at_next_section() -> None:
    doc = "Do.\n\nArgs:\n    a: first\n    b (int): second\n\nReturns:\n    c: not an arg\n"
    assert docstring_args(doc) == {"a": "first", "b": "second"}


def test_env_var_harvesting_shapes() -> None:
    index = _index(
        {
            "m.py": """
import os
from langchain_core.utils import get_from_dict_or_env, secret_from_env, from_env
KEY_NAME = "CONST_KEY"
class W:
    a = Field(default_factory=secret_from_env(["LIST_KEY"]))
    b = Field(default_factory=secret_from_env("PLAIN_KEY"))
    c = Field(default_factory=from_env("FROM_ENV_KEY"))
    def v(self, values):
        values["k"] = get_from_dict_or_env(values, "k", "DICT_KEY")
        return os.environ["ENVIRON_KEY"], os.getenv(KEY_NAME), os.environ.get("GET_KEY")
"""
        }
    )
    info = index.module("m")
    auth = harvest_auth(index, info, [info.classes["W"]])
    expected = {"LIST_KEY", "PLAIN_KEY", "FROM_ENV_KEY", "DICT_KEY", "ENVIRON_KEY", "CONST_KEY", "GET_KEY"}
    assert set(auth.env_vars) == expected
    assert auth.auth_type() == "api_key"


def test_syntax_error_is_recorded_not_raised() -> None:
    index = _index({"good.py": "X = 1\n", "bad.py": "def (:\n"})
    assert [m.name for m in index.modules()] == ["good"]
    assert index.errors and index.errors[0][0] == "bad.py"


def test_metadata_doc_urls() -> None:
    meta = read_metadata(
        {
            "x-1.dist-info/METADATA": (
                b"Metadata-Version: 2.1\nName: x\nProject-URL: Source, https://github.com/x/x\n"
                b"Project-URL: Documentation, https://docs.x.dev\nProject-URL: Homepage, https://x.dev\n\nBody text\n"
            )
        }
    )
    assert meta.doc_urls() == ["https://docs.x.dev", "https://x.dev"]
    assert "Body text" in meta.body


def test_env_var_provenance_declared_read_and_set() -> None:
    """LangChain field helpers declare; os.* reads and membership tests read; an assignment does neither."""
    index = _index(
        {
            "m.py": """
import os
from langchain_core.utils import get_from_dict_or_env, get_from_env, secret_from_env
class W:
    a = Field(default_factory=secret_from_env("DECL_KEY"))
    def v(self, values):
        values["k"] = get_from_dict_or_env(values, "k", "DICT_KEY")
        values["j"] = get_from_env("j", "GET_FROM_ENV_KEY")
        os.environ["SET_ONLY_KEY"] = "x"
        if "MEMBER_KEY" in os.environ and "ABSENT_KEY" not in os.environ:
            pass
        return os.environ["ENVIRON_KEY"], os.getenv("GETENV_KEY"), os.environ.get("DICT_KEY")
"""
        }
    )
    info = index.module("m")
    auth = harvest_auth(index, info, [info.classes["W"]])
    assert set(auth.env_declared) == {"DECL_KEY", "DICT_KEY", "GET_FROM_ENV_KEY"}
    assert set(auth.env_read) == {"MEMBER_KEY", "ABSENT_KEY", "ENVIRON_KEY", "GETENV_KEY", "DICT_KEY"}
    # env_vars keeps its historical content: the set-only name, no membership-test names
    expected = {"DECL_KEY", "DICT_KEY", "GET_FROM_ENV_KEY", "SET_ONLY_KEY", "ENVIRON_KEY", "GETENV_KEY"}
    assert set(auth.env_vars) == expected
    merged = harvest_auth(index, info, [])
    merged.merge(auth)
    assert merged.env_declared == auth.env_declared and merged.env_read == auth.env_read
