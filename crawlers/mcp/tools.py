"""Input schemas and the two tool shapes (object literals and ``server.registerTool`` / ``server.tool``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tree_sitter import Node

from crawlers.mcp.evaluate import eval_str, eval_value, object_entries
from crawlers.mcp.modules import Ctx, Module
from crawlers.mcp.records import Found
from crawlers.mcp.syntax import named, node_text, walk
from crawlers.mcp.zod import NotZod, type_of, zod_to_schema

_REGISTER_METHODS = {"registerTool", "tool", "registerToolTask"}
_HANDLER_KEYS = {"handler", "execute", "run", "callback"}
_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
_TO_JSON_SCHEMA_RE = re.compile(r"to_?json_?schema$", re.I)


def input_schema(node: Node | None, ctx: Ctx, mod: Module) -> dict[str, Any]:
    """JSON Schema from a JSON-Schema literal, a zod raw shape, a zod schema or ``zodToJsonSchema(X)``."""
    # "variable_ref" describes how the tool's name/config/description were found; schemas are
    # nearly always module constants, so following one is not worth a flag
    had_ref = "variable_ref" in ctx.flags
    schema = _input_schema(node, ctx, mod)
    if not had_ref:
        ctx.flags.discard("variable_ref")
    return schema


def _input_schema(node: Node | None, ctx: Ctx, mod: Module) -> dict[str, Any]:
    if node is None:
        return dict(_EMPTY_SCHEMA)
    target, tmod = ctx.deref(node, mod)
    if target.type == "call_expression":
        fname = _callee_name(target.child_by_field_name("function"))
        args_node = target.child_by_field_name("arguments")
        args = named(args_node) if args_node is not None else []
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
    while func is not None and func.type in ("parenthesized_expression", "sequence_expression") and named(func):
        func = named(func)[-1]
    if func is None:
        return ""
    if func.type == "identifier":
        return node_text(func)
    if func.type == "member_expression":
        prop = func.child_by_field_name("property")
        return node_text(prop) if prop is not None else ""
    return ""


def _zod_schema_or_flag(node: Node, ctx: Ctx, mod: Module) -> dict[str, Any]:
    try:
        z = zod_to_schema(node, ctx, mod)
    except NotZod:
        ctx.flags.add("unresolved_input_schema")
        return dict(_EMPTY_SCHEMA)
    ctx.flags.add("zod_schema")
    schema = z.schema
    if type_of(schema) != "object" or "properties" not in schema:
        ctx.flags.add("unresolved_input_schema")  # MCP inputs must be objects; keep the odd schema visible
        return {"type": "object", "properties": {}, "x-zod": schema} if schema else dict(_EMPTY_SCHEMA)
    return schema


def _config_fields(entries: dict[str, tuple[Node, Module]], ctx: Ctx) -> tuple[str | None, str | None]:
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


def _literal_tool(node: Node, ctx: Ctx, mod: Module) -> Found | None:
    """Shape (a): ``{name, description, inputSchema}`` object literal."""
    entries = object_entries(node, ctx, mod)
    schema_key = next((k for k in ("inputSchema", "input_schema") if k in entries), None)
    if schema_key is None and "description" in entries and _HANDLER_KEYS & entries.keys():
        # a tool-definition object: {name, description, schema, handler}, mapped to the SDK's shape later
        schema_key = next((k for k in ("schema", "parameters") if k in entries), None)
    if "name" not in entries or schema_key is None:
        return None
    ctx.flags = set()
    name = eval_str(entries["name"][0], ctx, entries["name"][1])
    if not isinstance(name, str) or not name:
        return Found("", None, None, {}, mod.path, {"unresolved_name"})
    title, description = _config_fields(entries, ctx)
    params = input_schema(entries[schema_key][0], ctx, entries[schema_key][1])
    return Found(name, title, description, params, mod.path, set(ctx.flags))


def _registered_tools(call: Node, ctx: Ctx, mod: Module) -> list[Found]:
    """Shape (b), once per element when the call sits in a loop over a literal and its name uses the loop
    variable: ``for (const [category, items] of Object.entries(CATEGORIES)) server.tool(`get${category}`, ...)``."""
    found = _registered_tool(call, ctx, mod)
    if found is not None and "unresolved_name" not in found.flags:
        return [found]
    if found is None and not _registers(call):
        return []
    expanded = []
    for values in _loop_bindings(call, ctx, mod):
        ctx.loop_values = values
        try:
            item = _registered_tool(call, ctx, mod)
        finally:
            ctx.loop_values = {}
        if item is None or "unresolved_name" in item.flags:
            return [found] if found is not None else []
        item.flags.add("loop_expanded")
        expanded.append(item)
    return expanded or ([found] if found is not None else [])


def _registers(call: Node) -> bool:
    """A ``x.tool(...)`` / ``x.registerTool(...)`` call (whatever its arguments)."""
    func = call.child_by_field_name("function")
    prop = func.child_by_field_name("property") if func is not None and func.type == "member_expression" else None
    return prop is not None and node_text(prop) in _REGISTER_METHODS


def _loop_bindings(call: Node, ctx: Ctx, mod: Module) -> list[dict[str, object]]:
    """The innermost enclosing ``for (... of X)`` where X is a literal array or ``Object.entries / keys /
    values`` of a literal object: one binding of the loop's names per element; [] otherwise."""
    node = call.parent
    while node is not None and node.type != "for_in_statement":
        node = node.parent
    if node is None or node.child_by_field_name("operator") is None:
        return []
    if node_text(node.child_by_field_name("operator")) != "of":
        return []
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return []
    items = _literal_items(right, ctx, mod)
    bindings = []
    for item in items or []:
        names = [node_text(left)] if left.type == "identifier" else None
        values = [item]
        if left.type == "array_pattern":
            names = [node_text(c) if c.type == "identifier" else "" for c in named(left)]
            values = item if isinstance(item, list) else []
        if names is None or len(values) < len(names):
            return []
        bindings.append({n: v for n, v in zip(names, values, strict=False) if n})
    return bindings


def _literal_items(node: Node, ctx: Ctx, mod: Module) -> list | None:
    if node.type == "call_expression":
        func, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        method = node_text(func) if func is not None else ""
        arg_nodes = named(args) if args is not None else []
        if method not in ("Object.entries", "Object.keys", "Object.values") or len(arg_nodes) != 1:
            return None
        value = eval_value(arg_nodes[0], ctx, mod)
        if not isinstance(value, dict):
            return None
        if method == "Object.keys":
            return list(value)
        return [list(kv) for kv in value.items()] if method == "Object.entries" else list(value.values())
    value = eval_value(node, ctx, mod)
    return value if isinstance(value, list) else None


def _registered_tool(call: Node, ctx: Ctx, mod: Module) -> Found | None:
    """Shape (b): ``server.registerTool(name, config, cb)`` / ``server.tool(name, [desc], [shape], ..., cb)``."""
    func = call.child_by_field_name("function")
    if func is None or func.type != "member_expression":
        return None
    prop = func.child_by_field_name("property")
    method = node_text(prop) if prop is not None else ""
    if method not in _REGISTER_METHODS:
        return None
    args_node = call.child_by_field_name("arguments")
    args = named(args_node) if args_node is not None else []
    if len(args) < 2:
        return None
    ctx.flags = set()
    name = eval_str(args[0], ctx, mod)
    if not isinstance(name, str) or not name:
        if method == "tool" and args[0].type not in ("identifier", "member_expression"):
            return None  # some other .tool(...) API, not an MCP registration
        return Found("", None, None, {}, mod.path, {"unresolved_name"})
    flags: set[str] = set()
    if method == "registerToolTask":
        flags.add("task_tool")
    if method in ("registerTool", "registerToolTask"):
        tool_config, cmod = ctx.deref(args[1], mod)
        if tool_config.type != "object":
            return Found(name, None, None, dict(_EMPTY_SCHEMA), mod.path, set(ctx.flags) | {"unresolved_config"})
        entries = object_entries(tool_config, ctx, cmod)
        title, description = _config_fields(entries, ctx)
        schema_entry = entries.get("inputSchema")
        params = input_schema(schema_entry[0], ctx, schema_entry[1]) if schema_entry else dict(_EMPTY_SCHEMA)
        return Found(name, title, description, params, mod.path, set(ctx.flags) | flags)
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
    return Found(name, None, description, params, mod.path, set(ctx.flags) | flags)


def _looks_like_raw_shape(node: Node, ctx: Ctx, mod: Module) -> bool:
    """Tell ``server.tool()``'s zod shape argument from its annotations object (plain literals)."""
    target, tmod = ctx.deref(node, mod)
    if target.type != "object":
        return target.type in ("call_expression", "member_expression")
    literal = ("true", "false", "string", "number", "template_string", "null")
    return not any(ctx.deref(v, m)[0].type in literal for v, m in object_entries(target, ctx, tmod).values())


def find_tools(ctx: Ctx, mod: Module) -> Iterator[Found]:
    """Every tool of both shapes in a module, in source order."""
    for node in walk(mod.root):
        if node.has_error:
            continue  # a tool written across a region the parser could not read is not guessed at
        if node.type == "object":
            found = _literal_tool(node, ctx, mod)
            if found is not None:
                yield found
        elif node.type == "call_expression":
            yield from _registered_tools(node, ctx, mod)
