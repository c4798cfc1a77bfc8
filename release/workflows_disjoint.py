"""The tool-disjoint view of the workflow set (config ``workflows-disjoint``): train, validation and test whose tools
are disjoint, so that a test query asks for tools no train or validation query has.

Why: n8n's head dominates the workflow set (on the default store the 20 tools train uses most hold 56 % of train's
required labels), so a model that memorises the head scores well on ``workflows/test``. In this view no tool of a
test query's qrels is a tool of a train or validation query's qrels, nor a validation tool a train tool: a model
trained on the view's train split has never seen a test tool, nor even its service.

**Unit: the service.** A tool's split is its service's (``tools.service``, normalized by
:func:`ecoagent.text.words.service_key`; a tool without one is a unit alone): all the operations of one n8n node,
and the nodes of one service in two packages (OpenAI's in ``n8n-nodes-base`` and in the LangChain package), share a
split; otherwise "Gmail: send" in train and "Gmail: get" in test would leak the service.

**Which queries fit.** A query fits a split when every tool of its qrels, alternatives included, is of that split:
an alternative is a tool of a node the workflow runs whose operation is unknown, so its service is part of the task
as much as a required tool's (leaving it out of the rule would let a test query's own node be a train node). A query
whose tools fall in two splits is left out, and so is a query whose group (``group_id``: the label stage's clone
family and near-duplicates) also holds a query of an earlier split (train, then validation, then test), as Syn's and
Real's tool-disjoint view leaves out a validation or test query with a near-duplicate in train.

**Which split a service takes** (linear deterministic greedy, Stanton and Kliot, KDD 2012): the services from the
most used to the least (a service's weight: the queries that use it; ties by a seeded hash), each to the split holding
the most queries it shares with the services already placed, that count weighted by the room left in the split (its
share of all service uses, ``release.syn_split_ratios`` as for the Syn and Real view, minus what it holds); a
service that shares no query with a placed one goes to the split with the most room. The head (Google Sheets,
Telegram, OpenAI, Gmail, ...) lands in train and the test split is the tail services that run together, so the
queries that survive are many and the test split is no one service's. Measured on the default store against the
other rules (docs/stages/release.md): cutting the services ordered by a seeded hash, by the month they first appear
or by their use keeps fewer queries or a test split below 100 queries, or one made of a few head services; the
services' co-occurrence graph is one component.

**No cold_start split.** The view's test split is a cold start by construction (no test tool is a train or
validation tool), and a tool new since the previous release is of one split like any other, so moving its queries
out would only shrink the view; the regular ``workflows`` configs keep their ``cold_start`` split.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import combinations

import polars as pl

from ecoagent.text.splits import SPLITS
from ecoagent.text.words import service_key

SPLIT_ORDER = {split: rank for rank, split in enumerate(SPLITS)}  # a group keeps its earliest split's queries
USES_SCHEMA = {"tool_id": pl.String, "service": pl.String}


def service_uses(qrels: pl.DataFrame, tools: pl.DataFrame) -> pl.DataFrame:
    """``(query_id, service)``, one row per service a query's qrels (alternatives included) use, sorted."""
    keys = [service_key(service) or tool for tool, service in tools.select("tool_id", "service").iter_rows()]
    service_of = pl.DataFrame({"tool_id": tools["tool_id"].to_list(), "service": keys}, schema=USES_SCHEMA)
    uses = qrels.select("query_id", "tool_id").join(service_of, on="tool_id")
    return uses.select("query_id", "service").unique().sort("query_id", "service")


def service_splits(uses: pl.DataFrame, shares: Sequence[float], seed: int) -> dict[str, str]:
    """``{service: split}`` by the linear deterministic greedy rule of the module docstring; ``shares``: train,
    validation and test's share of the service uses."""
    weight = Counter(uses["service"].to_list())
    shared_queries = _shared_queries(uses)
    capacity = {split: share * sum(weight.values()) for split, share in zip(SPLITS, shares, strict=True)}
    load = dict.fromkeys(SPLITS, 0)
    placed: dict[str, str] = {}

    def order(service: str) -> tuple[int, str]:
        return -weight[service], hashlib.sha256(f"{seed}:{service}".encode()).hexdigest()

    for service in sorted(weight, key=order):
        room = {s: 1 - load[s] / capacity[s] if capacity[s] else float("-inf") for s in SPLITS}
        shared = dict.fromkeys(SPLITS, 0)
        for other, n in shared_queries[service].items():
            if other in placed:
                shared[placed[other]] += n
        split = max(SPLITS, key=lambda s: (shared[s] * room[s] if shared[s] else 0.0, room[s]))
        placed[service] = split
        load[split] += weight[service]
    return placed


def _shared_queries(uses: pl.DataFrame) -> dict[str, Counter]:
    """``{service: {other service: queries using both}}``."""
    shared: dict[str, Counter] = defaultdict(Counter)
    for services in uses.group_by("query_id").agg("service")["service"].to_list():
        for a, b in combinations(sorted(services), 2):
            shared[a][b] += 1
            shared[b][a] += 1
    return shared


def disjoint_view(queries: pl.DataFrame, uses: pl.DataFrame, splits: dict[str, str]) -> tuple[pl.DataFrame, dict]:
    """The view's ``(query_id, split)`` rows and how many queries it left out, by reason: ``services_in_two_splits``
    (a query whose tools are of two splits) and ``group_in_an_earlier_split`` (its clone family or near-duplicate
    is a query of an earlier split of the view)."""
    with_split = uses.with_columns(pl.col("service").replace_strict(splits).alias("split"))
    one = with_split.group_by("query_id").agg(pl.col("split").n_unique().alias("n"), pl.col("split").first())
    groups = queries.select("query_id", pl.coalesce("group_id", "query_id").alias("group_id"))
    fitting = groups.join(one.filter(pl.col("n") == 1).select("query_id", "split"), on="query_id")
    rank = pl.col("split").replace_strict(SPLIT_ORDER, return_dtype=pl.Int64)
    view = fitting.filter(rank == rank.min().over("group_id")).select("query_id", "split")
    dropped = {"services_in_two_splits": len(queries) - len(fitting),
               "group_in_an_earlier_split": len(fitting) - len(view)}  # fmt: skip
    return view.sort("query_id"), dropped


def view_counts(view: pl.DataFrame, qrels: pl.DataFrame, uses: pl.DataFrame) -> dict:
    """Per split, the view's queries, tools and services: what the card and the manifest state."""
    tools = qrels.join(view, on="query_id").group_by("split").agg(pl.col("tool_id").n_unique())
    services = uses.join(view, on="query_id").group_by("split").agg(pl.col("service").n_unique())
    queries = view.group_by("split").len()
    return {
        kind: {split: int(dict(frame.iter_rows()).get(split, 0)) for split in SPLITS}
        for kind, frame in (("queries", queries), ("tools", tools), ("services", services))
    }
