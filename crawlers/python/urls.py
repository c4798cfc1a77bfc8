"""URLs in a Python package's source: a tool's endpoints and the documentation links of its docstrings.

Endpoints come from base_url-like fields and URL-named module constants, and from URL literals passed
to calls; which URLs are not endpoints is ``crawlers.vocabulary.PYTHON_NON_ENDPOINT_URL``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from crawlers.python.evaluate import Evaluator
from crawlers.python.index import ClassRef, ModuleInfo, PackageIndex
from crawlers.python.metadata import dedupe
from crawlers.python.schema import as_field_call, keyword_arg
from crawlers.vocabulary import PYTHON_NON_ENDPOINT_URL

URL_RE = re.compile(r"https?://[^\s\"'<>`)\]}]+")
_URL_FIELD = re.compile(r"(url|endpoint|host|base|api|server|uri)", re.I)


def clean_url(url: str) -> str:
    return url.rstrip(".,;:'\"")


def endpoint_urls(index: PackageIndex, info: ModuleInfo, classes: Iterable[ClassRef]) -> list[str]:
    """URLs from base_url-like fields of ``classes`` and URL-named module constants of their modules."""
    ev = Evaluator(index)
    urls: list[str] = []
    seen_modules: set[str] = set()

    def add(value: Any) -> None:
        if isinstance(value, str):
            for url in URL_RE.findall(value):
                url = clean_url(url)
                if not PYTHON_NON_ENDPOINT_URL.search(url) and url not in urls:
                    urls.append(url)

    for cls in classes:
        for stmt in cls.node.body:
            target = (
                stmt.target
                if isinstance(stmt, ast.AnnAssign)
                else (stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None)
            )
            if isinstance(target, ast.Name) and _URL_FIELD.search(target.id):
                value = stmt.value
                fc = as_field_call(value)
                if fc is not None:
                    value = fc.args[0] if fc.args else keyword_arg(fc, "default")
                add(ev.try_eval(cls.module, value))
        # URL literals passed to calls inside methods (requests.get("https://..."))
        for node in ast.walk(cls.node):
            if isinstance(node, ast.Call):
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    if isinstance(arg, ast.Constant | ast.JoinedStr):
                        add(ev.try_eval(cls.module, arg))
        if cls.module.name not in seen_modules:
            seen_modules.add(cls.module.name)
            for name, value in cls.module.constants.items():
                if _URL_FIELD.search(name):
                    add(ev.try_eval(cls.module, value))
    return urls


def module_endpoints(index: PackageIndex, info: ModuleInfo) -> list[str]:
    """URLs held by URL-named module constants (``BASE_URL = "https://..."``)."""
    ev = Evaluator(index)
    urls: list[str] = []
    for name, value in info.constants.items():
        if _URL_FIELD.search(name):
            text = ev.try_eval(info, value)
            if isinstance(text, str):
                urls.extend(clean_url(u) for u in URL_RE.findall(text) if not PYTHON_NON_ENDPOINT_URL.search(u))
    return dedupe(urls)


_DOC_URL = re.compile(r"(docs?\.|/docs?\b|documentation|readthedocs|/api-reference|/reference/|developers?\.)", re.I)


def doc_urls_in(text: str) -> list[str]:
    """Documentation-looking URLs mentioned in a docstring or README."""
    return dedupe(clean_url(u) for u in URL_RE.findall(text) if _DOC_URL.search(u))
