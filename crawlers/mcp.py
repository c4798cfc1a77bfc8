"""Static extractor for the MCP reference servers on npm (``@modelcontextprotocol/server-*``).

The packages ship compiled TypeScript (ESM) under ``dist/``. Tools appear in two shapes:

(a) object literals ``{name: "x", description: "..." + "...", inputSchema: {...}}``, usually
    returned from a ``ListToolsRequestSchema`` handler, where ``inputSchema`` is either a JSON
    Schema literal or ``zodToJsonSchema(SomeZodSchema)``;
(b) ``server.registerTool(name, {title, description, inputSchema}, handler)`` (and the older
    ``server.tool(name, [description], [shape], [annotations], handler)``), where the name and the
    config are often module constants and ``inputSchema`` is a zod raw shape or a ``z.object``.

The JS is parsed with tree-sitter and evaluated only as far as literals, identifiers bound to
literals (same module or imported from a sibling ``dist`` module) and zod builder chains go.
Nothing from the package is ever executed.

Env vars are package-wide (one server process serves every tool): ``env_vars_read`` are the
credential-like names (``_AUTH_ENV_RE``) the code reads as ``process.env.X``, ``process.env["X"]`` or
``const {X} = process.env`` (what ``auth_env_vars`` holds); ``env_vars_declared`` are the
credential-like names the README tells the user to set (``"env": {...}`` blocks of config examples,
``-e NAME`` docker flags, ``export NAME=``). Config variables (``MEMORY_FILE_PATH``) count on neither side.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

from crawlers.base import AuthType, ExtractedTool, Extraction, PackageFiles

SCOPE_PREFIX = "@modelcontextprotocol/server-"
_JS_SUFFIXES = (".js", ".mjs", ".cjs")
_MAX_DEPTH = 25  # guards identifier/import chains against cycles

_LANGUAGE = Language(tree_sitter_javascript.language())

# Env var names that carry a secret or point at one (credential files); other env vars are config.
_AUTH_ENV_RE = re.compile(r"TOKEN|API_?KEY|_KEY\b|KEY_ID|SECRET|PASSWORD|PASSWD|CREDENTIAL|OAUTH|AUTH", re.I)
_OAUTH_IMPORT_RE = re.compile(r"local-auth|google-auth-library|oauth", re.I)
_URL_RE = re.compile(r"^https?://[^\s\"'<>]+$")
# Not endpoints: loopback/placeholders, XML namespaces, schema ids, OAuth scopes.
_NON_ENDPOINT_RE = re.compile(
    r"^https?://(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|(www\.)?example\.(com|org)|www\.w3\.org|json-schema\.org)"
    r"|^https?://www\.googleapis\.com/auth/",
    re.I,
)
_README_DEPRECATED_RE = re.compile(
    r"deprecation notice|\bdeprecated\b|\barchived\b|no longer (maintained|supported)|\bunmaintained\b", re.I
)
_DESC_DEPRECATED_RE = re.compile(r"\bdeprecated\b", re.I)
_DESC_REPLACEMENT_RE = re.compile(r"\buse\s+`?([A-Za-z0-9_\-]+)`?\s+instead", re.I)
_REGISTRY_REPLACEMENT_RE = re.compile(r"\b(?:use|moved to|replaced by|see)\s+`?([@\w./:-]+)`?", re.I)
_REGISTER_METHODS = {"registerTool", "tool", "registerToolTask"}


def want(path: str) -> bool:
    """Members the extractor reads: package.json, README.md and compiled JS under dist/."""
    if path in ("package.json", "README.md") or path.lower() == "readme.md":
        return True
    if not path.startswith("dist/") or "node_modules/" in path:
        return False
    if not path.endswith(_JS_SUFFIXES):
        return False  # also drops *.js.map and *.d.ts
    return not _is_test_module(path)


def _is_test_module(path: str) -> bool:
    # server-everything ships its jest tests in dist/__tests__; they register mock tools
    parts = path.split("/")
    return "__tests__" in parts or "__mocks__" in parts or bool(re.search(r"\.(test|spec)\.[cm]?js$", path))


# --------------------------------------------------------------------------------------------
# Modules and name resolution


@dataclass
class _Module:
    path: str
    root: Node
    bindings: dict[str, Node] = field(default_factory=dict)  # top-level name -> value node
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local -> (source, imported name | "*")
    exports: dict[str, str] = field(default_factory=dict)  # exported name -> local name
    reexports: dict[str, tuple[str, str]] = field(default_factory=dict)  # exported -> (source, name)
    star_reexports: list[str] = field(default_factory=list)


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type not in ("comment", "html_comment")]


def _txt(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""


def _declarators(stmt: Node) -> Iterator[tuple[str, Node]]:
    """(name, value) for the simple ``const a = ...`` declarators and function declarations in stmt."""
    if stmt.type in ("lexical_declaration", "variable_declaration"):
        for decl in _named(stmt):
            if decl.type != "variable_declarator":
                continue
            name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
            if name is not None and value is not None and name.type == "identifier":
                yield _txt(name), value
    elif stmt.type in ("function_declaration", "class_declaration", "generator_function_declaration"):
        name = stmt.child_by_field_name("name")
        if name is not None:
            yield _txt(name), stmt


def _string_literal(node: Node) -> str:
    return _unescape(_txt(node)[1:-1])


def _build_module(path: str, root: Node) -> _Module:
    mod = _Module(path=path, root=root)
    for stmt in _named(root):
        if stmt.type == "import_statement":
            source = stmt.child_by_field_name("source")
            if source is None:
                continue
            src = _string_literal(source)
            for clause in _named(stmt):
                if clause.type != "import_clause":
                    continue
                for part in _named(clause):
                    if part.type == "identifier":
                        mod.imports[_txt(part)] = (src, "default")
                    elif part.type == "namespace_import":
                        ids = [c for c in _named(part) if c.type == "identifier"]
                        if ids:
                            mod.imports[_txt(ids[0])] = (src, "*")
                    elif part.type == "named_imports":
                        for spec in _named(part):
                            if spec.type != "import_specifier":
                                continue
                            name = spec.child_by_field_name("name")
                            alias = spec.child_by_field_name("alias") or name
                            if name is not None and alias is not None:
                                mod.imports[_txt(alias)] = (src, _txt(name))
        elif stmt.type == "export_statement":
            decl = stmt.child_by_field_name("declaration")
            source = stmt.child_by_field_name("source")
            if decl is not None:
                for name, value in _declarators(decl):
                    mod.bindings[name] = value
                    mod.exports[name] = name
                continue
            clause = next((c for c in _named(stmt) if c.type == "export_clause"), None)
            if clause is None:
                namespaced = any(c.type == "namespace_export" for c in _named(stmt))
                if source is not None and "*" in _txt(stmt) and not namespaced:
                    mod.star_reexports.append(_string_literal(source))
                continue
            for spec in _named(clause):
                if spec.type != "export_specifier":
                    continue
                name = spec.child_by_field_name("name")
                alias = spec.child_by_field_name("alias") or name
                if name is None or alias is None:
                    continue
                if source is not None:
                    mod.reexports[_txt(alias)] = (_string_literal(source), _txt(name))
                else:
                    mod.exports[_txt(alias)] = _txt(name)
        elif stmt.type == "expression_statement" and _named(stmt):
            _commonjs_export(mod, _named(stmt)[0])
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
    if func is None or args is None or _txt(func) != "require":
        return None
    first = _named(args)
    return _string_literal(first[0]) if first and first[0].type == "string" else None


def _commonjs_export(mod: _Module, expr: Node) -> None:
    """``exports.X = value`` / ``module.exports.X = value``."""
    if expr.type != "assignment_expression":
        return
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None or left.type != "member_expression":
        return
    obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
    if obj is None or prop is None or _txt(obj) not in ("exports", "module.exports"):
        return
    name = _txt(prop)
    if right.type == "identifier":
        mod.exports[name] = _txt(right)
    else:
        mod.bindings.setdefault(name, right)
        mod.exports[name] = name


@dataclass
class _Ctx:
    """Per-package state: parsed modules plus the flags raised while evaluating one tool."""

    modules: dict[str, _Module]
    flags: set[str] = field(default_factory=set)

    def module_for(self, importer: _Module, source: str) -> _Module | None:
        if not source.startswith("."):
            return None  # a dependency: never read, never run
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer.path), source))
        for cand in (base, base + ".js", base + ".mjs", base + ".cjs", base + "/index.js"):
            if cand in self.modules:
                return self.modules[cand]
        return None

    def exported(self, mod: _Module, name: str, depth: int = 0) -> tuple[Node, _Module] | None:
        if depth > _MAX_DEPTH:
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

    def binding(self, mod: _Module, name: str, depth: int = 0) -> tuple[Node, _Module] | None:
        """The value bound to a top-level name, following imports between the package's modules."""
        if depth > _MAX_DEPTH:
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

    def lookup(self, ident: Node, mod: _Module) -> tuple[Node, _Module] | None:
        """Resolve an identifier through the enclosing blocks, then the module scope and imports."""
        name = _txt(ident)
        scope = ident.parent
        while scope is not None and scope.type != "program":
            if scope.type in ("statement_block", "class_body"):
                for stmt in _named(scope):
                    if stmt.end_byte > ident.start_byte and stmt.type != "function_declaration":
                        break  # a const declared after the use is not (yet) that binding
                    for bound, value in _declarators(stmt):
                        if bound == name:
                            return value, mod
            scope = scope.parent
        return self.binding(mod, name)

    def namespace_member(self, node: Node, mod: _Module) -> tuple[Node, _Module] | None:
        """``ns.X`` where ``import * as ns from './x.js'``."""
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None or obj.type != "identifier":
            return None
        imp = mod.imports.get(_txt(obj))
        if imp is None or imp[1] != "*":
            return None
        target = self.module_for(mod, imp[0])
        if target is None:
            return None
        self.flags.add("cross_module")
        return self.exported(target, _txt(prop))

    def deref(self, node: Node, mod: _Module, depth: int = 0) -> tuple[Node, _Module]:
        """Follow identifiers / namespace members / parentheses to the node that holds the value."""
        while depth < _MAX_DEPTH:
            depth += 1
            if node.type == "parenthesized_expression" and _named(node):
                node = _named(node)[-1]
                continue
            if node.type in ("as_expression", "satisfies_expression", "non_null_expression") and _named(node):
                node = _named(node)[0]
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


# --------------------------------------------------------------------------------------------
# Literal evaluation


class _Unresolved:
    def __repr__(self) -> str:
        return "UNRESOLVED"


UNRESOLVED: Any = _Unresolved()

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE_RE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])")


def _unescape(raw: str) -> str:
    """Decode JS string escapes (\\n, \\uXXXX, \\u{...}, \\xHH, line continuations)."""

    def repl(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc.startswith("u{"):
            code = int(esc[2:-1], 16)
            return chr(code) if code <= 0x10FFFF else "\ufffd"
        if esc[0] in "ux" and len(esc) > 1:
            return chr(int(esc[1:], 16))
        if esc in ("\n", "\r\n", "\r", "\u2028", "\u2029"):
            return ""
        return _SIMPLE_ESCAPES.get(esc, esc)

    return _ESCAPE_RE.sub(repl, raw)


def _template_text(node: Node, ctx: _Ctx, mod: _Module, placeholders: bool) -> str | Any:
    parts: list[str] = []
    body = node.text[1:-1] if node.text else b""
    cursor = node.start_byte + 1
    for child in node.children:
        if child.type != "template_substitution":
            continue
        chunk = body[cursor - node.start_byte - 1 : child.start_byte - node.start_byte - 1]
        parts.append(_unescape(chunk.decode("utf-8", errors="replace")))
        inner = _named(child)
        value = eval_str(inner[0], ctx, mod) if inner else UNRESOLVED
        if value is UNRESOLVED:
            if not placeholders:
                return UNRESOLVED
            ctx.flags.add("template_placeholder")
            value = "{" + (_txt(inner[0]) if inner else "") + "}"
        parts.append(value)
        cursor = child.end_byte
    parts.append(_unescape(body[cursor - node.start_byte - 1 :].decode("utf-8", errors="replace")))
    return "".join(parts)


def eval_str(node: Node, ctx: _Ctx, mod: _Module, placeholders: bool = False) -> str | Any:
    """A string value: literals, substitution-free templates, ``+`` concatenation, bound identifiers."""
    node, mod = ctx.deref(node, mod)
    if node.type == "string":
        return _string_literal(node)
    if node.type == "template_string":
        return _template_text(node, ctx, mod, placeholders)
    if node.type == "number":
        return _txt(node)
    if node.type == "binary_expression" and _txt(node.child_by_field_name("operator") or node) == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return UNRESOLVED
        lv, rv = eval_str(left, ctx, mod, placeholders), eval_str(right, ctx, mod, placeholders)
        if lv is UNRESOLVED or rv is UNRESOLVED:
            if not placeholders:
                return UNRESOLVED
            lv = "{" + _txt(left) + "}" if lv is UNRESOLVED else lv
            rv = "{" + _txt(right) + "}" if rv is UNRESOLVED else rv
            ctx.flags.add("template_placeholder")
        ctx.flags.add("concatenated")
        return lv + rv
    return UNRESOLVED


def _prop_key(key: Node) -> str | None:
    if key.type in ("property_identifier", "identifier", "private_property_identifier"):
        return _txt(key)
    if key.type == "string":
        return _string_literal(key)
    if key.type == "number":
        return _txt(key)
    return None  # computed keys are not evaluated


def object_entries(node: Node, ctx: _Ctx, mod: _Module, depth: int = 0) -> dict[str, tuple[Node, _Module]]:
    """Key -> (value node, its module) of an object literal, spreads of literal objects merged in."""
    out: dict[str, tuple[Node, _Module]] = {}
    for child in _named(node):
        if child.type == "pair":
            key = child.child_by_field_name("key")
            value = child.child_by_field_name("value")
            name = _prop_key(key) if key is not None else None
            if name is not None and value is not None:
                out[name] = (value, mod)
        elif child.type == "shorthand_property_identifier":
            out[_txt(child)] = (child, mod)
        elif child.type == "spread_element" and _named(child) and depth < _MAX_DEPTH:
            target, tmod = ctx.deref(_named(child)[0], mod)
            if target.type == "object":
                out.update(object_entries(target, ctx, tmod, depth + 1))
    return out


def eval_value(node: Node, ctx: _Ctx, mod: _Module, depth: int = 0) -> Any:
    """A JSON-like value, or UNRESOLVED. Unresolvable members of objects/arrays are dropped."""
    if depth > _MAX_DEPTH:
        return UNRESOLVED
    node, mod = ctx.deref(node, mod)
    text = _txt(node)
    if node.type in ("string", "template_string", "binary_expression"):
        return eval_str(node, ctx, mod)
    if node.type == "number":
        return _number(text)
    if node.type == "unary_expression" and text.startswith("-"):
        inner = _named(node)
        value = eval_value(inner[0], ctx, mod, depth + 1) if inner else UNRESOLVED
        return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else UNRESOLVED
    if node.type in ("true", "false"):
        return node.type == "true"
    if node.type == "null":
        return None
    if node.type == "array":
        items = [eval_value(c, ctx, mod, depth + 1) for c in _named(node) if c.type != "spread_element"]
        if any(i is UNRESOLVED for i in items):
            ctx.flags.add("partial_value")
        return [i for i in items if i is not UNRESOLVED]
    if node.type == "object":
        out: dict[str, Any] = {}
        for key, (vnode, vmod) in object_entries(node, ctx, mod).items():
            value = eval_value(vnode, ctx, vmod, depth + 1)
            if value is UNRESOLVED:
                ctx.flags.add("partial_value")
                continue
            out[key] = value
        return out
    return UNRESOLVED


def _number(text: str) -> int | float | Any:
    clean = text.replace("_", "")
    try:
        if clean.lower().startswith(("0x", "0o", "0b")):
            return int(clean, 0)
        return int(clean) if re.fullmatch(r"\d+", clean) else float(clean)
    except ValueError:
        return UNRESOLVED


# --------------------------------------------------------------------------------------------
# zod -> JSON Schema

_ZOD_PRIMITIVES: dict[str, dict[str, Any]] = {
    "string": {"type": "string"},
    "number": {"type": "number"},
    "bigint": {"type": "integer"},
    "boolean": {"type": "boolean"},
    "date": {"type": "string", "format": "date-time"},
    "any": {},
    "unknown": {},
    "null": {"type": "null"},
    "undefined": {},
    "void": {},
    "never": {"not": {}},
    "nan": {"type": "number"},
    "int": {"type": "integer"},
    "email": {"type": "string", "format": "email"},
    "url": {"type": "string", "format": "uri"},
    "uuid": {"type": "string", "format": "uuid"},
}
_ZOD_FORMATS = {"email": "email", "url": "uri", "uuid": "uuid", "datetime": "date-time", "date": "date", "ip": "ip"}
# Methods that refine or post-process without changing the JSON-visible shape.
_ZOD_NEUTRAL = {
    "refine", "superRefine", "transform", "pipe", "brand", "readonly", "catch", "strict", "passthrough", "strip",
    "trim", "toLowerCase", "toUpperCase", "finite", "safe", "nonempty", "check", "meta", "overwrite",
}  # fmt: skip


_ZOD_MODULES = ("zod", "zod/v4", "zod/v3", "zod/mini")


@dataclass
class _Zod:
    schema: dict[str, Any]
    optional: bool = False


class _NotZod(Exception):
    """The expression is not a zod builder chain we can read."""


def _is_zod_root(node: Node, mod: _Module) -> bool:
    if node.type == "member_expression":  # CommonJS: const zod_1 = require("zod"); zod_1.z.string()
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None or obj.type != "identifier" or _txt(prop) != "z":
            return False
        imp = mod.imports.get(_txt(obj))
        return imp is not None and imp[0] in _ZOD_MODULES
    if node.type != "identifier":
        return False
    name = _txt(node)
    imp = mod.imports.get(name)
    if imp is not None:
        return imp[0] in _ZOD_MODULES
    return name == "z"


def _type_of(schema: dict[str, Any]) -> str:
    t = schema.get("type")
    return t if isinstance(t, str) else ""


def zod_to_schema(node: Node, ctx: _Ctx, mod: _Module, depth: int = 0) -> _Zod:
    """Convert a zod builder expression to JSON Schema (a useful subset, as zod-to-json-schema would)."""
    if depth > _MAX_DEPTH:
        raise _NotZod("too deep")
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is not None and prop is not None and _txt(prop) == "shape":
            return zod_to_schema(obj, ctx, mod, depth + 1)  # X.shape: same properties as X
    node, mod = ctx.deref(node, mod)
    if node.type == "object":  # a raw shape {key: zodType}
        return _Zod(_shape_to_schema(node, ctx, mod, depth + 1))
    if node.type != "call_expression":
        raise _NotZod(node.type)
    func, args_node = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    args = _named(args_node) if args_node is not None else []
    if func is None or func.type != "member_expression":
        raise _NotZod("call")
    obj, prop = func.child_by_field_name("object"), func.child_by_field_name("property")
    if obj is None or prop is None:
        raise _NotZod("call")
    method = _txt(prop)
    # z.coerce.number() reads like z.number() for the schema
    if obj.type == "member_expression" and _txt(obj.child_by_field_name("property") or obj) == "coerce":
        obj = obj.child_by_field_name("object") or obj
    if _is_zod_root(obj, mod):
        return _zod_constructor(method, args, ctx, mod, depth)
    base = zod_to_schema(obj, ctx, mod, depth + 1)
    return _zod_method(base, method, args, ctx, mod, depth)


def _zod_constructor(method: str, args: list[Node], ctx: _Ctx, mod: _Module, depth: int) -> _Zod:
    if method in _ZOD_PRIMITIVES:
        return _Zod(dict(_ZOD_PRIMITIVES[method]))
    if method in ("object", "strictObject", "looseObject"):
        if not args:
            return _Zod({"type": "object", "properties": {}})
        target, tmod = ctx.deref(args[0], mod)
        if target.type != "object":
            raise _NotZod("object shape")
        return _Zod(_shape_to_schema(target, ctx, tmod, depth + 1))
    if method == "array":
        items = zod_to_schema(args[0], ctx, mod, depth + 1).schema if args else {}
        return _Zod({"type": "array", "items": items})
    if method == "enum" and args:
        values = eval_value(args[0], ctx, mod)
        if isinstance(values, list):
            return _Zod({"type": "string", "enum": values})
        if isinstance(values, dict):
            return _Zod({"enum": list(values.values())})
        raise _NotZod("enum")
    if method == "nativeEnum":
        return _Zod({})
    if method == "literal" and args:
        value = eval_value(args[0], ctx, mod)
        if value is UNRESOLVED:
            raise _NotZod("literal")
        schema: dict[str, Any] = {"const": value}
        kind = {str: "string", bool: "boolean", int: "number", float: "number"}.get(type(value))
        if kind:
            schema["type"] = kind
        return _Zod(schema)
    if method in ("union", "discriminatedUnion") and args:
        options = args[-1] if method == "discriminatedUnion" else args[0]
        target, tmod = ctx.deref(options, mod)
        if target.type != "array":
            raise _NotZod("union")
        return _Zod({"anyOf": [zod_to_schema(o, ctx, tmod, depth + 1).schema for o in _named(target)]})
    if method == "intersection" and len(args) == 2:
        return _Zod({"allOf": [zod_to_schema(a, ctx, mod, depth + 1).schema for a in args]})
    if method == "record" and args:
        value = zod_to_schema(args[-1], ctx, mod, depth + 1).schema
        return _Zod({"type": "object", "additionalProperties": value})
    if method == "tuple" and args:
        target, tmod = ctx.deref(args[0], mod)
        items = (
            [zod_to_schema(o, ctx, tmod, depth + 1).schema for o in _named(target)] if target.type == "array" else []
        )
        return _Zod({"type": "array", "prefixItems": items})
    if method in ("optional", "nullable", "nullish") and args:
        inner = zod_to_schema(args[0], ctx, mod, depth + 1)
        return _zod_method(inner, method, [], ctx, mod, depth)
    if method in ("lazy", "custom", "instanceof", "function", "preprocess", "promise", "map", "set"):
        if method == "preprocess" and len(args) > 1:
            return zod_to_schema(args[1], ctx, mod, depth + 1)
        return _Zod({})
    raise _NotZod(f"z.{method}")


def _zod_method(base: _Zod, method: str, args: list[Node], ctx: _Ctx, mod: _Module, depth: int) -> _Zod:
    schema, optional = dict(base.schema), base.optional
    # only literal-taking methods evaluate their argument (extend's shape is zod, not a literal)
    literal_arg = method in ("default", "prefault", "min", "gte", "max", "lte", "length", "gt", "lt", "pick", "omit")
    arg = eval_value(args[0], ctx, mod) if args and literal_arg else UNRESOLVED
    kind = _type_of(schema)
    if method == "describe":
        text = eval_str(args[0], ctx, mod) if args else UNRESOLVED
        if text is not UNRESOLVED:
            schema["description"] = text
    elif method == "optional":
        optional = True
    elif method in ("nullable", "nullish"):
        schema = _nullable(schema)
        optional = optional or method == "nullish"
    elif method in ("default", "prefault"):
        if arg is not UNRESOLVED:
            schema["default"] = arg
        optional = True  # zod-to-json-schema leaves defaulted fields out of "required"
    elif method == "int":
        schema["type"] = "integer"
    elif method in ("min", "gte", "max", "lte", "length", "gt", "lt"):
        if isinstance(arg, (int, float)) and not isinstance(arg, bool):
            _apply_bound(schema, kind, method, arg)
    elif method in ("positive", "nonnegative", "negative", "nonpositive"):
        bound = {"positive": "exclusiveMinimum", "nonnegative": "minimum", "negative": "exclusiveMaximum"}
        schema[bound.get(method, "maximum")] = 0
    elif method in _ZOD_FORMATS:
        schema["format"] = _ZOD_FORMATS[method]
    elif method == "regex" and args:
        pattern = _named(args[0])[0] if args[0].type == "regex" and _named(args[0]) else None
        if pattern is not None:
            schema["pattern"] = _txt(pattern)
    elif method == "array":
        return _Zod({"type": "array", "items": schema})
    elif method == "or" and args:
        return _Zod({"anyOf": [schema, zod_to_schema(args[0], ctx, mod, depth + 1).schema]}, optional)
    elif method == "and" and args:
        return _Zod({"allOf": [schema, zod_to_schema(args[0], ctx, mod, depth + 1).schema]}, optional)
    elif method in ("extend", "merge", "safeExtend") and args:
        extra = zod_to_schema(args[0], ctx, mod, depth + 1).schema
        schema = _merge_objects(schema, extra)
    elif method in ("partial", "deepPartial"):
        schema.pop("required", None)
    elif method == "required":
        schema["required"] = list(schema.get("properties", {}))
    elif method in ("pick", "omit") and isinstance(arg, dict):
        keys = {k for k, v in arg.items() if v}
        props = schema.get("properties", {})
        keep = [k for k in props if (k in keys) == (method == "pick")]
        schema["properties"] = {k: props[k] for k in keep}
        if "required" in schema:
            schema["required"] = [k for k in schema["required"] if k in keep]
    elif method == "catchall" and args:
        schema["additionalProperties"] = zod_to_schema(args[0], ctx, mod, depth + 1).schema
    elif method not in _ZOD_NEUTRAL:
        ctx.flags.add("zod_partial")  # unknown refinement: keep what we have
    return _Zod(schema, optional)


def _apply_bound(schema: dict[str, Any], kind: str, method: str, value: float) -> None:
    lower = method in ("min", "gte", "gt")
    if kind == "string":
        names = ("minLength", "maxLength")
    elif kind == "array":
        names = ("minItems", "maxItems")
    else:
        names = ("exclusiveMinimum", "exclusiveMaximum") if method in ("gt", "lt") else ("minimum", "maximum")
    if method == "length":
        schema[names[0]] = schema[names[1]] = value
    else:
        schema[names[0] if lower else names[1]] = value


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str) and "enum" not in schema and "const" not in schema:
        return {**schema, "type": [kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _merge_objects(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    props = {**a.get("properties", {}), **b.get("properties", {})}
    required = [k for k in a.get("required", []) if k not in b.get("properties", {})] + list(b.get("required", []))
    out = {**a, "type": "object", "properties": props}
    if required:
        out["required"] = required
    else:
        out.pop("required", None)
    return out


def _shape_to_schema(node: Node, ctx: _Ctx, mod: _Module, depth: int) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required: list[str] = []
    for child in _named(node):
        if child.type == "spread_element" and _named(child):
            # {...Other.shape, extra: z.string()}
            spread = zod_to_schema(_named(child)[0], ctx, mod, depth + 1).schema
            merged = _merge_objects({"properties": props, "required": required}, spread)
            props, required = merged["properties"], merged.get("required", [])
            continue
        if child.type == "pair":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
        elif child.type == "shorthand_property_identifier":
            key = value = child
        else:
            continue
        name = _prop_key(key) if key is not None else None
        if name is None or value is None:
            continue
        try:
            z = zod_to_schema(value, ctx, mod, depth + 1)
        except _NotZod:
            ctx.flags.add("zod_partial")
            z = _Zod({})
        props[name] = z.schema
        if not z.optional and name not in required:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


# --------------------------------------------------------------------------------------------
# Input schemas and tool shapes

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
_TO_JSON_SCHEMA_RE = re.compile(r"to_?json_?schema$", re.I)


def input_schema(node: Node | None, ctx: _Ctx, mod: _Module) -> dict[str, Any]:
    """JSON Schema from a JSON-Schema literal, a zod raw shape, a zod schema or ``zodToJsonSchema(X)``."""
    # "variable_ref" describes how the tool's name/config/description were found; schemas are
    # nearly always module constants, so following one is not worth a flag
    had_ref = "variable_ref" in ctx.flags
    schema = _input_schema(node, ctx, mod)
    if not had_ref:
        ctx.flags.discard("variable_ref")
    return schema


def _input_schema(node: Node | None, ctx: _Ctx, mod: _Module) -> dict[str, Any]:
    if node is None:
        return dict(_EMPTY_SCHEMA)
    target, tmod = ctx.deref(node, mod)
    if target.type == "call_expression":
        fname = _callee_name(target.child_by_field_name("function"))
        args_node = target.child_by_field_name("arguments")
        args = _named(args_node) if args_node is not None else []
        if _TO_JSON_SCHEMA_RE.search(fname) and args:
            return _zod_schema_or_flag(args[0], ctx, tmod)
    if target.type == "object":
        entries = object_entries(target, ctx, tmod)
        type_entry = entries.get("type")
        is_json_schema = "properties" in entries and "type" not in entries
        if type_entry is not None and isinstance(eval_value(type_entry[0], ctx, type_entry[1]), str):
            is_json_schema = True
        if is_json_schema:
            value = eval_value(target, ctx, tmod)
            return value if isinstance(value, dict) else dict(_EMPTY_SCHEMA)
    return _zod_schema_or_flag(node, ctx, mod)


def _callee_name(func: Node | None) -> str:
    """``f``, ``a.f`` and tsc's CommonJS ``(0, a.f)`` all name ``f``."""
    while func is not None and func.type in ("parenthesized_expression", "sequence_expression") and _named(func):
        func = _named(func)[-1]
    if func is None:
        return ""
    if func.type == "identifier":
        return _txt(func)
    if func.type == "member_expression":
        prop = func.child_by_field_name("property")
        return _txt(prop) if prop is not None else ""
    return ""


def _zod_schema_or_flag(node: Node, ctx: _Ctx, mod: _Module) -> dict[str, Any]:
    try:
        z = zod_to_schema(node, ctx, mod)
    except _NotZod:
        ctx.flags.add("unresolved_input_schema")
        return dict(_EMPTY_SCHEMA)
    ctx.flags.add("zod_schema")
    schema = z.schema
    if _type_of(schema) != "object" or "properties" not in schema:
        ctx.flags.add("unresolved_input_schema")  # MCP inputs must be objects; keep the odd schema visible
        return {"type": "object", "properties": {}, "x-zod": schema} if schema else dict(_EMPTY_SCHEMA)
    return schema


@dataclass
class _Found:
    name: str
    title: str | None
    description: str | None
    parameters: dict[str, Any]
    source_path: str
    flags: set[str]


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(cur.children))


def _config_fields(entries: dict[str, tuple[Node, _Module]], ctx: _Ctx) -> tuple[str | None, str | None]:
    def text(key: str) -> str | None:
        if key not in entries:
            return None
        value = eval_str(entries[key][0], ctx, entries[key][1], placeholders=True)
        return value if isinstance(value, str) else None

    title = text("title")
    if title is None and "annotations" in entries:
        ann, amod = ctx.deref(*entries["annotations"])
        if ann.type == "object":
            inner = object_entries(ann, ctx, amod)
            if "title" in inner:
                value = eval_str(inner["title"][0], ctx, inner["title"][1])
                title = value if isinstance(value, str) else None
    return title, text("description")


def _literal_tool(node: Node, ctx: _Ctx, mod: _Module) -> _Found | None:
    """Shape (a): ``{name, description, inputSchema}`` object literal."""
    entries = object_entries(node, ctx, mod)
    schema_key = next((k for k in ("inputSchema", "input_schema") if k in entries), None)
    if "name" not in entries or schema_key is None:
        return None
    ctx.flags = set()
    name = eval_str(entries["name"][0], ctx, entries["name"][1])
    if not isinstance(name, str) or not name:
        return _Found("", None, None, {}, mod.path, {"unresolved_name"})
    title, description = _config_fields(entries, ctx)
    params = input_schema(entries[schema_key][0], ctx, entries[schema_key][1])
    return _Found(name, title, description, params, mod.path, set(ctx.flags))


def _registered_tool(call: Node, ctx: _Ctx, mod: _Module) -> _Found | None:
    """Shape (b): ``server.registerTool(name, config, cb)`` / ``server.tool(name, [desc], [shape], ..., cb)``."""
    func = call.child_by_field_name("function")
    if func is None or func.type != "member_expression":
        return None
    prop = func.child_by_field_name("property")
    method = _txt(prop) if prop is not None else ""
    if method not in _REGISTER_METHODS:
        return None
    args_node = call.child_by_field_name("arguments")
    args = _named(args_node) if args_node is not None else []
    if len(args) < 2:
        return None
    ctx.flags = set()
    name = eval_str(args[0], ctx, mod)
    if not isinstance(name, str) or not name:
        if method == "tool" and args[0].type not in ("identifier", "member_expression"):
            return None  # some other .tool(...) API, not an MCP registration
        return _Found("", None, None, {}, mod.path, {"unresolved_name"})
    flags: set[str] = set()
    if method == "registerToolTask":
        flags.add("task_tool")
    if method in ("registerTool", "registerToolTask"):
        config, cmod = ctx.deref(args[1], mod)
        if config.type != "object":
            return _Found(name, None, None, dict(_EMPTY_SCHEMA), mod.path, set(ctx.flags) | {"unresolved_config"})
        entries = object_entries(config, ctx, cmod)
        title, description = _config_fields(entries, ctx)
        schema_entry = entries.get("inputSchema")
        params = input_schema(schema_entry[0], ctx, schema_entry[1]) if schema_entry else dict(_EMPTY_SCHEMA)
        return _Found(name, title, description, params, mod.path, set(ctx.flags) | flags)
    # legacy server.tool(): optional description string, then optional raw shape, then annotations
    description: str | None = None
    rest = args[1:-1]  # the last argument is the callback
    if rest:
        desc = eval_str(rest[0], ctx, mod, placeholders=True)
        if isinstance(desc, str):
            description, rest = desc, rest[1:]
    params = dict(_EMPTY_SCHEMA)
    if rest and _looks_like_raw_shape(rest[0], ctx, mod):
        params = input_schema(rest[0], ctx, mod)
    return _Found(name, None, description, params, mod.path, set(ctx.flags) | flags)


def _looks_like_raw_shape(node: Node, ctx: _Ctx, mod: _Module) -> bool:
    """Tell ``server.tool()``'s zod shape argument from its annotations object (plain literals)."""
    target, tmod = ctx.deref(node, mod)
    if target.type != "object":
        return target.type in ("call_expression", "member_expression")
    literal = ("true", "false", "string", "number", "template_string", "null")
    return not any(ctx.deref(v, m)[0].type in literal for v, m in object_entries(target, ctx, tmod).values())


def _find_tools(ctx: _Ctx, mod: _Module) -> Iterator[_Found]:
    for node in _walk(mod.root):
        if node.has_error:
            continue  # a tool written across a region the parser could not read is not guessed at
        if node.type == "object":
            found = _literal_tool(node, ctx, mod)
        elif node.type == "call_expression":
            found = _registered_tool(node, ctx, mod)
        else:
            continue
        if found is not None:
            yield found


# --------------------------------------------------------------------------------------------
# Package-level metadata


def _env_vars(root: Node) -> list[str]:
    names: list[str] = []
    for node in _walk(root):
        name = None
        if node.type in ("member_expression", "subscript_expression"):
            obj = node.child_by_field_name("object")
            if obj is None or _txt(obj) not in ("process.env", "import.meta.env"):
                continue
            if node.type == "member_expression":
                prop = node.child_by_field_name("property")
                name = _txt(prop) if prop is not None else None
            else:
                index = node.child_by_field_name("index")
                name = _string_literal(index) if index is not None and index.type == "string" else None
        elif node.type == "variable_declarator":
            # const { A, B: b } = process.env
            pattern, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if pattern is None or value is None or pattern.type != "object_pattern" or _txt(value) != "process.env":
                continue
            for part in _named(pattern):
                key = part.child_by_field_name("key") if part.type == "pair_pattern" else part
                if key is not None and key.type in ("shorthand_property_identifier_pattern", "property_identifier"):
                    names.append(_txt(key))
            continue
        if name and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            names.append(name)
    return names


_README_ENV_BLOCK_RE = re.compile(r'"env"\s*:\s*\{')
# one '"NAME": value,' entry of an env block, with // comments (JSONC examples) around it
_README_ENV_PAIR_RE = re.compile(
    r'\s*(?://[^\n]*\s*)*"([A-Za-z_][A-Za-z0-9_]*)"\s*:\s*(?:"(?:[^"\\]|\\.)*"|[^,\n}]*)\s*,?(?:[ \t]*//[^\n]*)?'
)
# docker run -e NAME / -e NAME=value / "args": ["-e", "NAME"] / --env NAME, and shell export NAME=...
_README_ENV_FLAG_RE = re.compile(
    r"""(?:(?<=[\s"'\[,])(?:-e|--env)["']?\s*,?\s*["']?|\bexport\s+)([A-Z][A-Z0-9_]+)(?=[=\s"',\]]|$)"""
)


def _readme_env_declared(readme: str) -> list[str]:
    """Env var names the README tells the user to set: keys of ``"env": {...}`` blocks in config
    examples, ``-e NAME`` docker flags and ``export NAME=...`` lines, in order of appearance."""
    names: list[str] = []
    for block in _README_ENV_BLOCK_RE.finditer(readme):
        pos = block.end()
        while (pair := _README_ENV_PAIR_RE.match(readme, pos)) is not None:
            names.append(pair.group(1))
            pos = pair.end()
    names.extend(m.group(1) for m in _README_ENV_FLAG_RE.finditer(readme))
    return list(dict.fromkeys(n for n in names if re.fullmatch(r"[A-Z][A-Z0-9_]*", n)))


def _urls(root: Node) -> list[str]:
    urls: list[str] = []
    for node in _walk(root):
        if node.type == "string":
            text = _string_literal(node)
        elif node.type == "template_string":
            # substitutions kept as {expr}: a templated endpoint stays recognisable as one
            text = _template_with_holes(node)
        else:
            continue
        if _URL_RE.match(text) and not _NON_ENDPOINT_RE.match(text):
            urls.append(text)
    return urls


def _template_with_holes(node: Node) -> str:
    raw = _txt(node)[1:-1]
    return re.sub(r"\$\{([^}]*)\}", lambda m: "{" + m.group(1).strip() + "}", raw)


def _repo_url(value: Any) -> str | None:
    url = value.get("url") if isinstance(value, dict) else value
    if not isinstance(url, str) or not url:
        return None
    url = re.sub(r"^git\+", "", url)
    url = re.sub(r"^git://", "https://", url)
    url = re.sub(r"^git@([^:]+):", r"https://\1/", url)
    if re.fullmatch(r"[\w.-]+/[\w.-]+", url):  # npm shorthand "owner/repo"
        url = f"https://github.com/{url}"
    return re.sub(r"\.git$", "", url)


def _readme_notice(readme: str) -> tuple[bool, str | None]:
    """A deprecation/archival notice near the top of the README, and a replacement URL in it."""
    lines = [ln for ln in readme.splitlines() if ln.strip()][:15]
    for line in lines:
        if _README_DEPRECATED_RE.search(line) and not re.search(r"deprecated as of", line, re.I):
            urls = re.findall(r"https?://[^\s)\]>\"']+", line)
            return True, (urls[0].rstrip(".,") if urls else None)
    return False, None


def service_name(package_name: str) -> str:
    """``@modelcontextprotocol/server-google-maps`` -> ``google-maps``."""
    if package_name.startswith(SCOPE_PREFIX):
        return package_name[len(SCOPE_PREFIX) :]
    base = package_name.rsplit("/", 1)[-1]
    return re.sub(r"^(mcp-server-|server-)|(-mcp-server|-mcp)$", "", base) or base


def _auth_type(env: list[str], oauth_import: bool) -> AuthType:
    if oauth_import or any("OAUTH" in n.upper() for n in env):
        return "oauth2"
    if env:
        return "api_key"
    return "none"


# --------------------------------------------------------------------------------------------
# Entry point


def extract(package: PackageFiles) -> Extraction:
    """Extract the MCP tools a reference server package registers, by static reading of dist/*.js."""
    result = Extraction()
    pkg: dict[str, Any] = {}
    if "package.json" in package.files:
        try:
            loaded = json.loads(package.text("package.json"))
            pkg = loaded if isinstance(loaded, dict) else {}
        except json.JSONDecodeError as exc:
            result.errors.append(("package.json", f"invalid_json: {exc}"))

    parser = Parser(_LANGUAGE)
    modules: dict[str, _Module] = {}
    partial: set[str] = set()
    for path in sorted(package.files):
        if not want(path) or not path.endswith(_JS_SUFFIXES):
            continue
        source = package.files[path]
        if source.startswith(b"#!"):  # the bin shebang is not JS
            source = b"//" + source[2:]
        tree = parser.parse(source)
        if tree.root_node.has_error:
            # tree-sitter recovers locally: the module is reported, tools in intact regions still count
            result.errors.append((path, f"js_syntax_error: {_first_error(tree.root_node)}"))
            partial.add(path)
        modules[path] = _build_module(path, tree.root_node)

    ctx = _Ctx(modules)
    env: list[str] = []
    endpoints: list[str] = []
    oauth_import = False
    found: list[_Found] = []
    for mod in modules.values():
        try:
            env.extend(_env_vars(mod.root))
            endpoints.extend(_urls(mod.root))
            oauth_import = oauth_import or any(_OAUTH_IMPORT_RE.search(src) for src, _ in mod.imports.values())
            for item in _find_tools(ctx, mod):
                if mod.path in partial:
                    item.flags.add("partial_parse")
                found.append(item)
        except (RecursionError, ValueError, UnicodeError) as exc:  # one odd module must not sink the package
            result.errors.append((mod.path, f"evaluation_failed: {type(exc).__name__}: {exc}"))

    auth_env = sorted({n for n in env if _AUTH_ENV_RE.search(n)})
    auth_type = _auth_type(auth_env, oauth_import)
    endpoints = sorted(set(endpoints))
    doc_urls = [u for u in (_repo_url(pkg.get("homepage")), _repo_url(pkg.get("repository"))) if u]
    keywords = [k for k in pkg.get("keywords") or [] if isinstance(k, str)]
    deps = sorted((pkg.get("dependencies") or {}).keys()) if isinstance(pkg.get("dependencies"), dict) else []
    registry_deprecated = pkg.get("deprecated")
    readme = next((package.text(p) for p in package.files if p.lower() == "readme.md"), "")
    readme_deprecated, readme_replacement = _readme_notice(readme)
    # same credential-like filter as the reads, so config vars (MEMORY_FILE_PATH) count on neither side
    declared_env = [n for n in _readme_env_declared(readme) if _AUTH_ENV_RE.search(n)]
    service = service_name(package.name)

    seen: set[str] = set()
    for item in found:
        if "unresolved_name" in item.flags:
            result.skipped["unresolved_name"] += 1
            continue
        if item.name in seen:
            result.skipped["duplicate_name"] += 1
            continue
        seen.add(item.name)
        flags = set(item.flags) - {"partial_value"} | ({"partial_schema"} if "partial_value" in item.flags else set())
        deprecated, replacement = False, None
        if registry_deprecated:
            deprecated = True
            # npm's field is a free-text message; only a "use X instead" names a replacement
            hint = (
                _REGISTRY_REPLACEMENT_RE.search(registry_deprecated) if isinstance(registry_deprecated, str) else None
            )
            replacement = hint.group(1).rstrip(".,") if hint else None
        elif readme_deprecated:
            deprecated, replacement = True, readme_replacement
            flags.add("readme_deprecated")
        text = f"{item.title or ''} {item.description or ''}"
        if not deprecated and _DESC_DEPRECATED_RE.search(text):
            deprecated = True
            flags.add("description_deprecated")
            match = _DESC_REPLACEMENT_RE.search(item.description or "")
            replacement = match.group(1) if match else None
        if not item.description:
            flags.add("no_description")
        result.tools.append(
            ExtractedTool(
                local_id=item.name,
                name=item.name,
                description=(item.description or "").strip(),
                source_path=item.source_path,
                display_name=item.title or item.name,
                service=service,
                parameters=item.parameters,
                auth_type=auth_type,
                auth_env_vars=list(auth_env),
                env_vars_declared=list(declared_env),
                env_vars_read=list(auth_env),
                auth_credentials=list(auth_env),
                endpoints=list(endpoints),
                doc_urls=list(doc_urls),
                categories=list(keywords),
                package_dependencies=list(deps),
                deprecated=deprecated,
                replacement=replacement,
                flags=sorted(flags),
            )
        )
    return result


def _first_error(root: Node) -> str:
    for node in _walk(root):
        if node.type == "ERROR" or node.is_missing:
            row, col = node.start_point
            return f"line {row + 1}, column {col + 1}"
    return "unknown position"
