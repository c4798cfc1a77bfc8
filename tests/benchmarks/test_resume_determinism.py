"""``benchmarks/resume_determinism.py`` on the real embedded server, in the pipeline's own mode only (``pinned
prefix``, two requests of 2 tokens, the run killed after the first): three fresh servers, and the resumed reply is
the uninterrupted one's. The other two modes are the same loop on other server settings (78 s for all three here)."""

from __future__ import annotations

from pathlib import Path

from tests.benchmarks.scripts import record_written, run_script


def test_a_resumed_run_replies_as_the_uninterrupted_one(results_dir: Path) -> None:
    ran = run_script("resume_determinism", "--tools", 2, "--done", 1, "--max-tokens", 2, "--modes", "pinned prefix",
                     "--record", "smoke-resume")  # fmt: skip
    assert ran.code == 0, ran
    assert ran.out.startswith("embedded gemma-3-270m, 1 slot, 1 thread, 2 Syn requests, resumed after 1; ")
    line = next(x for x in ran.out.splitlines() if x.startswith("pinned prefix: "))
    assert line.startswith("pinned prefix: resumed replies differing from the uninterrupted run 0 of 1; two "
                           "uninterrupted runs agree; "), ran  # fmt: skip
    assert "the requests per second of none" not in ran.out  # no baseline measured: no ratio
    record = record_written(results_dir, "smoke-resume")
    assert list(record["figures"]) == ["pinned prefix"] and record["tables"][0]["rows"][0][:3] == [
        "pinned prefix", "0 of 1", "agree"]  # fmt: skip
