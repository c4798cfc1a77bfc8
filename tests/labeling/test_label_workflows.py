"""The label stage with ``label.workflows`` on: the real crawl writes the n8n action table of a fixture node
package, the stage reads a fixture ``n8n-mcp`` tarball fetched with the real npm from a local folder, writes the
workflow queries, qrels, mapping report, scored pairs and a blind review sample, and measures the labeler on them
with the real MiniLM and e5 embedders."""

from __future__ import annotations

import csv
import json

import polars as pl
import pytest

from crawlers.crawl import crawl
from ecoagent.config import load_config
from ecoagent.layout import CRAWL_FILES, LABEL_FILES
from ecoagent.release_format.review import read_agreement
from labeling.stage import label
from scoring.score import score
from tests.fixture_packages import build_fixture_mirror, fixture_overrides
from tests.labeling import workflow_fixtures as wf
from tests.labeling.fixtures import build_bfcl_wheel


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("label_workflows")
    mirror = tmp / "mirror"
    sources = build_fixture_mirror(mirror)
    sources.write_text(sources.read_text() + wf.SOURCES.removeprefix("sources:\n"))
    wf.build_node_package(mirror)
    wf.build_workflows_package(mirror)
    build_bfcl_wheel(mirror)
    overrides = [
        *fixture_overrides(mirror, tmp / "cache"),
        f"embedding.cache_dir={tmp / 'emb'}",
        f"store={tmp / 'store'}",
        "label.verifier=embedding",
        "label.workflows.enabled=true",
        f"label.workflows.package={wf.WORKFLOWS_PACKAGE}@{wf.WORKFLOWS_VERSION}",
        "label.workflows.package_sha256=null",
        f"label.workflows.generic_nodes=[{wf.GENERIC}]",
        "label.workflows.review_sample=4",
        "label.workflows.bootstrap_resamples=50",
        "label.min_cosine=0.0",  # the fixture catalog is tiny: every query gets its top-k
    ]
    config = load_config("fixture", overrides=overrides, environ={})
    crawl(config, out=str(tmp / "crawl"), sources_path=sources)
    score(config, in_dir=str(tmp / "crawl"), out=str(tmp / "score"))
    result = label(config, in_dir=str(tmp / "score"), out=str(tmp / "label"))
    return tmp, result.summary


def test_the_crawl_writes_the_action_table_beside_an_unchanged_catalog(run):
    tmp, _ = run
    actions = pl.read_parquet(tmp / "crawl" / CRAWL_FILES.n8n_actions)
    tools = set(pl.read_parquet(tmp / "crawl" / CRAWL_FILES.tools)["tool_id"])
    assert set(actions["tool_id"].drop_nulls()) <= tools
    assert {f"{wf.BASE}.tabula", "n8n-nodes-fixture.fixtureChat"} <= set(actions["node_type"])
    summary = json.loads((tmp / "crawl" / CRAWL_FILES.summary).read_text())
    assert summary["side_tables"] == {CRAWL_FILES.n8n_actions: len(actions)}


def test_the_stage_writes_the_workflow_set_and_measures_the_labeler(run):
    tmp, summary = run
    out = tmp / "label"
    queries = pl.read_parquet(out / LABEL_FILES.workflow_queries)
    qrels = pl.read_parquet(out / LABEL_FILES.workflow_qrels)
    report = json.loads((out / LABEL_FILES.workflow_mapping).read_text())
    pairs = pl.read_parquet(out / LABEL_FILES.workflow_pairs)
    s = summary["workflows"]
    assert s["queries_kept"] == int((queries["status"] == "kept").sum()) >= 5
    assert set(qrels["query_id"]) <= set(queries["query_id"])
    assert report["totals"]["official_packages"]["packages"] == ["n8n-nodes-base", "@n8n/n8n-nodes-langchain"]
    assert report["non_gold_rule"].startswith("A node is not gold")
    assert set(pairs["query_id"]) <= set(queries.filter(pl.col("status") == "kept")["query_id"])
    assert pairs.filter(pl.col("native")).height > 0  # the labeler finds some native labels
    evaluation = s["evaluation"]
    assert evaluation["queries"] == s["queries_kept"] and evaluation["decided_by"] == "embedding"
    tool_level = evaluation["verifiers"]["embedding"]["tool"]
    assert {"precision", "recall", "f1", "precision_ci95", "by_tools"} <= set(tool_level)
    assert set(evaluation["verifiers"]) == {"embedding"} and evaluation["not_run"]["llm"] == "label.verifier=embedding"
    assert evaluation["candidates"]["node"]["recall"] >= tool_level["recall"]


def test_the_native_labels_are_exported_blind(run):
    tmp, summary = run
    out = tmp / "label"
    with (out / LABEL_FILES.workflow_review_sample).open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and len(rows) == summary["workflows"]["review_sample_rows"]
    assert all(r["verifier_label"] == r["verifier_score"] == r["retrieval_cosine"] == "" for r in rows)
    with (out / LABEL_FILES.workflow_review_key).open(newline="") as fh:
        key = {(r["query_id"], r["tool_id"]): r["verifier_label"] for r in csv.DictReader(fh)}
    assert set(key) == {(r["query_id"], r["tool_id"]) for r in rows} and set(key.values()) <= {"0", "1"}
    filled = tmp / "filled.csv"
    with filled.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({**r, "human_label": "1"} for r in rows)
    report = read_agreement(filled, key=out / LABEL_FILES.workflow_review_key)
    assert report.labelled == len(rows) and report.confusion["tp"] == sum(v == "1" for v in key.values())
