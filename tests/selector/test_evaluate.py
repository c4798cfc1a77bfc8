from types import SimpleNamespace

import numpy as np

from ecoagent.release_format.reader import QuerySet
from selector.__main__ import _parser
from selector.evaluate import METHODS, _row, acceptance, markdown, merged, plot


def _rows():
    tokens, gold = np.array([100, 200, 300, 400]), [[0], [1, 2]]
    rows = [_row("all tools", "real/test", None, [np.arange(4)] * 2, gold, tokens, 1000)]
    rows.append(_row("BM25 top-k", "real/test", 5, [[3], [1]], gold, tokens, 1000))
    rows.append(_row("dense top-k", "real/test", 5, [[0], [1, 2]], gold, tokens, 1000))
    rows.append(_row(METHODS[3], "real/test", 5, [[0], [1]], gold, tokens, 1000))
    return rows


def test_rows_measure_recall_hit_and_tokens():
    rows = _rows()
    assert rows[0]["recall"] == 1.0 and rows[0]["share_of_all_tools_tokens"] == 1.0
    assert rows[1]["recall"] == 0.25 and rows[1]["hit"] == 0.5 and rows[1]["mean_tokens"] == 300
    check = acceptance(rows, "real/test")
    assert check["best_single"] == 1.0 and check["fused"] == 0.75 and not check["passed"]
    assert "FAIL" in markdown(rows, [check])


def test_plot_writes_a_png(tmp_path):
    plot(_rows(), tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 1000


def test_merged_concatenates_the_splits():
    release = SimpleNamespace(query_sets={"real/train": QuerySet("real/train", ["a"], ["x"], [[0]]),
                                          "real/test": QuerySet("real/test", ["b"], ["y"], [[1]])})
    assert merged(release, "real/all").ids == ["a", "b"]
    assert merged(release, "real/test").ids == ["b"]
    assert merged(release, "syn/all") is None


def test_serve_command_parses():
    args = _parser().parse_args(["serve", "--release", "R", "--port", "9000", "--core-tool", "a", "--rankers", "bm25"])
    assert (args.port, args.core_tool, args.rankers, args.host) == (9000, ["a"], ["bm25"], "127.0.0.1")
