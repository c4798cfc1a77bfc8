"""Review sample export and the loop back: strata coverage, reproducibility, a filled sheet's agreement and kappa."""

from __future__ import annotations

import csv
import math
import random
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from sklearn.metrics import cohen_kappa_score

from ecoagent.release_format.review import REVIEW_COLUMNS, AgreementReport, format_agreement, read_agreement
from labeling.review import allocate, export_review_sample, score_band

# (source, band) -> number of queries; deliberately uneven so a plain random sample would miss the small strata.
STRATA = {
    ("bfcl", "<0.5"): 40,
    ("bfcl", "0.5-0.85"): 25,
    ("bfcl", ">=0.85"): 150,
    ("toolbench", "<0.5"): 3,
    ("toolbench", ">=0.85"): 60,
    ("livemcpbench", "0.5-0.85"): 1,
}
BEST = {"<0.5": 0.3, "0.5-0.85": 0.7, ">=0.85": 0.93}


def build_frames(verifier: str = "llm") -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    rng = random.Random(7)
    tools = pl.DataFrame(
        {
            "tool_id": [f"t{i:03d}" for i in range(30)],
            "name": [f"tool_{i}" for i in range(30)],
            # Long, with a comma, a quote and a newline: exercises trimming and RFC 4180 quoting.
            "description": [f'Does thing {i}, "quoted"\nsecond line ' + "x" * 400 for i in range(30)],
            "platform": ["npm"] * 30,
        }
    )
    queries, pairs = [], []
    n = 0
    for (source, band), count in STRATA.items():
        for _ in range(count):
            qid = f"q{rng.getrandbits(40):010x}"
            n += 1
            queries.append({"query_id": qid, "text": f"query {n}, with comma — ünïcode", "source": source})
            for k, tid in enumerate(rng.sample(tools["tool_id"].to_list(), 3)):
                best = BEST[band] if k == 0 else BEST[band] - 0.2 - 0.05 * k
                other = rng.random()
                llm, agree = (best, other) if verifier == "llm" else (other, best)
                decided = best
                pairs.append(
                    {
                        "query_id": qid,
                        "tool_id": tid,
                        "retrieval_cosine": 0.9 - 0.05 * k,
                        "llm_score": llm,
                        "agreement_score": agree,
                        "label": int(decided >= 0.85),
                        "verifier": verifier,
                    }
                )
    return pl.DataFrame(pairs), pl.DataFrame(queries), tools


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def write_rows(path: Path, rows: list[dict[str, str]], columns: list[str] = REVIEW_COLUMNS) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, columns, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)


def test_allocate_is_proportional_with_one_per_stratum() -> None:
    sizes = {("a", "x"): 900, ("b", "x"): 90, ("c", "x"): 9, ("d", "x"): 1, ("e", "x"): 0}
    quota = allocate(sizes, 100)
    assert sum(quota.values()) == 100
    assert ("e", "x") not in quota
    assert quota[("c", "x")] >= 1 and quota[("d", "x")] == 1
    assert quota[("a", "x")] == pytest.approx(90, abs=2)
    assert allocate({"a": 3, "b": 2}, 200) == {"a": 3, "b": 2}  # fewer than size: everything
    assert sum(allocate({k: 5 for k in "abcdef"}, 4).values()) == 6  # the floor wins over the size


@pytest.mark.parametrize(("score", "band"), [(0.0, "<0.5"), (0.4999, "<0.5"), (0.5, "0.5-0.85"), (0.85, ">=0.85")])
def test_score_bands(score: float, band: str) -> None:
    assert score_band(score) == band
    assert score_band(None) == score_band(math.nan) == "unscored"


@pytest.mark.parametrize("verifier", ["llm", "embedding"])
def test_export_covers_every_stratum_and_is_reproducible(tmp_path: Path, verifier: str) -> None:
    pairs, queries, tools = build_frames(verifier)
    out = tmp_path / "review.csv"
    written = export_review_sample(pairs, queries, tools, out, size=50, seed=3)

    raw = out.read_bytes()
    assert raw.startswith(",".join(REVIEW_COLUMNS).encode() + b"\r\n")
    rows = read_rows(out)
    assert written == len(rows) == 50 * 3  # three candidates per sampled query
    assert list(rows[0]) == REVIEW_COLUMNS
    assert {r["human_label"] for r in rows} == {""} and {r["notes"] for r in rows} == {""}
    # Quoting round-trips commas, quotes and non-ASCII; the description is flattened and trimmed.
    assert rows[0]["query"].endswith("with comma — ünïcode")
    assert all(len(r["tool_description"]) <= 300 and "\n" not in r["tool_description"] for r in rows)
    assert '"quoted"' in rows[0]["tool_description"]

    # The deciding score is the one named by `verifier`; the label is the deciding verifier's.
    source_of = dict(queries.select("query_id", "source").iter_rows())
    best: dict[str, float] = {}
    for r in rows:
        best[r["query_id"]] = max(best.get(r["query_id"], 0.0), float(r["verifier_score"]))
        assert r["verifier_label"] == str(int(float(r["verifier_score"]) >= 0.85))
    covered = Counter((source_of[q], score_band(s)) for q, s in best.items())
    assert set(covered) == set(STRATA)  # every non-empty stratum, including the 1-query one
    assert covered[("bfcl", ">=0.85")] == pytest.approx(50 * 150 / 279, abs=1.5)

    # Stable order: grouped by query, candidates by retrieval rank.
    keys = [(r["query_id"], -float(r["retrieval_cosine"])) for r in rows]
    assert keys == sorted(keys)

    again = tmp_path / "again.csv"
    export_review_sample(pairs.sample(fraction=1.0, shuffle=True, seed=1), queries, tools, again, size=50, seed=3)
    assert again.read_bytes() == raw  # same seed, any input order: byte-identical
    other = tmp_path / "other.csv"
    export_review_sample(pairs, queries, tools, other, size=50, seed=4)
    assert {r["query_id"] for r in read_rows(other)} != set(best)
    assert not list(tmp_path.glob(".*.tmp"))  # the temp file was renamed, not left behind


def test_export_rejects_unknown_references(tmp_path: Path) -> None:
    pairs, queries, tools = build_frames()
    with pytest.raises(ValueError, match="missing from tools"):
        export_review_sample(pairs, queries, tools.head(3), tmp_path / "r.csv", seed=1)
    with pytest.raises(ValueError, match="verifier must be one of"):
        export_review_sample(pairs.with_columns(verifier=pl.lit("gpt")), queries, tools, tmp_path / "r.csv", seed=1)
    with pytest.raises(ValueError, match="label"):
        export_review_sample(pairs.drop("label"), queries, tools, tmp_path / "r.csv", seed=1)
    assert not (tmp_path / "r.csv").exists()


def fill(path: Path, labels: list[str | None], notes: str = "") -> list[dict[str, str]]:
    """A person fills the sheet: labels[i] for row i (None: leave blank)."""
    rows = read_rows(path)
    for row, label in zip(rows, labels, strict=False):
        row["human_label"] = label or ""
        row["notes"] = notes if label == "0" else ""
    write_rows(path, rows)
    return rows


def test_agreement_and_kappa_match_hand_computed_and_sklearn(tmp_path: Path) -> None:
    pairs, queries, tools = build_frames()
    out = tmp_path / "review.csv"
    export_review_sample(pairs, queries, tools, out, size=20, seed=1)
    rows = read_rows(out)
    verifier = [int(r["verifier_label"]) for r in rows]
    # Human agrees except on every 4th row; rows 1 and 2 are left blank / filled with junk.
    human = [v if i % 4 else 1 - v for i, v in enumerate(verifier)]
    labels: list[str | None] = [
        ["0", "no", "False"][i % 3] if h == 0 else ["1", "YES", "true"][i % 3] for i, h in enumerate(human)
    ]
    labels[1], labels[2] = None, "maybe"
    fill(out, labels, notes="wrong tool")

    report = read_agreement(out)
    kept = [i for i in range(len(rows)) if i not in (1, 2)]
    h = [human[i] for i in kept]
    v = [verifier[i] for i in kept]
    tp = sum(a == 1 and b == 1 for a, b in zip(h, v, strict=True))
    fp = sum(a == 0 and b == 1 for a, b in zip(h, v, strict=True))
    fn = sum(a == 1 and b == 0 for a, b in zip(h, v, strict=True))
    tn = sum(a == 0 and b == 0 for a, b in zip(h, v, strict=True))
    n = len(kept)
    p_o = (tp + tn) / n
    p_e = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / n**2

    assert report.rows == len(rows)
    assert report.labelled == n
    assert report.skipped == Counter({"blank": 1, "invalid": 1})
    assert report.confusion == {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
    assert report.agreement == pytest.approx(p_o)
    assert report.cohen_kappa == pytest.approx((p_o - p_e) / (1 - p_e))
    assert report.cohen_kappa == pytest.approx(cohen_kappa_score(h, v))
    assert len(report.disagreements) == n - (tp + tn)
    d = report.disagreements[0]
    assert set(d) >= {"query", "tool_name", "verifier_label", "human_label", "verifier_score", "notes"}
    assert d["human_label"] != d["verifier_label"] and isinstance(d["verifier_score"], float)

    text = format_agreement(report)
    assert f"{p_o:.1%}" in text and "94%" in text and "kappa" in text and "blank 1, invalid 1" in text


def test_unfilled_sheet_reports_nothing_labelled(tmp_path: Path) -> None:
    pairs, queries, tools = build_frames()
    out = tmp_path / "review.csv"
    written = export_review_sample(pairs, queries, tools, out, seed=1)
    assert written == 200 * 3
    report = read_agreement(out)
    assert isinstance(report, AgreementReport)
    assert (report.rows, report.labelled, report.skipped) == (written, 0, Counter({"blank": written}))
    assert math.isnan(report.agreement) and math.isnan(report.cohen_kappa)
    assert "no labelled rows" in format_agreement(report)
