"""``benchmarks/measure.py``, what every benchmark does around its measurement (every script that times something
uses it: their smoke tests run it too): a timed call, then the figures as JSON and one summary line."""

from __future__ import annotations

import json

from tests.benchmarks.scripts import load_script


def test_a_timed_call_and_the_report(capsys) -> None:
    measure = load_script("measure")
    result, seconds = measure.timed(sorted, [3, 1, 2], reverse=True)
    assert result == [3, 2, 1] and 0 <= seconds < 5
    measure.print_report({"tools": 3, "ratio": 1.5}, "3 tools, 1.5x")
    out = capsys.readouterr().out
    assert out.endswith("\n3 tools, 1.5x\n")
    assert json.loads(out.removesuffix("3 tools, 1.5x\n")) == {"tools": 3, "ratio": 1.5}
