"""``benchmarks/kill_resume.py`` on the fixture world's crawl (two platforms), one kill: the real ``ecoagent crawl``
started as the CLI starts it, SIGKILLed halfway through its uninterrupted time, the folder one generation or the
other, no process left, the rerun identical. The score, synth and release kills run the same loop on a finished
run's folders (minutes on the real catalog); ``tests/killed_runs.py`` kills each stage at chosen moments."""

from __future__ import annotations

import re
from pathlib import Path

from tests.benchmarks.conftest import use_world
from tests.benchmarks.scripts import run_script


def test_a_crawl_killed_halfway_leaves_one_generation(world, monkeypatch, tmp_path: Path) -> None:
    use_world(monkeypatch, world.overrides)  # the CLI processes it starts read the same variables
    run_root = tmp_path / "run"
    run_root.mkdir()
    ran = run_script("kill_resume", "--run", run_root, "--work", tmp_path / "work", "--stages", "crawl",
                     "--platforms", "mcp", "langchain", "--at", 0.5, "--version", "0.0.1")  # fmt: skip
    assert ran.code == 0, ran
    assert re.search(r"^crawl: uninterrupted [\d.]+ s, \d+ files$", ran.out, re.M), ran
    (kill,) = [line for line in ran.out.splitlines() if line.startswith("  kill at ")]
    assert re.search(r"\(50%(, it had finished)?\): folder (previous|new|new, not gated); \d+ child processes, "
                     r"0 alive after 5 s; rerun [\d.]+ s identical to the reference; leftovers none$", kill), kill
    assert ran.out.splitlines()[-1] == ("all kills: one generation at a time, no stray process, reruns identical, "
                                        "no leftovers")  # fmt: skip
