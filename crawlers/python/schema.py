"""Python types, pydantic models and function signatures turned into JSON Schema objects.

Also the readers of pydantic ``Field(...)`` calls and of docstrings (Google-style ``Args:`` sections)
the other modules share.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterable
from typing import Any

from crawlers.python.evaluate import Evaluator
from crawlers.python.index import ClassRef, ModuleInfo, PackageIndex, Symbol

_JSON_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "dict": "object",
    "Dict": "object",
    "Mapping": "object",
    "list": "array",
    "List": "array",
    "Sequence": "array",
    "tuple": "array",
    "Tuple": "array",
    "set": "array",
    "Set": "array",
    "Iterable": "array",
    "SecretStr": "string",
    "HttpUrl": "string",
    "AnyUrl": "string",
    "bytes": "string",
    "Path": "string",
    "datetime": "string",
    "date": "string",
    "UUID": "string",
    "None": "null",
    "NoneType": "null",
    "Decimal": "number",
    "BaseModel": "object",
    "Any": "",
}

_DROPPED_PARAMS = {"self", "cls", "run_manager", "callbacks", "config"}


def json_type(annotation: ast.expr | None) -> dict[str, Any]:
    """JSON Schema type keywords for a Python annotation, where the mapping is obvious."""
    if annotation is None:
        return {}
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return {}
    head, args = _split_subscript(annotation)
    if head == "Annotated" and args:
        return json_type(args[0])
    if head in {"Optional"} and args:
        return json_type(args[0])
    if head == "Union" or (isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr)):
        members = args if head == "Union" else _union_members(annotation)
        real = [m for m in members if ast.unparse(m) not in {"None", "NoneType"}]
        types = {json_type(m).get("type") for m in real}
        if len(real) == 1 or (len(types) == 1 and None not in types):
            return json_type(real[0]) if real else {}
        return {}
    if head == "Literal" and args:
        values = [a.value for a in args if isinstance(a, ast.Constant)]
        kinds = {_JSON_TYPES.get(type(v).__name__, "") for v in values}
        out: dict[str, Any] = {"enum": values}
        if len(kinds) == 1 and "" not in kinds:
            out["type"] = kinds.pop()
        return out
    mapped = _JSON_TYPES.get(head or "")
    if not mapped:
        return {}
    out = {"type": mapped}
    if mapped == "array" and args and head not in {"Tuple", "tuple"}:
        items = json_type(args[0])
        if items:
            out["items"] = items
    return out


def _split_subscript(node: ast.expr) -> tuple[str | None, list[ast.expr]]:
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).rsplit(".", 1)[-1]
        sl = node.slice
        return head, list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
    if isinstance(node, ast.Name | ast.Attribute):
        return ast.unparse(node).rsplit(".", 1)[-1], []
    if isinstance(node, ast.Constant) and node.value is None:
        return "None", []
    return None, []


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


def is_classvar(annotation: ast.expr | None) -> bool:
    """A ``ClassVar[...]`` annotation: a class constant, not a pydantic field."""
    return annotation is not None and _split_subscript(annotation)[0] == "ClassVar"


def _json_default(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        items = [_json_default(v) for v in value]
        return None if any(i is _NO_DEFAULT for i in items) else items
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        items = {k: _json_default(v) for k, v in value.items()}
        return _NO_DEFAULT if any(v is _NO_DEFAULT for v in items.values()) else items
    return _NO_DEFAULT


_NO_DEFAULT = object()


def as_field_call(node: ast.expr | None) -> ast.Call | None:
    """``node`` when it is a pydantic ``Field(...)`` call, else None."""
    if isinstance(node, ast.Call) and ast.unparse(node.func).rsplit(".", 1)[-1] == "Field":
        return node
    return None


def keyword_arg(call: ast.Call, name: str) -> ast.expr | None:
    """The value passed as keyword ``name`` in a call, or None."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def _property(
    ev: Evaluator, info: ModuleInfo, annotation: ast.expr | None, value: ast.expr | None, has_default: bool
) -> tuple[dict[str, Any], bool]:
    """One JSON Schema property and whether it is required (pydantic v2 rules)."""
    annotation = resolve_annotation_alias(ev.index, info, annotation)
    prop = json_type(annotation)
    if annotation is not None:
        prop["x-python-type"] = ast.unparse(annotation)
    # Annotated[T, "desc"] / Annotated[T, Field(description=...)]
    head, args = _split_subscript(annotation) if annotation is not None else (None, [])
    field_call = as_field_call(value)
    if head == "Annotated":
        for meta in args[1:]:
            text = ev.eval_str(info, meta)
            if text:
                prop["description"] = text
            elif as_field_call(meta) and field_call is None:
                field_call = as_field_call(meta)
    required = not has_default
    default_node: ast.expr | None = value if has_default and field_call is None else None
    if field_call is not None:
        desc = ev.eval_str(info, keyword_arg(field_call, "description"))
        if desc:
            prop["description"] = desc
        if field_call is value:
            first = field_call.args[0] if field_call.args else keyword_arg(field_call, "default")
            if keyword_arg(field_call, "default_factory") is not None:
                required = False
            elif first is None or (isinstance(first, ast.Constant) and first.value is Ellipsis):
                required = True
            else:
                required = False
                default_node = first
    if default_node is not None:
        default = _json_default(ev.try_eval(info, default_node)) if not is_none(default_node) else None
        if default is not _NO_DEFAULT:
            prop["default"] = default
    return prop, required


def is_none(node: ast.expr) -> bool:
    """A literal ``None``."""
    return isinstance(node, ast.Constant) and node.value is None


def resolve_annotation_alias(index: PackageIndex, info: ModuleInfo, annotation: ast.expr | None) -> ast.expr | None:
    """``Count = Annotated[int, "..."]`` at module level: a param annotated ``Count`` means that."""
    if isinstance(annotation, ast.Name):
        sym = index.member(info, annotation.id)
        if (
            isinstance(sym, Symbol)
            and sym.kind == "constant"
            and isinstance(sym.node, ast.Subscript)
            and _split_subscript(sym.node)[0] == "Annotated"
        ):
            return sym.node
    return annotation


def schema_object(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out


def model_schema(index: PackageIndex, model: ClassRef) -> dict[str, Any]:
    """JSON Schema object of a pydantic model's fields, incl. fields of in-package parents."""
    properties: dict[str, dict[str, Any]] = {}
    required: list[str] = []
    ev = Evaluator(index)
    for owner in reversed(index.mro(model)):  # parents first, so subclasses override
        for stmt in owner.node.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            name = stmt.target.id
            if name.startswith("_") or name == "model_config" or is_classvar(stmt.annotation):
                continue
            prop, req = _property(ev, owner.module, stmt.annotation, stmt.value, stmt.value is not None)
            doc = _attribute_docstring(owner.node, stmt)
            if doc and "description" not in prop:
                prop["description"] = doc
            properties[name] = prop
            if req and name not in required:
                required.append(name)
            elif not req and name in required:
                required.remove(name)
    return schema_object(properties, required)


def _attribute_docstring(cls: ast.ClassDef, stmt: ast.stmt) -> str | None:
    # pydantic (use_attribute_docstrings) and LangChain's docs read the string literal after a field
    body = cls.body
    i = body.index(stmt)
    if i + 1 < len(body):
        nxt = body[i + 1]
        if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
            return inspect.cleandoc(nxt.value.value)
    return None


def signature_schema(
    index: PackageIndex,
    info: ModuleInfo,
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    drop: Iterable[str] = (),
    doc: str | None = None,
) -> dict[str, Any]:
    """JSON Schema object from a function signature plus the Google-style ``Args:`` section of its
    docstring (or of ``doc``, when the docstring is attached elsewhere)."""
    ev = Evaluator(index)
    docs = docstring_args(doc if doc is not None else (ast.get_docstring(func) or ""))
    dropped = _DROPPED_PARAMS | set(drop)
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = list(zip(positional, defaults, strict=True)) + list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    properties: dict[str, dict[str, Any]] = {}
    required: list[str] = []
    for arg, default in pairs:
        if arg.arg in dropped:
            continue
        prop, req = _property(ev, info, arg.annotation, default, default is not None)
        if "description" not in prop and arg.arg in docs:
            prop["description"] = docs[arg.arg]
        properties[arg.arg] = prop
        if req:
            required.append(arg.arg)
    return schema_object(properties, required)


_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Kwargs)\s*:\s*$")
_ANY_SECTION = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$")
_ARG_LINE = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


def docstring_args(doc: str) -> dict[str, str]:
    """Per-parameter descriptions from a Google-style ``Args:`` section."""
    out: dict[str, str] = {}
    lines = doc.expandtabs().splitlines()
    i = 0
    while i < len(lines):
        if not _SECTION.match(lines[i]):
            i += 1
            continue
        header_indent = len(lines[i]) - len(lines[i].lstrip())
        i += 1
        arg_indent = None
        current = None
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            indent = len(line) - len(line.lstrip())
            if stripped and indent <= header_indent:
                break  # next section or prose at the header's level
            if stripped:
                match = _ARG_LINE.match(stripped)
                if match and (arg_indent is None or indent <= arg_indent):
                    arg_indent = indent
                    current = match.group(1).lstrip("*")
                    out[current] = match.group(3).strip()
                elif current is not None:
                    out[current] = f"{out[current]} {stripped}".strip()
            i += 1
    return {k: v for k, v in out.items() if v}


def clean_docstring(node: ast.AST) -> str:
    doc = (
        ast.get_docstring(node, clean=True)
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef | ast.Module)
        else None
    )
    return doc or ""
