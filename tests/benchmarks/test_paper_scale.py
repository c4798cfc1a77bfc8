"""CI's smoke run of ``benchmarks/paper_scale.py`` at ``--scale 0.01`` on the fixture packages: the real CLI in fresh
processes (``ecoagent run`` then ``ecoagent rated``), the stand-in server in a process of its own, the batch backend's
files, and the table and JSON the benchmark writes. The figures are the benchmark's; this checks that it runs and
that what it reports holds together (every request answered once, the release loads, Table 2 on the Syn test stream).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.dags.fixture_world import fixture_refresh_conf

REPO = Path(__file__).resolve().parents[2]


def test_paper_scale_smoke_run_at_one_percent(tmp_path: Path):
    conf = fixture_refresh_conf(tmp_path)
    # the fixture world's settings, except its LLM: the benchmark's stand-in server answers instead
    overrides = [o for o in conf["overrides"] if not o.startswith(("llm.", "label.max_tokens"))]
    overrides += ["label.verifier=embedding"]  # as the fixture world verifies (its 12 queries are hand-written)
    # Table 2 once, not 8 times: one seed, one scenario, one failure rate (tests/rated covers the protocol)
    overrides += ["rated.simulation.seeds=[0]", "rated.simulation.scenarios=[persistent]",
                  "rated.simulation.failure_rates=[0.2]", "rated.latency_steps=100",
                  # the fixture's Syn test stream is tiny: simulate on it all the same (no catalog-anchored stream)
                  "rated.min_stream_queries=0", "rated.min_stream_gold_tools=0"]  # fmt: skip
    work, results = tmp_path / "work", tmp_path / "paper_scale.json"
    # a tenth of an epoch of Syn train: RATED's CPU fine-tuning is the slowest step here, and the run only has to work;
    # -P: benchmarks/ is not first on the script's path (its module names must not shadow a package's)
    cmd = [sys.executable, "-P", "benchmarks/paper_scale.py", "--scale", "0.01", "--profile", "fixture", "--work",
           str(work), "--json", str(results), "--burst", "64", "--rated-train-share", "0.1",
           *(a for o in overrides for a in ("--set", o))]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    report = json.loads(results.read_text())
    stages = {s["stage"]: s for s in report["stages"]}
    assert list(stages) == ["crawl", "score", "synth", "label", "release", "rated"]
    for s in stages.values():
        assert s["wall_s"] > 0 and s["cpu_s"] > 0 and s["peak_rss_mb"] > 0, s
        assert 0 <= s["llm_wait_s"] <= s["llm_wall_s"] <= s["wall_s"], s
    assert stages["synth"]["llm_wall_s"] > 0 and stages["synth"]["llm_requests"] == 8  # the fixture's 8 tools
    assert stages["crawl"]["llm_wall_s"] == 0
    server = report["server"]
    assert server["no_request_lost_or_repeated"], server
    assert server["answered_200"] == server["new_response_cache_rows"] > 0
    assert report["tokens"]["prompt_tokens_per_tool"] > 100  # Gemma tokens of a real prompt, not words
    assert report["release"]["load"]["mismatches"] == [] and report["release"]["load"]["splits_loaded"] >= 10
    batch = report["batch"]
    assert batch["request_lines"] == batch["output_lines"] == 8
    assert all(batch["same_outputs_as_server_run"].values()), batch
    assert report["client_burst"]["failed"] == 0 and report["client_burst"]["requests"] == 64
    assert "syn/test" in report["rated"]["table2_streams"]
    table = done.stdout
    assert "| stage | wall s | CPU s |" in table and "| synth |" in table and "| rated |" in table
