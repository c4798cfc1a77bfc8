"""zod builder chains turned into JSON Schema (a useful subset, as zod-to-json-schema would)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tree_sitter import Node

from crawlers.mcp.evaluate import UNRESOLVED, eval_str, eval_value, prop_key
from crawlers.mcp.modules import MAX_DEPTH, Ctx, Module
from crawlers.mcp.syntax import named, node_text

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


class NotZod(Exception):
    """The expression is not a zod builder chain we can read."""


def _is_zod_root(node: Node, mod: Module) -> bool:
    if node.type == "member_expression":  # CommonJS: const zod_1 = require("zod"); zod_1.z.string()
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None or obj.type != "identifier" or node_text(prop) != "z":
            return False
        imp = mod.imports.get(node_text(obj))
        return imp is not None and imp[0] in _ZOD_MODULES
    if node.type != "identifier":
        return False
    name = node_text(node)
    imp = mod.imports.get(name)
    if imp is not None:
        return imp[0] in _ZOD_MODULES
    return name == "z"


def type_of(schema: dict[str, Any]) -> str:
    """The schema's ``type`` when it is a single string, else ""."""
    t = schema.get("type")
    return t if isinstance(t, str) else ""


def zod_to_schema(node: Node, ctx: Ctx, mod: Module, depth: int = 0) -> _Zod:
    """Convert a zod builder expression to JSON Schema (a useful subset, as zod-to-json-schema would)."""
    if depth > MAX_DEPTH:
        raise NotZod("too deep")
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is not None and prop is not None and node_text(prop) == "shape":
            return zod_to_schema(obj, ctx, mod, depth + 1)  # X.shape: same properties as X
    node, mod = ctx.deref(node, mod)
    if node.type == "object":  # a raw shape {key: zodType}
        return _Zod(_shape_to_schema(node, ctx, mod, depth + 1))
    if node.type != "call_expression":
        raise NotZod(node.type)
    func, args_node = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    args = named(args_node) if args_node is not None else []
    if func is None or func.type != "member_expression":
        raise NotZod("call")
    obj, prop = func.child_by_field_name("object"), func.child_by_field_name("property")
    if obj is None or prop is None:
        raise NotZod("call")
    method = node_text(prop)
    # z.coerce.number() reads like z.number() for the schema
    if obj.type == "member_expression" and node_text(obj.child_by_field_name("property") or obj) == "coerce":
        obj = obj.child_by_field_name("object") or obj
    if _is_zod_root(obj, mod):
        return _zod_constructor(method, args, ctx, mod, depth)
    base = zod_to_schema(obj, ctx, mod, depth + 1)
    return _zod_method(base, method, args, ctx, mod, depth)


def _zod_constructor(method: str, args: list[Node], ctx: Ctx, mod: Module, depth: int) -> _Zod:
    if method in _ZOD_PRIMITIVES:
        return _Zod(dict(_ZOD_PRIMITIVES[method]))
    if method in ("object", "strictObject", "looseObject"):
        if not args:
            return _Zod({"type": "object", "properties": {}})
        target, tmod = ctx.deref(args[0], mod)
        if target.type != "object":
            raise NotZod("object shape")
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
        raise NotZod("enum")
    if method == "nativeEnum":
        return _Zod({})
    if method == "literal" and args:
        value = eval_value(args[0], ctx, mod)
        if value is UNRESOLVED:
            raise NotZod("literal")
        schema: dict[str, Any] = {"const": value}
        kind = {str: "string", bool: "boolean", int: "number", float: "number"}.get(type(value))
        if kind:
            schema["type"] = kind
        return _Zod(schema)
    if method in ("union", "discriminatedUnion") and args:
        options = args[-1] if method == "discriminatedUnion" else args[0]
        target, tmod = ctx.deref(options, mod)
        if target.type != "array":
            raise NotZod("union")
        return _Zod({"anyOf": [zod_to_schema(o, ctx, tmod, depth + 1).schema for o in named(target)]})
    if method == "intersection" and len(args) == 2:
        return _Zod({"allOf": [zod_to_schema(a, ctx, mod, depth + 1).schema for a in args]})
    if method == "record" and args:
        value = zod_to_schema(args[-1], ctx, mod, depth + 1).schema
        return _Zod({"type": "object", "additionalProperties": value})
    if method == "tuple" and args:
        target, tmod = ctx.deref(args[0], mod)
        items = [zod_to_schema(o, ctx, tmod, depth + 1).schema for o in named(target)] if target.type == "array" else []
        return _Zod({"type": "array", "prefixItems": items})
    if method in ("optional", "nullable", "nullish") and args:
        inner = zod_to_schema(args[0], ctx, mod, depth + 1)
        return _zod_method(inner, method, [], ctx, mod, depth)
    if method in ("lazy", "custom", "instanceof", "function", "preprocess", "promise", "map", "set"):
        if method == "preprocess" and len(args) > 1:
            return zod_to_schema(args[1], ctx, mod, depth + 1)
        return _Zod({})
    raise NotZod(f"z.{method}")


def _zod_method(base: _Zod, method: str, args: list[Node], ctx: Ctx, mod: Module, depth: int) -> _Zod:
    schema, optional = dict(base.schema), base.optional
    # only literal-taking methods evaluate their argument (extend's shape is zod, not a literal)
    literal_arg = method in ("default", "prefault", "min", "gte", "max", "lte", "length", "gt", "lt", "pick", "omit")
    arg = eval_value(args[0], ctx, mod) if args and literal_arg else UNRESOLVED
    kind = type_of(schema)
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
        pattern = named(args[0])[0] if args[0].type == "regex" and named(args[0]) else None
        if pattern is not None:
            schema["pattern"] = node_text(pattern)
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


def _shape_to_schema(node: Node, ctx: Ctx, mod: Module, depth: int) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required: list[str] = []
    for child in named(node):
        if child.type == "spread_element" and named(child):
            # {...Other.shape, extra: z.string()}
            spread = zod_to_schema(named(child)[0], ctx, mod, depth + 1).schema
            merged = _merge_objects({"properties": props, "required": required}, spread)
            props, required = merged["properties"], merged.get("required", [])
            continue
        if child.type == "pair":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
        elif child.type == "shorthand_property_identifier":
            key = value = child
        else:
            continue
        name = prop_key(key) if key is not None else None
        if name is None or value is None:
            continue
        try:
            z = zod_to_schema(value, ctx, mod, depth + 1)
        except NotZod:
            ctx.flags.add("zod_partial")
            z = _Zod({})
        props[name] = z.schema
        if not z.optional and name not in required:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema
