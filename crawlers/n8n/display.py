"""n8n's ``displayOptions``: whether a property, option or credential shows for a selection."""

from __future__ import annotations

import re
from typing import Any


def _cond_match(actual: Any, cond: Any) -> bool:
    if isinstance(cond, dict) and isinstance(cond.get("_cnd"), dict):
        return all(_cnd_op(actual, op, arg) for op, arg in cond["_cnd"].items())
    return actual == cond


def _cnd_op(actual: Any, op: str, arg: Any) -> bool:
    try:
        if op == "eq":
            return actual == arg
        if op == "not":
            return actual != arg
        if op == "gte":
            return actual >= arg
        if op == "lte":
            return actual <= arg
        if op == "gt":
            return actual > arg
        if op == "lt":
            return actual < arg
        if op == "between":
            return arg["from"] <= actual <= arg["to"]
        if op == "startsWith":
            return str(actual).startswith(str(arg))
        if op == "endsWith":
            return str(actual).endswith(str(arg))
        if op == "includes":
            return str(arg) in str(actual)
        if op == "regex":
            return re.search(str(arg), str(actual)) is not None
        if op == "exists":
            return actual is not None
    except (TypeError, KeyError, re.error):
        return False
    return False  # an unknown operator: do not pretend it matches


def admits(display_options: Any, selector: dict[str, Any]) -> bool:
    """Whether displayOptions let the property show for the selector (keys not in it are user input)."""
    if not isinstance(display_options, dict):
        return True
    for side, wanted in (("show", True), ("hide", False)):
        conditions = display_options.get(side)
        if not isinstance(conditions, dict):
            continue
        for key, allowed in conditions.items():
            field = key.lstrip("/")
            if field not in selector:
                continue
            values = allowed if isinstance(allowed, list) else [allowed]
            hit = any(_cond_match(selector[field], c) for c in values)
            if hit != wanted:
                return False
    return True
