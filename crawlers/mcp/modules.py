"""The compiled JS modules of one package and name resolution across them.

``build_module`` records a module's top-level bindings, imports and exports (ESM and tsc's CommonJS
output); ``Ctx`` resolves identifiers through enclosing blocks, the module scope and imports between
the package's own modules. Dependencies are never read.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
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
            source = stmt.child_by_field_name("source")
            if source is None:
                continue
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
        elif stmt.type == "export_statement":
            decl = stmt.child_by_field_name("declaration")
            source = stmt.child_by_field_name("source")
            if decl is not None:
                for name, value in _declarators(decl):
                    mod.bindings[name] = value
                    mod.exports[name] = name
                continue
            clause = next((c for c in named(stmt) if c.type == "export_clause"), None)
            if clause is None:
                namespaced = any(c.type == "namespace_export" for c in named(stmt))
                if source is not None and "*" in node_text(stmt) and not namespaced:
                    mod.star_reexports.append(string_literal(source))
                continue
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


def _require_source(node: Node) -> str | None:
    if node.type != "call_expression":
        return None
    func, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if func is None or args is None or node_text(func) != "require":
        return None
    first = named(args)
    return string_literal(first[0]) if first and first[0].type == "string" else None


def _commonjs_export(mod: Module, expr: Node) -> None:
    """``exports.X = value`` / ``module.exports.X = value``."""
    if expr.type != "assignment_expression":
        return
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None or left.type != "member_expression":
        return
    obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
    if obj is None or prop is None or node_text(obj) not in ("exports", "module.exports"):
        return
    name = node_text(prop)
    if right.type == "identifier":
        mod.exports[name] = node_text(right)
    else:
        mod.bindings.setdefault(name, right)
        mod.exports[name] = name


@dataclass
class Ctx:
    """Per-package state: parsed modules plus the flags raised while evaluating one tool."""

    modules: dict[str, Module]
    flags: set[str] = field(default_factory=set)
    # loop variables bound to one element of a literal the loop iterates (``for (const x of [..])``)
    loop_values: dict[str, object] = field(default_factory=dict)

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
            return self.binding(mod, mod.exports[name], depth + 1)
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
        """``ns.X`` where ``import * as ns from './x.js'``."""
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None or obj.type != "identifier":
            return None
        imp = mod.imports.get(node_text(obj))
        if imp is None or imp[1] != "*":
            return None
        target = self.module_for(mod, imp[0])
        if target is None:
            return None
        self.flags.add("cross_module")
        return self.exported(target, node_text(prop))

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
                found = self.namespace_member(node, mod)
            else:
                return node, mod
            if found is None:
                return node, mod
            self.flags.add("variable_ref")
            node, mod = found
        return node, mod
