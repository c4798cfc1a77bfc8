"""LiveMCPBench's servers in the crawl: the checked-in table, and the cross-check end to end.

The end-to-end test runs the real crawl with the real pip and npm clients on a fixture mirror that
also holds a tiny LiveMCPBench data wheel: nothing leaves the machine.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import yaml

from crawlers.crawl import LIVEMCPBENCH_TOOL_MAP, crawl
from crawlers.sources import load_sources
from ecoagent.config import PROJECT_ROOT, load_config
from ecoagent.packages.livemcpbench import SERVER_CONFIG, load_server_table
from tests.crawlers.test_mcp_python import FASTMCP_SERVER
from tests.fixture_packages import build_fixture_mirror, fixture_overrides
from tests.package_builders import build_wheel

DATA_PACKAGE = "livemcpbench-fixture-data"


def test_the_table_names_every_server_and_its_pinned_source() -> None:
    rows = load_server_table(PROJECT_ROOT / "crawlers" / "livemcpbench_servers.yaml")
    sources = {s.name: s for s in load_sources(PROJECT_ROOT / "crawlers" / "sources.yaml", ["mcp"])}
    assert len(rows) == 69 and len({r.name for r in rows}) == 69  # clean_config.json of the 0.1.1 wheel
    for row in rows:
        if row.crawled:
            assert row.package in sources, row.name
            assert sources[row.package].registry == row.registry, row.name
        else:
            assert row.reason and row.package not in sources, row.name
    community = {name for name, s in sources.items() if s.listing == "community"}
    assert community <= {r.package for r in rows if r.crawled}  # no community MCP source outside the table


def _mirror(tmp_path: Path, with_data: bool = True) -> tuple[Path, Path]:
    mirror = tmp_path / "mirror"
    sources = build_fixture_mirror(mirror)
    build_wheel(mirror, "notes-mcp-server", "0.1.0", {"notes_mcp/server.py": FASTMCP_SERVER})
    with sources.open("a") as fh:
        fh.write('  - {platform: mcp, registry: pypi, name: "notes-mcp-server", version: "0.1.0", '
                 "listing: community}\n")
    if with_data:
        run = {"mcpServers": {
            "notes": {"command": "uvx", "args": ["notes-mcp-server"]},
            "fixture": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-fixture"]},
            "remote": {"command": "npx", "args": ["-y", "supergateway", "--streamableHttp", "https://mcp.example.net"]},
            "forgotten": {"command": "uvx", "args": ["forgotten-mcp"]},
        }}  # fmt: skip
        dump = [
            {"server_name": "notes", "tools": [{"name": "search_notes"}, {"name": "remove_note"}, {"name": "gone"}]},
            {"server_name": "fixture", "tools": [{"name": "fixture_search_notes", "description": None}]},
            {"server_name": "remote", "tools": [{"name": "lookup"}]},
        ]
        build_wheel(mirror, DATA_PACKAGE, "0.1.1", {
            SERVER_CONFIG: json.dumps(run),
            "baseline/mcp_copilot/config/mcp_arg_fixture.json": json.dumps(dump),
        })  # fmt: skip
    table = tmp_path / "servers.yaml"
    table.write_text(yaml.safe_dump({"servers": [
        {"name": "notes", "runs": "uvx notes-mcp-server", "registry": "pypi", "package": "notes-mcp-server"},
        {"name": "fixture", "runs": "npx -y @modelcontextprotocol/server-fixture", "registry": "npm",
         "package": "@modelcontextprotocol/server-fixture"},
        {"name": "remote", "runs": "npx -y supergateway ...", "registry": None, "package": None,
         "reason": "a remote server"},
    ]}))  # fmt: skip
    return mirror, table


def _crawl(tmp_path: Path, mirror: Path, table: Path, out: str):
    overrides = [
        *fixture_overrides(mirror, tmp_path / "cache"),
        "crawl.livemcpbench_crosscheck=true",
        f"crawl.livemcpbench_servers={table}",
        f"label.livemcpbench_package={DATA_PACKAGE}==0.1.1",
    ]
    config = load_config("fixture", overrides=overrides, environ={})
    return crawl(config, out=str(tmp_path / out), sources_path=mirror / "sources.yaml")


def test_the_crawl_writes_the_crosscheck_and_the_tool_map(tmp_path: Path) -> None:
    mirror, table = _mirror(tmp_path)
    result = _crawl(tmp_path, mirror, table, "out")
    assert result.exit_code == 0, result.summary["package_errors"]
    section = result.summary["livemcpbench_crosscheck"]
    assert section["status"] == "complete"
    assert section["servers_run_not_in_table"] == ["forgotten"]  # never silently missing
    assert (section["dumped_tools"], section["dumped_tools_of_crawled_servers"], section["found"]) == (5, 4, 3)
    assert section["below_goal"] == ["notes"]
    servers = {s["server"]: s for s in section["servers"]}
    assert servers["notes"]["missing"] == ["gone"] and servers["notes"]["catalog_tools"] == 3
    assert servers["remote"]["reason"] == "a remote server"
    tool_map = json.loads((tmp_path / "out" / LIVEMCPBENCH_TOOL_MAP).read_text())
    assert {"server": "notes", "name": "search_notes", "package": "notes-mcp-server",
            "tool_id": "mcp:notes-mcp-server:search_notes"} in tool_map  # fmt: skip
    tools = pl.read_parquet(tmp_path / "out" / "tools.parquet")
    community = tools.filter(pl.col("package") == "notes-mcp-server")
    assert set(community["listing"]) == {"community"} and community.height == 3


def test_without_the_data_wheel_the_crawl_still_completes(tmp_path: Path) -> None:
    mirror, table = _mirror(tmp_path, with_data=False)
    result = _crawl(tmp_path, mirror, table, "out")
    assert result.exit_code == 0, result.summary["package_errors"]
    section = result.summary["livemcpbench_crosscheck"]
    assert section["status"] == "unavailable" and DATA_PACKAGE in section["reason"]
    assert not (tmp_path / "out" / LIVEMCPBENCH_TOOL_MAP).exists()


def test_the_merged_shards_keep_the_mcp_shards_crosscheck(tmp_path: Path) -> None:
    from crawlers.crawl import merge_crawl_shards

    mirror, table = _mirror(tmp_path)
    shards = []
    for platform in ("mcp", "langchain"):
        overrides = [
            *fixture_overrides(mirror, tmp_path / "cache"),
            "crawl.livemcpbench_crosscheck=true",
            f"crawl.livemcpbench_servers={table}",
            f"label.livemcpbench_package={DATA_PACKAGE}==0.1.1",
            f"crawl.platforms=['{platform}']",
        ]
        config = load_config("fixture", overrides=overrides, environ={})
        shards.append(crawl(config, out=str(tmp_path / platform), sources_path=mirror / "sources.yaml"))
    assert "livemcpbench_crosscheck" not in shards[1].summary  # no mcp in the shard: nothing to check
    merged = merge_crawl_shards(config, [s.out for s in shards], str(tmp_path / "merged"))
    assert merged.summary["livemcpbench_crosscheck"] == shards[0].summary["livemcpbench_crosscheck"]
    assert (tmp_path / "merged" / LIVEMCPBENCH_TOOL_MAP).read_bytes() == (
        tmp_path / "mcp" / LIVEMCPBENCH_TOOL_MAP
    ).read_bytes()
