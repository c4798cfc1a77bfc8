"""The crawl stage end to end on the fixture mirror, with the real pip and npm clients."""

import zipfile
from pathlib import Path

import polars as pl
import pytest

from crawlers.crawl import StageFailed, crawl
from crawlers.sources import load_sources
from crawlers.summary import summary_lines
from ecoagent.config import load_config
from ecoagent.errors import EXIT_PARTIAL
from ecoagent.packages.fetch import PackageCache
from ecoagent.packages.source import Source
from ecoagent.testing.packages import ECHO_TOOL_MODULE
from schemas.tool_record import tool_record_polars_schema
from tests.fixture_packages import build_fixture_mirror, fixture_overrides
from tests.package_builders import build_wheel

EXPECTED_IDS = {
    "crewai:crewai-tools-fixture:SerperFixtureTool",
    "langchain:langchain-fixture:WeatherTool",
    "llamaindex:llama-index-tools-notes:NotesToolSpec.create_note",
    "llamaindex:llama-index-tools-notes:NotesToolSpec.search_notes",
    "mcp:@modelcontextprotocol/server-fixture:fixture_search_notes",
    "n8n:n8n-nodes-fixture:fixtureChat:channel:archive",
    "n8n:n8n-nodes-fixture:fixtureChat:message:delete",
    "n8n:n8n-nodes-fixture:fixtureChat:message:post",
}


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    build_fixture_mirror(tmp_path / "mirror")
    return tmp_path / "mirror"


def _config(mirror: Path, cache: Path, *extra: str):
    return load_config("fixture", overrides=[*fixture_overrides(mirror, cache), *extra], environ={})


def _run(mirror: Path, tmp_path: Path, name: str, sources: Path | None = None, cache: Path | None = None):
    cfg = _config(mirror, cache or tmp_path / "cache")
    return crawl(cfg, out=str(tmp_path / name), sources_path=sources or mirror / "sources.yaml")


def test_every_platform_is_extracted_into_tools_parquet(mirror, tmp_path):
    result = _run(mirror, tmp_path, "out")
    assert result.exit_code == 0, result.summary["package_errors"]
    frame = pl.read_parquet(tmp_path / "out" / "tools.parquet")
    assert frame.schema == tool_record_polars_schema()
    assert set(frame["tool_id"]) == EXPECTED_IDS
    assert frame["tool_id"].to_list() == sorted(frame["tool_id"])
    by_id = {row["tool_id"]: row for row in frame.iter_rows(named=True)}
    weather = by_id["langchain:langchain-fixture:WeatherTool"]
    assert weather["description"].startswith("Look up the current weather")  # resolved prompt constant
    assert weather["required_parameters"] == ["city"]
    serper = by_id["crewai:crewai-tools-fixture:SerperFixtureTool"]
    assert serper["auth_env_vars"] == ["SERPER_API_KEY"] and serper["auth_type"] == "api_key"
    post = by_id["n8n:n8n-nodes-fixture:fixtureChat:message:post"]
    assert post["auth_credentials"] == ["fixtureChatApi"] and set(post["required_parameters"]) == {"channelId", "text"}
    assert by_id["mcp:@modelcontextprotocol/server-fixture:fixture_search_notes"]["listing"] == "official"
    summary = result.summary
    assert summary["per_platform"]["n8n"]["tools"] == 3
    assert summary["skipped_by_reason"].get("n8n:trigger") == 1
    assert summary["counting_rules"]["n8n"]
    listings = summary["per_listing"]  # packages read, tools and what was not counted, per listing
    assert {k: (v["packages"], v["packages_read"], v["tools"]) for k, v in listings.items()} == {
        "community": (1, 1, 3), "official": (1, 1, 1), "platform": (3, 3, 4)}  # fmt: skip
    assert listings["community"]["not_counted_by_reason"].get("n8n:trigger") == 1
    table = "\n".join(summary_lines(summary, str(tmp_path / "out")))
    assert "| listing | packages read | with tools | tools | not counted | read from | fetch missed |" in table
    assert "| community | 1/1 |" in table
    for name in ("crawl_summary.json", "fetch_manifest.json", "crawl_drops.json", "sources.resolved.yaml"):
        assert (tmp_path / "out" / name).exists()


def test_two_crawls_of_the_same_pins_are_byte_identical(mirror, tmp_path):
    first = _run(mirror, tmp_path, "a")
    second = _run(mirror, tmp_path, "b")  # warm: served from the cache
    cold = _run(mirror, tmp_path, "c", cache=tmp_path / "other-cache")
    assert second.summary["cache"] == {"hits": 5, "misses": 0} and first.summary["cache"]["misses"] == 5
    data = [(tmp_path / d / "tools.parquet").read_bytes() for d in ("a", "b", "c")]
    assert data[0] == data[1] == data[2]
    assert cold.exit_code == first.exit_code == 0



def test_a_daemonic_process_extracts_without_children_and_writes_the_same_catalog(mirror, tmp_path, monkeypatch):
    # a task of Celery's prefork pool is daemonic and may not start a process pool: the crawl extracts in-process
    import multiprocessing

    import crawlers.extract as extract_module

    def run(name: str):
        cfg = _config(mirror, tmp_path / "cache", "crawl.workers=2")
        return crawl(cfg, out=str(tmp_path / name), sources_path=mirror / "sources.yaml")

    first = run("a")

    class Daemonic:
        daemon = True

    def no_pool(*_args, **_kwargs):
        raise AssertionError("daemonic processes are not allowed to have children")

    monkeypatch.setattr(multiprocessing, "current_process", lambda: Daemonic())
    monkeypatch.setattr(extract_module, "ProcessPoolExecutor", no_pool)
    second = run("b")
    assert second.exit_code == first.exit_code == 0
    assert (tmp_path / "a" / "tools.parquet").read_bytes() == (tmp_path / "b" / "tools.parquet").read_bytes()

def _add_source(sources: Path, name: str, platform: str = "langchain") -> None:
    sources.write_text(
        sources.read_text() + f'  - {{platform: {platform}, registry: pypi, name: "{name}", version: "1.0"}}\n'
    )


def _seed_cache(cache: Path, name: str, archive: Path) -> None:
    """Put an archive into the package cache as if it had been downloaded (pip refuses bad wheels)."""
    PackageCache(cache).put(Source("langchain", "pypi", name, "1.0"), archive)


def _zip(path: Path, members: dict[str, bytes], links: tuple[str, ...] = ()) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o120777 << 16
            zf.writestr(info, "/etc/passwd")
    return path




def _bad_archive(kind: str, folder: Path) -> tuple[Path, bool]:
    """(archive, expect_tools_from_it) for one kind of bad input."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bad_pkg-1.0-py3-none-any.whl"
    if kind == "corrupt":
        path.write_bytes(b"PK\x03\x04 this is not really a zip file" * 50)
        return path, False
    if kind == "dotdot":
        return _zip(path, {"bad_pkg/tool.py": ECHO_TOOL_MODULE, "../../outside.py": b"x"}), False
    if kind == "absolute":
        return _zip(path, {"bad_pkg/tool.py": ECHO_TOOL_MODULE, "/etc/evil.py": b"x"}), False
    if kind == "symlink":
        return _zip(path, {"bad_pkg/tool.py": ECHO_TOOL_MODULE}, links=("bad_pkg/link.py",)), False
    if kind == "syntax_error":
        return build_wheel(folder, "bad-pkg", "1.0", {
            "bad_pkg/tool.py": ECHO_TOOL_MODULE, "bad_pkg/broken.py": "def broken(:\n    pass\n"}), True  # fmt: skip
    if kind == "huge_file":
        # 50 MB of source in one member: above crawl.max_member_bytes, so it is skipped and recorded
        return build_wheel(folder, "bad-pkg", "1.0", {
            "bad_pkg/tool.py": ECHO_TOOL_MODULE, "bad_pkg/generated.py": b"#" * (50 * 1024 * 1024)}), True  # fmt: skip
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["corrupt", "dotdot", "absolute", "symlink", "syntax_error", "huge_file"])
def test_bad_input_is_recorded_for_that_package_only(mirror, tmp_path, kind):
    archive, expect_tools = _bad_archive(kind, tmp_path / "bad")
    _seed_cache(tmp_path / "cache", "bad-pkg", archive)
    _add_source(mirror / "sources.yaml", "bad-pkg")
    result = _run(mirror, tmp_path, "out")
    ids = set(pl.read_parquet(tmp_path / "out" / "tools.parquet")["tool_id"])
    assert ids >= EXPECTED_IDS  # every other package's tools still arrive
    assert ("langchain:bad-pkg:EchoTool" in ids) == expect_tools
    errors = [e for e in result.summary["package_errors"] if e["package"] == "pypi:bad-pkg@1.0"]
    assert errors, result.summary["package_errors"]
    assert {e["package"] for e in result.summary["package_errors"]} == {"pypi:bad-pkg@1.0"}
    assert result.partial and result.exit_code == EXIT_PARTIAL
    reason = " ".join(e["reason"] for e in errors)
    expected = {"corrupt": "cannot read archive", "dotdot": "'..'", "absolute": "absolute path",
                "symlink": "symlink", "syntax_error": "SyntaxError", "huge_file": "member_too_large"}  # fmt: skip
    assert expected[kind].lower() in reason.lower()


def test_a_package_over_the_unpacked_budget_is_refused_naming_the_setting(mirror, tmp_path):
    # the many-members wheel of benchmarks/archive_budget.py, shrunk: 80 members of 24 KiB against a 1 MiB budget
    members = {f"bad_pkg/m{i:02d}.py": b"#" * (24 * 1024) for i in range(80)}
    archive = build_wheel(tmp_path / "bad", "bad-pkg", "1.0", {"bad_pkg/tool.py": ECHO_TOOL_MODULE, **members})
    _seed_cache(tmp_path / "cache", "bad-pkg", archive)
    _add_source(mirror / "sources.yaml", "bad-pkg")
    cfg = _config(mirror, tmp_path / "cache", "crawl.max_package_bytes=1048576")
    result = crawl(cfg, out=str(tmp_path / "out"), sources_path=mirror / "sources.yaml")
    (error,) = [e for e in result.summary["package_errors"] if e["package"] == "pypi:bad-pkg@1.0"]
    assert "package_too_large" in error["reason"] and "crawl.max_package_bytes=1048576" in error["reason"]
    ids = set(pl.read_parquet(tmp_path / "out" / "tools.parquet")["tool_id"])
    assert ids == EXPECTED_IDS and result.exit_code == EXIT_PARTIAL  # refused whole, the others still arrive


def test_a_failed_registry_download_is_recorded_for_that_package_only(mirror, tmp_path):
    _add_source(mirror / "sources.yaml", "not-in-the-registry")
    result = _run(mirror, tmp_path, "out")
    assert set(pl.read_parquet(tmp_path / "out" / "tools.parquet")["tool_id"]) == EXPECTED_IDS
    (err,) = result.summary["package_errors"]
    assert err["package"] == "pypi:not-in-the-registry@1.0" and err["reason"].startswith("download_failed")
    assert result.exit_code == EXIT_PARTIAL


def test_too_many_failures_fail_the_stage_without_touching_earlier_outputs(mirror, tmp_path):
    _run(mirror, tmp_path, "out")
    before = (tmp_path / "out" / "tools.parquet").read_bytes()
    sources = mirror / "sources.yaml"
    for i in range(6):
        _add_source(sources, f"missing-{i}")
    cfg = _config(mirror, tmp_path / "cache", "crawl.max_package_error_share=0.25", "crawl.fetch_retries=0")
    with pytest.raises(StageFailed, match=r"max_package_error_share"):
        crawl(cfg, out=str(tmp_path / "out"), sources_path=sources)
    assert (tmp_path / "out" / "tools.parquet").read_bytes() == before


def test_the_pinned_source_list_covers_every_platform():
    sources = load_sources(Path(__file__).parents[2] / "crawlers" / "sources.yaml")
    counts = {p: sum(s.platform == p for s in sources) for p in ("langchain", "crewai", "llamaindex", "n8n", "mcp")}
    assert counts["llamaindex"] >= 150 and counts["langchain"] >= 10 and counts["mcp"] >= 15
    assert all(s.version for s in sources)


def test_unknown_platform_names_the_setting(mirror, tmp_path):
    cfg = _config(mirror, tmp_path / "cache", "crawl.platforms=[zapier]")
    with pytest.raises(ValueError, match=r"crawl\.platforms"):
        crawl(cfg, out=str(tmp_path / "out"), sources_path=mirror / "sources.yaml")


def test_per_platform_shards_merge_into_the_single_crawl(mirror, tmp_path):
    from crawlers.crawl import merge_crawl_shards

    whole = _run(mirror, tmp_path, "whole")
    shards = []
    for platform in ("langchain", "crewai", "llamaindex", "n8n", "mcp"):
        cfg = _config(mirror, tmp_path / "cache", f"crawl.platforms=[{platform}]")
        crawl(cfg, out=str(tmp_path / f"shard-{platform}"), sources_path=mirror / "sources.yaml")
        shards.append(str(tmp_path / f"shard-{platform}"))
    merged = merge_crawl_shards(_config(mirror, tmp_path / "cache"), shards, str(tmp_path / "merged"))
    assert (tmp_path / "merged" / "tools.parquet").read_bytes() == (tmp_path / "whole" / "tools.parquet").read_bytes()
    assert merged.summary["tools"] == whole.summary["tools"]
    assert merged.summary["per_platform"]["n8n"]["tools"] == whole.summary["per_platform"]["n8n"]["tools"]
    assert merged.summary["per_listing"] == whole.summary["per_listing"]


# The child crawls with two extraction workers and kills itself at the first extraction result (workers alive,
# idle or busy), or right after tools.parquet is written (the catalog written, the summary not yet).
_KILLED_CRAWL = """
from pathlib import Path

from crawlers.crawl import crawl
from ecoagent.config import load_config
from ecoagent.runtime.context import Recording
from ecoagent.store import ArtifactStore

overrides, out, sources, point, pids_file = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]

def heard(phase, done, total):
    if point == "extract" and phase == "extract packages" and done:
        die(pids_file)

if point == "write":
    write = ArtifactStore.write_bytes

    def write_then_die(self, data, *parts):
        url = write(self, data, *parts)
        if parts[-1] == "tools.parquet":
            die()
        return url

    ArtifactStore.write_bytes = write_then_die
config = load_config("fixture", overrides=overrides, environ={})
with Recording(heard).heard(config).running():
    crawl(config, out=out, sources_path=Path(sources))
"""


def test_a_killed_crawl_leaves_no_workers_no_mixed_folder_and_reruns_identically(mirror, tmp_path):
    import json

    from tests.killed_runs import file_bytes, hidden_entries, run_killed, still_alive, without_timings

    cache = tmp_path / "cache"
    reference = tmp_path / "runs" / "reference"
    _run(mirror, tmp_path / "runs", "reference", cache=cache)
    out = tmp_path / "runs" / "out"
    # the previous generation differs from the new one, so a mix of the two would show
    crawl(_config(mirror, cache, "crawl.platforms=[mcp]"), out=str(out), sources_path=mirror / "sources.yaml")
    previous = file_bytes(out)
    overrides = json.dumps([*fixture_overrides(mirror, cache), "crawl.workers=2"])
    for point in ("extract", "write"):
        run_killed(_KILLED_CRAWL, overrides, out, mirror / "sources.yaml", point, tmp_path / "pids.json")
        assert file_bytes(out) == previous, point  # the old generation whole: no new catalog beside its summary
    assert json.loads((tmp_path / "pids.json").read_text()), "the crawl had no extraction workers to kill"
    assert still_alive(tmp_path / "pids.json") == []  # the workers died with the crawl
    assert hidden_entries(out.parent)  # the killed write's hidden folder, until the next run starts
    _run(mirror, tmp_path / "runs", "out", cache=cache)
    assert hidden_entries(out.parent) == []
    for name in ("tools.parquet", "fetch_manifest.json", "crawl_drops.json", "sources.resolved.yaml"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    assert without_timings(out / "crawl_summary.json", "cache") == without_timings(
        reference / "crawl_summary.json", "cache"
    )
