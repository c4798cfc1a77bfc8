"""LiveMCPBench's MCP servers: its data wheel's server list and tool dump, and their catalog counterparts.

The crawl checks its MCP extraction against LiveMCPBench's own dump of the same servers; the label
stage maps the benchmark's annotated tool names to catalog tools. Both read the data wheel
(``label.livemcpbench_package``, never installed) through these readers and match servers to
catalog packages through one table, ``crawl.livemcpbench_servers`` (``crawlers/livemcpbench_servers.yaml``):

- ``read_livemcpbench_servers(wheel)``: ``baseline/mcp_copilot/config/clean_config.json``, the servers
  LiveMCPBench runs (name -> ``{"command", "args", "env"}``);
- ``read_livemcpbench_tools(wheel)``: ``baseline/mcp_copilot/config/mcp_arg_*.json``, every server's tools
  as LiveMCPBench listed them from the running servers (``{"server", "name", "description"}``);
- ``load_server_table(path)``: the table, one ``ServerRow`` per server;
- ``map_dumped_tools(rows, dumped, catalog)``: each dumped tool with the catalog ``tool_id`` of the same
  name in the server's package (or None), and ``crosscheck(...)`` the per-server counts of that map.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ecoagent.packages.archive import DATA_PACKAGE_LIMITS, ArchiveError, read_archive, read_data_members
from ecoagent.packages.source import read_rows

log = logging.getLogger(__name__)

CONFIG_DIR = "baseline/mcp_copilot/config"
SERVER_CONFIG = f"{CONFIG_DIR}/clean_config.json"
GOAL_SHARE = 0.9  # issue 17: >= 90 % of the dumped tools of the crawled servers found by name


def _load_json(data: bytes) -> Any:
    """Parse a whole JSON document; raises ValueError (JSONDecodeError and UnicodeDecodeError are both)."""
    return json.loads(data.decode("utf-8"))


def _is_tool_dump(name: str) -> bool:
    path = PurePosixPath(name)
    return str(path.parent) == CONFIG_DIR and path.name.startswith("mcp_arg_") and path.suffix == ".json"


def read_livemcpbench_servers(wheel: Path) -> dict[str, dict]:
    """The servers LiveMCPBench runs, in file order; raises ValueError naming the wheel when unreadable."""
    try:
        contents = read_archive(wheel, lambda name: name == SERVER_CONFIG, DATA_PACKAGE_LIMITS)
        servers = _load_json(contents.files[SERVER_CONFIG]).get("mcpServers")
    except (ArchiveError, KeyError, ValueError, AttributeError) as exc:
        raise ValueError(f"{wheel.name}: cannot read {SERVER_CONFIG}: {type(exc).__name__}: {exc}") from exc
    if not isinstance(servers, dict):
        raise ValueError(f"{wheel.name}: {SERVER_CONFIG} has no mcpServers object")
    return {name: spec for name, spec in servers.items() if isinstance(spec, dict)}


def read_livemcpbench_tools(wheel: Path, drops: Counter | None = None) -> list[dict]:
    """LiveMCPBench's MCP tools as ``{"server", "name", "description"}`` dicts, in file order.

    What is skipped is counted in ``drops`` when one is passed, and always logged.
    """
    drops = Counter() if drops is None else drops
    before = Counter(drops)
    tools: list[dict] = []
    files = read_data_members(wheel, _is_tool_dump, drops)
    if files is None:
        return tools
    if not files and drops["member_too_large"] == before["member_too_large"]:
        drops["missing_file"] += 1
    seen: set[tuple[str, str]] = set()
    for member in sorted(files):
        try:
            servers = _load_json(files[member])
        except ValueError:
            drops["malformed_file"] += 1
            continue
        if not isinstance(servers, list):
            drops["malformed_file"] += 1
            continue
        for server in servers:
            if (
                not isinstance(server, dict)
                or not isinstance(server.get("server_name"), str)
                or not isinstance(server.get("tools"), list)
            ):
                drops["malformed_record"] += 1
                continue
            for tool in server["tools"]:
                if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not tool["name"]:
                    drops["malformed_record"] += 1
                    continue
                key = (server["server_name"], tool["name"])
                if key in seen:
                    drops["duplicate_id"] += 1
                    continue
                seen.add(key)
                desc = tool.get("description")  # 16 tools in 0.1.1 have null descriptions
                tools.append({"server": key[0], "name": key[1], "description": desc if isinstance(desc, str) else ""})
    skipped = drops - before
    if skipped:
        log.warning("%s: LiveMCPBench tools skipped: %s", wheel.name, dict(skipped))
    return tools


@dataclass(frozen=True)
class ServerRow:
    """One LiveMCPBench server: how it runs, the registry package that holds it, why it is not crawled."""

    name: str
    runs: str
    registry: str | None
    package: str | None
    reason: str | None = None  # None: the crawl reads it
    note: str | None = None  # e.g. why its pin is not the newest release

    @property
    def crawled(self) -> bool:
        return self.package is not None and self.reason is None


def load_server_table(path: Path) -> list[ServerRow]:
    """The server table; a bad row is an error naming the file, the row and the setting."""
    out = read_rows(path, "servers", lambda row: ServerRow(**row), what="LiveMCPBench server table", row="server",
                    setting="crawl.livemcpbench_servers")  # fmt: skip
    for i, server in enumerate(out):
        if server.package is None and not server.reason:
            raise ValueError(f"{path}: server row {i} ({server.name}) has neither a package nor a reason")
    return out


def map_dumped_tools(
    rows: list[ServerRow], dumped: list[dict], catalog: Iterable[tuple[str, str, str]]
) -> list[dict]:
    """Each dumped tool with the catalog tool of the same name in its server's package.

    ``catalog``: (package, tool name, tool_id) of the MCP catalog. A dumped server the table does not
    list keeps ``package`` None (LiveMCPBench's dump names one server it does not run).
    """
    by_package: dict[str, dict[str, str]] = {}
    for package, name, tool_id in catalog:
        by_package.setdefault(package, {}).setdefault(name, tool_id)
    table = {row.name: row for row in rows}
    out = []
    for tool in dumped:
        row = table.get(tool["server"])
        package = row.package if row is not None and row.crawled else None
        tool_id = by_package.get(package, {}).get(tool["name"]) if package else None
        out.append({"server": tool["server"], "name": tool["name"], "package": package, "tool_id": tool_id})
    return out


def crosscheck(rows: list[ServerRow], dumped: list[dict], tool_map: list[dict], catalog_tools: Counter) -> dict:
    """Per server: tools LiveMCPBench dumped, how many the crawl found by name, what it crawled in all.

    ``catalog_tools``: the number of catalog tools per package. Totals count the crawled servers only;
    a server below ``GOAL_SHARE`` is listed with the table's note (why its tools are not statically visible).
    """
    dumped_by_server = Counter(t["server"] for t in dumped)
    found_by_server = Counter(t["server"] for t in tool_map if t["tool_id"])
    missing: dict[str, list[str]] = {}
    for t in tool_map:
        if not t["tool_id"]:
            missing.setdefault(t["server"], []).append(t["name"])
    servers = []
    for row in rows:
        n_dumped, n_found = dumped_by_server.get(row.name, 0), found_by_server.get(row.name, 0)
        entry: dict[str, Any] = {
            "server": row.name,
            "package": row.package,
            "crawled": row.crawled,
            "dumped": n_dumped,
            "found": n_found if row.crawled else None,
            "catalog_tools": catalog_tools.get(row.package, 0) if row.crawled else None,
        }
        if row.crawled:
            entry["missing"] = missing.get(row.name, []) if n_dumped else []
        else:
            entry["reason"] = row.reason
        if row.note:
            entry["note"] = row.note
        servers.append(entry)
    crawled = [s for s in servers if s["crawled"]]
    total_dumped = sum(s["dumped"] for s in crawled)
    total_found = sum(s["found"] for s in crawled)
    listed = {row.name for row in rows}
    return {
        "servers_in_table": len(rows),
        "servers_crawled": len(crawled),
        "dumped_tools": len(dumped),
        "dumped_tools_of_crawled_servers": total_dumped,
        "found": total_found,
        "found_share": round(total_found / total_dumped, 4) if total_dumped else None,
        "goal_share": GOAL_SHARE,
        "below_goal": [s["server"] for s in crawled if s["dumped"] and s["found"] < GOAL_SHARE * s["dumped"]],
        "dumped_servers_not_in_table": sorted({t["server"] for t in dumped} - listed),
        "servers": servers,
    }
