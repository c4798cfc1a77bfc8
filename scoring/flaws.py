"""Structural flaws of a tool's metadata: the paper's "broken links, missing authentication" and kin.

Each rule is a small function ``rule(tool) -> Flaw | None`` over one scored-catalog row (a dict).
``critical`` flaws are the ones that make a tool unlikely to run as described (no description, an
undeclared credential, a dead link, deprecated, runtime-only, an injected instruction); ``warning``
flaws make it harder to choose correctly. Offline, links stay ``unknown`` and are never a flaw. Likewise a field the
tool's source could not show (its ``unknown_fields``: the n8n listing copy's auth, docs and parameters) is never a
flaw, neither as present nor as missing; the score summary counts those fields per listing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from schemas.scored_tool import Flaw
from schemas.unknown_fields import is_known

_PLACEHOLDERS = {
    "", "todo", "tbd", "n a", "na", "none", "null", "description", "tool description", "no description",
    "placeholder", "a tool", "tool", "test", "lorem ipsum", "add description here", "your description here",
}  # fmt: skip
# Instructions aimed at the model rather than a description of the tool (prompt injection).
_INJECTION = re.compile(
    r"ignore (all |any )?(the )?(previous|prior|above|earlier) (instructions|prompts?)|disregard (all |any )?(previous|"
    r"prior|above) |you are now |reveal (the |your )?system prompt|system prompt:|</?(system|instructions?)>",
    re.IGNORECASE,
)
_STOP = {"tool", "tools", "the", "and", "for", "with", "from", "into", "api", "get", "run", "use", "using", "node"}
_DEAD = {"client_error", "server_error", "dns_error", "timeout"}


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _words(text: str) -> set[str]:
    from scoring.reliability import name_as_words

    return {w for w in _norm(name_as_words(text)).split() if len(w) >= 3 and w not in _STOP}


def _text(tool: dict) -> str:
    return (tool.get("description") or "").strip()


def missing_description(tool: dict) -> Flaw | None:
    if not _text(tool):
        if tool.get("doc_summary"):
            return Flaw(flaw="missing_description", severity="warning", reason="only the doc page describes it")
        return Flaw(flaw="missing_description", severity="critical", reason="no description in the catalog")
    return None


def placeholder_description(tool: dict) -> Flaw | None:
    text = _norm(_text(tool))
    if not _text(tool):
        return None
    if text in _PLACEHOLDERS or "lorem ipsum" in text:
        return Flaw(flaw="placeholder_description", severity="critical", reason=f"description is {_text(tool)!r}")
    if text == _norm(tool["name"]) or text == _norm(tool.get("display_name") or ""):
        return Flaw(flaw="placeholder_description", severity="critical", reason="description only repeats the name")
    if len(text.split()) < 3:
        return Flaw(flaw="short_description", severity="warning", reason=f"{len(text.split())} word(s)")
    return None


def name_not_in_description(tool: dict) -> Flaw | None:
    """The description says nothing of what the name says: no shared word stem and a low cosine."""
    text = _text(tool)
    name_words = _words(tool["name"])
    if not text or not name_words or tool.get("r_cons", 1.0) >= 0.35:
        return None
    desc_stems = {w[:5] for w in _words(text)}
    if any(w[:5] in desc_stems for w in name_words):
        return None
    return Flaw(
        flaw="name_not_in_description",
        severity="warning",
        reason=f"none of {sorted(name_words)} in the description (r_cons {tool.get('r_cons', 0):.2f})",
    )


def undeclared_env_var(tool: dict) -> Flaw | None:
    read = set(tool.get("auth_env_vars_read") or [])
    undeclared = sorted(read - set(tool.get("auth_env_vars_declared") or []))
    if undeclared:
        return Flaw(
            flaw="undeclared_env_var", severity="critical", reason=f"read in code but not declared: {undeclared}"
        )
    return None


def unused_declared_env_var(tool: dict) -> Flaw | None:
    """Declared but never read, where the code does read env vars (e.g. a copy-pasted declaration)."""
    read = set(tool.get("auth_env_vars_read") or [])
    unused = sorted(set(tool.get("auth_env_vars_declared") or []) - read)
    if read and unused:
        return Flaw(flaw="unused_declared_env_var", severity="warning", reason=f"declared but not read: {unused}")
    return None


def credentials_without_docs(tool: dict) -> Flaw | None:
    """Needs credentials and has no documentation link; never judged on an unknown auth or unknown docs (a reduced
    copy shows neither: unknown is not absent)."""
    if not (is_known(tool, "auth_type") and is_known(tool, "doc_urls")):
        return None
    needs_auth = tool.get("auth_type") not in (None, "none") or bool(tool.get("auth_credentials"))
    if needs_auth and not tool.get("doc_urls"):
        return Flaw(
            flaw="credentials_without_docs", severity="warning", reason="needs credentials, no documentation link"
        )
    return None


def dead_link(tool: dict) -> Flaw | None:
    dead = [
        f"{link['url']} ({link['link_status']})" for link in tool.get("links") or [] if link["link_status"] in _DEAD
    ]
    if dead:
        return Flaw(flaw="dead_link", severity="critical", reason="; ".join(dead[:3]))
    return None


def placeholder_link(tool: dict) -> Flaw | None:
    bad = [
        link["url"]
        for link in tool.get("links") or []
        if link["kind"] == "placeholder" and link["reason"] in ("placeholder_host", "unparseable", "no_host")
    ]
    if bad:
        return Flaw(flaw="placeholder_link", severity="warning", reason="; ".join(bad[:3]))
    return None


def deprecated(tool: dict) -> Flaw | None:
    if tool.get("deprecated"):
        instead = f"; use {tool['replacement']}" if tool.get("replacement") else ""
        return Flaw(flaw="deprecated", severity="critical", reason=f"the source marks it deprecated{instead}")
    return None


def runtime_only(tool: dict) -> Flaw | None:
    if tool.get("runtime_only"):
        return Flaw(
            flaw="runtime_only", severity="critical", reason="its real name or description exists only at run time"
        )
    return None


def near_duplicate(tool: dict) -> Flaw | None:
    if tool.get("duplicate_group"):
        return Flaw(
            flaw="near_duplicate", severity="warning", reason=f"same description as group {tool['duplicate_group']}"
        )
    return None


def undocumented_parameters(tool: dict) -> Flaw | None:
    """Most parameters without a description; not judged on a parameter schema the source could not show."""
    if not is_known(tool, "parameters"):
        return None
    props = json.loads(tool.get("parameters") or "{}").get("properties", {})
    undocumented = sorted(k for k, v in props.items() if not (isinstance(v, dict) and v.get("description")))
    if props and len(undocumented) * 2 > len(props):
        return Flaw(
            flaw="undocumented_parameters",
            severity="warning",
            reason=f"{len(undocumented)} of {len(props)} parameters have no description",
        )
    return None


def instruction_in_description(tool: dict) -> Flaw | None:
    match = _INJECTION.search(_text(tool))
    if match:
        return Flaw(
            flaw="instruction_in_description", severity="critical", reason=f"tells the model: {match.group(0)!r}"
        )
    return None


RULES: tuple[Callable[[dict], Flaw | None], ...] = (
    missing_description,
    placeholder_description,
    name_not_in_description,
    undeclared_env_var,
    unused_declared_env_var,
    credentials_without_docs,
    dead_link,
    placeholder_link,
    deprecated,
    runtime_only,
    near_duplicate,
    undocumented_parameters,
    instruction_in_description,
)


def find_flaws(tool: dict) -> list[Flaw]:
    return [flaw for rule in RULES if (flaw := rule(tool)) is not None]
