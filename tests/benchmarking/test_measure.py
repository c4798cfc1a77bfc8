"""``benchmarking/measure.py``, what every benchmark does around its measurement (every script that times something
uses it: their smoke tests run it too): a timed call, then the figures as JSON and one summary line."""

from __future__ import annotations

import json

from benchmarking import measure


def test_a_timed_call_and_the_report(capsys) -> None:
    result, seconds = measure.timed(sorted, [3, 1, 2], reverse=True)
    assert result == [3, 2, 1] and 0 <= seconds < 5
    measure.print_report({"tools": 3, "ratio": 1.5}, "3 tools, 1.5x")
    out = capsys.readouterr().out
    assert out.endswith("\n3 tools, 1.5x\n")
    assert json.loads(out.removesuffix("3 tools, 1.5x\n")) == {"tools": 3, "ratio": 1.5}


def test_each_phase_s_first_eta_is_set_against_the_time_it_then_took() -> None:
    from ecoagent.runtime.progress import ProgressLog

    lines = ["synth: embed (m): 0/40 (0%), 0.00/s, elapsed 0:15, ETA unknown",
             "synth: round trip: embed (m): 4/40 (10%), 0.27/s, elapsed 0:30, ETA 1:02:10",
             "synth: embed (m): 4/40 (10%), 0.27/s, elapsed 0:30, ETA 1:02:10",
             "synth: embed (m): 30/40 (75%), 0.67/s, elapsed 0:45, ETA 0:12",
             "synth: embed (m): done, 40/40 in 0:52, 0.76/s",
             "synth: fit (epochs): 1/20 (5%), 0.10/s, elapsed 0:07, ETA 2:13"]  # fmt: skip
    # the first ETA said and when, what the phase then took; a phase still running when the lines end is left out
    assert measure.first_etas(lines) == [["synth: embed (m)", 3730, 30, 22]]
    # the lines it reads are the ones ProgressLog writes
    now = [0.0]
    log = ProgressLog("label: embed", 10, interval_s=60, emit=lambda line: None, clock=lambda: now[0])
    log.update(0)
    now[0] = 30.0
    log.update(5)
    assert measure.ETA_LINE.search(log.line()) is not None and measure.DONE_LINE.search(log.line(final=True))
