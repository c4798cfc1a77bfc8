"""MCP servers published on PyPI: the wheel's modules read with ``ast``, never imported or run.

Tools appear in three shapes, all found anywhere in a module (servers often register their tools
inside a ``serve()`` or ``create_server()`` function):

(a) decorated functions: ``@mcp.tool()``, ``@server.tool(name=..., description=...)``, ``@app.tool``
    (FastMCP and the SDK's ``MCPServer``): the name is ``name=`` or the first positional string, else
    the function's name; the description is ``description=``, else the docstring (what FastMCP
    sends); the parameters are the signature (a ``Context`` parameter is the framework's, not the
    model's) with the docstring's ``Args:`` descriptions, through ``crawlers.python.schema``;
(b) the same through the package's own registering decorator (``@register_tool("search", ...)``
    where ``register_tool`` calls ``server.tool(...)`` or ``server.add_tool(...)``): the name is its
    first string argument or ``name=``;
(c) low-level ``Tool(name=..., description=..., inputSchema=...)`` / ``types.Tool(...)`` objects, as a
    ``@server.list_tools()`` handler returns them: ``inputSchema`` is a dict literal (module constants
    followed) or ``SomeModel.model_json_schema()`` of an in-package pydantic model.

Names and descriptions are evaluated as far as ``crawlers.python.evaluate`` goes, plus enum members
(``ToolName.SEARCH`` / ``ToolName.SEARCH.value``), which the low-level servers name tools with.

Env vars are package-wide as for npm servers: ``env_vars_read`` are the credential-like names
(``crawlers.vocabulary.AUTH_ENV_VAR``) the code reads (``os.environ[...]``, ``os.getenv``...),
``env_vars_declared`` those the README (the wheel's METADATA body) tells the user to set.
"""

from __future__ import annotations

import ast
import posixpath
import re
from typing import Any

from crawlers.base import Extraction, PackageFiles
from crawlers.mcp.metadata import package_auth_type, readme_env_declared, readme_notice, service_name
from crawlers.mcp.records import Found, ServerFacts, add_tools
from crawlers.python.credentials import harvest_auth
from crawlers.python.evaluate import Evaluator, Opaque
from crawlers.python.index import ClassRef, ModuleInfo, PackageIndex, Symbol, own_attr
from crawlers.python.metadata import dedupe, read_metadata, want_python
from crawlers.python.schema import keyword_arg, model_schema, signature_schema
from crawlers.python.urls import module_endpoints
from crawlers.vocabulary import AUTH_ENV_VAR

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
_REGISTER_METHODS = {"tool", "add_tool"}
# a module that does not parse is only an error when it may hold tools; otherwise it is counted
_TOOLISH = re.compile(rb"\.tool\b|\bTool\(|add_tool\(")
_INACTIVE = "Development Status :: 7 - Inactive"


def want_py(path: str) -> bool:
    """The wheel's modules and METADATA, without test modules (they register mock tools)."""
    if not want_python(path):
        return False
    parts = path.split("/")
    name = parts[-1]
    return not (
        {"tests", "test", "testing"} & set(parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def extract_py(package: PackageFiles) -> Extraction:
    """Extract the MCP tools a PyPI server package registers, by static reading of its modules."""
    result = Extraction()
    # some wheels name their members "./module.py"; the module index wants plain relative paths
    files = {posixpath.normpath(p): b for p, b in package.files.items() if want_py(posixpath.normpath(p))}
    index = PackageIndex(files)
    meta = read_metadata(files)
    modules = list(index.modules())
    registrars = _registrar_names(modules)
    found: list[Found] = []
    env: list[str] = []
    endpoints: list[str] = []
    oauth = False
    for info in modules:
        auth = harvest_auth(index, info, [info.tree])
        env.extend(auth.env_read)
        oauth = oauth or auth.oauth
        endpoints.extend(module_endpoints(index, info))
        found.extend(_module_tools(index, info, registrars))
    for path, reason in index.errors:
        if _TOOLISH.search(files.get(path, b"")):
            result.errors.append((path, reason))
        else:
            result.skipped["unparsable_module_without_tools"] += 1

    auth_env = sorted({n for n in env if AUTH_ENV_VAR.search(n)})
    readme_deprecated, readme_replacement = readme_notice(meta.body)
    facts = ServerFacts(
        service=service_name(package.name),
        auth_type=package_auth_type(auth_env, oauth),
        env_read=auth_env,
        env_declared=[n for n in readme_env_declared(meta.body) if AUTH_ENV_VAR.search(n)],
        endpoints=sorted(set(endpoints)),
        doc_urls=meta.doc_urls(),
        categories=list(meta.keywords),
        dependencies=sorted(dedupe(meta.requires)),
        registry_deprecated=meta.summary if _INACTIVE in meta.classifiers else None,
        readme_deprecated=readme_deprecated,
        readme_replacement=readme_replacement,
    )
    add_tools(found, facts, result)
    return result


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function of a module, nested ones included, in source order."""
    funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return sorted(funcs, key=lambda f: (f.lineno, f.col_offset))


def _callee(node: ast.expr) -> str:
    """The last dotted part of what is called (or used as a decorator)."""
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target).rsplit(".", 1)[-1]


def _registrar_names(modules: list[ModuleInfo]) -> set[str]:
    """The package's own functions that register their argument as a tool (``X.tool(...)`` inside)."""
    names: set[str] = set()
    for info in modules:
        for func in _functions(info.tree):
            for node in ast.walk(func):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _REGISTER_METHODS
                ):
                    names.add(func.name)
                    break
    return names


def _is_tool_decorator(dec: ast.expr, registrars: set[str]) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(target, ast.Attribute):
        return target.attr == "tool"  # mcp.tool, server.tool, app.tool (not server.list_tools / call_tool)
    return isinstance(target, ast.Name) and target.id in registrars


def _module_tools(index: PackageIndex, info: ModuleInfo, registrars: set[str]) -> list[Found]:
    items: list[tuple[int, Found]] = []
    for func in _functions(info.tree):
        for dec in func.decorator_list:
            if _is_tool_decorator(dec, registrars):
                items.append((func.lineno, _decorated_tool(index, info, func, dec)))
                break
    for node, cls in _calls_with_class(info.tree):
        if _callee(node) == "Tool" and keyword_arg(node, "name") is not None:
            owner = ClassRef(info, cls) if cls is not None else None
            items.append((node.lineno, _tool_object(index, info, node, owner)))
    return [found for _, found in sorted(items, key=lambda item: item[0])]


def _calls_with_class(tree: ast.AST) -> list[tuple[ast.Call, ast.ClassDef | None]]:
    """Every call of a module with the class whose body (or method) holds it, if any."""
    out: list[tuple[ast.Call, ast.ClassDef | None]] = []
    stack: list[tuple[ast.AST, ast.ClassDef | None]] = [(tree, None)]
    while stack:
        node, cls = stack.pop()
        if isinstance(node, ast.Call):
            out.append((node, cls))
        inner = node if isinstance(node, ast.ClassDef) else cls
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return out


def text_value(
    index: PackageIndex, ev: Evaluator, info: ModuleInfo, node: ast.expr | None, owner: ClassRef | None = None
) -> str | None:
    """A string, as ``Evaluator`` reads it, an enum member's value (``Names.X`` / ``Names.X.value``) or,
    inside a class, a class attribute read through ``self.X``."""
    if node is None:
        return None
    value = ev.eval_str(info, node)
    if value is not None:
        return value
    if owner is not None and isinstance(node, ast.Attribute) and ast.unparse(node.value) in ("self", "cls"):
        found = index.class_attr(owner, node.attr)
        if found is not None and found[1] is not None:
            ev.flags.add("class_attribute")
            return ev.eval_str(found[0].module, found[1])
    target = node.value if isinstance(node, ast.Attribute) and node.attr == "value" else node
    if isinstance(target, ast.Attribute):
        owner = index.resolve_expr(info, target.value)
        if isinstance(owner, Symbol) and owner.kind == "class":
            member = own_attr(owner.node, target.attr)  # type: ignore[arg-type]
            if member is not None and member[0] is not None:
                ev.flags.add("enum_member")
                return ev.eval_str(owner.module, member[0])
    return None


def _context_params(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Parameters annotated with the framework's request context (FastMCP leaves them out of the schema)."""
    args = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
    return [
        a.arg
        for a in args
        if a.annotation is not None and re.search(r"\b\w*Context\b", ast.unparse(a.annotation))
    ]


def _decorated_tool(
    index: PackageIndex, info: ModuleInfo, func: ast.FunctionDef | ast.AsyncFunctionDef, dec: ast.expr
) -> Found:
    """Shapes (a) and (b)."""
    ev = Evaluator(index)
    call = dec if isinstance(dec, ast.Call) else None
    name = description = title = None
    if call is not None:
        name = text_value(index, ev, info, keyword_arg(call, "name"))
        if name is None and call.args:
            name = text_value(index, ev, info, call.args[0])
        description = text_value(index, ev, info, keyword_arg(call, "description"))
        title = text_value(index, ev, info, keyword_arg(call, "title"))
    flags: set[str] = set()
    if name is None:
        if call is not None and (keyword_arg(call, "name") is not None or _is_name_like(call)):
            return Found("", None, None, {}, info.path, {"unresolved_name"})
        name = func.name
    doc = ast.get_docstring(func, clean=True) or ""
    if description is None and doc:
        description = doc
        flags.add("docstring_description")
    parameters = signature_schema(index, info, func, drop=_context_params(func), doc=doc)
    return Found(name, title, description, parameters, info.path, flags | ev.flags)


def _is_name_like(call: ast.Call) -> bool:
    """A registering call whose first argument names the tool but could not be evaluated."""
    return bool(call.args) and not isinstance(call.args[0], ast.Lambda | ast.Dict | ast.List)


def _tool_object(index: PackageIndex, info: ModuleInfo, call: ast.Call, owner: ClassRef | None) -> Found:
    """Shape (c): ``Tool(name=..., description=..., inputSchema=...)``, also built in a method from the
    class's attributes (``Tool(name=self.name, ...)``)."""
    ev = Evaluator(index)
    name = text_value(index, ev, info, keyword_arg(call, "name"), owner)
    if not name:
        return Found("", None, None, {}, info.path, {"unresolved_name"})
    description = text_value(index, ev, info, keyword_arg(call, "description"), owner)
    title = text_value(index, ev, info, keyword_arg(call, "title"), owner)
    flags = set(ev.flags)
    schema_node = keyword_arg(call, "inputSchema") or keyword_arg(call, "input_schema")
    parameters = _input_schema(index, ev, info, schema_node, flags)
    return Found(name, title, description, parameters, info.path, flags)


def _input_schema(
    index: PackageIndex, ev: Evaluator, info: ModuleInfo, node: ast.expr | None, flags: set[str]
) -> dict[str, Any]:
    if node is None:
        return dict(_EMPTY_SCHEMA)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("model_json_schema", "schema")
    ):
        ref = index.class_ref(info, node.func.value)
        if isinstance(ref, ClassRef):
            return model_schema(index, ref)
    value = ev.try_eval(info, node)
    if isinstance(value, dict):
        cleaned = _without_opaque(value, flags)
        if isinstance(cleaned.get("properties"), dict):
            return cleaned
    flags.add("unresolved_input_schema")
    return dict(_EMPTY_SCHEMA)


def _without_opaque(value: Any, flags: set[str]) -> Any:
    """A literal with the members the evaluator could not read left out (and flagged)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(item, Opaque):
                flags.add("partial_schema")
                continue
            out[key] = _without_opaque(item, flags)
        return out
    if isinstance(value, list | tuple):
        return [_without_opaque(item, flags) for item in value if not isinstance(item, Opaque)]
    return value

