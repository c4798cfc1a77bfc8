"""The history step on a package index of our own: two versions of a fixture package, published in different months.

The index is a real one as pip reads it: PEP 691 JSON pages with PEP 700 ``upload-time`` on 127.0.0.1, and the
wheels the tests build. pip itself (its finder, for the publish times; ``pip download``, for the archives) talks to
it; the machine's own pip configuration is set aside so that nothing else is found.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import polars as pl
import pytest

from ecoagent.config import load_config
from ecoagent.layout import HISTORY_FILES
from ecoagent.packages.publish_times import newest_by, pypi_times
from ecoagent.testing.standin_llm import ServedInThread
from history.months import month_end, month_range
from history.run import month_catalogs
from pipeline.stages import HISTORY
from tests.fixture_packages import LLAMAINDEX_SPEC
from tests.package_builders import build_wheel

PACKAGE = "llama-index-tools-notes"
# 0.1.0 offers search_notes only; 0.2.0 adds create_note
VERSIONS = {"0.1.0": "2025-03-10T12:00:00Z", "0.2.0": "2025-05-20T08:30:00Z"}


class SimpleIndex(ServedInThread):
    """A PEP 691 JSON simple index of ``wheels`` (version -> (path, upload time)) on 127.0.0.1."""

    def __init__(self, wheels: dict[str, tuple[Path, str]]) -> None:
        self.wheels = {path.name: path for path, _ in wheels.values()}
        files = [{"filename": path.name, "url": f"/files/{path.name}", "upload-time": uploaded,
                  "hashes": {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()}}
                 for path, uploaded in wheels.values()]  # fmt: skip
        self.page = json.dumps({"meta": {"api-version": "1.1"}, "name": PACKAGE, "files": files,
                                "versions": sorted(wheels)}).encode()  # fmt: skip
        super().__init__(ThreadingHTTPServer(("127.0.0.1", 0), self._handler()))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/simple/"

    def _handler(self):
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/") == f"/simple/{PACKAGE}":
                    self._send(index.page, "application/vnd.pypi.simple.v1+json")
                elif self.path.startswith("/files/") and self.path[7:] in index.wheels:
                    self._send(index.wheels[self.path[7:]].read_bytes(), "application/octet-stream")
                else:
                    self.send_error(404)

            def _send(self, body: bytes, kind: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


def served_versions(tmp_path: Path, monkeypatch, specs: dict[str, str]) -> SimpleIndex:
    """The notes package at each version of ``specs`` (version -> its spec module), built as wheels and served by
    the tests' own index, with the machine's pip configuration out of the way (it finds other wheels)."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for name in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        monkeypatch.delenv(name, raising=False)
    wheels = {}
    for version, spec in specs.items():
        path = build_wheel(tmp_path / "wheels" / version, PACKAGE, version, {
            "llama_index/tools/notes/__init__.py": "from llama_index.tools.notes.base import NotesToolSpec\n",
            "llama_index/tools/notes/base.py": spec,
        })  # fmt: skip
        wheels[version] = (path, VERSIONS[version])
    return SimpleIndex(wheels)


ONLY_SEARCH = LLAMAINDEX_SPEC.replace('spec_functions = ["search_notes", ("create_note", "acreate_note")]',
                                      'spec_functions = ["search_notes"]')  # fmt: skip


@pytest.fixture
def index(tmp_path, monkeypatch):
    with served_versions(tmp_path, monkeypatch, {"0.1.0": ONLY_SEARCH, "0.2.0": LLAMAINDEX_SPEC}) as served:
        yield served


def _config(tmp_path: Path, index: SimpleIndex, *settings: str):
    sources = tmp_path / "sources.yaml"
    sources.write_text(f'sources:\n  - {{platform: llamaindex, registry: pypi, name: "{PACKAGE}", version: "0.2.0", '
                       "listing: platform}\n")  # fmt: skip
    return load_config("fixture", environ={}, overrides=[
        f"crawl.sources={sources}", "crawl.platforms=[llamaindex]", f"crawl.cache_dir={tmp_path / 'packages'}",
        f"crawl.pip_extra_args=['--index-url', '{index.url}', '--no-cache-dir']", "crawl.workers=1",
        f"embedding.cache_dir={tmp_path / 'embeddings'}", f"store={tmp_path / 'store'}", *settings,
    ])  # fmt: skip


def test_publish_times_come_from_the_index_through_pip(index):
    times = pypi_times([PACKAGE], ["--index-url", index.url], timeout_s=120)[PACKAGE]
    assert times == {v: datetime.fromisoformat(t.replace("Z", "+00:00")) for v, t in VERSIONS.items()}
    assert newest_by(times, month_end("2025-02")) is None
    assert newest_by(times, month_end("2025-04")) == "0.1.0"
    assert newest_by(times, month_end("2025-05")) == "0.2.0"


def test_months_run_from_the_first_to_the_newest_complete_one():
    assert month_range("2025-11", None, now=datetime(2026, 2, 14, tzinfo=UTC)) == ["2025-11", "2025-12", "2026-01"]
    assert month_end("2025-12") == datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(ValueError, match=r"history\.since"):
        month_range("2026-03", "2026-01")


def test_the_table_counts_each_month_as_it_stood_and_a_rerun_reads_nothing_again(tmp_path, index):
    config = _config(tmp_path, index, "history.since=2025-02", "history.until=2025-06")
    result = HISTORY.run_on(config)
    folder = Path(result.out)
    assert folder == tmp_path / "store" / HISTORY.name and (tmp_path / "store" / "history_months" / "2025-05").is_dir()
    table = json.loads((folder / HISTORY_FILES.table).read_text())
    rows = {row["month"]: row for row in table["months"]}
    assert [rows[m]["tools"] for m in ("2025-02", "2025-03", "2025-04", "2025-05", "2025-06")] == [0, 1, 1, 2, 2]
    assert rows["2025-02"]["packages"] == 0 and rows["2025-05"]["packages"] == 1
    assert rows["2025-05"]["per_platform"]["llamaindex"]["tools"] == 2
    assert rows["2025-05"]["per_listing"]["platform"]["tools"] == 2
    assert all(0 <= row["reliable"] <= row["tools"] for row in rows.values())
    summary = result.summary
    assert summary["versions"] == 2 and summary["versions_read"] == 2 and summary["versions_fetched"] == 2

    assert table["paper"]["tools"] == 5172 and any(line.startswith("| 2025-05 | 1 | 2 |") for line in result.lines)
    assert (folder / HISTORY_FILES.plot).read_bytes().startswith(b"\x89PNG")
    assert "| 2025-05 | 1 | 2 |" in (folder / HISTORY_FILES.markdown).read_text()
    failure = json.loads((folder / HISTORY_FILES.failure).read_text())  # five months: none with six of future
    assert failure["skipped"] == "no month has 6 months of future in the history (2025-02 to 2025-06)"
    assert not (folder / HISTORY_FILES.failure_plot).exists()
    first = dict(pl.read_parquet(folder / HISTORY_FILES.first_seen).iter_rows())
    assert first == {
        f"llamaindex:{PACKAGE}:NotesToolSpec.search_notes": "2025-03",
        f"llamaindex:{PACKAGE}:NotesToolSpec.create_note": "2025-05",
    }

    again = HISTORY.run_on(config)  # warm: every month's versions are unchanged
    assert json.loads((folder / HISTORY_FILES.table).read_text())["months"] == table["months"]
    assert again.summary["versions_read"] == 0 and again.summary["months_crawled"] == []


def test_month_catalogs_take_each_package_at_its_newest_version_by_the_months_end():
    from ecoagent.packages.source import Source

    times = {"npm:a": {"1.0.0": datetime(2025, 3, 1, tzinfo=UTC), "1.1.0": datetime(2025, 3, 31, 23, tzinfo=UTC),
                       "0.9.9": datetime(2025, 4, 2, tzinfo=UTC)}}  # a backport after 1.1.0: not newer
    source = Source("mcp", "npm", "a", "1.1.0")
    catalogs = month_catalogs([source], times, ["2025-02", "2025-03", "2025-04"])
    assert [[s.version for s in c.sources] for c in catalogs] == [[], ["1.1.0"], ["1.1.0"]]
    assert catalogs[1].key == catalogs[2].key  # unchanged: the April folder is the March catalog's
