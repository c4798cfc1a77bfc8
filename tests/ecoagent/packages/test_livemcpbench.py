"""The LiveMCPBench readers, the server table and the dumped-tool map (tiny data wheels built here)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from ecoagent.packages.livemcpbench import (
    SERVER_CONFIG,
    ServerRow,
    crosscheck,
    load_server_table,
    map_dumped_tools,
    read_livemcpbench_servers,
)
from tests.package_builders import build_wheel

SERVERS = {
    "mcpServers": {
        "notes": {"command": "uvx", "args": ["notes-mcp-server"], "env": {}},
        "painter": {"command": "npx", "args": ["-y", "github:someone/mcp-painter"], "env": {}},
        "weather": {"command": "npx", "args": ["-y", "weather-mcp"], "env": {}},
    }
}
DUMPED = [
    {"server": "notes", "name": "search_notes", "description": ""},
    {"server": "notes", "name": "remove_note", "description": ""},
    {"server": "notes", "name": "renamed_since", "description": ""},
    {"server": "painter", "name": "draw", "description": ""},
    {"server": "weather", "name": "get_forecast", "description": ""},
    {"server": "Weather copy", "name": "get_forecast", "description": ""},
]
ROWS = [
    ServerRow("notes", "uvx notes-mcp-server", "pypi", "notes-mcp-server"),
    ServerRow("painter", "npx -y github:someone/mcp-painter", None, None, reason="installed from git"),
    ServerRow("weather", "npx -y weather-mcp", "npm", "weather-mcp", note="pinned to 1.0"),
]
CATALOG = [
    ("notes-mcp-server", "search_notes", "mcp:notes-mcp-server:search_notes"),
    ("notes-mcp-server", "remove_note", "mcp:notes-mcp-server:remove_note"),
    ("notes-mcp-server", "set_mode", "mcp:notes-mcp-server:set_mode"),
    ("weather-mcp", "get_forecast", "mcp:weather-mcp:get_forecast"),
    ("other-package", "draw", "mcp:other-package:draw"),  # same name, another server: never matched
]


def test_dumped_tools_map_to_the_same_name_in_their_servers_package() -> None:
    tool_map = map_dumped_tools(ROWS, DUMPED, CATALOG)
    by_key = {(t["server"], t["name"]): t["tool_id"] for t in tool_map}
    assert by_key[("notes", "search_notes")] == "mcp:notes-mcp-server:search_notes"
    assert by_key[("notes", "renamed_since")] is None
    assert by_key[("painter", "draw")] is None  # not crawled: no package, whatever the catalog holds
    assert by_key[("Weather copy", "get_forecast")] is None  # a dumped server the table does not list


def test_crosscheck_counts_found_tools_of_the_crawled_servers() -> None:
    tool_map = map_dumped_tools(ROWS, DUMPED, CATALOG)
    report = crosscheck(ROWS, DUMPED, tool_map, Counter(p for p, _, _ in CATALOG))
    assert report["dumped_tools"] == 6
    assert report["dumped_tools_of_crawled_servers"] == 4 and report["found"] == 3
    assert report["found_share"] == 0.75
    assert report["below_goal"] == ["notes"]  # 2 of 3 < 90 %
    assert report["dumped_servers_not_in_table"] == ["Weather copy"]
    servers = {s["server"]: s for s in report["servers"]}
    assert servers["notes"]["missing"] == ["renamed_since"] and servers["notes"]["catalog_tools"] == 3
    assert servers["painter"] == {
        "server": "painter", "package": None, "crawled": False, "dumped": 1, "found": None,
        "catalog_tools": None, "reason": "installed from git",
    }  # fmt: skip
    assert servers["weather"]["note"] == "pinned to 1.0"


def test_server_table_rows_need_a_package_or_a_reason(tmp_path: Path) -> None:
    table = tmp_path / "servers.yaml"
    table.write_text('servers:\n  - {name: "x", runs: "npx x", registry: null, package: null, reason: null}\n')
    with pytest.raises(ValueError, match="neither a package nor a reason"):
        load_server_table(table)
    table.write_text('servers:\n  - {name: "x", runs: "npx x", registry: npm, package: x, colour: red}\n')
    with pytest.raises(ValueError, match=r"crawl\.livemcpbench_servers"):
        load_server_table(table)
    with pytest.raises(ValueError, match="not found"):
        load_server_table(tmp_path / "missing.yaml")


def test_server_config_is_read_from_the_data_wheel(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path, "livemcpbench-data", "0.1.1", {SERVER_CONFIG: json.dumps(SERVERS)})
    assert list(read_livemcpbench_servers(wheel)) == ["notes", "painter", "weather"]
    broken = build_wheel(tmp_path / "b", "livemcpbench-data", "0.1.1", {SERVER_CONFIG: "{not json"})
    with pytest.raises(ValueError, match=r"clean_config\.json"):
        read_livemcpbench_servers(broken)
