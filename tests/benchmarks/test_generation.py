"""``benchmarks/generation.py`` against the real embedded llama.cpp server (Gemma 3 270M): two requests of 4 tokens,
one at a time and then two at once, each pass on a fresh response cache (nothing answered from a cache)."""

from __future__ import annotations

import re

from tests.benchmarks.scripts import run_script

PASS = re.compile(r"^concurrency= ?(\d+): +[\d.]+s +([\d.]+) req/s +([\d.]+) completion tok/s +\((\d+) tokens, (\d+) "
                  r"errors\)$", re.M)  # fmt: skip


def test_sequential_then_concurrent_requests_on_the_embedded_server() -> None:
    ran = run_script("generation", "--n", 2, "--max-tokens", 4, "--concurrency", 2)
    assert ran.code == 0, ran
    assert ran.out.startswith("model=gemma-3-270m ") and " n=2 max_tokens=4 concurrency=2" in ran.out.splitlines()[0]
    assert re.search(r"^server up in [\d.]+s at http://127\.0\.0\.1:\d+/v1$", ran.out, re.M), ran
    passes = PASS.findall(ran.out)
    assert [p[0] for p in passes] == ["1", "2"], ran
    for _, req_s, _tok_s, tokens, errors in passes:
        assert errors == "0" and 0 <= int(tokens) <= 8 and float(req_s) > 0  # at most 4 tokens per request
    assert re.search(r"^ratio concurrent/sequential: [\d.]+x tok/s, [\d.]+x req/s$", ran.out, re.M)
