"""``benchmarks/selector_service.py`` against ``python -m selector serve`` on the tiny release, over real HTTP: every
invariant checked (isolation, budget, authorize, hostile input, the chunked body) and one small load round, and the
record. The service ranks with BM25 only: its dense encoders load in the service's own process (20-40 s of imports
here) and are the selector tests' (tests/selector/)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.benchmarks.scripts import record_written, run_script


def test_the_service_over_real_http_holds_every_invariant(tiny_release: Path, results_dir: Path) -> None:
    ran = run_script("selector_service", "--release", tiny_release, "--requests", 32, "--clients", 2, "--checks", 20,
                     "--rounds", 1, "--start-timeout", 120, "--serve-arg=--rankers", "--serve-arg=bm25",
                     "--record", "smoke-service")  # fmt: skip
    figures = {line.split(": ", 1)[0]: json.loads(line.split(": ", 1)[1]) for line in ran.out.splitlines()
               if line.split(": ", 1)[0] in ("isolation_and_budget", "authorize", "bad_input", "chunked_60mb", "load")}
    assert figures["isolation_and_budget"]["calls"] == 20 and figures["isolation_and_budget"]["tools_returned"] > 0
    assert figures["isolation_and_budget"]["scope_leaks"] == figures["isolation_and_budget"]["over_budget"] == 0
    assert figures["authorize"] == {"calls": 20, "wrong_decisions": 0}
    bad = figures["bad_input"]
    assert bad["requests"] == 18 and bad["server_errors"] == 0 and bad["good_request_after"] == 200, ran
    # Known race, not this test's to fix: the service answers the 1 MB body's 413 and closes without reading it, so
    # on a busy machine the client's send can meet a reset first and never read the answer (status 0, counted
    # twice: not a 4xx, a dropped connection). Every other request must get its 4xx.
    race = bad["status_counts"].get("0", 0)
    assert race <= 1 and bad["not_4xx"] == race and bad["connections_dropped_after_4xx"] <= race, ran
    broken = bad["not_4xx"] + bad["connections_dropped_after_4xx"]
    assert ran.code == (1 if broken else 0), ran
    assert (f"{broken} invariant violation(s)" if broken else "all invariants hold") in ran.out
    assert figures["chunked_60mb"]["status_line"].startswith("HTTP/1.1 413")
    assert figures["chunked_60mb"]["mb_sent_before_answer"] < 60
    assert figures["load"]["requests"] == 32 and figures["load"]["errors"] == 0
    assert "startup: answering /health " in ran.out
    record = record_written(results_dir, "smoke-service")
    assert record["figures"]["invariant violations"] == broken
    assert len(record["tables"][0]["rows"]) == 1
