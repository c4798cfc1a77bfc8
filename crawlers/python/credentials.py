"""Credentials a tool needs, harvested from its source: env var names and secret-holding fields.

``AuthInfo`` collects env var names with their provenance (declared by a field helper or README versus
read by the code), credential field names and OAuth / basic-auth hints; ``tool_auth`` gathers them over
a tool's classes, the in-package classes its fields are typed with and the helper functions they call.
Which names count as secrets is ``crawlers.vocabulary``'s (``SECRET_FIELD`` and its neighbours).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from crawlers.python.evaluate import Evaluator
from crawlers.python.index import ClassRef, ModuleInfo, PackageIndex, Symbol
from crawlers.python.schema import is_classvar, keyword_arg
from crawlers.vocabulary import API_KEY_NAMES, NOT_SECRET_FIELD, OAUTH_HINT, SECRET_FIELD

_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")


def is_secret_field(name: str) -> bool:
    return bool(SECRET_FIELD.search(name)) and not NOT_SECRET_FIELD.search(name)


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

    def tool_fields(self, declared: list[str] | None = None) -> dict[str, Any]:
        """The credential fields of an :class:`~crawlers.base.ExtractedTool`; ``declared`` replaces the declared
        env vars where the extractor decides them otherwise (LlamaIndex: from the README)."""
        return {
            "auth_type": self.auth_type(),
            "auth_env_vars": self.env_vars,
            "env_vars_declared": list(self.env_declared) if declared is None else declared,
            "env_vars_read": list(self.env_read),
            "auth_credentials": self.credentials,
        }

    def auth_type(self) -> str:
        if self.oauth:
            return "oauth2"
        names = " ".join(self.env_vars + self.credentials).lower()
        if not names:
            return "none"
        if API_KEY_NAMES.search(names):
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
                    arg = (
                        node.args[pos]
                        if len(node.args) > pos
                        else (keyword_arg(node, "env_key") or keyword_arg(node, "key"))
                    )
                    value = ev.try_eval(info, arg)
                    for env in value if isinstance(value, list | tuple) else [value]:
                        out.add_env(env, kind)
                elif short in {"HTTPBasicAuth", "BasicAuth"}:
                    out.basic = True
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and len(node.value) < 300
                and OAUTH_HINT.search(node.value)
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
                and not is_classvar(stmt.annotation)
            ):
                names.append(stmt.target.id)
    else:
        a = node.args
        names = [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    return [n for n in names if is_secret_field(n.lstrip("_"))]


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
