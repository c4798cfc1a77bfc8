"""CrewAI tools (crewai-tools), read statically.

A tool is a class whose package-internal ancestry reaches ``crewai.tools.BaseTool``. CrewAI declares
more than LangChain does: ``env_vars`` (a ``default_factory`` lambda returning ``EnvVar(...)``
calls), ``package_dependencies`` and a ``README.md`` beside most tool modules. ``local_id`` is the
class name; ``name`` is CrewAI's human title (``"Search the internet with Serper"``).

Env var provenance: ``env_vars_declared`` are the ``EnvVar`` names (the first class in the MRO that
sets ``env_vars``); ``env_vars_read`` are the names the code reads (``os.environ[...]``,
``os.getenv``, ``os.environ.get``, ``"X" in os.environ``) in the tool class, its in-package bases,
the in-package classes its fields are typed with and the module-level helpers they call, the same
scope ``auth_env_vars`` has always been harvested from.
"""

from __future__ import annotations

import ast
import posixpath
from typing import Any

from crawlers.base import ExtractedTool, Extraction, PackageFiles
from crawlers.python.base_tool import ClassTool, read_tool_class
from crawlers.python.evaluate import Evaluator
from crawlers.python.index import ClassRef, PackageIndex, is_abstract, own_attr
from crawlers.python.metadata import dedupe, deprecation, in_namespaces, read_metadata, service_from_path, want_python
from crawlers.python.urls import doc_urls_in


def want(path: str) -> bool:
    return want_python(path) or posixpath.basename(path) == "README.md"


_is_crewai = in_namespaces("crewai.", "crewai_tools.")


def extract(package: PackageFiles) -> Extraction:
    out = Extraction()
    index = PackageIndex(package.files)
    meta_docs = read_metadata(package.files).doc_urls()
    tool_classes = index.subclasses_of({"BaseTool"}, _is_crewai)
    parents = index.ancestor_keys(tool_classes)
    for cls in tool_classes:
        info = read_tool_class(index, cls)
        skip = _skip_reason(cls, info, cls.key in parents)
        if skip is not None:
            out.skipped[skip] += 1
        else:
            out.tools.append(_tool(index, package, cls, info, meta_docs))
    out.errors.extend(index.errors)
    return out


def _skip_reason(cls: ClassRef, info: ClassTool, has_subclasses: bool) -> str | None:
    """Why a tool class is not a tool: a base of other tools, or no static name; None for a tool."""
    base_like = "Base" in cls.node.name or is_abstract(cls)
    if has_subclasses and (base_like or not info.name):
        return "abstract_base"
    if not info.name:
        return "runtime_only_no_name"
    return None


def _tool(
    index: PackageIndex, package: PackageFiles, cls: ClassRef, info: ClassTool, meta_docs: list[str]
) -> ExtractedTool:
    env_vars, _required = _env_vars(index, cls)
    auth = info.auth
    for env in env_vars:
        auth.add_env(env, "declared")
    flags = list(info.flags)
    if env_vars:
        flags.append("declared_env_vars")
    deprecated, replacement = deprecation(cls.node, cls.module, index)
    alias = own_attr(cls.node, "is_deprecated_alias")
    if alias is not None and isinstance(alias[0], ast.Constant) and alias[0].value is True:
        deprecated = True
        replacement = replacement or _first_base_name(index, cls)
    readme = posixpath.join(posixpath.dirname(cls.module.path), "README.md")
    readme_docs = [readme] if readme in package.files else []
    readme_text = package.text(readme) if readme_docs else ""
    return ExtractedTool(
        local_id=cls.node.name,
        name=info.name,
        description=info.description,
        source_path=cls.module.path,
        display_name=cls.node.name,
        service=service_from_path(cls.module.path),
        parameters=info.parameters,
        **auth.tool_fields(),
        endpoints=info.endpoints,
        doc_urls=dedupe([*readme_docs, *doc_urls_in(info.doc_text), *doc_urls_in(readme_text)[:5], *meta_docs]),
        package_dependencies=_package_dependencies(index, cls),
        deprecated=deprecated,
        replacement=replacement,
        runtime_only=info.dynamic_description and not info.description,
        flags=sorted(set(flags)),
    )


def _first_base_name(index: PackageIndex, cls: ClassRef) -> str | None:
    mro = index.mro(cls)
    return mro[1].node.name if len(mro) > 1 else None


def _declared(index: PackageIndex, cls: ClassRef, attr: str) -> tuple[ClassRef, ast.expr] | None:
    """The value expression of a list-valued field: ``Field(default_factory=lambda: [...])``,
    ``Field(default=[...])`` or a bare list."""
    found = index.class_attr(cls, attr)
    if found is None or found[1] is None:
        return None
    owner, value, _ = found
    if isinstance(value, ast.Call) and ast.unparse(value.func).rsplit(".", 1)[-1] == "Field":
        for kw in value.keywords:
            if kw.arg == "default_factory":
                inner = kw.value
                return owner, inner.body if isinstance(inner, ast.Lambda) else inner
            if kw.arg == "default":
                return owner, kw.value
        if value.args:
            return owner, value.args[0]
    return owner, value


def _env_vars(index: PackageIndex, cls: ClassRef) -> tuple[list[str], list[str]]:
    """Names (and the required subset) from ``EnvVar(name=..., required=...)`` calls."""
    found = _declared(index, cls, "env_vars")
    if found is None:
        return [], []
    owner, node = found
    ev = Evaluator(index)
    names: list[str] = []
    required: list[str] = []
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and ast.unparse(call.func).rsplit(".", 1)[-1] == "EnvVar":
            kws: dict[str, Any] = {kw.arg: kw.value for kw in call.keywords if kw.arg}
            name = ev.eval_str(owner.module, kws.get("name") or (call.args[0] if call.args else None))
            if not name:
                continue
            names.append(name)
            req = ev.try_eval(owner.module, kws.get("required")) if "required" in kws else True
            if req:
                required.append(name)
    return dedupe(names), dedupe(required)


def _package_dependencies(index: PackageIndex, cls: ClassRef) -> list[str]:
    found = _declared(index, cls, "package_dependencies")
    if found is None:
        return []
    value = Evaluator(index).try_eval(found[0].module, found[1])
    return dedupe(v for v in value if isinstance(v, str)) if isinstance(value, list | tuple) else []
