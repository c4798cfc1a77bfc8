"""The fetcher drives the real clients: pip against a local find-links folder, npm pack on local
tarballs (the npm_mirror_dir setting), so no test here needs the network."""

import json

from ecoagent.packages.fetch import Fetcher, PackageCache, miss_reason, npm_missing_spec
from ecoagent.packages.source import Source
from tests.package_builders import build_npm_tgz, build_wheel


def _fetcher(tmp_path, mirror):
    return Fetcher(
        PackageCache(tmp_path / "cache"),
        timeout_s=120,
        retries=0,
        pip_extra_args=["--no-index", "--find-links", str(mirror)],
        npm_mirror_dir=mirror,
    )


def test_fetch_caches_by_name_and_version_with_sha256(tmp_path):
    mirror = tmp_path / "mirror"
    build_wheel(mirror, "llama-index-tools-demo", "0.1.0", {"llama_index/tools/demo/base.py": "X = 1\n"})
    build_npm_tgz(mirror, "@demo/server-x", "1.2.3", {"dist/index.js": "// js"})
    sources = [
        Source("llamaindex", "pypi", "llama-index-tools-demo", "0.1.0"),
        Source("mcp", "npm", "@demo/server-x", "1.2.3", "official"),
    ]
    fetcher = _fetcher(tmp_path, mirror)
    first = fetcher.fetch_all(sources)
    assert [p.error for p in first] == [None, None]
    assert [p.cached for p in first] == [False, False]
    assert first[0].path.name == "llama_index_tools_demo-0.1.0-py3-none-any.whl"
    record = json.loads((first[1].path.parent / "fetch.json").read_text())
    assert record["sha256"] == first[1].sha256 and record["size"] == first[1].path.stat().st_size
    # warm: nothing is downloaded again
    second = fetcher.fetch_all(sources)
    assert [p.cached for p in second] == [True, True]
    assert [p.sha256 for p in second] == [p.sha256 for p in first]


def test_a_corrupted_cache_entry_is_fetched_again(tmp_path):
    mirror = tmp_path / "mirror"
    build_wheel(mirror, "demo", "1.0", {"demo/__init__.py": ""})
    src = Source("langchain", "pypi", "demo", "1.0")
    fetcher = _fetcher(tmp_path, mirror)
    (pkg,) = fetcher.fetch_all([src])
    pkg.path.write_bytes(b"truncated")
    (again,) = fetcher.fetch_all([src])
    assert not again.cached and again.error is None and again.sha256 == pkg.sha256


def test_a_failed_download_is_recorded_for_that_package_only(tmp_path):
    mirror = tmp_path / "mirror"
    build_wheel(mirror, "good-one", "1.0", {"good_one/__init__.py": ""})
    build_npm_tgz(mirror, "good-npm", "1.0.0", {})
    sources = [
        Source("langchain", "pypi", "good-one", "1.0"),
        Source("langchain", "pypi", "not-on-the-mirror", "9.9"),
        Source("n8n", "npm", "good-npm", "1.0.0"),
        Source("n8n", "npm", "missing-npm", "1.0.0"),
    ]
    got = _fetcher(tmp_path, mirror).fetch_all(sources)
    assert [p.error is None for p in got] == [True, False, True, False]
    assert got[1].error.startswith("download_failed") and got[3].error.startswith("download_failed")
    assert got[1].manifest_row()["error"] == got[1].error


def test_a_wheel_for_another_python_is_fetched_all_the_same(tmp_path):
    # crawled wheels are read, never run: a Requires-Python the pipeline's interpreter misses is irrelevant
    mirror = tmp_path / "mirror"
    build_wheel(mirror, "future-mcp", "1.0.0", {"future_mcp/server.py": "X = 1\n"}, "Requires-Python: >=3.99\n")
    (pkg,) = _fetcher(tmp_path, mirror).fetch_all([Source("mcp", "pypi", "future-mcp", "1.0.0", "community")])
    assert pkg.error is None and pkg.path.name == "future_mcp-1.0.0-py3-none-any.whl"


def test_batches_fetched_side_by_side_keep_the_order_of_the_sources(tmp_path):
    mirror = tmp_path / "mirror"
    names = [f"side-{i}" for i in range(5)]
    for name in names:
        build_npm_tgz(mirror, name, "1.0.0", {})
    fetcher = Fetcher(PackageCache(tmp_path / "cache"), timeout_s=120, retries=0, batch_size=2, npm_mirror_dir=mirror,
                      concurrency=3)  # fmt: skip
    got = fetcher.fetch_all([Source("n8n", "npm", name, "1.0.0") for name in names])
    assert [p.source.name for p in got] == names and all(p.error is None for p in got)


def test_the_registrys_final_no_is_not_retried_and_is_remembered(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    missing = Source("langchain", "pypi", "not-on-the-mirror", "9.9")
    fetcher = Fetcher(PackageCache(tmp_path / "cache"), timeout_s=120, retries=2,
                      pip_extra_args=["--no-index", "--find-links", str(mirror)], miss_ttl_s=3600)  # fmt: skip
    (first,) = fetcher.fetch_all([missing])
    assert miss_reason(first.error) == "version_not_in_registry" and not first.cached
    # recorded on the first "no" (the retries are skipped: asking again cannot help)
    assert json.loads((tmp_path / "cache/pypi/not-on-the-mirror@9.9/missing.json").read_text())["error"] == first.error
    (again,) = fetcher.fetch_all([missing])  # warm: the recorded no, without asking pip
    assert again.cached and again.error == first.error
    fetcher.miss_ttl_s = 0  # a TTL of 0: never remembered
    (asked,) = fetcher.fetch_all([missing])
    assert not asked.cached and asked.error.startswith("download_failed")


def test_fetch_errors_are_counted_by_reason():
    assert miss_reason("download_failed: npm pack failed: npm error 404 | npm error 404 Note that you can also "
                       "install from a | npm error 404 tarball, folder, http url, or git url.") == "not_in_registry"
    assert miss_reason("download_failed: npm pack failed: npm error notarget In most cases you or one of your "
                       "dependencies are requesting | npm error notarget a package version that doesn't exist."
                       ) == "version_not_in_registry"  # fmt: skip
    assert miss_reason("download_failed: npm timed out after 600s (setting crawl.fetch_timeout_s)") == "timeout"
    assert miss_reason("download_failed: npm pack failed: ENOENT") == "download_failed"


def test_the_package_npm_stopped_at_is_named():
    not_found = ("npm error code E404\nnpm error 404 Not Found - GET <registry>/@acme%2fn8n-nodes-x\nnpm error 404\n"
                 "npm error 404  The requested resource '@acme/n8n-nodes-x@0.3.1' could not be found or you do not "
                 "have permission to access it.\n")  # fmt: skip
    no_version = ("npm error code ETARGET\nnpm error notarget No matching version found for n8n-nodes-y@0.1.48.\n"
                  "npm error notarget In most cases you or one of your dependencies are requesting\n")  # fmt: skip
    assert npm_missing_spec(not_found) == "@acme/n8n-nodes-x@0.3.1"
    assert npm_missing_spec(no_version) == "n8n-nodes-y@0.1.48"
    assert npm_missing_spec("npm error code ENOENT") is None
