"""The package-requests configs in a release: built from the label stage's files, loaded by datasets, read by the
reader, checked by the gate (no tool in two splits), described by the card."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from ecoagent.layout import LABEL_FILES
from ecoagent.release_format.reader import load_release
from ecoagent.runtime.quality_gate import QualityGateFailed
from ecoagent.store import ArtifactStore
from labeling.package_requests.build import QREL_SCHEMA, QUERY_SCHEMA
from release.build import PACKAGE_REQUEST_REPORT, build_release
from tests.release.test_build import CONFIG, CREATED, SUBJECTS, make_stage_outputs, tool_id

TOOLS = list(range(10))
# package -> (split, the catalog tools of its requests); the release's tool ids stand for the packages' tools
PACKAGES = {"pkg-a": ("train", [0, 1]), "pkg-b": ("train", [2]), "pkg-c": ("validation", [3]),
            "pkg-d": ("test", [4, 5]), "pkg-e": ("test", [6])}  # fmt: skip


def _frames(packages: dict = PACKAGES) -> tuple[pl.DataFrame, pl.DataFrame]:
    queries, qrels = [], []
    for package, (split, tools) in packages.items():
        for k, i in enumerate(tools):
            query_id = f"pkgreq-{package}-{k}"
            queries.append({"query_id": query_id, "text": f"Please list every {SUBJECTS[i]} I have from {package}",
                            "platform": "mcp", "package": package, "version": "1.0.0", "license": "MIT",
                            "member": "README.md", "line": 3 + k, "heading": "Example prompts", "rule": "prose",
                            "tie": "package" if len(tools) > 1 else "single_tool_package",
                            "label_level": "package" if len(tools) > 1 else "tool", "split": split,
                            "group_id": f"g-{package}"})  # fmt: skip
            qrels += [{"query_id": query_id, "tool_id": tool_id(t)} for t in tools]
    return pl.DataFrame(queries, schema=QUERY_SCHEMA), pl.DataFrame(qrels, schema=QREL_SCHEMA)


def _add(inputs, queries: pl.DataFrame, qrels: pl.DataFrame) -> None:
    label = ArtifactStore(inputs.label_dir)
    label.write_parquet(queries, LABEL_FILES.package_request_queries)
    label.write_parquet(qrels, LABEL_FILES.package_request_qrels)
    report = {"rule": "test rule", "archives_read": {"mcp": 5}, "by_tie": {}, "packages_contributing": {"mcp": 5},
              "not_requests": {"tool_input": 2}, "drops_by_reason": {"too_short": 3}}  # fmt: skip
    label.write_json(report, LABEL_FILES.package_request_report)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("package-requests")
    inputs = make_stage_outputs(root / "stages", TOOLS)
    _add(inputs, *_frames())
    return Path(build_release(inputs, root / "release" / "4.0.0", version="4.0.0", config=CONFIG,
                              created=CREATED).folder)  # fmt: skip


def test_the_configs_load_with_datasets_and_the_reader(built: Path) -> None:
    from datasets import load_dataset

    test = load_dataset(str(built), "package-requests-queries", split="test")
    assert sorted(test["_id"]) == ["pkgreq-pkg-d-0", "pkgreq-pkg-d-1", "pkgreq-pkg-e-0"]
    assert {"platform", "package", "license", "member", "label_level"} <= set(test.column_names)
    qrels = load_dataset(str(built), "package-requests-qrels", split="train").to_polars()
    assert len(qrels) == 2 * 2 + 1  # pkg-a's two requests each with its two tools, pkg-b's one
    release = load_release(built)
    queries = release.queries("package-requests/test")
    assert queries is not None and len(queries) == 3
    assert (built / PACKAGE_REQUEST_REPORT).exists()


def test_the_gate_checked_the_splits_and_the_card_says_what_a_request_is(built: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["stats"]["package_requests"]["queries"] == {"train": 3, "validation": 1, "test": 3}
    assert PACKAGE_REQUEST_REPORT in manifest["files"]
    card = (built / "README.md").read_text()
    assert "### Package requests (`package-requests-*`)" in card
    assert "`package` (4)" in card and "too_short 3" in card


def test_a_tool_in_two_splits_fails_the_gate(tmp_path: Path) -> None:
    queries, qrels = _frames()
    leaking = pl.DataFrame([{"query_id": "pkgreq-pkg-d-0", "tool_id": tool_id(0)}], schema=QREL_SCHEMA)
    inputs = make_stage_outputs(tmp_path / "stages", TOOLS)
    _add(inputs, queries, pl.concat([qrels, leaking]))  # a test request labelled with a train tool
    with pytest.raises(QualityGateFailed, match=r"tools_in_two_splits\.package-requests"):
        build_release(inputs, tmp_path / "release" / "4.0.1", version="4.0.1", config=CONFIG, created=CREATED)


def test_a_set_without_test_requests_is_not_released(tmp_path: Path) -> None:
    inputs = make_stage_outputs(tmp_path / "stages", TOOLS)
    _add(inputs, *_frames({"pkg-a": ("train", [0, 1])}))
    folder = Path(build_release(inputs, tmp_path / "release" / "4.0.2", version="4.0.2", config=CONFIG,
                                created=CREATED).folder)  # fmt: skip
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["stats"]["package_requests"]["released"] is False
    assert "package-requests-queries" not in manifest["configs"]
