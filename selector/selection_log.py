"""A JSONL log of selections and of the tool then called, for offline evaluation.

Two event kinds share one file: ``selection`` (query as sent, the query actually built from task
state, caller scopes, tools chosen) and ``call`` (the tool the agent called, with the selection it
came from). :func:`called_in_selection` joins them: how often the called tool was on the menu.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path


class SelectionLog:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()  # the service may log from several worker threads

    def _append(self, event: dict) -> None:
        # ASCII escapes: a lone surrogate in a query must not make the write fail
        line = json.dumps(event, sort_keys=True)
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")

    def record_selection(
        self, query: str, built_query: str, caller_scopes: Sequence[str], tool_ids: Sequence[str], tenant: str | None
    ) -> str:
        selection_id = uuid.uuid4().hex
        self._append({
            "event": "selection", "selection_id": selection_id, "time": time.time(), "query": query,
            "built_query": built_query, "caller_scopes": list(caller_scopes), "tenant": tenant, "tools": list(tool_ids),
        })
        return selection_id

    def record_call(self, selection_id: str | None, tool_id: str) -> None:
        self._append({"event": "call", "selection_id": selection_id, "time": time.time(), "tool_id": tool_id})


def read_events(path: str | Path) -> list[dict]:
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def called_in_selection(path: str | Path) -> float | None:
    """Share of logged calls whose tool was among the tools of their selection (None without calls)."""
    events = read_events(path)
    chosen = {e["selection_id"]: set(e["tools"]) for e in events if e["event"] == "selection"}
    calls = [e for e in events if e["event"] == "call" and e.get("selection_id") in chosen]
    if not calls:
        return None
    return sum(e["tool_id"] in chosen[e["selection_id"]] for e in calls) / len(calls)
