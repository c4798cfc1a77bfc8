"""MRR averaged over required tools (macro), beside the usual average over queries.

The average over queries weighs a tool by how many queries require it: on n8n's workflow tasks a handful of tools
(Google Sheets, Gmail, Telegram, OpenAI) carry most of the weight, so a retriever that finds them and nothing else
scores well. The macro average gives each required tool one vote:

    MRR_tools = (1 / |T|) * sum_{t in T} ( (1 / |Q_t|) * sum_{q in Q_t} RR(q) )

where ``T`` is the set of tools at least one query of the set requires (its judged set: alternatives are not
required), ``Q_t`` the queries that require ``t``, and ``RR(q)`` the query's reciprocal rank (ranx's ``mrr`` per
query, the first relevant tool's). A query requiring three tools votes in three tools' means.
"""

from __future__ import annotations

import numpy as np

from ecoagent.release_format.reader import QuerySet


def tool_macro_average(per_query: np.ndarray, queries: QuerySet) -> float | None:
    """The mean over required tools of the mean of ``per_query`` (one value per query, in ``queries`` order) over
    the queries that require the tool; None for an empty set."""
    if len(queries) == 0:
        return None
    by_tool: dict[int, list[float]] = {}
    for value, rows in zip(per_query.tolist(), queries.relevant, strict=True):
        for row in set(rows):
            by_tool.setdefault(row, []).append(value)
    return float(np.mean([np.mean(values) for values in by_tool.values()]))
