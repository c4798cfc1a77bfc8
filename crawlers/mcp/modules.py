"""The compiled JS modules of one package and name resolution across them.

``build_module`` records a module's top-level bindings, imports and exports (ESM and tsc's CommonJS
output); ``Ctx`` resolves identifiers through enclosing blocks, the module scope and imports between
the package's own modules. Dependencies are never read.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from crawlers.mcp.syntax import named, node_text, string_literal

MAX_DEPTH = 25  # guards identifier/import chains against cycles


@dataclass
class Module:
    """One parsed ``dist`` module: its top-level bindings, imports and exports."""

    path: str
    root: Node
    bindings: dict[str, Node] = field(default_factory=dict)  # top-level name -> value node
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local -> (source, imported name | "*")
    exports: dict[str, str] = field(default_factory=dict)  # exported name -> local name
    reexports: dict[str, tuple[str, str]] = field(default_factory=dict)  # exported -> (source, name)
    star_reexports: list[str] = field(default_factory=list)


def _declarators(stmt: Node) -> Iterator[tuple[str, Node]]:
    """(name, value) for the simple ``const a = ...`` declarators and function declarations in stmt."""
    if stmt.type in ("lexical_declaration", "variable_declaration"):
        for decl in named(stmt):
            if decl.type != "variable_declarator":
                continue
            name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
            if name is not None and value is not None and name.type == "identifier":
                yield node_text(name), value
    elif stmt.type in ("function_declaration", "class_declaration", "generator_function_declaration"):
        name = stmt.child_by_field_name("name")
        if name is not None:
            yield node_text(name), stmt


def build_module(path: str, root: Node) -> Module:
    """Index the top-level statements of a parsed module (ESM, and tsc's CommonJS output)."""
    mod = Module(path=path, root=root)
    for stmt in named(root):
        if stmt.type == "import_statement":
            _add_import(mod, stmt)
        elif stmt.type == "export_statement":
            _add_export(mod, stmt)
        elif stmt.type == "expression_statement" and named(stmt):
            _commonjs_export(mod, named(stmt)[0])
        else:
            for name, value in _declarators(stmt):
                required = _require_source(value)
                if required is not None:
                    mod.imports[name] = (required, "*")  # const x_1 = require("./x.js"): tsc's CommonJS output
                else:
                    mod.bindings.setdefault(name, value)
    return mod


def _add_import(mod: Module, stmt: Node) -> None:
    """An ESM ``import`` statement: its default, namespace and named imports."""
    source = stmt.child_by_field_name("source")
    if source is None:
        return
    src = string_literal(source)
    for clause in named(stmt):
        if clause.type != "import_clause":
            continue
        for part in named(clause):
            if part.type == "identifier":
                mod.imports[node_text(part)] = (src, "default")
            elif part.type == "namespace_import":
                ids = [c for c in named(part) if c.type == "identifier"]
                if ids:
                    mod.imports[node_text(ids[0])] = (src, "*")
            elif part.type == "named_imports":
                for spec in named(part):
                    if spec.type != "import_specifier":
                        continue
                    name = spec.child_by_field_name("name")
                    alias = spec.child_by_field_name("alias") or name
                    if name is not None and alias is not None:
                        mod.imports[node_text(alias)] = (src, node_text(name))


def _add_export(mod: Module, stmt: Node) -> None:
    """An ESM ``export`` statement: an exported declaration, an export list, or a re-export from another module."""
    decl = stmt.child_by_field_name("declaration")
    source = stmt.child_by_field_name("source")
    if decl is not None:
        for name, value in _declarators(decl):
            mod.bindings[name] = value
            mod.exports[name] = name
        return
    clause = next((c for c in named(stmt) if c.type == "export_clause"), None)
    if clause is None:
        namespaced = any(c.type == "namespace_export" for c in named(stmt))
        if source is not None and "*" in node_text(stmt) and not namespaced:
            mod.star_reexports.append(string_literal(source))
        return
    for spec in named(clause):
        if spec.type != "export_specifier":
            continue
        name = spec.child_by_field_name("name")
        alias = spec.child_by_field_name("alias") or name
        if name is None or alias is None:
            continue
        if source is not None:
            mod.reexports[node_text(alias)] = (string_literal(source), node_text(name))
        else:
            mod.exports[node_text(alias)] = node_text(name)


def _call_parts(node: Node) -> tuple[str, list[Node]] | None:
    """(callee text, argument nodes) of a call expression; None for anything else."""
    if node.type != "call_expression":
        return None
    func, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if func is None or args is None:
        return None
    return node_text(func), named(args)


def _require_source(node: Node) -> str | None:
    """``require("./x")``, also wrapped in tsc's ``__importStar(...)`` / ``__importDefault(...)`` helpers (for a
    module tsc compiled, both return the module itself: ``x_1.default`` is its ``exports.default``)."""
    parts = _call_parts(node)
    if parts is None:
        return None
    callee, args = parts
    if callee.endswith(("__importStar", "__importDefault")) and len(args) == 1:
        return _require_source(args[0])
    if callee != "require":
        return None
    return string_literal(args[0]) if args and args[0].type == "string" else None


def _is_void(node: Node) -> bool:
    return node.type == "unary_expression" and node_text(node).replace(" ", "") == "void0"


def _commonjs_export(mod: Module, expr: Node) -> None:
    """``exports.X = value`` / ``module.exports.X = value`` and tsc's CommonJS re-exports
    (``__exportStar(require("./x"), exports)``, ``Object.defineProperty(exports, "X", {get: ... x_1.X})``).

    tsc first declares every export as ``exports.a = exports.b = void 0``: a placeholder, never the value.
    """
    if expr.type == "call_expression":
        _commonjs_reexport(mod, expr)
        return
    if expr.type != "assignment_expression":
        return
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None or left.type != "member_expression":
        return
    obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
    if obj is None or prop is None or node_text(obj) not in ("exports", "module.exports"):
        return
    name = node_text(prop)
    if right.type == "assignment_expression":  # exports.a = exports.b = ...: the chain's value is the last one
        _commonjs_export(mod, right)
        value = right
        while value.type == "assignment_expression" and value.child_by_field_name("right") is not None:
            value = value.child_by_field_name("right")
        right = value
    if _is_void(right):
        return
    if right.type == "identifier":
        mod.exports[name] = node_text(right)
    else:
        mod.bindings.setdefault(name, right)
        mod.exports[name] = name


def _commonjs_reexport(mod: Module, call: Node) -> None:
    parts = _call_parts(call)
    if parts is None:
        return
    callee, args = parts
    if callee.endswith("__exportStar") and len(args) == 2 and node_text(args[1]) == "exports":
        source = _require_source(args[0])
        if source is not None:
            mod.star_reexports.append(source)
        return
    if callee != "Object.defineProperty" or len(args) != 3 or node_text(args[0]) != "exports":
        return
    if args[1].type != "string" or args[2].type != "object":
        return
    # {enumerable: true, get: function () { return x_1.X; }}: the getter returns a member of a required module
    returned = [n for n in walk_named(args[2]) if n.type == "return_statement" and named(n)]
    target = named(returned[0])[0] if returned else None
    if target is None or target.type != "member_expression":
        return
    obj, prop = target.child_by_field_name("object"), target.child_by_field_name("property")
    imported = mod.imports.get(node_text(obj)) if obj is not None else None
    if imported is not None and imported[1] == "*" and prop is not None:
        mod.reexports[string_literal(args[1])] = (imported[0], node_text(prop))


def _key_text(key: Node) -> str | None:
    if key.type in ("property_identifier", "identifier"):
        return node_text(key)
    return string_literal(key) if key.type == "string" else None


def walk_named(node: Node) -> Iterator[Node]:
    """Every named node under ``node`` (itself included), in source order."""
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(named(cur)))


@dataclass
class Ctx:
    """Per-package state: parsed modules plus the flags raised while evaluating one tool."""

    modules: dict[str, Module]
    flags: set[str] = field(default_factory=set)
    # loop variables bound to one element of a literal the loop iterates (``for (const x of [..])``)
    loop_values: dict[str, object] = field(default_factory=dict)
    # the value of an expression that names something outside the package (n8n: ``NodeConnectionType.Main`` is
    # "main"), or None; consulted only where nothing in the package binds the expression
    external: Callable[[str], str | None] | None = None

    def module_for(self, importer: Module, source: str) -> Module | None:
        if not source.startswith("."):
            return None  # a dependency: never read, never run
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer.path), source))
        for cand in (base, base + ".js", base + ".mjs", base + ".cjs", base + "/index.js"):
            if cand in self.modules:
                return self.modules[cand]
        return None

    def exported(self, mod: Module, name: str, depth: int = 0) -> tuple[Node, Module] | None:
        if depth > MAX_DEPTH:
            return None
        if name in mod.exports:
            found = self.binding(mod, mod.exports[name], depth + 1)
            if found is not None:
                return found
        if name in mod.reexports:
            src, orig = mod.reexports[name]
            target = self.module_for(mod, src)
            return self.exported(target, orig, depth + 1) if target else None
        for src in mod.star_reexports:
            target = self.module_for(mod, src)
            found = self.exported(target, name, depth + 1) if target else None
            if found is not None:
                return found
        return None

    def binding(self, mod: Module, name: str, depth: int = 0) -> tuple[Node, Module] | None:
        """The value bound to a top-level name, following imports between the package's modules."""
        if depth > MAX_DEPTH:
            return None
        if name in mod.bindings:
            return mod.bindings[name], mod
        if name in mod.imports:
            src, orig = mod.imports[name]
            target = self.module_for(mod, src)
            if target is None or orig == "*":
                return None
            self.flags.add("cross_module")
            return self.exported(target, orig, depth + 1)
        return None

    def lookup(self, ident: Node, mod: Module) -> tuple[Node, Module] | None:
        """Resolve an identifier through the enclosing blocks, then the module scope and imports."""
        name = node_text(ident)
        scope = ident.parent
        while scope is not None and scope.type != "program":
            if scope.type in ("statement_block", "class_body"):
                for stmt in named(scope):
                    if stmt.end_byte > ident.start_byte and stmt.type != "function_declaration":
                        break  # a const declared after the use is not (yet) that binding
                    for bound, value in _declarators(stmt):
                        if bound == name:
                            return value, mod
            scope = scope.parent
        return self.binding(mod, name)

    def namespace_member(self, node: Node, mod: Module) -> tuple[Node, Module] | None:
        """``ns.X`` where ``import * as ns from './x.js'``; ``exports.X``: the module's own export (tsc's CommonJS
        refers to an exported constant so)."""
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None:
            return None
        if node_text(obj) in ("exports", "module.exports"):
            return self.exported(mod, node_text(prop))
        if obj.type != "identifier":
            return None
        imp = mod.imports.get(node_text(obj))
        if imp is None or imp[1] != "*":
            return None
        target = self.module_for(mod, imp[0])
        if target is None:
            return None
        self.flags.add("cross_module")
        return self.exported(target, node_text(prop))

    def literal_member(self, node: Node, mod: Module, depth: int) -> tuple[Node, Module] | None:
        """``obj.key`` / ``obj["key"]`` of an object literal and ``arr[0]`` of an array literal (n8n descriptions
        share option lists this way: ``resource.operations[0].options``)."""
        obj = node.child_by_field_name("object")
        key = node.child_by_field_name("property") or node.child_by_field_name("index")
        if obj is None or key is None:
            return None
        if key.type == "number":
            target, tmod = self.deref(obj, mod, depth + 1)
            items = named(target) if target.type == "array" else []
            index = int(node_text(key)) if node_text(key).isdigit() else len(items)
            if index >= len(items) or any(i.type == "spread_element" for i in items[: index + 1]):
                return None
            return items[index], tmod
        name = _key_text(key)
        return self.object_key(obj, name, mod, depth + 1) if name is not None else None

    def object_key(self, obj: Node, name: str, mod: Module, depth: int) -> tuple[Node, Module] | None:
        """The value of key ``name`` in the object literal ``obj`` refers to (the last definition wins, spreads of
        literal objects included)."""
        if depth > MAX_DEPTH:
            return None
        target, tmod = self.deref(obj, mod, depth)
        if target.type != "object":
            return None
        for child in reversed(named(target)):
            if child.type == "pair":
                pair_key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
                if pair_key is not None and value is not None and _key_text(pair_key) == name:
                    return value, tmod
            elif child.type == "shorthand_property_identifier" and node_text(child) == name:
                return child, tmod
            elif child.type == "spread_element" and named(child):
                found = self.object_key(named(child)[0], name, tmod, depth + 1)
                if found is not None:
                    return found
        return None

    def deref(self, node: Node, mod: Module, depth: int = 0) -> tuple[Node, Module]:
        """Follow identifiers / namespace members / parentheses to the node that holds the value."""
        while depth < MAX_DEPTH:
            depth += 1
            if node.type == "parenthesized_expression" and named(node):
                node = named(node)[-1]
                continue
            if node.type in ("as_expression", "satisfies_expression", "non_null_expression") and named(node):
                node = named(node)[0]
                continue
            if node.type in ("identifier", "shorthand_property_identifier"):
                found = self.lookup(node, mod)
            elif node.type == "member_expression":
                found = self.namespace_member(node, mod) or self.literal_member(node, mod, depth)
            elif node.type == "subscript_expression":
                found = self.literal_member(node, mod, depth)
            else:
                return node, mod
            if found is None:
                return node, mod
            self.flags.add("variable_ref")
            node, mod = found
        return node, mod
