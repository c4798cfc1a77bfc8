"""Inverse tools: pairs in one group that exactly undo each other (T1), or a delete that compensates a create (T3)."""

from __future__ import annotations

from collections import defaultdict

from scoring.side_effect.lexicon import COMPENSATED_BY, INVERSE_VERBS, STOPWORDS, VERBS
from scoring.side_effect.rules import Action, Verdict, n8n_parts, singular
from scoring.side_effect.tiers import COMPENSABLE, IRREVERSIBLE, REVERSIBLE


def _group_key(row: dict) -> str:
    """Tools that may undo each other: one n8n node+resource, toolkit, spec, server or package+service."""
    platform = row.get("platform") or ""
    symbol = row.get("source_symbol") or ""
    package = row.get("package") or ""
    if platform == "n8n":
        node, resource, _ = n8n_parts(symbol)
        return f"n8n|{package}|{node}|{resource}"
    if platform == "langchain" and ":" in symbol:
        return f"langchain|{package}|{symbol.split(':', 1)[0]}"
    if platform == "llamaindex" and "." in symbol:
        return f"llamaindex|{package}|{symbol.split('.', 1)[0]}"
    if platform == "mcp":
        return f"mcp|{package}"
    return f"{platform}|{package}|{row.get('service') or ''}"


def _pair_key(action: Action) -> tuple[str, ...]:
    """The object words that must match for two actions to be inverse (articles, plurals ignored)."""
    return tuple(singular(t) for t in action.obj if t not in STOPWORDS)


def _split_undo(action: Action) -> tuple[str, tuple[str, ...]]:
    """Normalise 'undo soft delete message' -> ('undo:delete', ('message',)) and 'soft delete' likewise."""
    obj = _pair_key(action)
    if action.verb == "undo":
        rest = [t for t in obj if t != "soft"]
        if rest and rest[0] in VERBS:
            return "undo:" + rest[0], tuple(rest[1:])
    return action.verb, tuple(t for t in obj if t != "soft")


def _object_un_pair(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """markAsRead / markAsUnread: same verb, objects that differ by one un- prefix."""
    if len(a) != len(b) or a == b:
        return False
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return len(diff) == 1 and (diff[0][0] == "un" + diff[0][1] or diff[0][1] == "un" + diff[0][0])


def _pairable(v: Verdict) -> bool:
    return (v.side_effect in (REVERSIBLE, COMPENSABLE, IRREVERSIBLE) and not v.arbitrary
            and "+money" not in v.rule and "+session" not in v.rule)  # fmt: skip


def link_inverses(rows: list[dict], verdicts: list[Verdict]) -> list[tuple[str | None, str | None]]:
    """For each tool: (inverse_tool_id, new rule or None).  Exact pairs are T1; create->delete is T3."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        if verdicts[i].action is not None:
            groups[_group_key(row)].append(i)
    out: list[tuple[str | None, str | None]] = [(None, None)] * len(rows)
    for members in groups.values():
        if len(members) < 2:
            continue
        # external sends, money and arbitrary execution are never undone by a paired call, so they
        # neither get an inverse nor serve as one (removing a comment does not unsend it)
        keyed = [(i, *_split_undo(verdicts[i].action)) for i in members if _pairable(verdicts[i])]  # type: ignore[arg-type]
        verbs = {i: verb for i, verb, _ in keyed}
        for i, verb, obj in keyed:
            exact = compensator = None
            for j, verb2, obj2 in keyed:
                if i == j:
                    continue
                undoes = verb2 in INVERSE_VERBS.get(verb, ()) or verb2 == "undo:" + verb or verb == "undo:" + verb2
                if (obj == obj2 and undoes) or (verb == verb2 and _object_un_pair(obj, obj2)):
                    exact = j if exact is None else exact
                elif obj == obj2 and verb2 in COMPENSATED_BY.get(verb, ()):
                    compensator = j if compensator is None else compensator
            if exact is not None:
                out[i] = (rows[exact]["tool_id"], f"inverse_pair:{verb}/{verbs[exact]}")
            elif compensator is not None and verdicts[i].side_effect == COMPENSABLE:
                out[i] = (rows[compensator]["tool_id"], None)
    return out
