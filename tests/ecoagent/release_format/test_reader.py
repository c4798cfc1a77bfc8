"""Reading a real (tiny) release folder into the arrays RATED and the selector share."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from ecoagent.release_format.reader import ReleaseUnreadable, load_release, query_set, training_pairs


def test_corpus_tools_and_queries_line_up(tiny_release: Path) -> None:
    release = load_release(tiny_release)
    assert release.version == "1.0.0"
    assert release.corpus.ids == sorted(release.corpus.ids) == release.tools["tool_id"].to_list()
    assert len(release.corpus) == 10
    assert {"syn/train", "syn/test", "real/train", "real/test"} <= set(release.query_sets)
    rows = release.corpus.rows()
    manifest = json.loads((tiny_release / "manifest.json").read_text())
    qrels = pl.read_parquet(tiny_release / manifest["configs"]["real-qrels"]["test"]).filter(pl.col("score") > 0)
    test = release.query_sets["real/test"]
    expected = {q: sorted(rows[d] for d in g["corpus-id"]) for (q,), g in qrels.group_by("query-id")}
    assert dict(zip(test.ids, test.relevant, strict=True)) == expected
    # a Real query about tool i ("could you ... my <subject i> entries") is labelled with tool i
    for text, relevant in zip(test.texts, test.relevant, strict=True):
        assert any(release.tools["service"][r] in text for r in relevant)


def test_training_pairs_carry_the_hard_negatives(tiny_release: Path) -> None:
    release = load_release(tiny_release)
    pairs = training_pairs(release)
    assert len(pairs) == len(release.query_sets["syn/train"])
    assert all(len(n) == 1 and n[0] != p for p, n in zip(pairs.positives, pairs.negatives, strict=True))
    # the builder's hard negative of tool i's queries is tool i + 1 (mod 10)
    assert all(n[0] == (p + 1) % 10 for p, n in zip(pairs.positives, pairs.negatives, strict=True))


def test_query_set_unions_and_missing_parts(tiny_release: Path) -> None:
    release = load_release(tiny_release)
    union = query_set(release, "real/validation+syn/validation+real/nothing")
    assert union is not None
    assert len(union) == len(release.query_sets["real/validation"]) + len(release.query_sets["syn/validation"])
    assert query_set(release, "real/nothing") is None


def test_a_folder_without_manifest_names_itself(tmp_path: Path) -> None:
    with pytest.raises(ReleaseUnreadable, match=str(tmp_path)):
        load_release(tmp_path)
