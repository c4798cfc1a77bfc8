"""Pydantic ``BaseTool`` classes (LangChain and CrewAI share this shape).

``read_tool_class`` reads what a ``name`` / ``description`` / ``args_schema`` tool class declares,
MRO included, with its credentials and endpoints.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from crawlers.python.credentials import AuthInfo, tool_auth
from crawlers.python.evaluate import Evaluator, Opaque
from crawlers.python.index import ClassRef, ModuleInfo, PackageIndex
from crawlers.python.schema import (
    as_field_call,
    clean_docstring,
    is_none,
    keyword_arg,
    model_schema,
    schema_object,
    signature_schema,
)
from crawlers.python.urls import endpoint_urls


@dataclass
class ClassTool:
    """What a ``name`` / ``description`` / ``args_schema`` tool class declares, MRO included."""

    name: str | None
    description: str
    parameters: dict[str, Any]
    flags: list[str]
    auth: AuthInfo
    endpoints: list[str]
    doc_text: str  # class docstring, for doc URLs
    dynamic_description: bool


_DESCRIPTION_TARGET = re.compile(r"""^(self\.description|values\[['"]description['"]\]|data\[['"]description['"]\])$""")


def _sets_description_at_runtime(cls: ClassRef) -> bool:
    for node in ast.walk(cls.node):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else ([node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else [])
        )
        for target in targets:
            if _DESCRIPTION_TARGET.match(ast.unparse(target)):
                return True
    return False


def args_schema_parameters(
    index: PackageIndex, info: ModuleInfo, value: ast.expr | None, flags: set[str]
) -> dict[str, Any] | None:
    """Parameters from an ``args_schema`` value: an in-package pydantic model or a literal JSON Schema dict."""
    if value is None or is_none(value):
        return None
    ref = index.class_ref(info, value) if isinstance(value, ast.Name | ast.Attribute) else None
    if isinstance(ref, ClassRef):
        return model_schema(index, ref)
    literal = Evaluator(index).try_eval(info, value)
    if isinstance(literal, dict) and isinstance(literal.get("properties"), dict):
        return {k: v for k, v in literal.items() if not isinstance(v, Opaque)}
    flags.add("unresolved_args_schema")
    return None


def read_tool_class(index: PackageIndex, cls: ClassRef, run_method: str = "_run") -> ClassTool:
    flags: set[str] = set()
    ev = Evaluator(index)
    name = None
    found = index.class_attr(cls, "name")
    if found is not None:
        owner, value, _ = found
        name = ev.eval_str(owner.module, value)
        if owner != cls and name:
            flags.add("inherited")
    description = ""
    found = index.class_attr(cls, "description")
    if found is not None:
        owner, value, _ = found
        fc = as_field_call(value)
        if fc is not None:
            value = fc.args[0] if fc.args else keyword_arg(fc, "default")
        description = ev.eval_str(owner.module, value) or ""
        if owner != cls and description:
            flags.add("inherited")
    flags |= ev.flags
    mro = index.mro(cls)
    dynamic = any(_sets_description_at_runtime(c) for c in mro)
    if not description.strip():
        for c in mro:
            doc = clean_docstring(c.node)
            if doc:
                description = doc
                flags.add("docstring_description")
                if c != cls:
                    flags.add("inherited")
                break
    if dynamic:
        flags.add("dynamic_description")
    parameters = None
    found = index.class_attr(cls, "args_schema")
    if found is not None:
        owner, value, _ = found
        parameters = args_schema_parameters(index, owner.module, value, flags)
    if parameters is None:
        method = index.method(cls, run_method)
        parameters = signature_schema(index, method[0].module, method[1]) if method else schema_object({}, [])
    auth, related = tool_auth(index, mro)
    endpoints = endpoint_urls(index, cls.module, related)
    return ClassTool(
        name=name,
        description=description.strip(),
        parameters=parameters,
        flags=sorted(flags),
        auth=auth,
        endpoints=endpoints,
        doc_text=clean_docstring(cls.node),
        dynamic_description=dynamic,
    )
