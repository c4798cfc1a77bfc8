"""LangChain tools (langchain-community and partner packages), read statically.

Three shapes make a tool:

* a class whose package-internal ancestry reaches ``langchain_core``'s ``BaseTool`` /
  ``StructuredTool`` / ``Tool`` (``local_id`` = class name);
* toolkit "mode" dicts (``{"mode": ..., "name": ..., "description": PROMPT}``) that instantiate one
  such class many times (``local_id`` = ``Class:mode``);
* factory calls ``Tool(name=..., description=...)`` / ``StructuredTool.from_function(...)`` with a
  literal name (``local_id`` = that name).

Env var provenance: ``env_vars_declared`` are the names given to LangChain's pydantic-field helpers
(``secret_from_env("X")``, ``from_env("X")``, ``get_from_dict_or_env(values, "k", "X")``,
``get_from_env("k", "X")``); ``env_vars_read`` are direct reads (``os.environ[...]``, ``os.getenv``,
``os.environ.get``, ``"X" in os.environ``). Both come from the tool class, its in-package bases, the
in-package wrapper classes its fields are typed with (``api_wrapper: XAPIWrapper``) and module-level
helpers they call; a factory tool defined in a class has that class's scope, one in a function none.
"""

from __future__ import annotations

import ast

from crawlers.base import ExtractedTool, Extraction, PackageFiles
from crawlers.python.base_tool import ClassTool, args_schema_parameters, read_tool_class
from crawlers.python.credentials import tool_auth
from crawlers.python.evaluate import Evaluator
from crawlers.python.index import ClassRef, ModuleInfo, PackageIndex, is_abstract
from crawlers.python.metadata import dedupe, deprecation, in_namespaces, read_metadata, service_from_path, want_python
from crawlers.python.schema import schema_object, signature_schema
from crawlers.python.urls import doc_urls_in, endpoint_urls

_TOOL_BASES = {"BaseTool", "StructuredTool", "Tool"}
_FACTORIES = {"Tool", "StructuredTool"}
_MULTI_SERVICE = {"community", "experimental", "aws", "azure_ai", "google_community", "ibm"}


want = want_python  # modules and package metadata
_is_langchain = in_namespaces("langchain")


def extract(package: PackageFiles) -> Extraction:
    out = Extraction()
    index = PackageIndex(package.files)
    meta_docs = read_metadata(package.files).doc_urls()
    tool_classes = index.subclasses_of(_TOOL_BASES, _is_langchain)
    tool_keys = {c.key for c in tool_classes}
    parents = index.ancestor_keys(tool_classes)
    mode_classes = _mode_tools(index, package, tool_keys, meta_docs, out)
    for cls in tool_classes:
        if cls.key in mode_classes:
            out.skipped["mode_template"] += 1
            continue
        _class_tool(index, package, cls, cls.key in parents, meta_docs, out)
    _factory_tools(index, package, meta_docs, out)
    out.errors.extend(index.errors)
    _dedupe_ids(out)
    return out


def _service(package: PackageFiles, path: str) -> str:
    top = path.split("/", 1)[0]
    from_path = service_from_path(path, skip={top})
    own = package.name.removeprefix("langchain-").replace("-", "_")
    # single-service partner packages (langchain-tavily) name the service better than their module
    if not from_path:
        return "" if own in _MULTI_SERVICE else own
    return own if from_path.startswith(own) else from_path


def _class_tool(
    index: PackageIndex,
    package: PackageFiles,
    cls: ClassRef,
    has_subclasses: bool,
    meta_docs: list[str],
    out: Extraction,
) -> None:
    info = read_tool_class(index, cls)
    if not info.name:
        # no static name: an abstract base, or a tool configured at run time (Zapier NLA, OpenAPI NLA...)
        if has_subclasses or is_abstract(cls) or "Base" in cls.node.name:
            out.skipped["abstract_base"] += 1
        else:
            out.skipped["runtime_only_no_name"] += 1
        return
    if is_abstract(cls) and has_subclasses:
        out.skipped["abstract_base"] += 1
        return
    out.tools.append(_tool(index, package, cls, info, cls.node.name, info.name, cls.node.name, meta_docs))


def _tool(
    index: PackageIndex,
    package: PackageFiles,
    cls: ClassRef,
    info: ClassTool,
    local_id: str,
    name: str,
    display: str,
    meta_docs: list[str],
) -> ExtractedTool:
    deprecated, replacement = deprecation(cls.node, cls.module, index)
    runtime_only = info.dynamic_description and (not info.description or "docstring_description" in info.flags)
    return ExtractedTool(
        local_id=local_id,
        name=name,
        description=info.description,
        source_path=cls.module.path,
        display_name=display,
        service=_service(package, cls.module.path),
        parameters=info.parameters,
        **info.auth.tool_fields(),
        endpoints=info.endpoints,
        doc_urls=dedupe([*doc_urls_in(info.doc_text), *meta_docs]),
        deprecated=deprecated,
        replacement=replacement,
        runtime_only=runtime_only,
        flags=info.flags,
    )


# -- toolkit modes ------------------------------------------------------------------------------


def _mode_tools(
    index: PackageIndex,
    package: PackageFiles,
    tool_keys: set[tuple[str, str]],
    meta_docs: list[str],
    out: Extraction,
) -> set[tuple[str, str]]:
    """Emit one tool per ``{"mode": ...}`` dict; return the classes that are only mode templates."""
    templates: set[tuple[str, str]] = set()
    for module in index.modules():
        if '"mode"' not in index.source_text(module.name) and "'mode'" not in index.source_text(module.name):
            continue
        for func in ast.walk(module.tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            cls = _mode_class(index, module, func, tool_keys)
            if cls is None:
                continue
            templates.add(cls.key)
            for node in ast.walk(func):
                if isinstance(node, ast.Dict):
                    tool = _mode_tool(index, package, module, cls, node, meta_docs)
                    if tool is not None:
                        out.tools.append(tool)
    return templates


def _mode_class(
    index: PackageIndex, module: ModuleInfo, func: ast.AST, tool_keys: set[tuple[str, str]]
) -> ClassRef | None:
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and any(kw.arg == "mode" for kw in node.keywords):
            ref = index.class_ref(module, node.func)
            if isinstance(ref, ClassRef) and ref.key in tool_keys:
                return ref
    return None


def _mode_tool(
    index: PackageIndex,
    package: PackageFiles,
    module: ModuleInfo,
    cls: ClassRef,
    node: ast.Dict,
    meta_docs: list[str],
) -> ExtractedTool | None:
    keys = {k.value: v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
    if "mode" not in keys:
        return None
    ev = Evaluator(index)
    mode = ev.eval_str(module, keys["mode"])
    if not mode:
        return None
    name = ev.eval_str(module, keys.get("name")) or mode
    description = ev.eval_str(module, keys.get("description")) or ""
    base = read_tool_class(index, cls)
    flags = set(ev.flags) | {"toolkit_mode"}
    parameters = args_schema_parameters(index, module, keys.get("args_schema"), flags)
    info = ClassTool(
        name=name,
        description=description.strip() or base.description,
        parameters=parameters if parameters is not None else base.parameters,
        flags=sorted(flags),
        auth=base.auth,
        endpoints=base.endpoints,
        doc_text=base.doc_text,
        dynamic_description=False,
    )
    tool = _tool(index, package, cls, info, f"{cls.node.name}:{mode}", name, name, meta_docs)
    tool.source_path = module.path
    return tool


# -- factory calls ------------------------------------------------------------------------------


def _factory_tools(index: PackageIndex, package: PackageFiles, meta_docs: list[str], out: Extraction) -> None:
    for module in index.modules():
        text = index.source_text(module.name)
        if "Tool(" not in text and "from_function" not in text:
            continue
        for scope in _scopes(module.tree):
            for node in ast.walk(scope):
                if isinstance(node, ast.Call) and _is_factory(index, module, node.func):
                    tool = _factory_tool(index, package, module, scope, node, meta_docs, out)
                    if tool is not None:
                        out.tools.append(tool)


def _scopes(tree: ast.Module) -> list[ast.AST]:
    """Top-level functions and classes, so a factory call knows its enclosing class (for ``self._x``)."""
    return [s for s in tree.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]


def _is_factory(index: PackageIndex, module: ModuleInfo, func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute) and func.attr == "from_function":
        func = func.value
    ref = index.class_ref(module, func)
    return isinstance(ref, str) and _is_langchain(ref) and ref.rsplit(".", 1)[-1] in _FACTORIES


def _factory_tool(
    index: PackageIndex,
    package: PackageFiles,
    module: ModuleInfo,
    scope: ast.AST,
    call: ast.Call,
    meta_docs: list[str],
    out: Extraction,
) -> ExtractedTool | None:
    ev = Evaluator(index)
    kws = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    name = ev.eval_str(module, kws.get("name"))
    if not name:
        out.skipped["factory_dynamic_name"] += 1
        return None
    description = ev.eval_str(module, kws.get("description")) or ""
    flags = set(ev.flags) | {"factory"}
    parameters = args_schema_parameters(index, module, kws.get("args_schema"), flags)
    func_node = kws.get("func") or (call.args[0] if call.args else None)
    target = _function_target(index, module, scope, func_node)
    if parameters is None and target is not None:
        parameters = signature_schema(index, module, target)
    if not description and target is not None:
        description = ast.get_docstring(target) or ""
        if description:
            flags.add("docstring_description")
    classes = [ClassRef(module, scope)] if isinstance(scope, ast.ClassDef) else []
    auth, related = tool_auth(index, classes)
    info = ClassTool(
        name=name,
        description=description.strip(),
        parameters=parameters or schema_object({}, []),
        flags=sorted(flags),
        auth=auth,
        endpoints=endpoint_urls(index, module, related),
        doc_text="",
        dynamic_description=False,
    )
    holder = ClassRef(module, scope) if isinstance(scope, ast.ClassDef) else None
    tool = _tool(index, package, holder or _pseudo_class(module), info, name, name, name, meta_docs)
    tool.source_path = module.path
    return tool


def _pseudo_class(module: ModuleInfo) -> ClassRef:
    return ClassRef(module, ast.ClassDef(name="", bases=[], keywords=[], body=[], decorator_list=[], type_params=[]))


def _function_target(
    index: PackageIndex, module: ModuleInfo, scope: ast.AST, node: ast.expr | None
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    if node is None:
        return None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        if isinstance(scope, ast.ClassDef):
            for stmt in scope.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == node.attr:
                    return stmt
        return None
    if isinstance(node, ast.Name):
        sym = index.member(module, node.id)
        if sym is not None and not isinstance(sym, str) and sym.kind == "function":
            return sym.node  # type: ignore[return-value]
    return None


def _dedupe_ids(out: Extraction) -> None:
    seen: set[str] = set()
    kept = []
    for tool in out.tools:
        if tool.local_id in seen:
            out.skipped["duplicate_local_id"] += 1
            continue
        seen.add(tool.local_id)
        kept.append(tool)
    out.tools = kept
