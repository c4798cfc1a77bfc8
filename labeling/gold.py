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
2. **Affix match** (``match`` ``affix``, resolution ``affix_match``): where neither reading finds a catalog tool,
   a catalog tool whose name differs from the annotated one by whole words at one end is taken, when exactly one
   tool matches on the servers in question (the servers that list the name; every crawled LiveMCPBench server
   when none does). Words split at punctuation and camelCase; the extra words are either the server's own name
   (``biomcp_fetch`` ~ ``fetch`` on ``biomcp``) or, when the annotated name has at least two words, any words
   the catalog name adds (``trial_references`` -> ``trial_references_getter``, ``get_news`` ->
   ``yfinance_get_news``). Two or more matches map nothing; they are listed in the pair (``affix_matches``).
3. One server: the pair is mapped (``unique``), a **required** gold tool. Several servers (``write_file`` is on
   ``filesystem`` and ``desktop-commander``): when the task's annotated steps or question name exactly one of
   them (a word of the server's or its package's name, other than generic words and the tool's own name), that
   one is required (``named_in_task``) and the others' same-named tools are **alternatives**; when none or
   several are named, every same-named tool is an alternative and the pair is marked ``ambiguous``.
   Alternatives (qrel column ``alternative``) are plausible, not equal gold: acceptable, not required. They
   are scored as the workflow set's alternatives are (:mod:`labeling.workflows.measure`): recall counts the
   required tools only, and a retrieved or verified alternative counts neither for nor against precision.
4. A name no crawled LiveMCPBench server has is **unmapped**, with its reason (``server_not_crawled``: the
   server's package is not in the catalog, with the table's reason; ``not_in_catalog``: the server is crawled
   but the static crawl did not find the tool; ``unknown_tool``: no LiveMCPBench server lists the name).

Nothing is guessed silently: ``gold_mapping.json`` lists every annotated (task, name) pair with what it mapped
to and how, and the counts. Tasks with at least one mapped tool (required or alternative) form the gold queries
(``complete`` says whether every annotated tool mapped, ``ambiguous`` whether a name of it has alternatives
only); their mapped tools are the multi-label qrels. The gold set is an evaluation set only: it is never a Real
source, never trained on and never used to choose a threshold (the release gate checks that no gold query text
is in a train or validation split).

**Unannotated steps** (``unannotated_server``): a task whose question names a crawled LiveMCPBench server with
catalog tools (every word of the server's name that is not generic and has three letters or more is a word of
the question, one of them written as a name: with a capital letter, not first in a sentence, as in ``on
Wikipedia``; ``a good time`` does not name the ``time`` server) while none of its annotated names is listed on a
server of that name (``arxiv`` on ``mcp-simple-arxiv`` answers for ``arxiv-mcp-server``). What can be
seen statically is only this: a server named in the question. A needed step whose server the question does not
name (``save it as a Word file``), a server named by a synonym, or an annotated name of the right server that
stands for a different step are not seen; a server named only in passing is counted although no step needs it.
The count is reported, never turned into qrels.

:func:`precision_recall` scores verified (query, tool) pairs against the gold with the workflow set's own
measure (required and acceptable tools, 95 % bootstrap intervals).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from ecoagent.layout import LABEL_FILES
from ecoagent.packages.livemcpbench import ServerRow
from labeling.workflows.measure import measure

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.store import ArtifactStore

GOLD_QUERY_SCHEMA = {
    "query_id": pl.String,
    "text": pl.String,
    "category": pl.String,
    "annotated_tools": pl.List(pl.String),
    "complete": pl.Boolean,  # every annotated tool of the task mapped to a catalog tool
    "ambiguous": pl.Boolean,  # at least one annotated name mapped to alternatives only
}
GOLD_QREL_SCHEMA = {
    "query_id": pl.String,
    "tool_id": pl.String,
    "annotated_tool": pl.String,
    "server": pl.String,
    "match": pl.String,  # exact | normalized | affix
    "resolution": pl.String,  # unique | named_in_task | affix_match | ambiguous
    "alternative": pl.Boolean,  # a same-named tool of another server: acceptable, not required
}
ANNOTATED_BY = "the LiveMCPBench authors (Annotator Metadata: Steps and Tools of each task)"
LICENSE = "Apache-2.0"
CITATION = (
    "Mo et al., LiveMCPBench: Can Agents Navigate an Ocean of MCP Tools?, arXiv:2508.01780, 2025"
)
RULE = (
    "each annotated tool name -> the catalog tools of that name on LiveMCPBench's own servers (its tool dump and "
    "the crawled servers of the server table; exact name, else ignoring case and punctuation, marked normalized, "
    "else a unique catalog tool whose name adds whole words at one end, marked affix_match); one server: "
    "required; several servers: the one the task's steps or question name is required and the others' tools are "
    "alternatives, else all of them are alternatives, marked ambiguous; no crawled server: unmapped, with the "
    "reason. Tasks with at least one mapped tool are gold queries (test only), their mapped tools the qrels."
)
SCORING = (
    "alternatives are acceptable, not required: recall counts the required tools only; a retrieved or verified "
    "alternative counts neither for nor against precision (labeling/workflows/measure.py), and Table 1 drops it "
    "from the ranking"
)
# words that name no particular service: they never resolve an ambiguous name
_GENERIC_TEXT = (
    "mcp server servers tool tools the and for api model context protocol modelcontextprotocol node npm py python "
    "official community simple"
)
_GENERIC = frozenset(_GENERIC_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+")
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def norm_name(name: str) -> str:
    """A tool name ignoring case and punctuation: ``get-current-date`` == ``get_current_date``."""
    return re.sub(r"[^a-z0-9]+", "", name.lower())


def name_words(name: str) -> tuple[str, ...]:
    """A tool name's words, split at punctuation and camelCase: ``getStoryWithComments`` -> get story with comments."""
    return tuple(w.lower() for w in _NAME_WORD.findall(name))


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _service_words(server: str, package: str | None, tool_name: str) -> set[str]:
    words = _words(server) | _words(package or "")
    return {w for w in words if len(w) >= 3 and w not in _GENERIC} - _words(tool_name)


def differs_by_affix(annotated: tuple[str, ...], tool: tuple[str, ...], server_words: set[str]) -> bool:
    """The two word sequences differ by whole words at one end: the server's name words, or any words the catalog
    name adds to an annotated name of at least two words (module docstring, rule 2)."""
    short, long = (annotated, tool) if len(annotated) < len(tool) else (tool, annotated)
    if not short or len(short) == len(long):
        return False
    if long[: len(short)] == short:
        extra = long[len(short):]
    elif long[-len(short):] == short:
        extra = long[: -len(short)]
    else:
        return False
    return set(extra) <= server_words or (long is tool and len(short) >= 2)


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


@dataclass
class _Index:
    """LiveMCPBench's servers and their catalog tools, by tool name."""

    exact: dict[str, list[_Candidate]]  # name -> every server with a tool of that name
    normalized: dict[str, list[_Candidate]]  # norm_name -> the same
    server_tools: dict[str, dict[str, str]] = field(default_factory=dict)  # crawled server -> name -> tool_id
    packages: dict[str, str] = field(default_factory=dict)  # crawled server -> package

    def affix(self, name: str, servers: set[str] | None) -> list[_Candidate]:
        """The catalog tools on ``servers`` (None: every crawled server) whose name is ``name`` up to an affix."""
        words = name_words(name)
        found = []
        for server, tools in sorted(self.server_tools.items()):
            if servers is not None and server not in servers:
                continue
            package = self.packages[server]
            own = _service_words(server, package, "")
            found += [_Candidate(server, package, tool_id, None) for tool, tool_id in sorted(tools.items())
                      if differs_by_affix(words, name_words(tool), own)]  # fmt: skip
        return found


def _index(rows: Sequence[ServerRow], dumped: Iterable[dict], catalog: Iterable[tuple[str, str, str]]) -> _Index:
    """Every LiveMCPBench server with a tool of each name, exact and normalized, and the crawled servers' tools."""
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
    crawled_rows = [row for row in rows if row.crawled]
    return _Index(exact, normalized, {row.name: dict(by_package[row.package]) for row in crawled_rows},
                  {row.name: row.package for row in crawled_rows})  # fmt: skip


def _unmapped_reason(cands: list[_Candidate]) -> str:
    if not cands:
        return "unknown_tool"
    if any(c.reason == "not_in_catalog" for c in cands):
        return "not_in_catalog"
    return "server_not_crawled"


def _resolve(name: str, task_words: set[str], index: _Index, table: dict[str, ServerRow]) -> dict:
    """One annotated name's reading: the report entry with its required ``tool_ids`` and ``alternatives``, and the
    (candidate, alternative) pairs that become qrels (``_qrels``)."""
    match, cands = "exact", index.exact.get(name, [])
    if not any(c.tool_id for c in cands):
        alt = index.normalized.get(norm_name(name), [])
        if any(c.tool_id for c in alt):
            match, cands = "normalized", alt
    entry = {"annotated_tool": name, "match": match, "servers": [c.server for c in cands], "tool_ids": [],
             "alternatives": [], "resolution": None, "unmapped": None}  # fmt: skip
    if not any(c.tool_id for c in cands):
        affix = index.affix(name, {c.server for c in cands} if cands else None)
        if len(affix) == 1:
            return {**entry, "match": "affix", "servers": [affix[0].server], "tool_ids": [affix[0].tool_id],
                    "resolution": "affix_match", "_qrels": [(affix[0], False)]}  # fmt: skip
        notes = sorted({table[c.server].reason for c in cands if c.server in table and table[c.server].reason})
        return {**entry, "unmapped": _unmapped_reason(cands), **({"server_reasons": notes} if notes else {}),
                **({"affix_matches": sorted(c.tool_id for c in affix)} if affix else {}), "_qrels": []}  # fmt: skip
    if len(cands) == 1:
        return {**entry, "tool_ids": [cands[0].tool_id], "resolution": "unique", "_qrels": [(cands[0], False)]}
    found = [c for c in cands if c.tool_id]
    named = [c for c in cands if _service_words(c.server, c.package, name) & task_words]
    if len(named) != 1:
        return {**entry, "alternatives": sorted({c.tool_id for c in found}), "resolution": "ambiguous",
                "_qrels": [(c, True) for c in found]}  # fmt: skip
    if not named[0].tool_id:  # the task named a server the crawl does not hold
        return {**entry, "resolution": "named_in_task", "unmapped": "server_not_crawled",
                "named_server": named[0].server, "_qrels": []}  # fmt: skip
    others = [c for c in found if c is not named[0]]
    return {**entry, "tool_ids": [named[0].tool_id], "alternatives": sorted({c.tool_id for c in others}),
            "resolution": "named_in_task", "_qrels": [(named[0], False)] + [(c, True) for c in others]}  # fmt: skip


def _qrels(query_id: str, readings: list[dict]) -> list[dict]:
    """One qrel per (task, tool), its first reading kept, except that a required reading replaces an alternative."""
    out: dict[str, dict] = {}
    for reading in readings:
        for cand, alternative in reading["_qrels"]:
            row = {"query_id": query_id, "tool_id": cand.tool_id, "annotated_tool": reading["annotated_tool"],
                   "server": cand.server, "match": reading["match"], "resolution": reading["resolution"],
                   "alternative": alternative}  # fmt: skip
            if cand.tool_id not in out or (out[cand.tool_id]["alternative"] and not alternative):
                out[cand.tool_id] = row
    return list(out.values())


_TOKEN = re.compile(r"[A-Za-z0-9]+")


def proper_names(text: str) -> set[str]:
    """Words written as names: with a capital letter, not a sentence's first word (``on Wikipedia``, ``arXiv``)."""
    out = set()
    for found in _TOKEN.finditer(text):
        before = text[: found.start()].rstrip()
        if found.group() != found.group().lower() and before and before[-1] not in ".!?\n":
            out.add(found.group().lower())
    return out


def unannotated_servers(task: GoldTask, readings: list[dict], index: _Index) -> list[str]:
    """Crawled servers with catalog tools that the task's question names while none of its annotated names is on a
    server of that name (module docstring, "Unannotated steps")."""
    question, names = _words(task.text), proper_names(task.text)
    annotated = [_service_words(server, index.packages.get(server), "") for r in readings for server in r["servers"]]
    out = []
    for server, tools in sorted(index.server_tools.items()):
        words = {w for w in _words(server) if len(w) >= 3 and w not in _GENERIC}
        if tools and words and words <= question and words & names and not any(words <= a for a in annotated):
            out.append(server)
    return out


def map_gold(
    tasks: Sequence[GoldTask],
    rows: Sequence[ServerRow],
    dumped: Sequence[dict],
    catalog: Iterable[tuple[str, str, str]],
    source: dict | None = None,
) -> GoldSet:
    """The gold queries, qrels and mapping report (module docstring). ``catalog``: (package, name, tool_id)."""
    index = _index(rows, dumped, catalog)
    table = {row.name: row for row in rows}
    pairs: list[dict] = []
    qrels: list[dict] = []
    queries: list[dict] = []
    unannotated: dict[str, list[str]] = {}
    for task in tasks:
        task_words = _words(f"{task.steps}\n{task.text}")
        readings = [_resolve(name, task_words, index, table) for name in task.tools]
        pairs += [{"query_id": task.query_id, **{k: v for k, v in r.items() if k != "_qrels"}} for r in readings]
        if named := unannotated_servers(task, readings, index):
            unannotated[task.query_id] = named
        task_qrels = _qrels(task.query_id, readings)
        if not task_qrels:
            continue
        qrels.extend(task_qrels)
        queries.append({
            "query_id": task.query_id,
            "text": task.text,
            "category": task.category,
            "annotated_tools": list(task.tools),
            "complete": all(r["tool_ids"] or r["alternatives"] for r in readings),
            "ambiguous": any(r["alternatives"] and not r["tool_ids"] for r in readings),
        })  # fmt: skip
    qframe = pl.DataFrame(queries, schema=GOLD_QUERY_SCHEMA).sort("query_id")
    rframe = pl.DataFrame(qrels, schema=GOLD_QREL_SCHEMA).sort("query_id", "tool_id")
    return GoldSet(qframe, rframe, _report(tasks, pairs, qframe, rframe, unannotated, source or {}))


def _count(pairs: list[dict]) -> dict:
    return {"pairs": len(pairs), "names": len({p["annotated_tool"] for p in pairs})}


def _report(tasks, pairs, queries: pl.DataFrame, qrels: pl.DataFrame, unannotated: dict, source: dict) -> dict:
    mapped = [p for p in pairs if p["tool_ids"] or p["alternatives"]]
    unmapped = [p for p in pairs if not (p["tool_ids"] or p["alternatives"])]
    by_reason: dict[str, Counter] = defaultdict(Counter)
    for p in unmapped:
        by_reason[p["unmapped"]][p["annotated_tool"]] += 1
    ambiguous = [p for p in mapped if p["resolution"] == "ambiguous"]
    required = set(qrels.filter(~pl.col("alternative"))["query_id"])
    return {
        "source": {**source, "annotated_by": ANNOTATED_BY, "license": LICENSE, "citation": CITATION},
        "rule": RULE,
        "scoring": SCORING,
        "tasks": len(tasks),
        "gold_queries": len(queries),
        "gold_queries_complete": int(queries["complete"].sum()) if len(queries) else 0,
        "gold_queries_alternatives_only": sorted(set(queries["query_id"]) - required),
        "gold_qrels": len(qrels),
        "gold_qrels_alternative": int(qrels["alternative"].sum()) if len(qrels) else 0,
        "annotated": _count(pairs),
        "mapped": _count(mapped),
        "mapped_by_resolution": dict(sorted(Counter(p["resolution"] for p in mapped).items())),
        "mapped_normalized": _count([p for p in mapped if p["match"] == "normalized"]),
        "mapped_affix": {**_count([p for p in mapped if p["match"] == "affix"]),
                         "names": sorted({p["annotated_tool"] for p in mapped if p["match"] == "affix"})},
        "ambiguous": {**_count(ambiguous), "names": sorted({p["annotated_tool"] for p in ambiguous})},
        "unmapped": {
            **_count(unmapped),
            "by_reason": {
                reason: {"pairs": sum(c.values()), "names": dict(sorted(c.items()))}
                for reason, c in sorted(by_reason.items())
            },
        },
        "unannotated_server": {
            "what": "tasks whose question names a crawled LiveMCPBench server with catalog tools while none of "
            "their annotated names is on it (docs/stages/label.md: what this count can and cannot see)",
            "tasks": len(unannotated),
            "by_task": dict(sorted(unannotated.items())),
        },
        "tasks_without_gold": sorted(t.query_id for t in tasks if t.query_id not in set(queries["query_id"])),
        "pairs": pairs,
    }


# --------------------------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class GoldTruth:
    """The gold qrels by query: required tools and alternatives (acceptable, not required)."""

    required: dict[str, set[str]]
    acceptable: dict[str, set[str]]

    @property
    def queries(self) -> list[str]:
        return sorted(set(self.required) | set(self.acceptable))


def gold_truth(qrels: pl.DataFrame) -> GoldTruth:
    required: dict[str, set[str]] = {}
    acceptable: dict[str, set[str]] = {}
    for query_id, tool_id, alternative in qrels.select("query_id", "tool_id", "alternative").iter_rows():
        (acceptable if alternative else required).setdefault(query_id, set()).add(tool_id)
    return GoldTruth(required, acceptable)


def precision_recall(predicted: Mapping[str, set[str]], truth: GoldTruth, *, seed: int = 0,
                     resamples: int = 1000) -> dict:  # fmt: skip
    """Precision, recall and F1 of predicted (query -> tools) against the gold, micro over the gold queries, with
    95 % intervals: :func:`labeling.workflows.measure.measure` (alternatives neither right nor wrong)."""
    queries = truth.queries
    out = measure(predicted, truth.required, truth.acceptable, queries=queries, seed=seed, resamples=resamples)
    return {**out, "queries_with_a_verified_pair": sum(1 for q in queries if predicted.get(q))}


# ----------------------------------------------------------------- the label stage's path measured on the gold

CI_KEYS = ("precision_ci95", "recall_ci95", "f1_ci95")  # precision_recall's 95 % bootstrap intervals
GOLD_PAIR_SCHEMA = {
    "query_id": pl.String,
    "tool_id": pl.String,
    "retrieval_cosine": pl.Float64,
    "agreement_score": pl.Float64,
    "llm_score": pl.Float64,
    "gold": pl.Boolean,  # a required gold tool of the query
    "alternative": pl.Boolean,  # an alternative of the query (acceptable, not required)
}


def write_gold(config: Config, store: ArtifactStore, gold: GoldSet, gold_pairs: list[dict], gold_llm: list) -> dict:
    """Write the gold tables, the mapping report and the scored gold pairs; the label summary's ``gold`` section."""
    from labeling.verify import VERIFIERS

    cfg = config.label
    store.write_parquet(gold.queries, LABEL_FILES.gold_queries)
    store.write_parquet(gold.qrels, LABEL_FILES.gold_qrels)
    store.write_json(gold.report, LABEL_FILES.gold_mapping)
    truth = gold_truth(gold.qrels)
    store.write_parquet(_gold_pair_frame(gold_pairs, gold_llm, truth), LABEL_FILES.gold_pairs)
    # the agreement scores every pair; the LLM every pair under "llm", only those the agreement passed under "both"
    ran = {"embedding": ["embedding"], "llm": ["embedding", "llm"], "both": ["embedding", "both"]}[cfg.verifier]
    per_verifier = {v: precision_recall(_predicted(config, gold_pairs, gold_llm, v), truth, seed=config.seed)
                    for v in ran}  # fmt: skip
    report = {k: v for k, v in gold.report.items() if k not in ("pairs", "tasks_without_gold", "rule")}
    return {
        **report,
        "evaluation": {
            "what": "the label stage's path (retrieval top-k above the cosine floor, then each verifier that ran) "
            "on the gold questions with the gold hidden; precision, recall and F1 of the verified pairs against "
            "the gold qrels (micro, over the gold queries, 95 % bootstrap intervals over the queries); "
            "alternatives are acceptable, not required: recall counts the required tools only and a verified "
            "alternative counts neither for nor against precision (labeling/workflows/measure.py)",
            "decided_by": cfg.verifier,
            "precision": per_verifier[cfg.verifier]["precision"],
            "candidates": precision_recall(_predicted(config, gold_pairs, gold_llm, None), truth, seed=config.seed),
            "verifiers": per_verifier,
            # the 95 % bootstrap intervals over gold queries, as the workflow measure gives them
            "verifiers_ci95": {v: {k: row[k] for k in CI_KEYS if k in row} for v, row in per_verifier.items()},
            "not_run": {v: f"label.verifier={cfg.verifier}" for v in VERIFIERS if v not in per_verifier},
        },
    }


def _gold_pair_frame(gold_pairs: list[dict], gold_llm: list, truth: GoldTruth) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query_id": [p["query_id"] for p in gold_pairs],
            "tool_id": [p["tool_id"] for p in gold_pairs],
            "retrieval_cosine": [p["retrieval_cosine"] for p in gold_pairs],
            "agreement_score": [p["agreement_score"] for p in gold_pairs],
            "llm_score": gold_llm,
            "gold": [p["tool_id"] in truth.required.get(p["query_id"], set()) for p in gold_pairs],
            "alternative": [p["tool_id"] in truth.acceptable.get(p["query_id"], set()) for p in gold_pairs],
        },
        schema=GOLD_PAIR_SCHEMA,
    ).sort("query_id", "tool_id")


def _predicted(config: Config, gold_pairs: list[dict], gold_llm: list, verifier: str | None) -> dict[str, set[str]]:
    """The tools each gold question keeps: those ``verifier`` labels 1, or every candidate (None)."""
    from labeling.verify import verified

    out: dict[str, set[str]] = {}
    for p, llm in zip(gold_pairs, gold_llm, strict=True):
        if verifier is None or verified(config, p["agreement_score"], llm, verifier):
            out.setdefault(p["query_id"], set()).add(p["tool_id"])
    return out
