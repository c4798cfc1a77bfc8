"""Execution-time authorization: re-check the caller's scopes, then a reversibility policy.

Selection narrows the menu; it does not authorize. Every call is checked again here, against the
tool's scope and its side-effect tier (the POLAR bands):

=====================  ================  ======================================================
tier                   band              Veto / Escalate / Advisory
=====================  ================  ======================================================
read_only              no state change   allow / allow / allow
reversible             reversible        allow / allow / allow
compensable            compensable       allow / allow / allow (the reason names the inverse)
irreversible           irreversible      block / ask for consent / allow and log
external_side_effect   irreversible      block / ask for consent / allow and log
unknown                fail closed       block / ask for consent / allow and log
=====================  ================  ======================================================

``unknown`` is treated like the irreversible band: POLAR fails closed when it cannot derive an
inverse, and a tool whose effect nobody classified is exactly that case. Under Escalate a call
with ``consent=True`` (the user said yes) is allowed. Every decision is logged with its reason
through :mod:`logging` and, when a path is given, one JSON line per decision.
"""

from __future__ import annotations

import enum
import json
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from selector.registry import ToolRegistry

logger = logging.getLogger(__name__)

IRREVERSIBLE_BAND = frozenset({"irreversible", "external_side_effect", "unknown"})


class Policy(enum.StrEnum):
    VETO = "veto"  # block the irreversible band
    ESCALATE = "escalate"  # ask the user before the irreversible band
    ADVISORY = "advisory"  # allow, log the risk


@dataclass(frozen=True)
class Decision:
    tool_id: str
    allowed: bool
    needs_consent: bool
    reason: str
    policy: str
    side_effect: str | None = None
    permission_scope: str | None = None


class Authorizer:
    def __init__(self, registry: ToolRegistry, decision_log: str | Path | None = None):
        self.registry = registry
        self.decision_log = Path(decision_log) if decision_log else None
        self._lock = threading.Lock()
        if self.decision_log:
            self.decision_log.parent.mkdir(parents=True, exist_ok=True)

    def authorize(
        self,
        tool_id: str,
        caller_scopes: Sequence[str],
        policy: Policy | str = Policy.VETO,
        consent: bool = False,
        tenant: str | None = None,
    ) -> Decision:
        """Decide one call. Raises UnknownScope / UnknownTenant on a malformed caller, never on a denial."""
        policy = Policy(policy)
        mask = self.registry.allowed(caller_scopes, tenant)
        row = self.registry.row_of.get(tool_id)
        if row is None:
            return self._log(Decision(tool_id, False, False, "unknown tool id", policy.value))
        tool = self.registry.tools[row]
        tier, scope = tool.side_effect, tool.permission_scope
        if not mask[row]:
            outside = tenant is not None and row not in self.registry.tenant_rows[tenant]
            reason = f"tool not available to tenant {tenant!r}" if outside else f"caller lacks scope {scope!r}"
            return self._log(Decision(tool_id, False, False, reason, policy.value, tier, scope))
        if tier not in IRREVERSIBLE_BAND:
            note = f"; inverse: {tool.inverse_tool_id}" if tool.inverse_tool_id else ""
            return self._log(Decision(tool_id, True, False, f"{tier} action{note}", policy.value, tier, scope))
        if policy is Policy.VETO:
            allowed, ask, reason = False, False, f"veto: {tier} action cannot be undone"
        elif policy is Policy.ESCALATE and not consent:
            allowed, ask, reason = False, True, f"escalate: {tier} action needs the user's consent"
        elif policy is Policy.ESCALATE:
            allowed, ask, reason = True, False, f"escalate: {tier} action, consent given"
        else:
            allowed, ask, reason = True, False, f"advisory: {tier} action allowed, logged"
        return self._log(Decision(tool_id, allowed, ask, reason, policy.value, tier, scope))

    def _log(self, decision: Decision) -> Decision:
        level = logging.INFO if decision.allowed else logging.WARNING
        logger.log(level, "authorize %s: %s (%s)", decision.tool_id,
                   "allowed" if decision.allowed else "denied", decision.reason)
        if self.decision_log:
            line = json.dumps({"time": time.time(), **asdict(decision)})  # ASCII: lone surrogates stay writable
            with self._lock, self.decision_log.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
        return decision
