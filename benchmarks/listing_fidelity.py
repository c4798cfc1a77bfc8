"""Benchmark: how faithful n8n-mcp's listing copy is, against the npm archives the registry does serve.

The default crawl reads n8n's community packages from the listing's copy of their node descriptions (resource and
operation options only, no credential: ``crawlers/community.py``). For every listed package the registry serves at
its pinned version, this reads the tools of the real archive and those of the listing's copy with the same extractor,
and compares them: the same tool ids (node:resource:operation)? for the ids both have, the same name, description and
operation? and what the archive shows that the copy cannot (auth, a parameter schema, doc links), which the crawl
marks unknown in ``unknown_fields``. Per listing (``community-verified``, ``community``) and in all:

    .venv/bin/python benchmarks/listing_fidelity.py [--profile default] [--verified-only] [--limit N]
                                                    [--keep DIR] [--set KEY=VALUE ...] [--record NAME]

Needs the npm registry (it fetches each listed package: about 1,470, of which the registry served 96 at their pins
when the listing was pinned; ``--limit N`` takes the first N by name) and the listing's data package; writes only to
a temporary package cache (or ``--keep``). Static reading only: nothing fetched is run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report, timed
from benchmarking.record import add_record_option, write_record
from crawlers.community import ListedPackage, community_listing
from crawlers.extract import PackageResult, archive_limits, extract_listed, extract_package
from ecoagent.config import Config, load_config
from ecoagent.packages.fetch import crawl_fetcher
from schemas.tool_record import ToolRecord

COLUMNS = ["listing", "packages served", "tools (archive)", "tools (copy)", "same id", "archive only", "copy only",
           "same name", "same description", "nodes: same operations", "archive: auth", "archive: parameters",
           "archive: docs"]  # fmt: skip


def _operations(records: list[ToolRecord]) -> dict[str, set[str]]:
    """Each node's actions (``resource:operation``), by node: a tool's ``source_symbol`` is node:resource:operation."""
    nodes: dict[str, set[str]] = {}
    for r in records:
        node, _, action = r.source_symbol.partition(":")
        nodes.setdefault(node, set()).add(action)
    return nodes


def _has_parameters(record: ToolRecord) -> bool:
    return bool(json.loads(record.parameters or "{}").get("properties"))


def compare_package(archive: list[ToolRecord], copy: list[ToolRecord]) -> Counter:
    """What one package's archive and listing copy agree on: tools of each, ids in both or one only; of the shared
    ids, equal names and descriptions; the nodes of both with the same operations; and the archive's tools with an
    auth other than none, a parameter or a doc link (what the copy, which shows none of them, marks unknown)."""
    by_id, copied = {r.tool_id: r for r in archive}, {r.tool_id: r for r in copy}
    shared = sorted(by_id.keys() & copied.keys())
    nodes, copy_nodes = _operations(archive), _operations(copy)
    both = nodes.keys() & copy_nodes.keys()
    return Counter({
        "tools_archive": len(by_id), "tools_copy": len(copied), "same_id": len(shared),
        "archive_only": len(by_id.keys() - copied.keys()), "copy_only": len(copied.keys() - by_id.keys()),
        "same_name": sum(by_id[t].name == copied[t].name for t in shared),
        "same_description": sum(by_id[t].description == copied[t].description for t in shared),
        "nodes_both": len(both), "same_operations": sum(nodes[n] == copy_nodes[n] for n in both),
        "archive_auth": sum(r.auth_type not in (None, "none") for r in archive),
        "archive_parameters": sum(map(_has_parameters, archive)),
        "archive_docs": sum(bool(r.doc_urls) for r in archive),
    })  # fmt: skip


Pair = tuple[str, PackageResult, PackageResult]  # (listing, the archive's read, the listing copy's read)


def read_both(config: Config, packages: list[ListedPackage]) -> tuple[list[Pair], Counter]:
    """``(listing, archive read, copy read)`` of each package the registry served at its pin, and the others by
    why they could not be compared (``not_served``, ``archive_unreadable``)."""
    fetched = crawl_fetcher(config).fetch_all([p.source() for p in packages], phase="fetch listed packages")
    limits, pairs, skipped = archive_limits(config), [], Counter()
    for listed, pkg in zip(packages, fetched, strict=True):
        if pkg.error:
            skipped["not_served"] += 1
            continue
        archive = extract_package(pkg.source, pkg.path, limits)
        if archive.fatal:
            skipped["archive_unreadable"] += 1
            continue
        pairs.append((listed.listing, archive, extract_listed(pkg.source, listed, None, read_from="listing")))
    return pairs, skipped


def fidelity(pairs: list[Pair]) -> dict[str, Counter]:
    """The comparison added up per listing, and over all of them (``all``)."""
    out: dict[str, Counter] = {}
    for listing, archive, copy in pairs:
        counts = compare_package(archive.records, copy.records)
        counts["packages"] = 1
        for key in (listing, "all"):  # update, not +: a count of 0 is a figure too
            out.setdefault(key, Counter()).update(counts)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] == "all", kv[0])))


def _share(part: int, whole: int) -> str:
    return f"{part} ({part / whole:.0%})" if whole else "0"


def table_rows(per_listing: dict[str, Counter]) -> list[list[object]]:
    """One row per listing (and all): the columns of :data:`COLUMNS`, shares of the shared ids or archive tools."""
    return [[listing, c["packages"], c["tools_archive"], c["tools_copy"], c["same_id"], c["archive_only"],
             c["copy_only"], _share(c["same_name"], c["same_id"]), _share(c["same_description"], c["same_id"]),
             _share(c["same_operations"], c["nodes_both"]), _share(c["archive_auth"], c["tools_archive"]),
             _share(c["archive_parameters"], c["tools_archive"]),
             _share(c["archive_docs"], c["tools_archive"])]
            for listing, c in per_listing.items()]  # fmt: skip


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="default")
    parser.add_argument("--verified-only", action="store_true", help="only the packages n8n verified")
    parser.add_argument("--limit", type=int, help="only the first N listed packages, by name")
    parser.add_argument("--keep", type=Path, help="keep the package cache here instead of a temp folder")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config override")
    add_record_option(parser)
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    with tempfile.TemporaryDirectory(prefix="ecoagent-bench-fidelity-") as tmp:
        cache = args.keep or Path(tmp)
        config = load_config(args.profile, overrides=[f"crawl.cache_dir={cache}", *args.set])
        listing = community_listing(config)
        packages = [p for p in listing.packages if p.verified or not args.verified_only][: args.limit]
        (pairs, skipped), seconds = timed(read_both, config, packages)
    per_listing = fidelity(pairs)
    every = per_listing.get("all", Counter())
    report = {"listing": listing.head, "packages_listed": len(packages), "not_compared": dict(skipped),
              "per_listing": {k: dict(sorted(v.items())) for k, v in per_listing.items()},
              "seconds": round(seconds, 1)}  # fmt: skip
    print_report(report, f"{every['packages']} of {len(packages)} listed packages served: {every['same_id']} of "
                 f"{every['tools_archive']} archive tools have the copy's id, {every['copy_only']} copy tools have no "
                 f"archive tool; same name {_share(every['same_name'], every['same_id'])}, same description "
                 f"{_share(every['same_description'], every['same_id'])}")  # fmt: skip
    if args.record:
        _record(args.record, report, per_listing)


def _record(name: str, report: dict, per_listing: dict[str, Counter]) -> None:
    every = per_listing.get("all", Counter())
    figures = {"packages listed": report["packages_listed"], "packages served and compared": every["packages"],
               "not compared": report["not_compared"], "seconds": report["seconds"]}  # fmt: skip
    write_record(
        name, section="crawl", title="Fidelity of n8n's listing copy against the served archives",
        benchmark="each community package the registry serves at its pin, read from its npm archive and from "
        "n8n-mcp's listing copy by the same extractor: tool ids, names, descriptions, what only the archive shows",
        figures=figures, tables=[{"caption": "Per listing", "columns": COLUMNS, "rows": table_rows(per_listing)}],
        notes=[f"listing: {report['listing']}"],
    )  # fmt: skip


if __name__ == "__main__":
    main()
