"""Package-level facts the Python extractors share.

The wheel's METADATA (summary, Project-URLs, README body), which archive members to read, a short
service name from a module path, ``@deprecated`` on a class, and an order-keeping ``dedupe``.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.parser import HeaderParser

from crawlers.python.evaluate import Evaluator
from crawlers.python.index import ModuleInfo, PackageIndex, decorator_call
from crawlers.python.schema import keyword_arg


@dataclass
class Metadata:
    name: str = ""
    summary: str = ""
    home_page: str = ""
    project_urls: dict[str, str] = field(default_factory=dict)
    keywords: list[str] = field(default_factory=list)
    body: str = ""
    classifiers: list[str] = field(default_factory=list)
    requires: list[str] = field(default_factory=list)  # Requires-Dist project names, markers and extras dropped

    def doc_urls(self) -> list[str]:
        """Documentation first, then Homepage; other Project-URLs are not docs."""
        out: list[str] = []
        for label, url in sorted(self.project_urls.items(), key=lambda kv: _doc_rank(kv[0])):
            if _doc_rank(label) < 3 and url not in out:
                out.append(url)
        if self.home_page and self.home_page not in out:
            out.append(self.home_page)
        return out


def _doc_rank(label: str) -> int:
    low = label.lower().replace("-", "").replace("_", "")
    if "doc" in low:
        return 0
    if low in {"homepage", "home"}:
        return 1
    return 3


def read_metadata(files: dict[str, bytes]) -> Metadata:
    path = next((p for p in files if p.endswith(".dist-info/METADATA")), None) or next(
        (p for p in files if p.endswith("PKG-INFO")), None
    )
    if path is None:
        return Metadata()
    msg = HeaderParser().parsestr(files[path].decode("utf-8", errors="replace"))
    meta = Metadata(name=msg.get("Name", ""), summary=msg.get("Summary", ""), home_page=msg.get("Home-page", ""))
    for entry in msg.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if url.strip():
            meta.project_urls[label.strip()] = url.strip()
    meta.keywords = [k.strip() for k in re.split(r"[,\s]+", msg.get("Keywords", "")) if k.strip()]
    meta.body = msg.get_payload() if isinstance(msg.get_payload(), str) else ""
    meta.classifiers = [c.strip() for c in msg.get_all("Classifier") or []]
    meta.requires = [
        m.group(0) for r in msg.get_all("Requires-Dist") or [] if "extra ==" not in r and (m := _REQ_NAME.match(r))
    ]
    return meta


_REQ_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def want_python(path: str) -> bool:
    """Archive members every Python extractor reads: modules and package metadata."""
    return (path.endswith(".py") and ".dist-info/" not in path) or path.endswith((".dist-info/METADATA", "PKG-INFO"))


def in_namespaces(*prefixes: str) -> Callable[[str], bool]:
    """A filter on qualified names: those that start with one of ``prefixes`` (the platform's own packages)."""
    return lambda qualname: qualname.startswith(prefixes)


_GENERIC_PARTS = {
    "tools",
    "tool",
    "toolkit",
    "toolkits",
    "agent_toolkits",
    "base",
    "utils",
    "utilities",
    "__init__",
    "langchain",
    "llama_index",
    "crewai_tools",
    "core",
    "src",
    "adapters",
    "integrations",
    "common",
    "agent_toolkit",
    "agent",
    "agents",
    "load_tools",
    "tool_spec",
}
_SERVICE_SUFFIXES = re.compile(r"(_tools?|_toolkit|_toolspec|_spec)$")


def service_from_path(path: str, skip: Iterable[str] = ()) -> str:
    """Short service name from a module path: ``tools/gmail/send.py`` → ``gmail``."""
    parts = [p for p in posixpath.splitext(path)[0].split("/")]
    skipped = _GENERIC_PARTS | set(skip)
    for part in parts[:-1] + parts[-1:]:
        if part in skipped or part.startswith("_"):
            continue
        name = _SERVICE_SUFFIXES.sub("", part)
        if name and name not in skipped:
            return name.lower()
    return ""


def dedupe(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item and item not in out:
            out.append(item)
    return out


def deprecation(node: ast.ClassDef, info: ModuleInfo, index: PackageIndex) -> tuple[bool, str | None]:
    """``@deprecated(..., alternative_import=..., alternative=...)`` on a class."""
    dec = decorator_call(node, "deprecated")
    if dec is None:
        return False, None
    if not isinstance(dec, ast.Call):
        return True, None
    ev = Evaluator(index)
    for key in ("alternative_import", "alternative"):
        value = ev.eval_str(info, keyword_arg(dec, key))
        if value:
            return True, value
    return True, None
