"""Static reading of Python packages for the LangChain, CrewAI and LlamaIndex extractors.

Everything here works on ``ast`` trees of the package's own files: nothing from a crawled package
is ever imported or executed. The pieces are:

* ``PackageIndex``: every module of the package (imports incl. relative ones and ``__init__``
  re-exports, module constants, classes, functions) with symbol lookup across modules and a
  memoized, package-internal MRO.
* ``Evaluator``: a tiny safe evaluator for the literal shapes tool metadata is written in
  (strings, concatenation, ``textwrap.dedent``, ``.strip()``, f-strings, references to module
  constants through imports, lists/tuples/dicts, simple comprehensions).
* pydantic models and function signatures turned into JSON Schema objects.
* harvesting of credentials (env vars, secret-holding fields) and URLs.
"""

from __future__ import annotations

import ast
import inspect
import posixpath
import re
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from email.parser import HeaderParser
from typing import Any

MAX_REF_DEPTH = 8


# ---------------------------------------------------------------------------
# module index


@dataclass
class ModuleInfo:
    name: str  # dotted module name, e.g. "langchain_community.tools.gmail.base"
    path: str  # archive path
    tree: ast.Module
    is_package: bool
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    constants: dict[str, ast.expr] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)


@dataclass(frozen=True)
class ClassRef:
    module: ModuleInfo
    node: ast.ClassDef

    @property
    def key(self) -> tuple[str, str]:
        return (self.module.name, self.node.name)

    @property
    def qualname(self) -> str:
        return f"{self.module.name}.{self.node.name}"

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClassRef) and other.key == self.key


@dataclass(frozen=True)
class Symbol:
    """What a name resolves to inside the package."""

    kind: str  # "class" | "constant" | "function" | "module"
    module: ModuleInfo
    name: str
    node: ast.AST | None

    def __hash__(self) -> int:
        return hash((self.kind, self.module.name, self.name))


def module_name_for(path: str) -> tuple[str, bool] | None:
    """Dotted module name for an archive path (wheel layout), or None for non-modules."""
    if not path.endswith(".py") or ".dist-info/" in path or ".data/" in path:
        return None
    parts = path[:-3].split("/")
    if not all(p.isidentifier() for p in parts):
        return None
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return (".".join(parts), True) if parts else None
    return ".".join(parts), False


def _resolve_relative(module: ModuleInfo, level: int, target: str | None) -> str:
    base = module.name.split(".")
    if not module.is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def _index_module(info: ModuleInfo) -> None:
    # Only top-level statements (and those under if/try at top level, where optional imports and
    # TYPE_CHECKING blocks live) define module names.
    for stmt in _top_level(info.tree.body):
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    info.imports[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    info.imports.setdefault(root, root)
        elif isinstance(stmt, ast.ImportFrom):
            src = _resolve_relative(info, stmt.level, stmt.module) if stmt.level else (stmt.module or "")
            for alias in stmt.names:
                if alias.name != "*":
                    info.imports[alias.asname or alias.name] = f"{src}.{alias.name}"
        elif isinstance(stmt, ast.ClassDef):
            info.classes[stmt.name] = stmt
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            info.functions[stmt.name] = stmt
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            info.constants[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            info.constants[stmt.target.id] = stmt.value


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from _top_level(stmt.body)
            yield from _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _top_level(stmt.body)
            for handler in stmt.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(stmt.orelse)
        else:
            yield stmt


class PackageIndex:
    """All parseable modules of one package, with cross-module lookup.

    Modules are parsed lazily (``langchain-community`` has 1,200 of them and a tool search touches
    only part), then cached. A module that does not parse is recorded in ``errors`` once.
    """

    def __init__(self, files: dict[str, bytes]) -> None:
        self._sources: dict[str, tuple[str, bool]] = {}  # module name -> (path, is_package)
        self._files = files
        for path in files:
            named = module_name_for(path)
            if named:
                self._sources[named[0]] = (path, named[1])
        self._modules: dict[str, ModuleInfo | None] = {}
        self.errors: list[tuple[str, str]] = []
        self._mro: dict[tuple[str, str], list[ClassRef]] = {}
        self._externals: dict[tuple[str, str], frozenset[str]] = {}
        self._lookup_cache: dict[str, Symbol | str | None] = {}

    # -- modules ----------------------------------------------------------------------------

    def module_names(self) -> list[str]:
        return sorted(self._sources)

    def module(self, name: str) -> ModuleInfo | None:
        if name in self._modules:
            return self._modules[name]
        info = None
        if name in self._sources:
            path, is_package = self._sources[name]
            text = self._files[path].decode("utf-8", errors="replace")
            try:
                tree = ast.parse(text, filename=path)
            except (SyntaxError, ValueError) as exc:
                self.errors.append((path, f"{type(exc).__name__}: {exc}"))
            else:
                info = ModuleInfo(name=name, path=path, tree=tree, is_package=is_package)
                _index_module(info)
        self._modules[name] = info
        return info

    def modules(self) -> Iterator[ModuleInfo]:
        for name in self.module_names():
            info = self.module(name)
            if info is not None:
                yield info

    def source_text(self, name: str) -> str:
        path = self._sources.get(name, ("", False))[0]
        return self._files[path].decode("utf-8", errors="replace") if path else ""

    # -- symbols ----------------------------------------------------------------------------

    def lookup(self, qualname: str, depth: int = 0) -> Symbol | str | None:
        """Resolve a qualified name to a package symbol, or return it unchanged if external.

        Follows ``__init__`` re-exports and import chains up to ``MAX_REF_DEPTH`` hops.
        """
        if qualname in self._lookup_cache:
            return self._lookup_cache[qualname]
        self._lookup_cache[qualname] = qualname  # cycle guard
        result = self._lookup(qualname, depth)
        self._lookup_cache[qualname] = result
        return result

    def _lookup(self, qualname: str, depth: int) -> Symbol | str | None:
        if depth > MAX_REF_DEPTH:
            return None
        if qualname in self._sources:
            info = self.module(qualname)
            return Symbol("module", info, qualname, None) if info else None
        mod_name, _, attr = qualname.rpartition(".")
        if not mod_name:
            return qualname
        owner = self.lookup(mod_name, depth + 1)
        if not isinstance(owner, Symbol):
            return qualname if owner == mod_name else None
        if owner.kind == "class":
            return None  # nested attributes of classes are not followed
        if owner.kind != "module":
            return None
        return self.member(owner.module, attr, depth + 1)

    def member(self, info: ModuleInfo, name: str, depth: int = 0) -> Symbol | str | None:
        """What ``name`` means inside module ``info``."""
        if name in info.classes:
            return Symbol("class", info, name, info.classes[name])
        if name in info.functions:
            return Symbol("function", info, name, info.functions[name])
        if name in info.constants:
            return Symbol("constant", info, name, info.constants[name])
        if name in info.imports:
            return self.lookup(info.imports[name], depth + 1)
        sub = f"{info.name}.{name}"
        if info.is_package and sub in self._sources:
            return self.lookup(sub, depth + 1)
        return None

    def resolve_expr(self, info: ModuleInfo, node: ast.expr) -> Symbol | str | None:
        """Resolve a ``Name`` or dotted ``Attribute`` used in ``info``."""
        if isinstance(node, ast.Name):
            return self.member(info, node.id)
        if isinstance(node, ast.Attribute):
            owner = self.resolve_expr(info, node.value)
            if isinstance(owner, Symbol) and owner.kind == "module":
                return self.member(owner.module, node.attr)
            if isinstance(owner, str):
                return f"{owner}.{node.attr}"
        return None

    def class_ref(self, info: ModuleInfo, node: ast.expr) -> ClassRef | str | None:
        """An in-package class, or the external qualified name, for a base/annotation expression."""
        if isinstance(node, ast.Subscript):  # Generic[...] / Type[X]
            node = node.value
        sym = self.resolve_expr(info, node)
        if isinstance(sym, Symbol) and sym.kind == "class":
            return ClassRef(sym.module, sym.node)  # type: ignore[arg-type]
        if isinstance(sym, str):
            return sym
        if sym is None and isinstance(node, ast.Name | ast.Attribute):
            return ast.unparse(node)  # builtin or star-imported: keep the text
        return None

    # -- classes ----------------------------------------------------------------------------

    def classes(self) -> Iterator[ClassRef]:
        for info in self.modules():
            for node in info.classes.values():
                yield ClassRef(info, node)

    def mro(self, cls: ClassRef) -> list[ClassRef]:
        """Package-internal ancestry, the class first; left-to-right depth-first, memoized."""
        if cls.key in self._mro:
            return self._mro[cls.key]
        self._mro[cls.key] = [cls]  # cycle guard
        order = [cls]
        externals: set[str] = set()
        for base in cls.node.bases:
            ref = self.class_ref(cls.module, base)
            if isinstance(ref, ClassRef):
                for anc in self.mro(ref):
                    if anc not in order:
                        order.append(anc)
                externals |= self._externals.get(ref.key, frozenset())
            elif isinstance(ref, str):
                externals.add(ref)
        self._mro[cls.key] = order
        self._externals[cls.key] = frozenset(externals)
        return order

    def external_bases(self, cls: ClassRef) -> frozenset[str]:
        """Qualified names of the out-of-package classes the ancestry reaches."""
        self.mro(cls)
        return self._externals[cls.key]

    def subclasses_of(self, roots: Iterable[str], predicate=None) -> list[ClassRef]:
        """Classes whose ancestry reaches an external base whose last dotted part is in ``roots``."""
        wanted = set(roots)
        out = []
        for cls in self.classes():
            if any(
                ext.rsplit(".", 1)[-1] in wanted and (predicate is None or predicate(ext))
                for ext in self.external_bases(cls)
            ):
                out.append(cls)
        return out

    def class_attr(self, cls: ClassRef, attr: str) -> tuple[ClassRef, ast.expr | None, ast.expr | None] | None:
        """(owner, value, annotation) of the first class in the MRO that assigns ``attr``."""
        for owner in self.mro(cls):
            found = own_attr(owner.node, attr)
            if found is not None:
                return owner, found[0], found[1]
        return None

    def method(self, cls: ClassRef, name: str) -> tuple[ClassRef, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        for owner in self.mro(cls):
            for stmt in owner.node.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
                    return owner, stmt
        return None


def own_attr(node: ast.ClassDef, attr: str) -> tuple[ast.expr | None, ast.expr | None] | None:
    """(value, annotation) of a class-body assignment to ``attr``; value None for a bare annotation."""
    found = None
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            found = (stmt.value, stmt.annotation)
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
            found = (stmt.value, None)
    return found


def decorator_call(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """The decorator whose (last dotted) name is ``name``, as written (Call or Name)."""
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        text = ast.unparse(target)
        if text.rsplit(".", 1)[-1] == name:
            return dec
    return None


def is_abstract(cls: ClassRef) -> bool:
    """Declared abstract: ABC in the bases or any ``@abstractmethod``."""
    for base in cls.node.bases:
        if ast.unparse(base).rsplit(".", 1)[-1] in {"ABC", "ABCMeta"}:
            return True
    for stmt in cls.node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and decorator_call(stmt, "abstractmethod"):
            return True
    return False


# ---------------------------------------------------------------------------
# safe evaluation


class Unresolved(Exception):
    """The expression is not a static literal shape we can evaluate."""


_STR_METHODS = {"strip", "lstrip", "rstrip", "lower", "upper", "title", "capitalize"}
_DEDENT_FUNCS = {"dedent", "cleandoc"}


class Evaluator:
    """Evaluate literal-ish expressions inside a module; records how the value was obtained.

    ``flags`` collects ``fstring`` (literal parts kept, ``{expr}`` placeholders) and
    ``constant_ref`` (a name resolved to a module constant, possibly in another module).
    """

    def __init__(self, index: PackageIndex) -> None:
        self.index = index
        self.flags: set[str] = set()

    def eval(self, info: ModuleInfo, node: ast.expr | None, env: dict[str, Any] | None = None, depth: int = 0) -> Any:
        if node is None:
            raise Unresolved("nothing")
        if depth > MAX_REF_DEPTH * 4:
            raise Unresolved("too deep")
        env = env or {}
        handler = getattr(self, f"_eval_{type(node).__name__}", None)
        if handler is None:
            raise Unresolved(type(node).__name__)
        return handler(info, node, env, depth + 1)

    def try_eval(self, info: ModuleInfo, node: ast.expr | None, env: dict[str, Any] | None = None) -> Any:
        try:
            return self.eval(info, node, env)
        except Unresolved:
            return None

    def eval_str(self, info: ModuleInfo, node: ast.expr | None, env: dict[str, Any] | None = None) -> str | None:
        value = self.try_eval(info, node, env)
        return value if isinstance(value, str) else None

    # -- node kinds ---------------------------------------------------------------------------

    def _eval_Constant(self, info, node, env, depth):
        return node.value

    def _eval_JoinedStr(self, info, node, env, depth):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                try:
                    inner = self.eval(info, value.value, env, depth)
                    if value.format_spec is not None or not isinstance(inner, str | int | float):
                        raise Unresolved("formatted")
                    parts.append(str(inner))
                except Unresolved:
                    self.flags.add("fstring")
                    parts.append("{" + ast.unparse(value.value) + "}")
        return "".join(parts)

    def _eval_BinOp(self, info, node, env, depth):
        if not isinstance(node.op, ast.Add):
            raise Unresolved("binop")
        left = self.eval(info, node.left, env, depth)
        right = self.eval(info, node.right, env, depth)
        if type(left) is type(right) and isinstance(left, str | list | tuple | int | float):
            return left + right
        raise Unresolved("add types")

    def _eval_List(self, info, node, env, depth):
        return self._sequence(info, node.elts, env, depth)

    def _eval_Tuple(self, info, node, env, depth):
        return tuple(self._sequence(info, node.elts, env, depth))

    def _eval_Set(self, info, node, env, depth):
        return self._sequence(info, node.elts, env, depth)

    def _sequence(self, info, elts, env, depth) -> list:
        out: list = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                value = self.eval(info, elt.value, env, depth)
                if not isinstance(value, list | tuple):
                    raise Unresolved("starred")
                out.extend(value)
            else:
                out.append(self.eval(info, elt, env, depth))
        return out

    def _eval_Dict(self, info, node, env, depth):
        out = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                merged = self.eval(info, value, env, depth)
                if not isinstance(merged, dict):
                    raise Unresolved("dict unpack")
                out.update(merged)
                continue
            k = self.eval(info, key, env, depth)
            try:
                out[k] = self.eval(info, value, env, depth)
            except Unresolved:
                out[k] = _Opaque(info, value)  # keep the node: callers may resolve it otherwise
        return out

    def _eval_Name(self, info, node, env, depth):
        if node.id in env:
            return env[node.id]
        if node.id in {"True", "False", "None"}:
            return {"True": True, "False": False, "None": None}[node.id]
        return self._symbol_value(self.index.member(info, node.id), depth)

    def _eval_Attribute(self, info, node, env, depth):
        return self._symbol_value(self.index.resolve_expr(info, node), depth)

    def _symbol_value(self, sym, depth):
        if isinstance(sym, Symbol) and sym.kind == "constant":
            value = self.eval(sym.module, sym.node, None, depth)  # type: ignore[arg-type]
            self.flags.add("constant_ref")
            return value
        raise Unresolved("not a constant")

    def _eval_Subscript(self, info, node, env, depth):
        container = self.eval(info, node.value, env, depth)
        key = self.eval(info, node.slice, env, depth)
        try:
            value = container[key]
        except (KeyError, IndexError, TypeError) as exc:
            raise Unresolved("subscript") from exc
        if isinstance(value, _Opaque):
            return self.eval(value.info, value.node, None, depth)
        return value

    def _eval_Call(self, info, node, env, depth):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _STR_METHODS and not node.args:
            value = self.eval(info, func.value, env, depth)
            if isinstance(value, str):
                return getattr(value, func.attr)()
        if isinstance(func, ast.Attribute) and func.attr == "replace" and len(node.args) == 2:
            value = self.eval(info, func.value, env, depth)
            old, new = (self.eval(info, a, env, depth) for a in node.args)
            if isinstance(value, str) and isinstance(old, str) and isinstance(new, str):
                return value.replace(old, new)
        if isinstance(func, ast.Attribute) and func.attr == "join" and len(node.args) == 1:
            sep = self.eval(info, func.value, env, depth)
            items = self.eval(info, node.args[0], env, depth)
            if isinstance(sep, str) and isinstance(items, list | tuple) and all(isinstance(i, str) for i in items):
                return sep.join(items)
        name = ast.unparse(func).rsplit(".", 1)[-1]
        if name in _DEDENT_FUNCS and len(node.args) == 1:
            value = self.eval(info, node.args[0], env, depth)
            if isinstance(value, str):
                return textwrap.dedent(value) if name == "dedent" else inspect.cleandoc(value)
        raise Unresolved("call")

    def _eval_ListComp(self, info, node, env, depth):
        return self._comprehension(info, node, env, depth)

    def _eval_GeneratorExp(self, info, node, env, depth):
        return self._comprehension(info, node, env, depth)

    def _comprehension(self, info, node, env, depth) -> list:
        # one generator with plain (non-conditional) iteration covers the shapes seen in the wild
        if len(node.generators) != 1 or node.generators[0].ifs:
            raise Unresolved("comprehension")
        gen = node.generators[0]
        items = self.eval(info, gen.iter, env, depth)
        if not isinstance(items, list | tuple):
            raise Unresolved("comprehension iter")
        out = []
        for item in items:
            local = dict(env)
            bind_target(gen.target, item, local)
            out.append(self.eval(info, node.elt, local, depth))
        return out


@dataclass(frozen=True)
class _Opaque:
    info: ModuleInfo
    node: ast.expr


def bind_target(target: ast.expr, value: Any, env: dict[str, Any]) -> None:
    """Bind a for-target (a name or a tuple of names) like Python's unpacking does."""
    if isinstance(target, ast.Name):
        env[target.id] = value
    elif isinstance(target, ast.Tuple | ast.List) and isinstance(value, list | tuple):
        if len(target.elts) != len(value):
            raise Unresolved("unpack")
        for t, v in zip(target.elts, value, strict=True):
            bind_target(t, v, env)
    else:
        raise Unresolved("target")


# ---------------------------------------------------------------------------
# types, pydantic models, signatures → JSON Schema

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


def _is_classvar(annotation: ast.expr | None) -> bool:
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


def _field_call(node: ast.expr | None) -> ast.Call | None:
    if isinstance(node, ast.Call) and ast.unparse(node.func).rsplit(".", 1)[-1] == "Field":
        return node
    return None


def _kw(call: ast.Call, name: str) -> ast.expr | None:
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
    field_call = _field_call(value)
    if head == "Annotated":
        for meta in args[1:]:
            text = ev.eval_str(info, meta)
            if text:
                prop["description"] = text
            elif _field_call(meta) and field_call is None:
                field_call = _field_call(meta)
    required = not has_default
    default_node: ast.expr | None = value if has_default and field_call is None else None
    if field_call is not None:
        desc = ev.eval_str(info, _kw(field_call, "description"))
        if desc:
            prop["description"] = desc
        if field_call is value:
            first = field_call.args[0] if field_call.args else _kw(field_call, "default")
            if _kw(field_call, "default_factory") is not None:
                required = False
            elif first is None or (isinstance(first, ast.Constant) and first.value is Ellipsis):
                required = True
            else:
                required = False
                default_node = first
    if default_node is not None:
        default = _json_default(ev.try_eval(info, default_node)) if not _is_none(default_node) else None
        if default is not _NO_DEFAULT:
            prop["default"] = default
    return prop, required


def _is_none(node: ast.expr) -> bool:
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
            if name.startswith("_") or name == "model_config" or _is_classvar(stmt.annotation):
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


# ---------------------------------------------------------------------------
# credentials and URLs

_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
_SECRET_FIELD = re.compile(
    r"(api_?key|apikey|token|secret|password|passwd|credential|creds|private_key|access_key|client_id|"
    r"bearer|service_account|key_file|keyfile)",
    re.I,
)
_NOT_SECRET = re.compile(
    r"(max_|_tokens$|^tokens$|tokenizer|token_limit|token_count|num_tokens|n_tokens|"
    r"tokens_|_token_type$|secret_name$)",
    re.I,
)
_OAUTH_HINT = re.compile(
    r"(oauth|googleapis\.com/auth|mail\.google\.com|credentials\.json|token\.json|"
    r"client_secret|refresh_token|authorization_code|InstalledAppFlow|msal)",
    re.I,
)
URL_RE = re.compile(r"https?://[^\s\"'<>`)\]}]+")


def is_secret_field(name: str) -> bool:
    return bool(_SECRET_FIELD.search(name)) and not _NOT_SECRET.search(name)


@dataclass
class AuthInfo:
    """Credentials found for one tool.

    ``env_vars`` is every env var name found, whatever its provenance (what ``auth_env_vars`` has
    always held). ``env_declared`` and ``env_read`` split it by provenance: declared by the source
    (LangChain's pydantic field helpers ``secret_from_env`` / ``from_env`` / ``get_from_dict_or_env``
    / ``get_from_env``, CrewAI ``EnvVar``, a README) versus read directly by the code
    (``os.environ[...]``, ``os.environ.get``, ``os.getenv``, ``"X" in os.environ``). A name can be in
    both; an assignment ``os.environ["X"] = ...`` is in neither (it sets, not reads). Membership tests
    are only in ``env_read``, so ``env_vars`` keeps its historical content.
    """

    env_vars: list[str] = field(default_factory=list)
    credentials: list[str] = field(default_factory=list)
    oauth: bool = False
    basic: bool = False
    env_declared: list[str] = field(default_factory=list)
    env_read: list[str] = field(default_factory=list)

    def add_env(self, name: Any, kind: str | None = None) -> None:
        """Record ``name``; ``kind`` "declared" or "read" also records its provenance."""
        if not (isinstance(name, str) and _ENV_NAME.match(name)):
            return
        if name not in self.env_vars:
            self.env_vars.append(name)
        self._add_kind(name, kind)

    def _add_kind(self, name: str, kind: str | None) -> None:
        target = self.env_declared if kind == "declared" else self.env_read if kind == "read" else None
        if target is not None and name not in target:
            target.append(name)

    def add_read_only(self, name: Any) -> None:
        """A read that ``env_vars`` never held (``"X" in os.environ``): provenance only."""
        if isinstance(name, str) and _ENV_NAME.match(name):
            self._add_kind(name, "read")

    def add_credential(self, name: str) -> None:
        if name not in self.credentials:
            self.credentials.append(name)

    def merge(self, other: AuthInfo) -> None:
        for env in other.env_vars:
            self.add_env(env)
        for env in other.env_declared:
            self._add_kind(env, "declared")
        for env in other.env_read:
            self._add_kind(env, "read")
        for cred in other.credentials:
            self.add_credential(cred)
        self.oauth |= other.oauth
        self.basic |= other.basic

    def auth_type(self) -> str:
        if self.oauth:
            return "oauth2"
        names = " ".join(self.env_vars + self.credentials).lower()
        if not names:
            return "none"
        if re.search(r"api_?key|apikey|token|secret|_key\b|key$|subscription", names):
            return "api_key"
        if self.basic or ("password" in names and ("user" in names or "email" in names)):
            return "basic"
        return "other"


# helper -> (position of the env var name argument, provenance). LangChain's pydantic-field helpers
# (``Field(default_factory=secret_from_env("X"))``, ``get_from_dict_or_env(values, "k", "X")`` in a
# validator) declare the variable as the field's fallback; ``getenv`` and the two generic helpers are
# plain reads in code.
_ENV_CALLS = {
    "getenv": (0, "read"),
    "get_from_env": (1, "declared"),
    "get_from_dict_or_env": (2, "declared"),
    "secret_from_env": (0, "declared"),
    "from_env": (0, "declared"),
    "get_env_var": (0, "read"),
    "get_secret_from_env": (0, "read"),
}


def _is_environ(node: ast.expr) -> bool:
    return ast.unparse(node).endswith("environ")


def harvest_auth(index: PackageIndex, info: ModuleInfo, nodes: Iterable[ast.AST]) -> AuthInfo:
    """Env vars in ``nodes`` (os.environ[...], os.getenv, get_from_dict_or_env, secret_from_env,
    from_env), with their provenance (see ``AuthInfo``), and OAuth hints (scopes, credentials.json)."""
    out = AuthInfo()
    ev = Evaluator(index)
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Subscript) and _is_environ(node.value):
                # os.environ["X"] = ... sets the variable: kept in env_vars as always, but not a read
                out.add_env(ev.try_eval(info, node.slice), "read" if isinstance(node.ctx, ast.Load) else None)
            elif (
                isinstance(node, ast.Compare)
                and len(node.ops) == 1
                and isinstance(node.ops[0], ast.In | ast.NotIn)
                and _is_environ(node.comparators[0])
            ):
                out.add_read_only(ev.try_eval(info, node.left))  # "X" in os.environ
            elif isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                short = name.rsplit(".", 1)[-1]
                if name.endswith("environ.get") or name.endswith("environ.setdefault"):
                    if node.args:
                        out.add_env(ev.try_eval(info, node.args[0]), "read")
                elif short in _ENV_CALLS:
                    pos, kind = _ENV_CALLS[short]
                    arg = node.args[pos] if len(node.args) > pos else (_kw(node, "env_key") or _kw(node, "key"))
                    value = ev.try_eval(info, arg)
                    for env in value if isinstance(value, list | tuple) else [value]:
                        out.add_env(env, kind)
                elif short in {"HTTPBasicAuth", "BasicAuth"}:
                    out.basic = True
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and len(node.value) < 300
                and _OAUTH_HINT.search(node.value)
            ):
                out.oauth = True
    return out


def secret_fields(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Field (class body) or parameter (function) names that hold secrets."""
    names: list[str] = []
    if isinstance(node, ast.ClassDef):
        for stmt in node.body:
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and not _is_classvar(stmt.annotation)
            ):
                names.append(stmt.target.id)
    else:
        a = node.args
        names = [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    return [n for n in names if is_secret_field(n.lstrip("_"))]


_URL_FIELD = re.compile(r"(url|endpoint|host|base|api|server|uri)", re.I)
_NOT_ENDPOINT = re.compile(
    r"(w3\.org|xmlns|schemas?\.|example\.com|localhost|127\.0\.0\.1|"
    r"github\.com/.+/(issues|blob)|docs?\.|/docs?/|readthedocs|pypi\.org|"
    r"python\.langchain\.com|your[-_])",
    re.I,
)


def clean_url(url: str) -> str:
    return url.rstrip(".,;:'\"")


def endpoint_urls(index: PackageIndex, info: ModuleInfo, classes: Iterable[ClassRef]) -> list[str]:
    """URLs from base_url-like fields of ``classes`` and URL-named module constants of their modules."""
    ev = Evaluator(index)
    urls: list[str] = []
    seen_modules: set[str] = set()

    def add(value: Any) -> None:
        if isinstance(value, str):
            for url in URL_RE.findall(value):
                url = clean_url(url)
                if not _NOT_ENDPOINT.search(url) and url not in urls:
                    urls.append(url)

    for cls in classes:
        for stmt in cls.node.body:
            target = (
                stmt.target
                if isinstance(stmt, ast.AnnAssign)
                else (stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None)
            )
            if isinstance(target, ast.Name) and _URL_FIELD.search(target.id):
                value = stmt.value
                fc = _field_call(value)
                if fc is not None:
                    value = fc.args[0] if fc.args else _kw(fc, "default")
                add(ev.try_eval(cls.module, value))
        # URL literals passed to calls inside methods (requests.get("https://..."))
        for node in ast.walk(cls.node):
            if isinstance(node, ast.Call):
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    if isinstance(arg, ast.Constant | ast.JoinedStr):
                        add(ev.try_eval(cls.module, arg))
        if cls.module.name not in seen_modules:
            seen_modules.add(cls.module.name)
            for name, value in cls.module.constants.items():
                if _URL_FIELD.search(name):
                    add(ev.try_eval(cls.module, value))
    return urls


# ---------------------------------------------------------------------------
# package metadata, paths


@dataclass
class Metadata:
    name: str = ""
    summary: str = ""
    home_page: str = ""
    project_urls: dict[str, str] = field(default_factory=dict)
    keywords: list[str] = field(default_factory=list)
    body: str = ""

    def doc_urls(self) -> list[str]:
        """Documentation first, then Homepage; other Project-URLs are not docs."""
        out: list[str] = []
        for label, url in sorted(self.project_urls.items(), key=lambda kv: _doc_rank(kv[0])):
            if _doc_rank(label) < 3 and url not in out:
                out.append(url)
        if self.home_page and self.home_page not in out:
            out.append(self.home_page)
        return out


def _doc_rank(label: str) -> int:
    low = label.lower().replace("-", "").replace("_", "")
    if "doc" in low:
        return 0
    if low in {"homepage", "home"}:
        return 1
    return 3


def read_metadata(files: dict[str, bytes]) -> Metadata:
    path = next((p for p in files if p.endswith(".dist-info/METADATA")), None) or next(
        (p for p in files if p.endswith("PKG-INFO")), None
    )
    if path is None:
        return Metadata()
    msg = HeaderParser().parsestr(files[path].decode("utf-8", errors="replace"))
    meta = Metadata(name=msg.get("Name", ""), summary=msg.get("Summary", ""), home_page=msg.get("Home-page", ""))
    for entry in msg.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if url.strip():
            meta.project_urls[label.strip()] = url.strip()
    meta.keywords = [k.strip() for k in re.split(r"[,\s]+", msg.get("Keywords", "")) if k.strip()]
    meta.body = msg.get_payload() if isinstance(msg.get_payload(), str) else ""
    return meta


def want_python(path: str) -> bool:
    """Archive members every Python extractor reads: modules and package metadata."""
    return (path.endswith(".py") and ".dist-info/" not in path) or path.endswith((".dist-info/METADATA", "PKG-INFO"))


_GENERIC_PARTS = {
    "tools",
    "tool",
    "toolkit",
    "toolkits",
    "agent_toolkits",
    "base",
    "utils",
    "utilities",
    "__init__",
    "langchain",
    "llama_index",
    "crewai_tools",
    "core",
    "src",
    "adapters",
    "integrations",
    "common",
    "agent_toolkit",
    "agent",
    "agents",
    "load_tools",
    "tool_spec",
}
_SERVICE_SUFFIXES = re.compile(r"(_tools?|_toolkit|_toolspec|_spec)$")


def service_from_path(path: str, skip: Iterable[str] = ()) -> str:
    """Short service name from a module path: ``tools/gmail/send.py`` → ``gmail``."""
    parts = [p for p in posixpath.splitext(path)[0].split("/")]
    skipped = _GENERIC_PARTS | set(skip)
    for part in parts[:-1] + parts[-1:]:
        if part in skipped or part.startswith("_"):
            continue
        name = _SERVICE_SUFFIXES.sub("", part)
        if name and name not in skipped:
            return name.lower()
    return ""


def dedupe(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item and item not in out:
            out.append(item)
    return out


def deprecation(node: ast.ClassDef, info: ModuleInfo, index: PackageIndex) -> tuple[bool, str | None]:
    """``@deprecated(..., alternative_import=..., alternative=...)`` on a class."""
    dec = decorator_call(node, "deprecated")
    if dec is None:
        return False, None
    if not isinstance(dec, ast.Call):
        return True, None
    ev = Evaluator(index)
    for key in ("alternative_import", "alternative"):
        value = ev.eval_str(info, _kw(dec, key))
        if value:
            return True, value
    return True, None


_DOC_URL = re.compile(r"(docs?\.|/docs?\b|documentation|readthedocs|/api-reference|/reference/|developers?\.)", re.I)


def doc_urls_in(text: str) -> list[str]:
    """Documentation-looking URLs mentioned in a docstring or README."""
    return dedupe(clean_url(u) for u in URL_RE.findall(text) if _DOC_URL.search(u))


def referenced_functions(
    index: PackageIndex, info: ModuleInfo, root: ast.AST, depth: int = 2
) -> list[tuple[ModuleInfo, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """In-package module-level functions named inside ``root`` (e.g. ``Field(default_factory=build_service)``),
    followed ``depth`` calls deep: credentials are often read in such helper functions."""
    out: list[tuple[ModuleInfo, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    seen: set[tuple[str, str]] = set()
    frontier: list[tuple[ModuleInfo, ast.AST]] = [(info, root)]
    for _ in range(depth + 1):
        nxt: list[tuple[ModuleInfo, ast.AST]] = []
        for mod, node in frontier:
            for name in ast.walk(node):
                if not isinstance(name, ast.Name | ast.Attribute) or isinstance(getattr(name, "ctx", None), ast.Store):
                    continue
                if isinstance(name, ast.Attribute) and not isinstance(name.value, ast.Name):
                    continue
                sym = index.resolve_expr(mod, name)
                if isinstance(sym, Symbol) and sym.kind == "function" and (sym.module.name, sym.name) not in seen:
                    seen.add((sym.module.name, sym.name))
                    out.append((sym.module, sym.node))  # type: ignore[arg-type]
                    nxt.append((sym.module, sym.node))  # type: ignore[arg-type]
        frontier = nxt
    return out


# ---------------------------------------------------------------------------
# pydantic BaseTool classes (LangChain and CrewAI share this shape)


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
    if value is None or _is_none(value):
        return None
    ref = index.class_ref(info, value) if isinstance(value, ast.Name | ast.Attribute) else None
    if isinstance(ref, ClassRef):
        return model_schema(index, ref)
    literal = Evaluator(index).try_eval(info, value)
    if isinstance(literal, dict) and isinstance(literal.get("properties"), dict):
        return {k: v for k, v in literal.items() if not isinstance(v, _Opaque)}
    flags.add("unresolved_args_schema")
    return None


def tool_auth(index: PackageIndex, mro: list[ClassRef]) -> tuple[AuthInfo, list[ClassRef]]:
    """Credentials of a tool: its own classes, the in-package classes its fields are typed with
    (``api_wrapper: XAPIWrapper``), and in-package helper functions they reference."""
    related: list[ClassRef] = []
    for cls in mro:
        if cls not in related:
            related.append(cls)
        for stmt in cls.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                for sub in ast.walk(stmt.annotation):
                    if isinstance(sub, ast.Name | ast.Attribute):
                        ref = index.class_ref(cls.module, sub)
                        if isinstance(ref, ClassRef):
                            for anc in index.mro(ref):
                                if anc not in related:
                                    related.append(anc)
    auth = AuthInfo()
    for cls in related:
        auth.merge(harvest_auth(index, cls.module, [cls.node]))
        for name in secret_fields(cls.node):
            auth.add_credential(name)
        init = next((s for s in cls.node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        if init is not None:
            for name in secret_fields(init):
                auth.add_credential(name)
        for mod, func in referenced_functions(index, cls.module, cls.node):
            auth.merge(harvest_auth(index, mod, [func]))
            for name in secret_fields(func):
                auth.add_credential(name)
    return auth, related


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
        fc = _field_call(value)
        if fc is not None:
            value = fc.args[0] if fc.args else _kw(fc, "default")
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


def module_endpoints(index: PackageIndex, info: ModuleInfo) -> list[str]:
    """URLs held by URL-named module constants (``BASE_URL = "https://..."``)."""
    ev = Evaluator(index)
    urls: list[str] = []
    for name, value in info.constants.items():
        if _URL_FIELD.search(name):
            text = ev.try_eval(info, value)
            if isinstance(text, str):
                urls.extend(clean_url(u) for u in URL_RE.findall(text) if not _NOT_ENDPOINT.search(u))
    return dedupe(urls)
