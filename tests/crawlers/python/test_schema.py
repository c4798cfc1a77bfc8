"""Pydantic models, signatures and docstrings turned into JSON Schema."""

from __future__ import annotations

from crawlers.python.index import ClassRef
from crawlers.python.schema import docstring_args, model_schema, signature_schema
from tests.crawlers.python.helpers import package_index


def test_pydantic_required_rules() -> None:
    index = package_index(
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
    index = package_index(
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
