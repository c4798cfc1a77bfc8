"""``benchmarks/progress_log.py`` on the fixture world's scored catalog: ``ecoagent synth`` and ``ecoagent label`` as
``make run`` runs them, their output to a pipe, every line stamped; the LLM is the stand-in server (the embedded
model takes minutes), so this checks the plumbing and the report, not the 30 s target."""

from __future__ import annotations

import re
from pathlib import Path

from ecoagent.layout import LABEL_FILES, SYNTH_FILES
from tests.benchmarks.conftest import standin_overrides, use_world
from tests.benchmarks.scripts import run_script


def test_both_stages_log_plain_progress_lines(world, standin, monkeypatch, tmp_path: Path) -> None:
    use_world(monkeypatch, [*world.overrides, *standin_overrides(standin, tmp_path / "unused.sqlite")])
    work = tmp_path / "work"
    ran = run_script("progress_log", "--score", world.score, "--sample-size", 2, "--max-queries", 4, "--keep", work)
    assert ran.code == 0, ran
    for stage in ("synth", "label"):
        line = re.search(rf"^{stage}: exit 0, [\d.]+ s, (\d+) lines \((\d+) with an ETA\), longest silence ([\d.]+) s "
                         rf"\(target <= 30 s\); log {re.escape(str(work / stage))}\.log$", ran.out, re.M)
        assert line, ran
        stamped = (work / f"{stage}.log").read_text().splitlines()
        assert len(stamped) == int(line.group(1)) > 0
        assert all(re.match(r"^ +[\d.]+s  ", s) for s in stamped)  # the second each line arrived
        assert not any("\r" in s or "\x1b[" in s for s in stamped)  # a pipe gets plain lines, no bars
    assert (work / "synth" / SYNTH_FILES.summary).is_file() and (work / "label" / LABEL_FILES.summary).is_file()
