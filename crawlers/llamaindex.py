"""LlamaIndex tools (llama-index-tools-* packages), read statically.

A tool spec is a class whose ancestry reaches ``llama_index``'s ``BaseToolSpec``; each entry of its
``spec_functions`` (a method name, or a ``(sync, async)`` pair) becomes one ``FunctionTool`` at run
time: name = method name, description = method docstring, parameters = the signature plus the
docstring's ``Args:`` section. ``local_id`` is ``SpecClass.method``.

Env var provenance: ``env_vars_read`` are the names the code reads directly (``os.environ[...]``,
``os.getenv``, ``os.environ.get``, ``"X" in os.environ``) in the spec class, its in-package bases,
the classes its fields are typed with and module-level helpers they call (a ``FunctionTool`` factory:
its whole module). ``env_vars_declared`` are the names the package README (the wheel's METADATA body)
declares: credential-like names (``X_API_KEY``, ``X_TOKEN``...) and names an example sets or reads
(``export X=``, ``os.environ["X"]``); see ``_readme_env_declared`` / ``_readme_declared``. llama-index
has no declaration mechanism of its own, and the README is package-wide, so every tool of the package
shares it.
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import Any

from crawlers.base import ExtractedTool, Extraction, PackageFiles
from crawlers.python.credentials import AuthInfo, harvest_auth, secret_fields, tool_auth
from crawlers.python.evaluate import Evaluator, Unresolved, bind_target
from crawlers.python.index import ClassRef, ModuleInfo, PackageIndex, Symbol
from crawlers.python.metadata import dedupe, deprecation, in_namespaces, read_metadata, want_python
from crawlers.python.schema import clean_docstring, signature_schema
from crawlers.python.urls import doc_urls_in, endpoint_urls, module_endpoints
from crawlers.vocabulary import (
    LLM_PROVIDER_KEY,
    README_CREDENTIAL,
    README_ENV,
    README_GENERIC_NAMES,
    README_PLACEHOLDER_NAME,
)

# Declared side: any credential-like name, also with several segments (``README_CREDENTIAL``), and any
# name the README sets or reads in an example (export X=, .env lines, os.environ["X"], os.getenv("X")):
# a README's word for "set this variable".
_README_SET_SHELL = re.compile(r"^\s*(?:export\s+|set\s+|\$env:)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=(?!=)", re.M)
_README_SET_PY = re.compile(r"""(?:environ\[|environ\.get\(|getenv\()\s*["']([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)["']""")


def _readme_env_declared(body: str) -> list[str]:
    """Env var names a README declares, in order of appearance (``.env``/shell lines are
    ``NAME=value`` without spaces, so a Python ``CONSTANT = ...`` in an example does not count)."""
    found = sorted(
        [(m.start(1), m.group(1)) for m in _README_SET_SHELL.finditer(body)]
        + [(m.start(1), m.group(1)) for m in _README_SET_PY.finditer(body)]
        + [(m.start(), m.group(0)) for m in README_CREDENTIAL.finditer(body)]
    )
    return dedupe(
        name for _, name in found if name not in README_GENERIC_NAMES and not README_PLACEHOLDER_NAME.match(name)
    )


want = want_python  # modules and package metadata
_is_llama = in_namespaces("llama_index")


def extract(package: PackageFiles) -> Extraction:
    out = Extraction()
    index = PackageIndex(package.files)
    meta = read_metadata(package.files)
    readme_env = dedupe(README_ENV.findall(meta.body))
    readme_declared = _readme_env_declared(meta.body)
    for cls in _spec_classes(index):
        names = _spec_functions(index, cls, out)
        if names is None:
            continue
        docs = _assigned_docs(index, cls)
        for sync_name, async_name in names:
            tool = _tool(
                index, package, cls, sync_name or async_name, docs, meta.doc_urls(), readme_env, readme_declared
            )
            if tool is None:
                out.skipped["method_not_found"] += 1
            else:
                out.tools.append(tool)
    _factory_tools(index, package, meta.doc_urls(), readme_env, readme_declared, out)
    out.errors.extend(index.errors)
    return out


def _spec_classes(index: PackageIndex) -> list[ClassRef]:
    """Subclasses of ``BaseToolSpec``, also through a spec class of another llama-index package
    (``llama_index.tools.graphql.base.GraphQLToolSpec``)."""
    return [
        cls
        for cls in index.classes()
        if any(_is_llama(ext) and ext.endswith("ToolSpec") for ext in index.external_bases(cls))
    ]


def _spec_functions(index: PackageIndex, cls: ClassRef, out: Extraction) -> list[tuple[str, str]] | None:
    found = index.class_attr(cls, "spec_functions")
    if found is None or found[1] is None:
        out.skipped["no_spec_functions"] += 1
        return None
    owner, value, _ = found
    try:
        entries = Evaluator(index).eval(owner.module, value)
    except Unresolved:
        out.skipped["unresolved_spec_functions"] += 1
        return None
    if not isinstance(entries, list | tuple) or not entries:
        # filled in at run time (Zapier actions, MCP servers): nothing to list statically
        out.skipped["runtime_only_empty_spec"] += 1
        return None
    pairs = []
    for entry in entries:
        if isinstance(entry, str):
            pairs.append((entry, ""))
        elif isinstance(entry, list | tuple) and len(entry) == 2:
            pairs.append((entry[0] or "", entry[1] or ""))
    return pairs


def _tool(
    index: PackageIndex,
    package: PackageFiles,
    cls: ClassRef,
    method_name: str,
    docs: dict[str, tuple[str, bool]],
    meta_docs: list[str],
    readme_env: list[str],
    readme_declared: list[str],
) -> ExtractedTool | None:
    found = index.method(cls, method_name)
    if found is None:
        return None
    owner, func = found
    flags: set[str] = set()
    doc = ast.get_docstring(func) or ""
    if not doc and method_name in docs:
        doc, dynamic = docs[method_name]
        flags.add("assigned_doc")
        if dynamic:
            flags.add("dynamic_description")
    if owner != cls:
        flags.add("inherited")
    parameters = signature_schema(index, owner.module, func, doc=doc)
    auth, related = tool_auth(index, index.mro(cls))
    declared = _readme_declared(auth, readme_declared)
    _add_readme_env(auth, readme_env, flags)
    deprecated, replacement = deprecation(cls.node, cls.module, index)
    title = _title(cls.node.name)
    return ExtractedTool(
        local_id=f"{cls.node.name}.{method_name}",
        name=method_name,
        description=inspect.cleandoc(doc) if doc else "",
        source_path=owner.module.path,
        display_name=f"{title}: {method_name}",
        service=_service(cls.module.path, title),
        parameters=parameters,
        **auth.tool_fields(declared),
        endpoints=endpoint_urls(index, cls.module, related),
        doc_urls=dedupe([*doc_urls_in(clean_docstring(cls.node)), *meta_docs]),
        deprecated=deprecated,
        replacement=replacement,
        flags=sorted(flags),
    )


def _readme_declared(auth: AuthInfo, readme_declared: list[str]) -> list[str]:
    """The env vars the package README tells the user to set, as this tool's declared ones.

    Unlike the ``auth_env_vars`` fallback below, this applies whether or not the code reads anything:
    it is the declaration side of a read/declared comparison. LLM provider keys a README exports for
    the agent are left out, except those this tool's own code reads (then the README documents them).
    Names declared in code (``secret_from_env``-style helpers, rare in llama-index) come first.
    """
    names = [env for env in readme_declared if not LLM_PROVIDER_KEY.match(env) or env in auth.env_read]
    return dedupe([*auth.env_declared, *names])


def _add_readme_env(auth: AuthInfo, readme_env: list[str], flags: set[str]) -> None:
    # The README is a fallback only (the slack token is read in a dependency package): the source
    # knows better, and README examples also export the agent's LLM key, which is not the tool's.
    extra = [env for env in readme_env if not LLM_PROVIDER_KEY.match(env)]
    if extra and not auth.env_vars:
        flags.add("readme_env")
        for env in extra:
            auth.add_env(env)


def _title(class_name: str) -> str:
    return re.sub(r"(ToolSpec|Spec|Tools?)$", "", class_name) or class_name


def _service(path: str, title: str) -> str:
    parts = path.split("/")
    if len(parts) > 3 and parts[0] == "llama_index" and parts[1] == "tools":
        return parts[2].lower()
    return re.sub(r"(?<!^)(?=[A-Z])", "_", title).lower()


# -- docstrings attached after the class body ---------------------------------------------------


class _LenientEvaluator(Evaluator):
    """Also passes through one-argument calls to package helpers (``_localize(text)``), flagged:
    the text is then close to, not exactly, what the model sees."""

    def _eval_Call(self, info, node, env, depth):
        try:
            return super()._eval_Call(info, node, env, depth)
        except Unresolved:
            sym = self.index.resolve_expr(info, node.func)
            if isinstance(sym, Symbol) and sym.kind == "function" and len(node.args) == 1:
                self.flags.add("dynamic_description")
                return self.eval(info, node.args[0], env, depth)
            raise


def _assigned_docs(index: PackageIndex, cls: ClassRef) -> dict[str, tuple[str, bool]]:
    """``Cls.method.__doc__ = ...`` statements at module level, also inside a ``for`` loop over a
    module constant (``for sync, async_ in _TOOLS: getattr(Cls, sync).__doc__ = ...``)."""
    out: dict[str, tuple[str, bool]] = {}
    module = cls.module
    for stmt in module.tree.body:
        if isinstance(stmt, ast.For):
            ev = _LenientEvaluator(index)
            try:
                items = ev.eval(module, stmt.iter)
            except Unresolved:
                continue
            for item in items if isinstance(items, list | tuple) else []:
                env: dict[str, Any] = {}
                try:
                    bind_target(stmt.target, item, env)
                except Unresolved:
                    continue
                _run_block(index, module, cls, stmt.body, env, out)
        else:
            _run_block(index, module, cls, [stmt], {}, out)
    return out


def _run_block(
    index: PackageIndex,
    module: ModuleInfo,
    cls: ClassRef,
    body: list[ast.stmt],
    env: dict[str, Any],
    out: dict[str, tuple[str, bool]],
) -> None:
    ev = _LenientEvaluator(index)  # one per block: a flag on ``_doc = f(x)`` must reach ``__doc__ = _doc``
    for stmt in body:
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        target = stmt.targets[0]
        if isinstance(target, ast.Name):
            try:
                env[target.id] = ev.eval(module, stmt.value, env)
            except Unresolved:
                env.pop(target.id, None)
            continue
        if not (isinstance(target, ast.Attribute) and target.attr == "__doc__"):
            continue
        method = _doc_target(target.value, cls, env)
        if method is None:
            continue
        try:
            text = ev.eval(module, stmt.value, env)
        except Unresolved:
            continue
        if isinstance(text, str):
            out[method] = (text, "dynamic_description" in ev.flags)


def _doc_target(node: ast.expr, cls: ClassRef, env: dict[str, Any]) -> str | None:
    """The method named by ``Cls.method`` or ``getattr(Cls, name)``."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == cls.node.name:
        return node.attr
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == cls.node.name
    ):
        arg = node.args[1]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
        if isinstance(arg, ast.Name) and isinstance(env.get(arg.id), str):
            return env[arg.id]
    return None


# -- FunctionTool.from_defaults(...) factories --------------------------------------------------


def _factory_tools(
    index: PackageIndex,
    package: PackageFiles,
    meta_docs: list[str],
    readme_env: list[str],
    readme_declared: list[str],
    out: Extraction,
) -> None:
    seen = {t.local_id for t in out.tools}
    for module in index.modules():
        if "from_defaults" not in index.source_text(module.name):
            continue
        for node in ast.walk(module.tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "from_defaults"
            ):
                continue
            ref = index.class_ref(module, node.func.value)
            if not (isinstance(ref, str) and _is_llama(ref) and ref.endswith("FunctionTool")):
                continue
            tool = _factory_tool(index, module, node, meta_docs, readme_env, readme_declared)
            if tool is None:
                out.skipped["factory_dynamic_name"] += 1
            elif tool.local_id not in seen:
                seen.add(tool.local_id)
                out.tools.append(tool)


def _factory_tool(
    index: PackageIndex,
    module: ModuleInfo,
    call: ast.Call,
    meta_docs: list[str],
    readme_env: list[str],
    readme_declared: list[str],
) -> ExtractedTool | None:
    kws = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    fn_node = kws.get("fn") or kws.get("async_fn") or (call.args[0] if call.args else None)
    func = None
    if isinstance(fn_node, ast.Name):
        sym = index.member(module, fn_node.id)
        if isinstance(sym, Symbol) and sym.kind == "function":
            func = sym.node
        else:  # a nested function defined in the enclosing factory
            func = next(
                (
                    n
                    for n in ast.walk(module.tree)
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == fn_node.id
                ),
                None,
            )
    ev = Evaluator(index)
    name = ev.eval_str(module, kws.get("name")) if "name" in kws else (func.name if func else None)
    if not name:
        return None
    flags = set(ev.flags) | {"factory"}
    description = ev.eval_str(module, kws.get("description")) or ""
    doc = ast.get_docstring(func) or "" if func is not None else ""
    if not description and doc:
        description = doc
        flags.add("docstring_description")
    parameters = signature_schema(index, module, func) if func is not None else {"type": "object", "properties": {}}
    auth = harvest_auth(index, module, [module.tree])
    declared = _readme_declared(auth, readme_declared)
    _add_readme_env(auth, readme_env, flags)
    if func is not None:
        for cred in secret_fields(func):
            auth.add_credential(cred)
    return ExtractedTool(
        local_id=name,
        name=name,
        description=description.strip(),
        source_path=module.path,
        display_name=name,
        service=_service(module.path, name),
        parameters=parameters,
        **auth.tool_fields(declared),
        endpoints=module_endpoints(index, module),
        doc_urls=list(meta_docs),
        flags=sorted(flags),
    )
