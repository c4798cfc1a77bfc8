"""Per-stage usage: wall and CPU time, peak memory, and the LLM phase split into waiting and own work."""

from __future__ import annotations

import json
import mmap
import os
import time

from ecoagent.config import make_config
from ecoagent.runtime.context import StepContext
from ecoagent.runtime.usage import UsageRecorder, llm_phase


def _rss_mb() -> float:
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_stage_records_its_llm_wait_apart_from_its_own_work(tmp_path):
    recorder = UsageRecorder(tmp_path / "usage.json")
    before_mb = _rss_mb()
    ctx = StepContext(make_config())
    with recorder.stage("synth", ctx.stats) as usage, ctx.running():
        _spin(0.05)  # own work outside the LLM phase
        with llm_phase():
            time.sleep(0.3)  # waiting on the server: wall time, no CPU
            _spin(0.05)  # the client's own work inside the phase
        # 64 MB of fresh pages, each written: resident whatever memory the allocator already holds
        block = mmap.mmap(-1, 64 * 1024 * 1024)
        for offset in range(0, len(block), mmap.PAGESIZE):
            block[offset] = 1
        block.close()
    assert usage is not None
    # bounds that hold on a loaded machine: the sleep is wall time; the spins count process CPU, which other
    # threads of the test process add to, so they bound CPU from below and say nothing of wall time
    assert usage.wall_s >= 0.3 and usage.cpu_s >= 0.1
    assert usage.llm_wall_s >= 0.3 and usage.llm_cpu_s >= 0.05
    assert 0.1 <= usage.llm_wait_s <= usage.llm_wall_s - 0.05
    assert usage.own_s == usage.wall_s - usage.llm_wait_s
    assert usage.peak_rss_mb >= before_mb + 60
    written = json.loads((tmp_path / "usage.json").read_text())["stages"]
    assert [s["stage"] for s in written] == ["synth"] and written[0]["llm_wait_s"] == round(usage.llm_wait_s, 3)


def test_the_llm_phase_counts_nothing_outside_a_recorded_stage(tmp_path):
    with llm_phase():
        time.sleep(0.01)
    recorder = UsageRecorder(None)  # no --usage: nothing recorded, nothing written
    with recorder.stage("crawl") as usage, llm_phase():
        pass
    assert usage is None and recorder.stages == []
    with UsageRecorder(tmp_path / "u.json").stage("score", {}) as score:
        pass
    assert score.llm_wall_s == 0 and score.llm_wait_s == 0
