"""Example requests from the crawled packages' own docs, labelled with the tools they are given to.

:func:`build_package_requests` reads every archive the crawl fetched for the configured platforms (the crawl's
``fetch_manifest.json``: the same file by sha256, from the package cache, fetched again only on a miss), statically
(:func:`ecoagent.packages.archive.read_archive`: a member with an absolute path, ``..`` or a link refuses the
package; nothing is imported or run). It reads the README, the docs members (``.md``, ``.rst``, ``.txt``, ``.mdx``),
the wheel's long description, and the docstrings of the catalog tools' own modules (``ast``), and keeps the
strings the extraction rule (:mod:`labeling.package_requests.rules`) finds as requests.

**Labels.** A request is tied to the first of:

1. ``named``: catalog tools of its package that its item, row or quoted text names (a snake_case, camelCase or
   hyphenated name bare; a plain word only back-ticked);
2. ``docstring_owner``: the one tool whose class or method docstring holds it;
3. ``code_block``: the package's tools its code block names, when it names one to three;
4. ``tool_readme``: the one tool whose module sits under the README's folder (crewai-tools' per-tool READMEs);
5. ``single_tool_package``: the package's only catalog tool;
6. ``readme_folder``: the tools under the README's folder, when several;
7. ``package``: the package's tool set (at most ``label.package_requests.max_package_tools`` tools; more is
   ``package_set_too_large``, dropped).

1-5 are **tool-level** labels, 6-7 **package-level** (``label_level``): the request needs one of the set, which one
the docs do not say, so every tool of the set is a required qrel and the set's first hit is what MRR reads; its
recall is not a measure of the retriever. Dropped, by counted reason: a package without catalog tools, a deny-listed
package (``label.package_requests.deny_packages``: guard packages whose tool checks an action another tool does),
the rule's reasons, and a request text already kept (``duplicate_text``, first by package name). Tool inputs and
plain LLM prompts are counted apart, never requests.

**Splits.** By package (:func:`ecoagent.text.splits.assign_splits`, the package as the group key, near-duplicate
texts of two packages in one group): no package, and so no tool, is in two splits; the test's tools are new to
train, as in ``workflows-disjoint``.
"""

from __future__ import annotations

import ast
import email.parser
import hashlib
import json
import logging
import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from ecoagent.errors import BadInput
from ecoagent.layout import CRAWL_FILES
from ecoagent.packages.archive import ArchiveError, ArchiveLimits, read_archive
from ecoagent.packages.fetch import FetchedPackage, crawl_fetcher
from ecoagent.packages.source import Source
from ecoagent.store import ArtifactStore
from ecoagent.text.splits import assign_splits, normalize
from labeling.package_requests.rules import (
    DOCSTRING_PATTERNS,
    Candidate,
    code_candidates,
    doc_candidates,
    request_reason,
)

if TYPE_CHECKING:
    from ecoagent.config import Config

log = logging.getLogger(__name__)

DOC_SUFFIXES = (".md", ".rst", ".txt", ".markdown", ".mdx")
NOT_DOCS = frozenset({"license.md", "license.txt", "licence.md", "changelog.md", "history.md", "notice.txt",
                      "entry_points.txt", "top_level.txt", "requirements.txt", "dependency_links.txt", "authors.md",
                      "contributing.md", "code_of_conduct.md", "security.md", "third_party_notices.txt",
                      "sources.txt", "licenses.md"})  # fmt: skip
TOOL_LEVEL = ("named", "docstring_owner", "code_block", "tool_readme", "single_tool_package")
PACKAGE_LEVEL = ("readme_folder", "package")
QUERY_SCHEMA = {
    "query_id": pl.String,
    "text": pl.String,
    "platform": pl.String,
    "package": pl.String,
    "version": pl.String,
    "license": pl.String,  # the package's declared licence (wheel metadata, package.json); None: not declared
    "member": pl.String,  # the archive member the request is written in
    "line": pl.Int64,
    "heading": pl.String,  # the heading path above it (a docstring: docstring:<symbol>)
    "rule": pl.String,  # prose | code | docstring
    "tie": pl.String,  # how its tools were found (module docstring)
    "label_level": pl.String,  # tool | package
    "split": pl.String,
    "group_id": pl.String,
}
QREL_SCHEMA = {"query_id": pl.String, "tool_id": pl.String}


@dataclass
class PackageRequestSet:
    queries: pl.DataFrame
    qrels: pl.DataFrame
    report: dict = field(default_factory=dict)


def _is_doc(member: str) -> bool:
    base = posixpath.basename(member).lower()
    if member.endswith(".dist-info/METADATA") or base == "pkg-info":
        return True
    if "node_modules/" in member or "licenses/" in member.lower():
        return False
    return base.endswith(DOC_SUFFIXES) and base not in NOT_DOCS


def _long_description(text: str) -> str:
    message = email.parser.Parser().parsestr(text)
    body = message.get_payload()
    return body if isinstance(body, str) and body.strip() else message.get("Description", "") or ""


def _license(files: dict[str, bytes]) -> str | None:
    """The licence the package declares: the wheel's License-Expression, License (one line) or license classifier,
    or package.json's ``license``."""
    for member, data in files.items():
        text = data.decode("utf-8", "replace")
        if member.endswith(".dist-info/METADATA"):
            message = email.parser.Parser().parsestr(text, headersonly=True)
            for key in ("License-Expression", "License"):
                value = (message.get(key) or "").strip()
                if value and "\n" not in value and len(value) <= 80:
                    return value
            for classifier in message.get_all("Classifier") or []:
                if classifier.startswith("License ::"):
                    return classifier.rsplit("::", 1)[-1].strip()
        if member == "package.json":
            try:
                value = json.loads(text).get("license")
            except (ValueError, AttributeError):
                continue
            if isinstance(value, str) and value:
                return value
    return None


class _ToolNames:
    """A package's catalog tools and the names a request may call them by."""

    def __init__(self, tools: list[dict]):
        self.tools = tools
        self.patterns: list[tuple[str, list[re.Pattern]]] = []
        for tool in tools:
            found = []
            for term in {tool["name"], (tool["source_symbol"] or "").split(".")[-1]}:
                if not term or len(term) < 4:
                    continue
                if "_" in term or "-" in term or re.search(r"[a-z][A-Z]", term):
                    found.append(re.compile(r"(?<![\w-])" + re.escape(term) + r"(?![\w-])", re.I))
                else:  # a plain word names a tool only as code
                    found.append(re.compile(r"`" + re.escape(term) + r"`", re.I))
            self.patterns.append((tool["tool_id"], found))

    def named(self, text: str) -> list[str]:
        return sorted({tool_id for tool_id, found in self.patterns if any(p.search(text) for p in found)})

    def under(self, member: str) -> list[str]:
        """The tools whose module sits under a README's folder (a README two folders down or more)."""
        folder = posixpath.dirname(member)
        if folder.count("/") < 1 or member.endswith("METADATA"):
            return []
        return sorted(t["tool_id"] for t in self.tools
                      if t["source_path"] and posixpath.dirname(t["source_path"]).startswith(folder))  # fmt: skip

    def owning(self, member: str, symbol: str) -> list[str]:
        owners = [t["tool_id"] for t in self.tools if t["source_path"] == member and symbol in
                  {t["source_symbol"], (t["source_symbol"] or "").split(".")[-1],
                   (t["source_symbol"] or "").split(".")[0]}]  # fmt: skip
        return owners if len(owners) == 1 else []  # a tool spec's class docstring speaks for all its tools


def _docstring_candidates(files: dict[str, bytes], names: _ToolNames) -> Iterable[tuple[str, Candidate, list[str]]]:
    for member in sorted(m for m in files if m.endswith(".py")):
        try:
            tree = ast.parse(files[member].decode("utf-8", "replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            doc = ast.get_docstring(node) or ""
            if doc:
                owner = names.owning(member, node.name)
                for candidate in code_candidates(doc, f"docstring:{node.name}", node.lineno, DOCSTRING_PATTERNS,
                                                 "docstring"):  # fmt: skip
                    yield member, candidate, owner


def _tie(candidate: Candidate, member: str, owner: list[str], names: _ToolNames, max_set: int) -> tuple[list, str]:
    """The request's tools and how they were found (module docstring); ([], reason) when it has none."""
    if not names.tools:
        return [], "no_catalog_tools"
    text = candidate.text + " " + candidate.context if candidate.rule == "prose" else candidate.text
    if found := names.named(text):
        return found, "named"
    if owner:
        return owner, "docstring_owner"
    if candidate.rule == "code" and 1 <= len(found := names.named(candidate.context)) <= 3:
        return found, "code_block"
    beside = names.under(member) if candidate.rule != "docstring" else []
    if len(beside) == 1:
        return beside, "tool_readme"
    if len(names.tools) == 1:
        return [names.tools[0]["tool_id"]], "single_tool_package"
    if len(beside) > 1:
        return beside, "readme_folder"
    if len(names.tools) > max_set:
        return [], "package_set_too_large"
    return sorted(t["tool_id"] for t in names.tools), "package"


def _package_sources(config: Config, crawl_dir: str, drops: Counter) -> list[tuple[Source, str]]:
    cfg = config.label.package_requests
    crawl = ArtifactStore(crawl_dir)
    if not crawl.exists(CRAWL_FILES.fetch_manifest):
        raise BadInput(f"no {CRAWL_FILES.fetch_manifest} in {crawl_dir}: the package requests are read from the "
                       "archives the crawl fetched (settings label.workflows.crawl_dir for the crawl folder, "
                       "label.package_requests.enabled=false to go without them)")  # fmt: skip
    manifest = crawl.read_json(CRAWL_FILES.fetch_manifest)
    sources = []
    for row in manifest:
        if row.get("platform") not in cfg.platforms:
            continue
        if row.get("error") or not row.get("sha256"):
            drops["not_fetched_by_the_crawl"] += 1
            continue
        sources.append((Source(row["platform"], row["registry"], row["name"], row["version"]), row["sha256"]))
    return sorted(sources, key=lambda s: (s[0].platform, s[0].name, s[0].version))


def build_package_requests(config: Config, catalog: pl.DataFrame, crawl_dir: str) -> PackageRequestSet:
    """The requests, their qrels and the report on this catalog (module docstring)."""
    cfg = config.label.package_requests
    counts = _Counts()
    sources = _package_sources(config, crawl_dir, counts.drops)
    tools_of: dict[str, list[dict]] = defaultdict(list)
    ours = catalog.filter(pl.col("platform").is_in(list(cfg.platforms))).sort("tool_id")
    for row in ours.select("tool_id", "package", "name", "source_path", "source_symbol").iter_rows(named=True):
        tools_of[row["package"]].append(row)
    fetched = crawl_fetcher(config).fetch_all([s for s, _ in sources], phase="read package docs")
    limits = ArchiveLimits(config.crawl.max_member_bytes, config.crawl.max_package_bytes,
                           config.crawl.max_package_members, "crawl")  # fmt: skip
    rows: list[dict] = []
    seen_texts: set[str] = set()  # a text kept once, by the first package (platform, then name) to give it
    for (source, sha256), package in zip(sources, fetched, strict=True):
        names = _ToolNames(tools_of.get(source.name, []))
        files = _read_package(source, sha256, package, names, limits, counts.drops)
        if files is not None:
            counts.archives[source.platform] += 1
            rows += _package_rows(config, source, files, names, seen_texts, counts)
    return _assemble(config, rows, counts, len(sources))


@dataclass
class _Counts:
    drops: Counter = field(default_factory=Counter)  # by reason
    apart: Counter = field(default_factory=Counter)  # strings that are not requests: tool inputs, plain LLM prompts
    archives: Counter = field(default_factory=Counter)  # read, by platform


def _read_package(source: Source, sha256: str, package: FetchedPackage, names: _ToolNames, limits: ArchiveLimits,
                  drops: Counter) -> dict[str, bytes] | None:  # fmt: skip
    """The docs, the tools' modules and package.json of the archive the crawl read; None (counted) when it is not
    there, is another archive, or is refused."""
    if package.error or package.path is None:
        drops["archive_unavailable"] += 1
        return None
    if package.sha256 != sha256:
        drops["archive_not_the_crawled_one"] += 1
        return None
    wanted = {t["source_path"] for t in names.tools if (t["source_path"] or "").endswith(".py")} | {"package.json"}
    try:
        return read_archive(package.path, lambda m: _is_doc(m) or m in wanted, limits).files
    except ArchiveError as exc:
        log.warning("%s: %s", source.key, exc)
        drops["archive_refused"] += 1
        return None


def _package_rows(config: Config, source: Source, files: dict[str, bytes], names: _ToolNames, seen_texts: set[str],
                  counts: _Counts) -> list[dict]:  # fmt: skip
    """The kept requests of one package, each with its tools; every other candidate counted by its reason."""
    cfg = config.label.package_requests
    licence = _license(files)
    found: list[tuple[str, Candidate, list[str]]] = []
    for member in sorted(m for m in files if _is_doc(m)):
        text = files[member].decode("utf-8", "replace")
        if member.endswith("METADATA") or member.lower().endswith("pkg-info"):
            text = _long_description(text)
        found += [(member, candidate, []) for candidate in doc_candidates(text, member)]
    found += list(_docstring_candidates(files, names))
    rows = []
    for member, candidate, owner in found:
        if candidate.kind != "request":
            counts.apart[candidate.kind] += 1
            continue
        reason = request_reason(candidate.text, strong=candidate.strong, min_words=cfg.min_words,
                                max_words=cfg.max_words)  # fmt: skip
        if not reason and source.name in cfg.deny_packages:
            reason = "deny_listed_package"
        tools, tie = _tie(candidate, member, owner, names, cfg.max_package_tools) if not reason else ([], reason)
        key = normalize(candidate.text).rstrip(".?! ")
        if tools and key in seen_texts:
            tools, tie = [], "duplicate_text"
        if not tools:
            counts.drops[tie] += 1
            continue
        seen_texts.add(key)
        digest = hashlib.sha256(f"{source.key}\n{candidate.text}".encode()).hexdigest()[:16]
        rows.append({"query_id": f"pkgreq-{digest}", "text": candidate.text, "platform": source.platform,
                     "package": source.name, "version": source.version, "license": licence, "member": member,
                     "line": candidate.line, "heading": candidate.heading, "rule": candidate.rule, "tie": tie,
                     "label_level": "tool" if tie in TOOL_LEVEL else "package", "tools": tools})  # fmt: skip
    return rows


def _assemble(config: Config, rows: list[dict], counts: _Counts, packages: int) -> PackageRequestSet:
    frame = pl.DataFrame([{k: v for k, v in r.items() if k != "tools"} for r in rows],
                         schema={k: v for k, v in QUERY_SCHEMA.items() if k not in ("split", "group_id")})  # fmt: skip
    if len(frame):
        frame = assign_splits(frame, ratios=config.label.split_ratios, seed=config.seed,
                              dedup_threshold=config.label.dedup_threshold, setting="label.split_ratios",
                              gold_set_keys=frame["package"].to_list())  # fmt: skip
    else:
        frame = frame.with_columns(pl.lit(None, pl.String).alias("split"), pl.lit(None, pl.String).alias("group_id"))
    queries = frame.select(list(QUERY_SCHEMA)).sort("query_id")
    qrels = pl.DataFrame([{"query_id": r["query_id"], "tool_id": t} for r in rows for t in r["tools"]],
                         schema=QREL_SCHEMA).unique().sort("query_id", "tool_id")  # fmt: skip
    report = _report(queries, qrels, counts.drops, counts.apart, counts.archives, packages)
    return PackageRequestSet(queries, qrels, report)


def _report(queries: pl.DataFrame, qrels: pl.DataFrame, drops: Counter, apart: Counter, archives: Counter,
            packages: int) -> dict:  # fmt: skip
    def by(column: str) -> dict:
        return {k: v for k, v in sorted(Counter(queries[column].to_list()).items())}

    return {
        "rule": __doc__.split("\n\n")[0].strip() if __doc__ else "",
        "packages_listed": packages,
        "archives_read": dict(sorted(archives.items())),
        "queries": len(queries),
        "qrels": len(qrels),
        "by_platform": by("platform"),
        "by_tie": by("tie"),
        "by_label_level": by("label_level"),
        "by_split": by("split"),
        "packages_contributing": dict(sorted(Counter(queries.unique("package")["platform"].to_list()).items())),
        "not_requests": dict(sorted(apart.items())),
        "drops_by_reason": dict(sorted((k, v) for k, v in drops.items() if v)),
    }

