"""The release gate passes a clean release and fails each deliberate corruption of one."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from ecoagent.release_format.integrity import ReleaseIntegrityError
from release.build import build_release
from release.gate import release_expectations, run_release_gate
from tests.release.tampering import TOOLS_FILE, edit_rows, flip_byte, make_first_tool_harmless, reseal
from tests.release.test_build import CONFIG, CREATED, V1_TOOLS, make_stage_outputs


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("gate")
    inputs = make_stage_outputs(root / "stages", V1_TOOLS)
    return Path(build_release(inputs, root / "rel", version="v1", config=CONFIG, created=CREATED).folder)


@pytest.fixture
def copy(release: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "rel"
    shutil.copytree(release, folder)
    return folder


def _rewrite(folder: Path, path: str, change: Callable[[pl.DataFrame], pl.DataFrame]) -> None:
    """Bad data in an intact release: the gate's data checks must find it (tampering is tested below)."""
    edit_rows(folder, path, change)
    reseal(folder, path)


def _failed(result) -> set[str]:
    return {r["column"] for r in result.failures()}


def test_clean_release_passes(release: Path, tmp_path: Path):
    result = run_release_gate(release, tmp_path)
    assert result.success, result.failures()
    assert len(result.results) == len(release_expectations())
    assert (tmp_path / "release_gate.md").exists() and (tmp_path / "leakage.json").exists()


def test_qrel_pointing_to_a_missing_corpus_id_fails(copy: Path):
    _rewrite(
        copy,
        "real-qrels/test-00000-of-00001.parquet",
        lambda f: f.with_columns(pl.lit("mcp:nowhere:ghost").alias("corpus-id")),
    )
    assert _failed(run_release_gate(copy, None)) == {"dangling_corpus_ids.real"}


def test_qrel_pointing_to_a_missing_query_fails(copy: Path):
    _rewrite(
        copy,
        "syn-qrels/train-00000-of-00001.parquet",
        lambda f: f.with_columns(pl.lit("no-such-query").alias("query-id")),
    )
    assert _failed(run_release_gate(copy, None)) == {"dangling_query_ids.syn"}


def test_query_copied_into_two_splits_fails(copy: Path):
    train = pl.read_parquet(copy / "syn-queries/train-00000-of-00001.parquet")
    _rewrite(
        copy,
        "syn-queries/test-00000-of-00001.parquet",
        lambda f: pl.concat([f, train.head(1).with_columns(pl.lit("copied").alias("_id"))]),
    )
    assert _failed(run_release_gate(copy, None)) == {"leakage.syn"}


def test_same_query_id_in_two_splits_fails(copy: Path):
    train = pl.read_parquet(copy / "real-queries/train-00000-of-00001.parquet")
    _rewrite(
        copy,
        "real-queries/test-00000-of-00001.parquet",
        lambda f: pl.concat([f, train.head(1).with_columns(pl.lit("a different text entirely").alias("text"))]),
    )
    assert _failed(run_release_gate(copy, None)) == {"ids_in_two_splits.real"}


def test_empty_test_split_fails(copy: Path):
    for config in ("real-queries", "real-qrels"):
        _rewrite(copy, f"{config}/test-00000-of-00001.parquet", lambda f: f.clear())
    assert _failed(run_release_gate(copy, None)) == {"rows.real-queries.test", "rows.real-qrels.test"}


def test_r_static_out_of_range_fails(copy: Path):
    _rewrite(
        copy,
        "tools/train-00000-of-00001.parquet",
        lambda f: f.with_columns(
            pl.when(pl.int_range(pl.len()) == 0).then(2.0).otherwise("r_static").alias("r_static")
        ),
    )
    result = run_release_gate(copy, None)
    assert _failed(result) == {"tool_r_static"}
    (failure,) = result.failures()
    assert failure["unexpected_sample"] == [2.0]


def test_a_status_outside_the_vocabulary_or_a_missing_status_fails(copy: Path):
    _rewrite(copy, TOOLS_FILE, lambda f: f.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(pl.lit("gone")).otherwise("status").alias("status")))  # fmt: skip
    result = run_release_gate(copy, None)
    assert _failed(result) == {"tool_status"}
    assert result.failures()[0]["unexpected_sample"] == ["gone"]
    _rewrite(copy, TOOLS_FILE, lambda f: f.drop("status"))  # a tools table without its status column
    assert _failed(run_release_gate(copy, None)) == {"tool_status"}


def test_bad_query_length_and_score_fail(copy: Path):
    _rewrite(
        copy,
        "syn-queries/validation-00000-of-00001.parquet",
        lambda f: f.with_columns(
            pl.when(pl.int_range(pl.len()) == 0).then(pl.lit("  ")).otherwise("text").alias("text")
        ),
    )
    _rewrite(
        copy, "real-qrels/train-00000-of-00001.parquet", lambda f: f.with_columns(pl.lit(-1, pl.Int32).alias("score"))
    )
    assert _failed(run_release_gate(copy, None)) == {"query_words", "qrel_score"}


def test_an_edited_row_refuses_the_release_naming_the_file(copy: Path):
    make_first_tool_harmless(copy)  # a valid table, valid values: only the manifest can tell
    with pytest.raises(ReleaseIntegrityError, match=rf"{TOOLS_FILE}: .* manifest\.json"):
        run_release_gate(copy, None)


def test_a_flipped_byte_refuses_the_release_naming_the_file(copy: Path):
    flip_byte(copy, "syn-qrels/test-00000-of-00001.parquet")
    with pytest.raises(ReleaseIntegrityError, match=r"syn-qrels/test-00000-of-00001\.parquet: sha256"):
        run_release_gate(copy, None)


def test_a_missing_or_an_extra_file_refuses_the_release(copy: Path):
    (copy / "syn-queries" / "extra-00000-of-00001.parquet").write_bytes(b"PAR1")
    with pytest.raises(ReleaseIntegrityError, match=r"extra-00000-of-00001\.parquet: not listed in manifest\.json"):
        run_release_gate(copy, None)
    (copy / "syn-queries" / "extra-00000-of-00001.parquet").unlink()
    (copy / "CHANGELOG.md").unlink()
    with pytest.raises(ReleaseIntegrityError, match=r"CHANGELOG\.md: listed in manifest\.json but missing"):
        run_release_gate(copy, None)


def test_a_planted_secret_fails_the_gate_and_is_reported_without_its_value(copy: Path, tmp_path: Path):
    key = "sk_" + "live_" + "51HxQ2Ab3Cd4Ef5Gh6Ij7Kl8"  # a Stripe key shape, built so no scanner flags this file
    _rewrite(copy, TOOLS_FILE, lambda f: f.with_columns(pl.lit(f"call it with {key}").alias("replacement")))
    result = run_release_gate(copy, tmp_path / "report")
    assert _failed(result) == {"secret_matches"}
    report = (tmp_path / "report" / "secrets.json").read_text()
    assert json.loads(report) == {TOOLS_FILE: {"replacement: stripe_key": len(V1_TOOLS)}}
    assert key not in report and key not in (tmp_path / "report" / "release_gate.md").read_text()


SYN_TRAIN = "syn-queries/train-00000-of-00001.parquet"


@pytest.mark.parametrize(("planted", "kind"), [("jane.roe@example.com", "email"), ("+1 (555) 010-4477", "phone")])
def test_personal_data_planted_in_a_query_fails_the_gate_and_is_reported_without_it(
    copy: Path, tmp_path: Path, planted: str, kind: str
):
    first = pl.int_range(pl.len()) == 0
    _rewrite(copy, SYN_TRAIN, lambda f: f.with_columns(
        pl.when(first).then(pl.col("text") + f" and tell {planted}").otherwise("text").alias("text")))  # fmt: skip
    result = run_release_gate(copy, tmp_path / "report")
    assert _failed(result) == {"personal_data_matches"}
    report = (tmp_path / "report" / "personal_data.json").read_text()
    assert json.loads(report) == {SYN_TRAIN: {f"text: {kind}": 1}}
    assert planted not in report and planted not in (tmp_path / "report" / "release_gate.md").read_text()


def _first_tool(change: dict) -> Callable[[pl.DataFrame], pl.DataFrame]:
    def edit(frame: pl.DataFrame) -> pl.DataFrame:
        rows = frame.to_dicts()
        rows[0] |= change
        return pl.DataFrame(rows, schema=frame.schema)

    return edit


def test_a_tool_passing_an_unknown_field_off_as_known_fails(copy: Path):
    # a null auth the tool does not name unknown: a missing field with no account of it
    _rewrite(copy, TOOLS_FILE, _first_tool({"auth_type": None}))
    assert _failed(run_release_gate(copy, None)) == {"unknown_passed_as_known"}
    # a tool of n8n's listing copy that says "no auth" where the copy keeps no credential
    _rewrite(copy, TOOLS_FILE, _first_tool({"auth_type": "none", "auth_env_vars_read": [],
                                            "flags": ["description_from_listing"]}))  # fmt: skip
    assert _failed(run_release_gate(copy, None)) == {"unknown_passed_as_known"}


def test_a_listing_copy_tool_naming_its_unknown_fields_passes(copy: Path):
    _rewrite(copy, TOOLS_FILE, _first_tool({"auth_type": None, "flags": ["description_from_listing"],
                                            "unknown_fields": ["auth_type", "doc_urls", "parameters"]}))  # fmt: skip
    result = run_release_gate(copy, None)
    assert result.success, result.failures()
