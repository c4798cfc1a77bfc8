"""Safe evaluation of the literal shapes tool metadata is written in.

``Evaluator`` is a tiny evaluator for strings, concatenation, ``textwrap.dedent``, ``.strip()``,
f-strings, references to module constants through imports, lists/tuples/dicts and simple
comprehensions. It only reads ``ast`` nodes: nothing from a crawled package is executed.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from typing import Any

from crawlers.python.index import MAX_REF_DEPTH, ModuleInfo, PackageIndex, Symbol


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
                out[k] = Opaque(info, value)  # keep the node: callers may resolve it otherwise
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
        if isinstance(value, Opaque):
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
class Opaque:
    """A dict value that did not evaluate, kept as its node so a caller can resolve it another way."""

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
