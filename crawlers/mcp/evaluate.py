"""Literal evaluation of JS expressions: strings, templates, concatenation, numbers, arrays and objects.

Only literals, identifiers bound to literals (same module or imported from a sibling ``dist`` module)
are evaluated; what cannot be is ``UNRESOLVED``.
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node

from crawlers.mcp.modules import MAX_DEPTH, Ctx, Module
from crawlers.mcp.syntax import named, node_text, string_literal, unescape


class _Unresolved:
    def __repr__(self) -> str:
        return "UNRESOLVED"


UNRESOLVED: Any = _Unresolved()


def _template_text(node: Node, ctx: Ctx, mod: Module, placeholders: bool) -> str | Any:
    parts: list[str] = []
    body = node.text[1:-1] if node.text else b""
    cursor = node.start_byte + 1
    for child in node.children:
        if child.type != "template_substitution":
            continue
        chunk = body[cursor - node.start_byte - 1 : child.start_byte - node.start_byte - 1]
        parts.append(unescape(chunk.decode("utf-8", errors="replace")))
        inner = named(child)
        value = eval_str(inner[0], ctx, mod) if inner else UNRESOLVED
        if value is UNRESOLVED:
            if not placeholders:
                return UNRESOLVED
            ctx.flags.add("template_placeholder")
            value = "{" + (node_text(inner[0]) if inner else "") + "}"
        parts.append(value)
        cursor = child.end_byte
    parts.append(unescape(body[cursor - node.start_byte - 1 :].decode("utf-8", errors="replace")))
    return "".join(parts)


def eval_str(node: Node, ctx: Ctx, mod: Module, placeholders: bool = False) -> str | Any:
    """A string value: literals, substitution-free templates, ``+`` concatenation, bound identifiers."""
    if node.type == "identifier" and node_text(node) in ctx.loop_values:
        value = ctx.loop_values[node_text(node)]
        return value if isinstance(value, str) else UNRESOLVED
    node, mod = ctx.deref(node, mod)
    if node.type == "string":
        return string_literal(node)
    if node.type == "template_string":
        return _template_text(node, ctx, mod, placeholders)
    if node.type == "number":
        return node_text(node)
    if node.type == "binary_expression" and node_text(node.child_by_field_name("operator") or node) == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return UNRESOLVED
        lv, rv = eval_str(left, ctx, mod, placeholders), eval_str(right, ctx, mod, placeholders)
        if lv is UNRESOLVED or rv is UNRESOLVED:
            if not placeholders:
                return UNRESOLVED
            lv = "{" + node_text(left) + "}" if lv is UNRESOLVED else lv
            rv = "{" + node_text(right) + "}" if rv is UNRESOLVED else rv
            ctx.flags.add("template_placeholder")
        ctx.flags.add("concatenated")
        return lv + rv
    return UNRESOLVED


def prop_key(key: Node) -> str | None:
    """An object key as written (identifier, string or number); None for a computed key."""
    if key.type in ("property_identifier", "identifier", "private_property_identifier"):
        return node_text(key)
    if key.type == "string":
        return string_literal(key)
    if key.type == "number":
        return node_text(key)
    return None  # computed keys are not evaluated


def object_entries(node: Node, ctx: Ctx, mod: Module, depth: int = 0) -> dict[str, tuple[Node, Module]]:
    """Key -> (value node, its module) of an object literal, spreads of literal objects merged in."""
    out: dict[str, tuple[Node, Module]] = {}
    for child in named(node):
        if child.type == "pair":
            key = child.child_by_field_name("key")
            value = child.child_by_field_name("value")
            name = prop_key(key) if key is not None else None
            if name is not None and value is not None:
                out[name] = (value, mod)
        elif child.type == "shorthand_property_identifier":
            out[node_text(child)] = (child, mod)
        elif child.type == "spread_element" and named(child) and depth < MAX_DEPTH:
            target, tmod = ctx.deref(named(child)[0], mod)
            if target.type == "object":
                out.update(object_entries(target, ctx, tmod, depth + 1))
    return out


def eval_value(node: Node, ctx: Ctx, mod: Module, depth: int = 0) -> Any:
    """A JSON-like value, or UNRESOLVED. Unresolvable members of objects/arrays are dropped."""
    if depth > MAX_DEPTH:
        return UNRESOLVED
    node, mod = ctx.deref(node, mod)
    text = node_text(node)
    if node.type in ("string", "template_string", "binary_expression"):
        return eval_str(node, ctx, mod)
    if node.type == "number":
        return _number(text)
    if node.type == "unary_expression" and text.startswith("-"):
        inner = named(node)
        value = eval_value(inner[0], ctx, mod, depth + 1) if inner else UNRESOLVED
        return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else UNRESOLVED
    if node.type in ("true", "false"):
        return node.type == "true"
    if node.type == "null":
        return None
    if node.type == "array":
        items = _array_items(node, ctx, mod, depth)
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
    if ctx.external is not None:
        value = ctx.external(text)
        if value is not None:
            return value
    return UNRESOLVED


def _array_items(node: Node, ctx: Ctx, mod: Module, depth: int) -> list[Any]:
    """An array literal's values; ``...x`` of an array literal contributes its items."""
    items: list[Any] = []
    for child in named(node):
        if child.type != "spread_element":
            items.append(eval_value(child, ctx, mod, depth + 1))
            continue
        spread = named(child)
        target, tmod = ctx.deref(spread[0], mod) if spread else (child, mod)
        if target.type == "array" and depth < MAX_DEPTH:
            items.extend(_array_items(target, ctx, tmod, depth + 1))
        # a spread of anything else is left out, as an unresolvable member is
    return items


def _number(text: str) -> int | float | Any:
    clean = text.replace("_", "")
    try:
        if clean.lower().startswith(("0x", "0o", "0b")):
            return int(clean, 0)
        return int(clean) if re.fullmatch(r"\d+", clean) else float(clean)
    except ValueError:
        return UNRESOLVED
