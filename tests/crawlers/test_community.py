"""n8n's community listing as crawl sources: the n8n-mcp node table read, pinned, and crawled end to end."""

import json
from pathlib import Path

import polars as pl
import pytest

from crawlers import n8n
from crawlers.community import COMMUNITY, VERIFIED, listing_files, read_listing, version_key
from crawlers.crawl import crawl
from crawlers.extract import extract_listed
from crawlers.summary import summary_lines
from ecoagent.config import ConfigError, load_config
from ecoagent.errors import BadInput
from tests.crawlers import community_fixtures as cf
from tests.fixture_packages import build_fixture_mirror, fixture_overrides
from tests.package_builders import build_npm_tgz, package_files


def test_the_listing_pins_each_community_package_with_its_verification(tmp_path: Path):
    packages = read_listing(cf.build_listing(tmp_path), "data/nodes.db")
    assert [(p.name, p.version, p.listing) for p in packages] == [
        ("@someone/n8n-nodes-empty", "2.0.0", COMMUNITY),
        (cf.ACME, cf.ACME_VERSION, VERIFIED),
        (cf.BUILDER, "1.0.0", VERIFIED),
        ("n8n-nodes-weather", "0.10.0", VERIFIED),  # the highest version of its rows (0.10.0 > 0.9.0), verified
    ]  # the official row (is_community = 0) is no community package
    weather = packages[-1]
    assert [n["node_type"] for n in weather.nodes] == ["n8n-nodes-weather.weather", "n8n-nodes-weather.weatherTrigger"]
    assert weather.source().key == "npm:n8n-nodes-weather@0.10.0" and weather.source().platform == "n8n"


def test_versions_sort_as_releases():
    assert sorted(["1.10.0", "1.9.2", "1.10.0-beta.1", "0.3"], key=version_key) == ["0.3", "1.9.2", "1.10.0-beta.1",
                                                                                     "1.10.0"]  # fmt: skip


def test_a_listing_without_a_nodes_table_names_the_settings(tmp_path: Path):
    tarball = build_npm_tgz(tmp_path, "n8n-mcp", "0.0.2", {"data/nodes.db": b"not sqlite"})
    with pytest.raises(BadInput, match=r"label\.workflows\.package"):
        read_listing(tarball, "data/nodes.db")


def test_the_listing_copy_of_a_package_feeds_the_n8n_extractor(tmp_path: Path):
    weather = read_listing(cf.build_listing(tmp_path), "data/nodes.db")[-1]
    files, skipped = listing_files(weather)
    assert skipped == {"listing_no_properties": 1}  # the trigger row holds no properties
    extraction = n8n.extract(package_files(weather.name, weather.version, "npm", files, listing=VERIFIED))
    assert sorted(t.local_id for t in extraction.tools) == ["weather:forecast:alerts", "weather:forecast:get"]
    assert "city" in extraction.tools[0].parameters["properties"]


def test_a_tool_read_from_the_listing_copy_has_unknown_auth_and_marks_what_the_copy_cannot_show(tmp_path: Path):
    packages = {p.name: p for p in read_listing(cf.build_listing(tmp_path), "data/nodes.db")}
    builder = packages[cf.BUILDER]
    (tool,) = extract_listed(builder.source(), builder, "download_failed").records
    assert tool.auth_type is None  # the copy keeps no credential: unknown, never "none"
    assert tool.unknown_fields == ["auth_type", "categories", "doc_urls", "endpoints", "http_methods", "parameters"]
    assert "description_from_listing" in tool.flags
    weather = packages["n8n-nodes-weather"]
    get = next(t for t in extract_listed(weather.source(), weather, None).records if t.tool_id.endswith(":get"))
    assert "city" in get.parameters  # the copy's city parameter is kept as read, but the schema may be a part of it
    assert "parameters" in get.unknown_fields and get.auth_type is None


def test_the_listing_signals_of_a_package_are_read_where_the_table_has_them(tmp_path: Path):
    weather = read_listing(cf.build_listing(tmp_path / "new"), "data/nodes.db")[-1]
    assert weather.signals == {"listing_npm_downloads": 400, "listing_author": "Weather Author",
                               "listing_fetched_at": "2026-11-04 10:00:00"}  # fmt: skip
    older = read_listing(cf.build_listing(tmp_path / "old", signals=False), "data/nodes.db")[-1]
    assert older.signals == {"listing_npm_downloads": None, "listing_author": None, "listing_fetched_at": None}


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("community")
    mirror = tmp / "mirror"
    sources = build_fixture_mirror(mirror)
    cf.build_acme(mirror)  # the community packages the registry serves; the others are read from the listing
    cf.build_builder(mirror)
    cf.build_listing(mirror)

    def run(name: str, *extra: str):
        config = load_config("fixture", overrides=[*fixture_overrides(mirror, tmp / "cache"), *cf.listing_overrides(),
                                                   "crawl.fetch_retries=0", *extra], environ={})  # fmt: skip
        return crawl(config, out=str(tmp / name), sources_path=sources)

    return tmp, run


def test_the_crawl_adds_the_listed_packages_and_counts_them_per_listing(crawled):
    tmp, run = crawled
    summary = run("on", "crawl.community_listing.archives=true").summary
    tools = pl.read_parquet(tmp / "on" / "tools.parquet")
    community = tools.filter(pl.col("package").is_in([cf.ACME, cf.BUILDER, "n8n-nodes-weather",
                                                       "@someone/n8n-nodes-empty"]))  # fmt: skip
    assert set(community["tool_id"]) == {f"n8n:{cf.ACME}:{t}" for t in cf.ACME_TOOLS} | {
        "n8n:n8n-nodes-weather:weather:forecast:get", "n8n:n8n-nodes-weather:weather:forecast:alerts",
        f"n8n:{cf.BUILDER}:builder:-:run"}  # the builder's archive gave no tool: its listing copy did
    from_listing = community.filter(pl.col("package") == "n8n-nodes-weather")
    assert all("description_from_listing" in flags for flags in from_listing["flags"].to_list())
    acme = community.filter(pl.col("package") == cf.ACME)  # read from its archive: everything it shows is known
    assert acme["unknown_fields"].list.len().sum() == 0 and acme["auth_type"].null_count() == 0
    assert set(acme["listing_npm_downloads"]) == {100} and set(acme["listing_author"]) == {"Acme Author"}
    verified, other = summary["per_listing"][VERIFIED], summary["per_listing"][COMMUNITY]
    assert (verified["packages"], verified["packages_read"], verified["tools"]) == (3, 3, 6)
    assert verified["read_from"] == {"archive": 1, "listing": 1, "listing_after_archive": 1}
    assert verified["not_counted_by_reason"]["n8n:js_properties_not_static"] == 2  # acme's and the builder's
    assert verified["fetch_missed_by_reason"] == {"download_failed": 1}  # the fixture mirror has no weather tarball
    assert verified["not_counted_by_reason"]["n8n:js_versioned_node"] == 1
    assert other["no_tools_by_reason"] == {"skipped:listing_no_properties": 1}
    assert summary["community_listing"]["packages_by_listing"] == {COMMUNITY: 1, VERIFIED: 3}
    assert summary["package_errors"] == []  # a package read from the listing is no failed package
    table = "\n".join(summary_lines(summary, str(tmp / "on")))
    assert f"| {VERIFIED} | 3/3 | 3 | 6 |" in table and "archive=1, listing=1, listing_after_archive=1" in table
    assert "community listing: 4 packages (community=1, community-verified=3)" in table


def test_without_listing_descriptions_a_missing_package_is_a_failed_fetch(crawled):
    _, run = crawled
    summary = run("archives_only", "crawl.community_listing.archives=true",
                  "crawl.community_listing.descriptions_from_listing=false").summary  # fmt: skip
    verified = summary["per_listing"][VERIFIED]
    assert (verified["packages"], verified["packages_read"], verified["tools"]) == (3, 2, 3)
    assert verified["no_tools_by_reason"] == {"error:no node description could be read statically from the JS": 1,
                                              "fetch:download_failed": 1}  # fmt: skip
    failed = {e["package"] for e in summary["package_errors"] if e["fatal"]}
    assert failed == {"npm:n8n-nodes-weather@0.10.0", "npm:@someone/n8n-nodes-empty@2.0.0"}


def test_by_default_every_listed_package_is_read_from_the_listing_copy_unfetched(crawled):
    tmp, run = crawled
    summary = run("listing_only").summary
    fetched = {row["name"] for row in json.loads((tmp / "listing_only" / "fetch_manifest.json").read_text())}
    assert not fetched & {cf.ACME, cf.BUILDER, "n8n-nodes-weather", "@someone/n8n-nodes-empty"}
    verified = summary["per_listing"][VERIFIED]
    assert verified["read_from"] == {"listing": 3}
    assert verified["fetch_missed_by_reason"] == {}
    assert summary["package_errors"] == []
    tools = pl.read_parquet(tmp / "listing_only" / "tools.parquet")
    listed = tools.filter(pl.col("package").is_in(["n8n-nodes-weather", cf.BUILDER]))
    weather = "n8n:n8n-nodes-weather:weather:forecast"
    assert set(listed["tool_id"]) == {f"{weather}:get", f"{weather}:alerts", f"n8n:{cf.BUILDER}:builder:-:run"}
    assert all("description_from_listing" in flags for flags in listed["flags"].to_list())
    # unknown is not absent: no tool of the listing copy says "no auth" or presents its empty schema as known
    assert listed["auth_type"].null_count() == len(listed) and "none" not in listed["auth_type"].to_list()
    builder = listed.row(by_predicate=pl.col("package") == cf.BUILDER, named=True)
    assert "parameters" in builder["unknown_fields"]
    assert builder["listing_npm_downloads"] == 600 and builder["listing_author"] == "Builder Author"
    assert verified["unknown_fields"] == {"tools_with_any": 3, "auth_type": 3, "parameters": 3, "doc_urls": 3,
                                          "endpoints": 3, "http_methods": 3, "categories": 3}  # fmt: skip
    assert summary["coverage"]["auth"] < 1 and summary["coverage"]["unknown"]["auth_type"] > 0
    table = "\n".join(summary_lines(summary, str(tmp / "listing_only")))
    assert "| 3 (auth_type=3, parameters=3, doc_urls=3, endpoints=3, http_methods=3, categories=3) |" in table


def test_listing_only_without_listing_descriptions_names_both_settings(crawled):
    _, run = crawled
    with pytest.raises(ConfigError, match=r"archives=false.*descriptions_from_listing=false"):
        run("contradiction", "crawl.community_listing.descriptions_from_listing=false")


def test_switched_off_the_crawl_has_no_community_listing(crawled):
    _, run = crawled
    summary = run("off", "crawl.community_listing.enabled=false").summary
    assert "community_listing" not in summary and VERIFIED not in summary["per_listing"]
