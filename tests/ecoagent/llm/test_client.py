"""LLMClient against a real local HTTP server that speaks the OpenAI completions/chat JSON.

The server (127.0.0.1, port 0, a thread) can be told per prompt to answer 429/500/503/400,
hang past the client's timeout, drop the connection or send malformed JSON. It counts requests
per prompt and the largest number in flight, so the tests check what really went over the wire.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from ecoagent.llm import LLMClient, LLMRequest, ResponseCache, sampling, sanitize
from ecoagent.testing.standin_llm import StandInOpenAI

ROOT = Path(__file__).resolve().parents[3]
SECRET = "sk-test-SECRET-0123456789abcdef"


def make_requests(n: int, prefix: str = "p") -> list[LLMRequest]:
    return [
        LLMRequest(
            key=f"tool{i}@h",
            prompt_version="t_v1",
            model="fake",
            kind="completion",
            prompt=f"{prefix} {i}",
            sampling=sampling(max_tokens=8, temperature=0.0),
        )
        for i in range(n)
    ]


def client(server: StandInOpenAI, cache: ResponseCache | None = None, **kw) -> LLMClient:
    settings = dict(api_key=None, concurrency=4, timeout_s=5.0, max_retries=4, backoff_s=0.01, cache=cache)
    settings.update(kw)
    return LLMClient(server.base_url, "fake", **settings)


@pytest.fixture
def server():
    with StandInOpenAI() as fake:
        yield fake


def test_request_id_is_deterministic_and_canonical():
    a = LLMRequest("k", "v1", "m", "completion", prompt="x", sampling=(("top_p", 0.9), ("temperature", 0.5)))
    b = LLMRequest("k", "v1", "m", "completion", prompt="x", sampling=sampling(temperature=0.5, top_p=0.9))
    assert a.request_id == b.request_id and len(a.request_id) == 64
    assert a.request_id != LLMRequest("k2", "v1", "m", "completion", prompt="x", sampling=b.sampling).request_id
    assert a.request_id != LLMRequest("k", "v2", "m", "completion", prompt="x", sampling=b.sampling).request_id
    message = {"role": "user", "content": "q"}
    s1 = LLMRequest("k", "v1", "m", "chat", messages=(message,), json_schema='{"a": 1, "b": 2}')
    s2 = LLMRequest("k", "v1", "m", "chat", messages=[dict(message)], json_schema='{"b":2,"a":1}')
    assert s1.request_id == s2.request_id
    with pytest.raises(ValueError):
        LLMRequest("k", "v1", "m", "completion", messages=({"role": "user", "content": "q"},))
    with pytest.raises(ValueError, match="may not set"):
        LLMRequest("k", "v1", "m", "completion", prompt="x", sampling=sampling(stream=True))


def test_retries_with_backoff_then_success(server):
    server.plans["p 0"] = ["429", "500", "503", "drop", "malformed"]
    [response] = client(server, max_retries=5).generate(make_requests(1))
    assert response.ok and response.text == "echo:p 0" and response.attempts == 6
    assert server.counts["p 0"] == 6


def test_always_failing_ends_as_error_not_cached(server, tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    server.plans["p 0"] = ["503"] * 10
    server.plans["p 1"] = ["400"]  # a client error is final: no retry
    r0, r1, r2 = client(server, cache, max_retries=2).generate(make_requests(3))
    assert r0.error and "HTTP 503" in r0.error and r0.attempts == 3 and r0.text is None
    assert r1.error and "HTTP 400" in r1.error and r1.attempts == 1
    assert r2.ok
    assert server.counts["p 0"] == 3 and server.counts["p 1"] == 1
    assert r0.request_id not in cache and r1.request_id not in cache and r2.request_id in cache
    # the failed ones are tried again on the next run; the cached one is not
    server.plans.clear()
    again = client(server, cache).generate(make_requests(3))
    assert [r.ok for r in again] == [True, True, True] and again[2].cached
    assert server.counts == Counter({"p 0": 4, "p 1": 2, "p 2": 1})


def test_timeout_is_retried(server):
    server.plans["p 0"] = ["hang:1.5"]
    start = time.monotonic()
    [response] = client(server, timeout_s=0.4).generate(make_requests(1))
    assert response.ok and response.attempts == 2
    assert time.monotonic() - start < 1.5  # it did not wait for the hung answer
    server.plans["p 1"] = ["hang:1.0"] * 3
    [failed] = client(server, timeout_s=0.3, max_retries=1).generate(make_requests(2)[1:])
    assert failed.error and "timeout" in failed.error and failed.attempts == 2


def test_concurrency_never_exceeds_the_bound(server):
    server.default = "slow:0.1"
    responses = client(server, concurrency=3).generate(make_requests(12))
    assert all(r.ok for r in responses)
    assert server.max_in_flight == 3


def test_cached_ids_are_never_sent_again_and_duplicates_once(server, tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    requests = make_requests(4)
    seen = []
    first = client(server, cache).generate([*requests, requests[0], requests[1]], on_done=seen.append)
    assert len(first) == 6 and first[4] is first[0] and len(seen) == 4
    assert server.counts == Counter({f"p {i}": 1 for i in range(4)})
    assert len(cache) == 4
    second = client(server, cache).generate(requests + make_requests(5)[4:])
    assert [r.cached for r in second] == [True, True, True, True, False]
    assert [r.text for r in second[:4]] == [r.text for r in first[:4]]
    assert server.counts == Counter({f"p {i}": 1 for i in range(5)})


def test_chat_json_schema_and_extra_sampling_keys_reach_the_server(server):
    schema = json.dumps({"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]})
    chat = LLMRequest(
        "v@1",
        "verify_v1",
        "fake",
        "chat",
        messages=({"role": "user", "content": "rate"},),
        sampling=sampling(max_tokens=16, temperature=0.0, seed=7),
        json_schema=schema,
    )
    completion = LLMRequest(
        "g@1",
        "fewshot_v1",
        "fake",
        "completion",
        prompt="Tool: x\n-",
        sampling=sampling(max_tokens=8, stop=["\n\n"], repeat_penalty=1.1, dry_multiplier=0.8, repetition_penalty=1.05),
    )
    r_chat, r_completion = client(server).generate([chat, completion])
    assert json.loads(r_chat.text) == {"score": 0.5} and r_completion.text == "echo:Tool: x\n-"
    body_chat = next(b for b in server.bodies if "messages" in b)
    assert body_chat["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "out", "schema": json.loads(schema), "strict": True},
    }
    assert body_chat["seed"] == 7 and body_chat["max_tokens"] == 16
    body_completion = next(b for b in server.bodies if "prompt" in b)
    assert body_completion["repeat_penalty"] == 1.1 and body_completion["dry_multiplier"] == 0.8
    assert body_completion["repetition_penalty"] == 1.05 and body_completion["stop"] == ["\n\n"]
    assert r_completion.prompt_tokens == 3 and r_completion.completion_tokens == 3


def test_api_key_never_reaches_cache_or_errors(server, tmp_path):
    cache_path = tmp_path / "c.sqlite"
    cache = ResponseCache(cache_path)
    server.plans["p 1"] = ["echo_auth"]
    c = client(server, cache, api_key=SECRET)
    assert SECRET not in repr(c)
    ok, leaked = c.generate(make_requests(2))
    assert server.auth[0] == f"Bearer {SECRET}"  # the key was used...
    assert ok.ok and leaked.error and SECRET not in leaked.error and "***" in leaked.error
    cache.close()
    assert SECRET.encode() not in cache_path.read_bytes()  # ...and stored nowhere
    rows = sqlite3.connect(cache_path).execute("SELECT * FROM responses").fetchall()
    assert rows and all(SECRET not in str(row) for row in rows)


def test_sanitize_masks_key_shapes():
    text = (
        "GET https://user:pw@host/v1?api_key=abc123&x=1 Authorization: Bearer tok-999 "
        "hf_abcdefghijklmnop sk-abcdefghijkl token=zzz"
    )
    clean = sanitize(text, secrets=("tok-999",))
    for secret in ("pw@", "abc123", "tok-999", "hf_abcdefghijklmnop", "sk-abcdefghijkl", "zzz"):
        assert secret not in clean
    assert len(sanitize("x" * 5000)) == 500


CHILD = """
import sys
from pathlib import Path
from ecoagent.llm import LLMClient, ResponseCache
from tests.ecoagent.llm.test_client import make_requests
base_url, cache_path, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
client = LLMClient(base_url, "fake", api_key=None, concurrency=2, timeout_s=10, max_retries=0, backoff_s=0.01,
                   cache=ResponseCache(cache_path))
client.generate(make_requests(n))
print("finished")
"""


def test_kill_and_resume_loses_nothing_and_duplicates_nothing(server, tmp_path):
    n = 16
    server.default = "slow:0.15"
    cache_path = tmp_path / "resume.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, server.base_url, str(cache_path), str(n)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while not cache_path.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        watcher = ResponseCache(cache_path)  # a second reader while the child writes (WAL)
        while len(watcher) < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    done_before_kill = set(watcher)
    assert 4 <= len(done_before_kill) < n  # really killed mid-run
    watcher.close()

    cache = ResponseCache(cache_path)
    requests = make_requests(n)
    resumed = client(server, cache, concurrency=2).generate(requests)
    assert all(r.ok for r in resumed)
    assert {r.request_id for r in resumed if r.cached} == done_before_kill
    prompts = {r.request_id: r.prompt for r in requests}
    for request_id in done_before_kill:  # answered once, never re-sent after it was cached
        assert server.counts[prompts[request_id]] == 1
    # at most the requests in flight at the kill (concurrency 2) were answered twice
    assert sum(server.counts.values()) <= n + 2

    server.default = "ok"
    clean = client(server, ResponseCache(tmp_path / "clean.sqlite")).generate(requests)
    assert [r.text for r in resumed] == [r.text for r in clean]
    assert [r.request_id for r in resumed] == [r.request_id for r in clean]
