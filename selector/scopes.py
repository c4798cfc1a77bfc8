"""Permission scopes: which tools a caller may see and call.

A tool needs one scope, ``<service>.<action>`` (``slack.write``); the catalog's actions are
``read``, ``write``, ``delete``, ``send`` and ``admin``. A caller holds a list of scope patterns:

- ``slack.write`` grants exactly that scope (no implication: ``slack.admin`` does not grant
  ``slack.read``; a deployment that wants that hierarchy lists both scopes);
- ``slack.*`` grants every action of one service;
- ``*.read`` grants one action on every service (a read-only caller);
- ``*`` grants everything.

A tool with an empty scope is public. A caller pattern that names no scope, service or action the
registry knows is an *unknown scope*: :class:`UnknownScope` is raised (the service answers 422)
rather than silently granting nothing, because a typo in a scope list is a configuration error the
caller should see.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np


class UnknownScope(ValueError):
    """A caller scope that is not in the registry's scope vocabulary."""

    def __init__(self, scopes: Sequence[str]):
        self.scopes = list(scopes)
        super().__init__(
            f"unknown scope(s) {self.scopes}: not in the registry's scopes; "
            "expected '<service>.<action>', '<service>.*', '*.<action>' or '*'"
        )


def split_scope(scope: str) -> tuple[str, str]:
    """``"google.drive.read" -> ("google.drive", "read")``: the action is after the last dot."""
    service, _, action = scope.rpartition(".")
    return service, action


@dataclass(frozen=True)
class ScopeVocabulary:
    """Every scope, service and action the registry's tools need."""

    scopes: frozenset[str]
    services: frozenset[str]
    actions: frozenset[str]

    @classmethod
    def of(cls, tool_scopes: Iterable[str]) -> ScopeVocabulary:
        scopes = frozenset(s for s in tool_scopes if s)
        parts = [split_scope(s) for s in scopes]
        return cls(scopes, frozenset(p[0] for p in parts), frozenset(p[1] for p in parts))

    def unknown(self, caller_scopes: Iterable[str]) -> list[str]:
        """The caller patterns this vocabulary does not know, in the order given."""
        bad = []
        for pattern in caller_scopes:
            service, action = split_scope(pattern)
            known = (
                pattern == "*"
                or pattern in self.scopes
                or (action == "*" and service in self.services)
                or (service == "*" and action in self.actions)
            )
            if not known:
                bad.append(pattern)
        return bad


class ScopeIndex:
    """The tools' scopes as small integer codes, so a caller's mask is three table look-ups, not string matching.

    ``mask(caller)`` equals, tool by tool: the scope is empty (public), or listed exactly, or its service is granted
    by ``service.*``, or its action by ``*.action``, or the caller holds ``*``.
    """

    def __init__(self, tool_scopes: Sequence[str]):
        parts = [split_scope(s) for s in tool_scopes]
        self.size = len(tool_scopes)
        self.scopes, self.scope_codes = self._codes(tool_scopes)
        self.services, self.service_codes = self._codes([p[0] for p in parts])
        self.actions, self.action_codes = self._codes([p[1] for p in parts])
        self.public = np.array([not s for s in tool_scopes], dtype=bool)

    @staticmethod
    def _codes(values: Sequence[str]) -> tuple[dict[str, int], np.ndarray]:
        table: dict[str, int] = {}
        codes = np.array([table.setdefault(v, len(table)) for v in values], dtype=np.int64)
        return table, codes

    @staticmethod
    def _granted(table: dict[str, int], names: Iterable[str]) -> np.ndarray:
        granted = np.zeros(len(table) + 1, dtype=bool)  # one spare slot: an empty table still indexes
        granted[[table[n] for n in names if n in table]] = True
        return granted

    def mask(self, caller_scopes: Iterable[str]) -> np.ndarray:
        caller = set(caller_scopes)
        if "*" in caller:
            return np.ones(self.size, dtype=bool)
        mask = self.public.copy()
        for pattern in caller:
            mask |= self._pattern_mask(pattern)
        return mask

    @lru_cache(maxsize=4096)  # noqa: B019 -- one index per registry, kept as long as it
    def _pattern_mask(self, pattern: str) -> np.ndarray:
        """The tools one caller pattern grants (callers combine a few patterns from a small set: each is kept)."""
        service, action = split_scope(pattern)
        if "*" not in pattern:
            return self._granted(self.scopes, [pattern])[self.scope_codes]
        if pattern.endswith(".*"):
            return self._granted(self.services, [service])[self.service_codes]
        if pattern.startswith("*."):
            return self._granted(self.actions, [action])[self.action_codes]
        return np.zeros(self.size, dtype=bool)
