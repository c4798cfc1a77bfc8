"""The package-requests set built from fixture archives in a package cache, as the crawl left them."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import polars as pl
import pytest

from ecoagent.config import load_config
from ecoagent.errors import BadInput
from ecoagent.layout import CRAWL_FILES
from ecoagent.packages.fetch import PackageCache
from ecoagent.packages.source import Source
from labeling.package_requests.build import build_package_requests
from tests.package_builders import build_npm_tgz, build_wheel

WEATHER_README = """# llama-index-tools-weather

## Usage

```python
agent = FunctionAgent(tools=WeatherToolSpec().to_tool_list(), llm=llm)
await agent.run("Will it rain in Berlin on Saturday?")
```
"""
WEATHER_MODULE = '''
class WeatherToolSpec:
    def get_forecast(self, city: str) -> str:
        """The forecast of a city.

        Example: agent.chat("What is the forecast for Lisbon this week?")
        """

    def get_alerts(self, region: str) -> str:
        """Severe weather alerts of a region."""
'''
MAPS_README = """# maps-mcp

## Example prompts

- "Find a route from Oslo to Bergen avoiding tolls"
- "Will it rain in Berlin on Saturday?"
- Show the `geocode_address` result for 10 Downing Street, London
"""
GUARD_README = """# llama-index-tools-guard

## Example prompts

- "Send five hundred dollars to the vendor account"
"""
NO_TOOLS_README = """# lonely-mcp

## Example prompts

- "Book a table for two at an Italian restaurant tonight"
"""


def _tool(platform: str, package: str, name: str, path: str | None = None, symbol: str | None = None) -> dict:
    return {"tool_id": f"{platform}:{package}:{symbol or name}", "platform": platform, "package": package,
            "name": name, "source_path": path, "source_symbol": symbol or name}  # fmt: skip


CATALOG = pl.DataFrame([
    _tool("llamaindex", "llama-index-tools-weather", "get_forecast", "llama_index/tools/weather/base.py",
          "WeatherToolSpec.get_forecast"),
    _tool("llamaindex", "llama-index-tools-weather", "get_alerts", "llama_index/tools/weather/base.py",
          "WeatherToolSpec.get_alerts"),
    _tool("mcp", "maps-mcp", "find_route"),
    _tool("mcp", "maps-mcp", "geocode_address"),
    _tool("llamaindex", "llama-index-tools-guard", "verify_action"),
    _tool("n8n", "n8n-nodes-base", "Weather"),
])  # fmt: skip


def _unsafe_tgz(directory: Path) -> Path:
    path = directory / "evil-mcp-1.0.0.tgz"
    with tarfile.open(path, "w:gz") as tar:
        data = b"# evil\n\n## Example prompts\n\n- \"Delete every file in my home folder now\"\n"
        info = tarfile.TarInfo("package/../README.md")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture
def crawled(tmp_path: Path):
    """A package cache and a crawl folder whose fetch manifest lists what the crawl fetched."""
    built = tmp_path / "built"
    archives = [
        (Source("llamaindex", "pypi", "llama-index-tools-weather", "0.1.0"),
         build_wheel(built, "llama-index-tools-weather", "0.1.0",
                     {"llama_index/tools/weather/base.py": WEATHER_MODULE},
                     metadata_extra="License-Expression: MIT\n\n" + WEATHER_README)),
        (Source("mcp", "npm", "maps-mcp", "1.0.0"),
         build_npm_tgz(built, "maps-mcp", "1.0.0", {"README.md": MAPS_README}, {"license": "Apache-2.0"})),
        (Source("llamaindex", "pypi", "llama-index-tools-guard", "0.1.0"),
         build_wheel(built, "llama-index-tools-guard", "0.1.0", {}, metadata_extra="\n" + GUARD_README)),
        (Source("mcp", "npm", "lonely-mcp", "1.0.0"),
         build_npm_tgz(built, "lonely-mcp", "1.0.0", {"README.md": NO_TOOLS_README})),
        (Source("mcp", "npm", "evil-mcp", "1.0.0"), _unsafe_tgz(built)),
    ]  # fmt: skip
    cache = PackageCache(tmp_path / "cache")
    manifest = []
    for source, archive in archives:
        fetched = cache.put(source, archive)
        manifest.append({"platform": source.platform, "registry": source.registry, "name": source.name,
                         "version": source.version, "sha256": fetched.sha256, "error": None})  # fmt: skip
    manifest.append({"platform": "n8n", "registry": "npm", "name": "n8n-nodes-base", "version": "1.0.0",
                     "sha256": "0" * 64, "error": None})  # not a platform the set reads  # fmt: skip
    (tmp_path / "crawl").mkdir()
    (tmp_path / "crawl" / CRAWL_FILES.fetch_manifest).write_text(json.dumps(manifest))
    config = load_config("fixture", [f"crawl.cache_dir={tmp_path / 'cache'}", "crawl.pip_extra_args=[--no-index]",
                                     "label.package_requests.deny_packages=[llama-index-tools-guard]",
                                     "label.split_ratios=[0.5, 0.0, 0.5]"], environ={})  # fmt: skip
    return config, tmp_path / "crawl"


def test_requests_are_tied_to_the_tools_the_docs_give_them_to(crawled) -> None:
    config, crawl = crawled
    found = build_package_requests(config, CATALOG, str(crawl))
    tools = found.qrels.group_by("query_id").agg(pl.col("tool_id").sort())
    by_text = {t: (tie, level, sorted(ids)) for t, tie, level, ids in
               found.queries.join(tools, on="query_id").select("text", "tie", "label_level", "tool_id").iter_rows()}
    weather = "llamaindex:llama-index-tools-weather:WeatherToolSpec."
    # the first package (by platform, then name) to give a text keeps it; the README's code block names no tool
    assert by_text["Will it rain in Berlin on Saturday?"] == ("package", "package",
                                                              [weather + "get_alerts", weather + "get_forecast"])
    lisbon = by_text["What is the forecast for Lisbon this week?"]
    assert lisbon == ("docstring_owner", "tool", [weather + "get_forecast"])
    assert by_text["Find a route from Oslo to Bergen avoiding tolls"][:2] == ("package", "package")
    assert by_text["Show the `geocode_address` result for 10 Downing Street, London"] == (
        "named", "tool", ["mcp:maps-mcp:geocode_address"])  # fmt: skip
    report = found.report
    assert report["drops_by_reason"] == {"archive_refused": 1, "deny_listed_package": 1, "duplicate_text": 1,
                                         "no_catalog_tools": 1}  # fmt: skip
    assert report["archives_read"] == {"llamaindex": 2, "mcp": 2}
    licences = dict(found.queries.select("package", "license").unique().iter_rows())
    assert licences == {"llama-index-tools-weather": "MIT", "maps-mcp": "Apache-2.0"}


def test_splits_are_by_package_so_no_tool_is_in_two(crawled) -> None:
    config, crawl = crawled
    found = build_package_requests(config, CATALOG, str(crawl))
    assert found.queries.group_by("package").agg(pl.col("split").n_unique())["split"].max() == 1
    split_of = found.qrels.join(found.queries.select("query_id", "split"), on="query_id")
    assert split_of.group_by("tool_id").agg(pl.col("split").n_unique())["split"].max() == 1
    again = build_package_requests(config, CATALOG, str(crawl))
    assert again.queries.equals(found.queries) and again.qrels.equals(found.qrels)  # seeded, deterministic


def test_an_archive_that_is_not_the_crawled_one_is_not_read(crawled, tmp_path: Path) -> None:
    config, crawl = crawled
    manifest = json.loads((crawl / CRAWL_FILES.fetch_manifest).read_text())
    for row in manifest:
        if row["name"] == "maps-mcp":
            row["sha256"] = "f" * 64
    (crawl / CRAWL_FILES.fetch_manifest).write_text(json.dumps(manifest))
    found = build_package_requests(config, CATALOG, str(crawl))
    assert found.report["drops_by_reason"]["archive_not_the_crawled_one"] == 1
    assert "maps-mcp" not in set(found.queries["package"])


def test_a_crawl_folder_without_its_fetch_manifest_is_named(crawled) -> None:
    config, crawl = crawled
    (crawl / CRAWL_FILES.fetch_manifest).unlink()
    with pytest.raises(BadInput, match=r"label\.workflows\.crawl_dir"):
        build_package_requests(config, CATALOG, str(crawl))
