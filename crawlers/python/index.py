"""The module index of one Python package, read from its source files without importing them.

``PackageIndex`` holds every module of the package (imports incl. relative ones and ``__init__``
re-exports, module constants, classes, functions) with symbol lookup across modules and a memoized,
package-internal MRO. The small readers of class and decorator nodes every extractor needs
(``own_attr``, ``decorator_call``, ``is_abstract``) live here too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# Hops followed through import chains and re-exports (and, times four, evaluation depth): packages
# with import cycles or pathological re-export chains stop here instead of recursing.
MAX_REF_DEPTH = 8


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


# PEP 695 (Python 3.12): ``type X = ...`` aliases and ``def f[T](...)`` / ``class C[T]`` type parameters,
# which the 3.11 parser refuses. Read as ``X = ...`` and without the parameters they mean the same to a
# static reader, on the same lines.
_TYPE_ALIAS = re.compile(r"^(\s*)type\s+([A-Za-z_]\w*)\s*(?:\[[^\]\n]*\])?\s*=", re.M)
_TYPE_PARAMS = re.compile(r"^(\s*(?:async\s+)?(?:def|class)\s+[A-Za-z_]\w*)\[[^\]\n]*\](?=\s*[(:])", re.M)


def _parse(text: str, path: str) -> ast.Module:
    """``ast.parse``, retried once with PEP 695 syntax spelled the pre-3.12 way."""
    try:
        return ast.parse(text, filename=path)
    except SyntaxError:
        downgraded = _TYPE_PARAMS.sub(r"\1", _TYPE_ALIAS.sub(r"\1\2 =", text))
        if downgraded == text:
            raise
        try:
            return ast.parse(downgraded, filename=path)
        except SyntaxError:
            pass
        raise


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
                tree = _parse(text, path)
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

    def ancestor_keys(self, classes: Iterable[ClassRef]) -> set[str]:
        """Keys of the in-package ancestors of ``classes``: a tool class among them has subclasses (is a base)."""
        return {anc.key for c in classes for anc in self.mro(c)[1:]}

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
