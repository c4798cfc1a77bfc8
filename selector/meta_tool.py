"""On-demand mode: a ``search_tools`` meta-tool the agent calls to load definitions when needed.

The prompt then carries only the core tools and this definition; the agent calls it with a query
and gets the matching definitions back (top 5 by default, like Anthropic's tool search tool),
ranked by the same filtered hybrid ranking as :meth:`ToolSelector.select`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from selector.select import EmptyQuery, ToolSelector

DEFAULT_LIMIT = 5
MAX_LIMIT = 20

SEARCH_TOOLS_DEFINITION: dict = {
    "type": "function",
    "function": {
        "name": "search_tools",
        "description": (
            "Search the tool catalog for tools that can do a task. Describe the task in a few words "
            "(e.g. 'post a message to a Slack channel'); the matching tool definitions become available."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what the tool should do", "minLength": 1},
                "limit": {
                    "type": "integer", "description": "how many tools to return",
                    "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT,
                },
            },
            "required": ["query"],
        },
    },
}


class SearchTools:
    """The handler of ``search_tools``: arguments in, tool definitions out (caller's scopes applied)."""

    def __init__(self, selector: ToolSelector):
        self.selector = selector

    def __call__(
        self, arguments: dict | str, caller_scopes: Sequence[str], tenant: str | None = None
    ) -> list[dict]:
        return self.complete(*self.prepare(arguments, caller_scopes, tenant), caller_scopes, tenant)

    def prepare(self, arguments: dict | str, caller_scopes: Sequence[str],
                tenant: str | None = None) -> tuple[str, int, np.ndarray]:  # fmt: skip
        """(query, limit, allowed registry rows) of a call; raises on a bad one before anything is scored."""
        if isinstance(arguments, str):  # models hand over the arguments as a JSON string
            arguments = json.loads(arguments)
        query = str(arguments.get("query", "")).strip()
        if not query:
            raise EmptyQuery("search_tools needs a non-empty query")
        limit = max(1, min(int(arguments.get("limit", DEFAULT_LIMIT)), MAX_LIMIT))
        _, allowed_rows = self.selector.registry.allowed_rows(caller_scopes, tenant)
        return query, limit, allowed_rows

    def complete(self, query: str, limit: int, allowed_rows: np.ndarray, caller_scopes: Sequence[str],
                 tenant: str | None = None, query_vector: np.ndarray | None = None,
                 dense_scores: np.ndarray | None = None) -> list[dict]:  # fmt: skip
        """The definitions of the ``limit`` best allowed tools (``query_vector`` / ``dense_scores``: the query
        already encoded / scored against every tool)."""
        rows = self.selector.rank(query, allowed_rows, tenant, limit, query_vector, dense_scores)
        if self.selector.log is not None:
            ids = [self.selector.registry.ids[r] for r in rows]
            self.selector.log.record_selection(query, query, caller_scopes, ids, tenant)
        return [self.selector.registry.tools[r].definition() for r in rows]
