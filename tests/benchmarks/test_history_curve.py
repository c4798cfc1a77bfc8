"""``benchmarks/history_curve.py`` on a package index of our own (the history step's test index: two versions of a
fixture package, published in different months): the cold run, then the warm one that reads nothing again, the record
and the plot beside it."""

from __future__ import annotations

from pathlib import Path

from ecoagent.layout import HISTORY_FILES
from tests.benchmarks.scripts import record_written, run_script
from tests.history.test_history import PACKAGE
from tests.history.test_history import index as history_index  # noqa: F401  (a fixture: the step's test index)


def test_cold_then_warm_history_with_its_record(request, tmp_path: Path, results_dir: Path) -> None:
    index = request.getfixturevalue("history_index")
    sources = tmp_path / "sources.yaml"
    sources.write_text(f'sources:\n  - {{platform: llamaindex, registry: pypi, name: "{PACKAGE}", version: "0.2.0", '
                       "listing: platform}\n")  # fmt: skip
    settings = [f"crawl.sources={sources}", "crawl.platforms=[llamaindex]", f"crawl.cache_dir={tmp_path / 'pkgs'}",
                f"crawl.pip_extra_args=['--index-url', '{index.url}', '--no-cache-dir']", "crawl.workers=1",
                "crawl.community_listing.enabled=false", "crawl.livemcpbench_crosscheck=false",
                f"embedding.cache_dir={tmp_path / 'embeddings'}"]  # fmt: skip
    out = tmp_path / "history"
    ran = run_script("history_curve", "--out", out, "--since", "2025-02", "--until", "2025-06", "--record",
                     "smoke-history", *(a for s in settings for a in ("--set", s)))  # fmt: skip
    assert ran.code == 0, ran
    report = ran.json_after()
    cold, warm = report["cold"], report["warm"]
    assert cold["versions"] == 2 and cold["versions_fetched"] == 2 and len(cold["months_crawled"]) >= 2
    assert warm["versions_read"] == 0 and warm["months_crawled"] == []  # nothing read or scored again
    assert [m["tools"] for m in report["months"]] == [0, 1, 1, 2, 2]  # search_notes in March, create_note in May
    assert ran.out.splitlines()[-2].startswith("history: cold ")  # then the line saying where the record went
    record = record_written(results_dir, "smoke-history")
    assert record["section"] == "crawl" and record["tables"][0]["rows"][-1][0] == "2026-01 (the paper)"
    assert "from this script's first run" in record["figures"]["cold run"]
    plot = results_dir.parent / HISTORY_FILES.plot  # beside the results page, as docs/figure1.png
    assert plot.read_bytes() == (out / "history" / HISTORY_FILES.plot).read_bytes()
