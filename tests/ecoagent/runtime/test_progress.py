"""Plain progress lines: their content (on a scripted clock) and the heartbeat that writes them while nothing moves."""

from __future__ import annotations

import re
import threading
import time

import pytest

from ecoagent.config import ConfigError, load_config
from ecoagent.runtime.context import StepContext, current, phase
from ecoagent.runtime.progress import LineReporter, ProgressLog, format_seconds


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_line_says_done_total_rate_elapsed_and_eta() -> None:
    clock, lines = Clock(), []
    log = ProgressLog("generate queries", 60, interval_s=30, emit=lines.append, clock=clock)
    with log:
        assert lines == []  # nothing until the first heartbeat: a short step gets one line, its end
        assert log.line() == "generate queries: 0/60 (0%), 0.00/s, elapsed 0:00, ETA unknown"
        clock.now += 30
        log.update(12)
        assert log.line() == "generate queries: 12/60 (20%), 0.40/s, elapsed 0:30, ETA 2:00"
        clock.now += 90
        log.update(60)
        assert log.line() == "generate queries: 60/60 done, elapsed 2:00, finishing"
        clock.now += 5
    assert lines[-1] == "generate queries: done, 60/60 in 2:05, 0.48/s"


def test_the_rate_and_eta_leave_out_the_setup_before_the_first_item() -> None:
    clock, lines = Clock(), []
    with ProgressLog("verify pairs", 200, interval_s=30, emit=lines.append, clock=clock) as log:
        clock.now += 45  # the model server starting
        log.update(2)
        clock.now += 10
        log.update(12)
        assert log.line() == "verify pairs: 12/200 (6%), 1.00/s, elapsed 0:55, ETA 3:08"


def test_where_items_differ_in_cost_the_time_left_follows_the_share_of_work_done() -> None:
    # the Embedder's order: the longest texts first, so 20 of 100 texts can be half the work
    clock, lines = Clock(), []
    with ProgressLog("embed the catalog", 100, interval_s=30, emit=lines.append, clock=clock) as log:
        clock.now += 20  # the model loading, the first texts warming the runtime up
        log.update(10, share=0.25)
        assert log.line().endswith("ETA unknown")  # the rate starts when the first items end
        clock.now += 40
        log.update(20, share=0.5)
        assert log.line() == "embed the catalog: 20/100 (20%), 0.25/s, elapsed 1:00, ETA 1:20"  # the count: 5:20
        clock.now += 40
        log.update(60, share=0.75)
        assert log.line().endswith("ETA 0:40")  # half the work in 80 s since the first items ended
    # a step that gives no share keeps the count's time left (the first test above)


def test_a_step_without_a_count_says_how_long_it_has_run() -> None:
    clock, lines = Clock(), []
    with ProgressLog("score the catalog", interval_s=30, emit=lines.append, clock=clock) as log:
        clock.now += 3725
        assert log.line() == "score the catalog: running, elapsed 1:02:05"
    assert lines[-1] == "score the catalog: done, 0 in 1:02:05"


def test_the_heartbeat_writes_lines_while_nothing_moves() -> None:
    lines: list[str] = []
    seen = threading.Event()

    def emit(line: str) -> None:
        lines.append(line)
        if len(lines) >= 3:
            seen.set()

    with ProgressLog("verify pairs", 10, interval_s=0.02, emit=emit) as log:
        log.update(4)
        assert seen.wait(30), lines  # generous: a loaded 2-core machine may run the thread late
    heartbeat = [line for line in lines[:-1] if re.fullmatch(r"verify pairs: 4/10 \(40%\), .*, ETA \d+:\d\d", line)]
    assert heartbeat, lines
    assert lines[-1].startswith("verify pairs: done, 4/10 in")


def test_a_failed_step_ends_with_a_stopped_line_and_the_thread_ends() -> None:
    lines: list[str] = []
    seen = threading.Event()

    def emit(line: str) -> None:
        lines.append(line)
        seen.set()

    with pytest.raises(RuntimeError), ProgressLog("crawl", 5, interval_s=0.02, emit=emit) as log:
        assert seen.wait(30), lines
        raise RuntimeError("boom")
    assert lines[-1].startswith("crawl: stopped after")
    assert log._thread is not None and not log._thread.is_alive()


def test_a_step_that_fails_before_its_first_line_prints_nothing() -> None:
    # bad input found at once: the caller's one-line error is the only line in the log
    lines: list[str] = []
    with pytest.raises(RuntimeError), ProgressLog("quality gate", interval_s=60, emit=lines.append):
        raise RuntimeError("not a table written by `ecoagent score`")
    assert lines == []


def test_phases_of_the_running_step_each_get_their_lines_prefixed_with_its_name() -> None:
    lines: list[str] = []
    ctx = StepContext(load_config("fixture"), reporter=LineReporter("crawl: ", interval_s=60, emit=lines.append))
    with ctx.running():
        with phase("fetch packages", 2) as fetching:
            fetching.advance(2)
        with phase("extract packages", 2) as extracting:
            extracting.update(1)
    assert len(lines) == 2, lines  # steps shorter than the interval: one line each, at their end
    assert lines[0].startswith("crawl: fetch packages: done, 2/2")
    assert lines[1].startswith("crawl: extract packages: done, 1/2")


def test_a_failed_phase_says_it_stopped_and_the_error_goes_on() -> None:
    lines: list[str] = []
    ctx = StepContext(load_config("fixture"), reporter=LineReporter("score: ", interval_s=0.01, emit=lines.append))
    with pytest.raises(RuntimeError), ctx.running(), phase("flaws", 4) as finding:
        finding.advance()
        while not lines:  # a heartbeat line, so the stop is reported
            time.sleep(0.01)
        raise RuntimeError("a bad row")
    assert lines[-1].startswith("score: flaws: stopped after")


def test_outside_a_runner_phases_and_stats_cost_nothing() -> None:
    with phase("embed", 3) as embedding:
        embedding.advance(3)
    assert embedding.done == 3 and current() is None


def test_the_interval_is_a_setting_and_must_be_positive() -> None:
    assert load_config("default").progress_interval_s == 15
    with pytest.raises(ConfigError, match="progress_interval_s"):
        load_config("default", ["progress_interval_s=0"])
    with pytest.raises(ValueError, match="progress_interval_s"):
        ProgressLog("x", interval_s=0)


def test_format_seconds() -> None:
    assert [format_seconds(s) for s in (0, 59.6, 61, 3600, 86399)] == ["0:00", "1:00", "1:01", "1:00:00", "23:59:59"]
