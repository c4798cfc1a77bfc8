"""Package-level metadata: env vars, endpoints, doc URLs, deprecation notices and the service name.

One server process serves every tool, so these are read once per package and shared by its tools.
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node

from crawlers.base import AuthType
from crawlers.mcp.syntax import named, node_text, string_literal, walk
from crawlers.vocabulary import MCP_NON_ENDPOINT_URL

SCOPE_PREFIX = "@modelcontextprotocol/server-"
_URL_RE = re.compile(r"^https?://[^\s\"'<>]+$")
_README_DEPRECATED_RE = re.compile(
    r"deprecation notice|\bdeprecated\b|\barchived\b|no longer (maintained|supported)|\bunmaintained\b", re.I
)


def env_vars(root: Node) -> list[str]:
    """Env var names the code reads: ``process.env.X``, ``process.env["X"]``, ``import.meta.env.X`` and
    ``const {X} = process.env``."""
    names: list[str] = []
    for node in walk(root):
        name = None
        if node.type in ("member_expression", "subscript_expression"):
            obj = node.child_by_field_name("object")
            if obj is None or node_text(obj) not in ("process.env", "import.meta.env"):
                continue
            if node.type == "member_expression":
                prop = node.child_by_field_name("property")
                name = node_text(prop) if prop is not None else None
            else:
                index = node.child_by_field_name("index")
                name = string_literal(index) if index is not None and index.type == "string" else None
        elif node.type == "variable_declarator":
            # const { A, B: b } = process.env
            pattern, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if (
                pattern is None
                or value is None
                or pattern.type != "object_pattern"
                or node_text(value) != "process.env"
            ):
                continue
            for part in named(pattern):
                key = part.child_by_field_name("key") if part.type == "pair_pattern" else part
                if key is not None and key.type in ("shorthand_property_identifier_pattern", "property_identifier"):
                    names.append(node_text(key))
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


def readme_env_declared(readme: str) -> list[str]:
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


def endpoint_urls(root: Node) -> list[str]:
    """Whole-URL string literals and templates that are not ``MCP_NON_ENDPOINT_URL``, in source order."""
    urls: list[str] = []
    for node in walk(root):
        if node.type == "string":
            text = string_literal(node)
        elif node.type == "template_string":
            # substitutions kept as {expr}: a templated endpoint stays recognisable as one
            text = _template_with_holes(node)
        else:
            continue
        if _URL_RE.match(text) and not MCP_NON_ENDPOINT_URL.match(text):
            urls.append(text)
    return urls


def _template_with_holes(node: Node) -> str:
    raw = node_text(node)[1:-1]
    return re.sub(r"\$\{([^}]*)\}", lambda m: "{" + m.group(1).strip() + "}", raw)


def repo_url(value: Any) -> str | None:
    """A browsable URL for package.json's ``homepage`` / ``repository`` (git+, git://, git@, ``owner/repo``)."""
    url = value.get("url") if isinstance(value, dict) else value
    if not isinstance(url, str) or not url:
        return None
    url = re.sub(r"^git\+", "", url)
    url = re.sub(r"^git://", "https://", url)
    url = re.sub(r"^git@([^:]+):", r"https://\1/", url)
    if re.fullmatch(r"[\w.-]+/[\w.-]+", url):  # npm shorthand "owner/repo"
        url = f"https://github.com/{url}"
    return re.sub(r"\.git$", "", url)


def readme_notice(readme: str) -> tuple[bool, str | None]:
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


def package_auth_type(env: list[str], oauth_import: bool) -> AuthType:
    """oauth2 for an OAuth import or an ``OAUTH`` env var, api_key for any other credential env var."""
    if oauth_import or any("OAUTH" in n.upper() for n in env):
        return "oauth2"
    if env:
        return "api_key"
    return "none"
