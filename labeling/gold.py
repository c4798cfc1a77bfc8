"""The gold set: LiveMCPBench's human-annotated tasks mapped to catalog tools, and the labeling paths measured on it.

LiveMCPBench (``label.livemcpbench_package``, Apache-2.0) ships 95 tasks whose tools were annotated by its
authors (``Annotator Metadata.Tools``: bare MCP tool names such as ``write_file``, not qualified by server).
:func:`map_gold` maps each annotated name to catalog ``tool_id`` s:

1. The candidates are the tools of that name on **LiveMCPBench's own servers**: the servers of its tool dump
   (``mcp_arg_*.json``) and the crawled servers of the server table (``crawl.livemcpbench_servers``), each with
   the catalog tool of that name in the server's package. The name must match exactly; where no server has it
   exactly, a match ignoring case and punctuation (``get-current-date`` ~ ``get_current_date``) is taken and
   marked ``normalized``. Tools of the same name elsewhere in the catalog (a LangChain ``write_file``) are
   never gold: the annotators used LiveMCPBench's servers.
2. One server: the pair is mapped (``unique``). Several servers (``write_file`` is on ``filesystem`` and
   ``desktop-commander``): when the task's annotated steps or question name exactly one of them (a word of
   the server's or its package's name, other than generic words and the tool's own name), that one is the gold
   (``named_in_task``); otherwise every same-named tool counts as gold for the task and the pairs are marked
   ``ambiguous``.
3. A name no crawled LiveMCPBench server has is **unmapped**, with its reason (``server_not_crawled``: the
   server's package is not in the catalog, with the table's reason; ``not_in_catalog``: the server is crawled
   but the static crawl did not find the tool; ``unknown_tool``: no LiveMCPBench server lists the name).

Nothing is guessed silently: ``gold_mapping.json`` lists every annotated (task, name) pair with what it mapped
to and how, and the counts. Tasks with at least one mapped tool form the gold queries (``complete`` says
whether every annotated tool of the task mapped); their mapped tools are the multi-label qrels. The gold set is
an evaluation set only: it is never a Real source, never trained on and never used to choose a threshold (the
release gate checks that no gold query text is in a train or validation split).

:func:`evaluate_on_gold` runs the label stage's own path (retrieval top-k above the cosine floor, then each
verifier that ran) on the gold questions with the gold hidden, and reports precision, recall and F1 of the
verified pairs against the gold.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import polars as pl

from ecoagent.packages.livemcpbench import ServerRow

GOLD_QUERY_SCHEMA = {
    "query_id": pl.String,
    "text": pl.String,
    "category": pl.String,
    "annotated_tools": pl.List(pl.String),
    "complete": pl.Boolean,  # every annotated tool of the task mapped to a catalog tool
    "ambiguous": pl.Boolean,  # at least one of its gold pairs is ambiguous
}
GOLD_QREL_SCHEMA = {
    "query_id": pl.String,
    "tool_id": pl.String,
    "annotated_tool": pl.String,
    "server": pl.String,
    "match": pl.String,  # exact | normalized
    "resolution": pl.String,  # unique | named_in_task | ambiguous
}
ANNOTATED_BY = "the LiveMCPBench authors (Annotator Metadata: Steps and Tools of each task)"
LICENSE = "Apache-2.0"
CITATION = (
    "Mo et al., LiveMCPBench: Can Agents Navigate an Ocean of MCP Tools?, arXiv:2508.01780, 2025"
)
# words that name no particular service: they never resolve an ambiguous name
_GENERIC_TEXT = (
    "mcp server servers tool tools the and for api model context protocol modelcontextprotocol node npm py python "
    "official community simple"
)
_GENERIC = frozenset(_GENERIC_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+")


def norm_name(name: str) -> str:
    """A tool name ignoring case and punctuation: ``get-current-date`` == ``get_current_date``."""
    return re.sub(r"[^a-z0-9]+", "", name.lower())


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _service_words(server: str, package: str | None, tool_name: str) -> set[str]:
    words = _words(server) | _words(package or "")
    return {w for w in words if len(w) >= 3 and w not in _GENERIC} - _words(tool_name)


@dataclass(frozen=True)
class GoldTask:
    """One annotated task: its question, annotated tool names and annotated steps."""

    query_id: str
    text: str
    category: str | None
    tools: tuple[str, ...]
    steps: str


@dataclass
class GoldSet:
    queries: pl.DataFrame  # GOLD_QUERY_SCHEMA: tasks with at least one mapped tool
    qrels: pl.DataFrame  # GOLD_QREL_SCHEMA
    report: dict  # gold_mapping.json


@dataclass(frozen=True)
class _Candidate:
    server: str
    package: str | None
    tool_id: str | None
    reason: str | None  # why there is no tool_id


def _candidates(
    rows: Sequence[ServerRow], dumped: Iterable[dict], catalog: Iterable[tuple[str, str, str]]
) -> tuple[dict[str, list[_Candidate]], dict[str, list[_Candidate]]]:
    """name -> candidates, exact and normalized: every LiveMCPBench server with a tool of that name."""
    table = {row.name: row for row in rows}
    crawled = {row.package: row for row in rows if row.crawled}
    by_package: dict[str, dict[str, str]] = defaultdict(dict)
    for package, name, tool_id in catalog:
        if package in crawled:
            by_package[package].setdefault(name, tool_id)
    names: dict[str, dict[str, _Candidate]] = defaultdict(dict)  # name -> server -> candidate

    def add(server: str, name: str) -> None:
        row = table.get(server)
        if row is None:
            names[name].setdefault(server, _Candidate(server, None, None, "server_not_in_table"))
        elif not row.crawled:
            names[name].setdefault(server, _Candidate(server, row.package, None, "server_not_crawled"))
        else:
            tool_id = by_package[row.package].get(name)
            names[name][server] = _Candidate(server, row.package, tool_id, None if tool_id else "not_in_catalog")

    for tool in dumped:
        add(tool["server"], tool["name"])
    for row in rows:  # tools the crawl found that LiveMCPBench's dump does not list (a newer pin)
        if row.crawled:
            for name in by_package[row.package]:
                add(row.name, name)
    exact = {name: sorted(servers.values(), key=lambda c: c.server) for name, servers in names.items()}
    normalized: dict[str, list[_Candidate]] = defaultdict(list)
    for name, cands in exact.items():
        normalized[norm_name(name)].extend(cands)
    return exact, normalized


def map_gold(
    tasks: Sequence[GoldTask],
    rows: Sequence[ServerRow],
    dumped: Sequence[dict],
    catalog: Iterable[tuple[str, str, str]],
    source: dict | None = None,
) -> GoldSet:
    """The gold queries, qrels and mapping report (module docstring). ``catalog``: (package, name, tool_id)."""
    exact, normalized = _candidates(rows, dumped, catalog)
    table = {row.name: row for row in rows}
    pairs: list[dict] = []
    qrels: list[dict] = []
    queries: list[dict] = []
    for task in tasks:
        task_words = _words(f"{task.steps}\n{task.text}")
        mapped_names = 0
        task_qrels: list[dict] = []
        for name in task.tools:
            match, cands = "exact", exact.get(name, [])
            if not any(c.tool_id for c in cands):
                alt = normalized.get(norm_name(name), [])
                if any(c.tool_id for c in alt):
                    match, cands = "normalized", alt
            entry = {"query_id": task.query_id, "annotated_tool": name, "match": match,
                     "servers": [c.server for c in cands]}  # fmt: skip
            found = [c for c in cands if c.tool_id]
            if not found:
                if not cands:
                    reason = "unknown_tool"
                elif any(c.reason == "not_in_catalog" for c in cands):
                    reason = "not_in_catalog"
                else:
                    reason = "server_not_crawled"
                notes = sorted({table[c.server].reason for c in cands if c.server in table and table[c.server].reason})
                pairs.append({**entry, "tool_ids": [], "resolution": None, "unmapped": reason,
                              **({"server_reasons": notes} if notes else {})})  # fmt: skip
                continue
            resolution = "unique"
            if len(cands) > 1:
                named = [c for c in cands if _service_words(c.server, c.package, name) & task_words]
                if len(named) == 1:
                    cands, resolution = named, "named_in_task"
                else:
                    resolution = "ambiguous"
            found = [c for c in cands if c.tool_id]
            if not found:  # the task named a server the crawl does not hold
                pairs.append({**entry, "tool_ids": [], "resolution": resolution, "unmapped": "server_not_crawled",
                              "named_server": cands[0].server})  # fmt: skip
                continue
            mapped_names += 1
            pairs.append({**entry, "tool_ids": sorted({c.tool_id for c in found}), "resolution": resolution,
                          "unmapped": None})  # fmt: skip
            for c in found:
                task_qrels.append({"query_id": task.query_id, "tool_id": c.tool_id, "annotated_tool": name,
                                   "server": c.server, "match": match, "resolution": resolution})  # fmt: skip
        if task_qrels:
            # one qrel per (task, tool): a tool two annotated names point at counts once, its first reading kept
            seen: set[str] = set()
            task_qrels = [q for q in task_qrels if not (q["tool_id"] in seen or seen.add(q["tool_id"]))]
            qrels.extend(task_qrels)
            queries.append({
                "query_id": task.query_id,
                "text": task.text,
                "category": task.category,
                "annotated_tools": list(task.tools),
                "complete": mapped_names == len(task.tools),
                "ambiguous": any(q["resolution"] == "ambiguous" for q in task_qrels),
            })  # fmt: skip
    qframe = pl.DataFrame(queries, schema=GOLD_QUERY_SCHEMA).sort("query_id")
    rframe = pl.DataFrame(qrels, schema=GOLD_QREL_SCHEMA).sort("query_id", "tool_id")
    return GoldSet(qframe, rframe, _report(tasks, pairs, qframe, rframe, source or {}))


def _count(pairs: list[dict]) -> dict:
    return {"pairs": len(pairs), "names": len({p["annotated_tool"] for p in pairs})}


def _report(tasks, pairs, queries: pl.DataFrame, qrels: pl.DataFrame, source: dict) -> dict:
    mapped = [p for p in pairs if p["tool_ids"]]
    unmapped = [p for p in pairs if not p["tool_ids"]]
    by_reason: dict[str, Counter] = defaultdict(Counter)
    for p in unmapped:
        by_reason[p["unmapped"]][p["annotated_tool"]] += 1
    ambiguous = [p for p in mapped if p["resolution"] == "ambiguous"]
    return {
        "source": {
            **source,
            "annotated_by": ANNOTATED_BY,
            "license": LICENSE,
            "citation": CITATION,
        },
        "rule": (
            "each annotated tool name -> the catalog tools of that name on LiveMCPBench's own servers (its tool "
            "dump and the crawled servers of the server table; exact name, else ignoring case and punctuation, "
            "marked normalized); several servers: the one the task's steps or question name, else all of them, "
            "marked ambiguous; no crawled server: unmapped, with the reason. Tasks with at least one mapped tool "
            "are gold queries (test only), their mapped tools the qrels."
        ),
        "tasks": len(tasks),
        "gold_queries": len(queries),
        "gold_queries_complete": int(queries["complete"].sum()) if len(queries) else 0,
        "gold_qrels": len(qrels),
        "annotated": _count(pairs),
        "mapped": _count(mapped),
        "mapped_by_resolution": dict(sorted(Counter(p["resolution"] for p in mapped).items())),
        "mapped_normalized": _count([p for p in mapped if p["match"] == "normalized"]),
        "ambiguous": {
            **_count(ambiguous),
            "names": sorted({p["annotated_tool"] for p in ambiguous}),
        },
        "unmapped": {
            **_count(unmapped),
            "by_reason": {
                reason: {"pairs": sum(c.values()), "names": dict(sorted(c.items()))}
                for reason, c in sorted(by_reason.items())
            },
        },
        "tasks_without_gold": sorted(t.query_id for t in tasks if t.query_id not in set(queries["query_id"])),
        "pairs": pairs,
    }


# --------------------------------------------------------------------------------------------- evaluation


def precision_recall(predicted: dict[str, set[str]], gold: dict[str, set[str]]) -> dict:
    """Precision, recall and F1 of predicted (query -> tools) against gold, over the gold queries (micro)."""
    tp = sum(len(predicted.get(q, set()) & g) for q, g in gold.items())
    n_pred = sum(len(predicted.get(q, set())) for q in gold)
    n_gold = sum(len(g) for g in gold.values())
    p = tp / n_pred if n_pred else None
    r = tp / n_gold if n_gold else None
    f1 = 2 * p * r / (p + r) if p is not None and r is not None and p + r > 0 else (0.0 if p is not None else None)
    return {
        "precision": None if p is None else round(p, 4),
        "recall": None if r is None else round(r, 4),
        "f1": None if f1 is None else round(f1, 4),
        "verified_pairs": n_pred,
        "correct_pairs": tp,
        "gold_pairs": n_gold,
        "queries_with_a_verified_pair": sum(1 for q in gold if predicted.get(q)),
    }


def gold_by_query(qrels: pl.DataFrame) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for qid, tool in qrels.select("query_id", "tool_id").iter_rows():
        out[qid].add(tool)
    return dict(out)
