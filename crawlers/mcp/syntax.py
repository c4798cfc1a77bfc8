"""Reading tree-sitter JavaScript nodes: children, source text, string literals, a depth-first walk."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node


def named(node: Node) -> list[Node]:
    """Named children without comments."""
    return [c for c in node.named_children if c.type not in ("comment", "html_comment")]


def node_text(node: Node) -> str:
    """The source text of a node."""
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""


def string_literal(node: Node) -> str:
    """The value of a JS string literal node."""
    return unescape(node_text(node)[1:-1])


_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE_RE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])")


def unescape(raw: str) -> str:
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


def walk(node: Node) -> Iterator[Node]:
    """Every node under ``node``, in source order."""
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(cur.children))
