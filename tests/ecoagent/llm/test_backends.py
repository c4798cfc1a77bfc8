"""Backends: the REAL embedded llama.cpp server with the packaged Gemma 3 270M, and batch files.

The embedded tests start the real model (about 2-3 s each, 1 thread, max_tokens=8) and check
that the server is gone afterwards: port closed and child process reaped, also when the body
of the ``with`` block raises.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from ecoagent.config import Config, make_config
from ecoagent.llm import (
    EmbeddedServer,
    LLMBackendError,
    LLMClient,
    LLMRequest,
    LLMResponse,
    ResponseCache,
    open_llm,
    read_batch_output,
    sampling,
    write_batch_requests,
)
from ecoagent.llm.embedded import resolve_gguf


def _config(tmp_path: Path, **llm) -> Config:
    # the model cache stays the configured default: the 250 MB GGUF is assembled once per machine; two slots and two
    # requests in flight (the defaults are one of each), so the server decodes requests side by side
    return make_config(store=str(tmp_path / "store"),
                       llm={"embedded": {"threads": 1, "parallel": 2}, "concurrency": 2, **llm})  # fmt: skip


def _port_closed(address: str) -> bool:
    host, port = address.removeprefix("http://").split(":")
    try:
        socket.create_connection((host, int(port.split("/")[0])), timeout=1).close()
    except OSError:
        return True
    return False


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_open_llm_embedded_answers_completion_and_chat_then_stops(tmp_path):
    config = _config(tmp_path)
    completion = LLMRequest("slack@1", "fewshot_completion_v1", config.llm.model, "completion",
                            prompt="Tool: Slack send message\nRequests:\n-",
                            sampling=sampling(max_tokens=8, temperature=0.0, seed=0))
    chat = LLMRequest("slack@1", "chat_v1", config.llm.model, "chat",
                      messages=({"role": "user", "content": "Name one tool for sending messages."},),
                      sampling=sampling(max_tokens=8, temperature=0.0, seed=0))
    with open_llm(config) as client:
        base_url = client.base_url
        assert base_url.startswith("http://127.0.0.1:")
        responses = client.generate([completion, chat])
    for response in responses:
        assert response.ok, response.error
        assert isinstance(response.text, str) and 0 < response.completion_tokens <= 8
        assert response.model == config.llm.model
    assert responses[1].prompt_tokens > 10  # the chat template wrapped the message (turn markers)
    assert _port_closed(base_url)
    # default cache: <store>/llm/responses.sqlite, filled by that run
    with ResponseCache(tmp_path / "store" / "llm" / "responses.sqlite") as cache:
        assert len(cache) == 2


def _pinned_requests(config: Config, n: int) -> list[LLMRequest]:
    """Completion requests that share a few-shot part (shared_prefix) and differ after it."""
    shared = "Tools and what users asked of them.\n\nTool: weather\nRequests:\n- rain in Oslo?\n\n"
    return [LLMRequest(f"tool{i}@1", "fewshot_completion_v1", config.llm.model, "completion",
                       prompt=f"{shared}Tool: {name}\nRequests:\n-", shared_prefix=len(shared),
                       sampling=sampling(max_tokens=8, temperature=0.8, seed=i))
            for i, name in enumerate(["slack send message", "slack post reply", "github create issue"][:n])]


def test_pinned_prefix_reply_depends_on_its_request_alone(tmp_path):
    """A resumed run (the last request alone, on a fresh server) gets the reply the uninterrupted run got; the shared
    part is evaluated once, not per request."""
    config = _config(tmp_path, concurrency=1, embedded={"threads": 1, "parallel": 1, "reuse_prompt_cache": True})
    requests = _pinned_requests(config, 3)
    with open_llm(config, cache_path=tmp_path / "a.sqlite") as client:
        whole = client.generate(requests)
        state_dir = client.pinned_prefixes.folder
        assert len(list(state_dir.iterdir())) == 1  # one saved prefix state for the three requests
    assert not state_dir.exists()  # removed with the server
    with open_llm(config, cache_path=tmp_path / "b.sqlite") as client:
        resumed = client.generate(requests[2:])
    assert all(r.ok for r in whole + resumed), [r.error for r in whole + resumed]
    assert resumed[0].text == whole[2].text
    unpinned = _config(tmp_path, concurrency=1, embedded={"threads": 1, "parallel": 1, "reuse_prompt_cache": False})
    with open_llm(unpinned, cache_path=tmp_path / "c.sqlite") as client:
        assert client.pinned_prefixes is None
        assert client.generate(requests[2:])[0].ok


def test_shared_prefix_must_lie_in_a_completion_prompt():
    with pytest.raises(ValueError, match="outside the prompt"):
        LLMRequest("k", "v1", "m", "completion", prompt="abc", shared_prefix=4)
    with pytest.raises(ValueError, match="completion prompts"):
        LLMRequest("k", "v1", "m", "chat", messages=({"role": "user", "content": "hi"},), shared_prefix=1)
    pinned = LLMRequest("k", "v1", "m", "completion", prompt="abc", shared_prefix=2)
    assert pinned.request_id == LLMRequest("k", "v1", "m", "completion", prompt="abc").request_id


def test_embedded_server_stops_when_the_body_raises(tmp_path):
    server = EmbeddedServer.from_config(_config(tmp_path))
    with pytest.raises(RuntimeError, match="boom"), server:
        address, pid = server.address, server.pid
        assert address and not _port_closed(address)
        raise RuntimeError("boom")
    assert _port_closed(address) and _process_gone(pid)
    assert server.address is None


def test_embedded_server_bad_gguf_fails_clearly(tmp_path):
    bogus = tmp_path / "broken.gguf"
    bogus.write_bytes(b"not a gguf file")
    server = EmbeddedServer(bogus, model_alias="x", startup_timeout_s=60)
    with pytest.raises(LLMBackendError, match=r"broken\.gguf"):
        server.start()
    assert server.pid is None


def test_model_settings_errors_name_the_setting(tmp_path):
    with pytest.raises(LLMBackendError, match=r"llm\.embedded\.gguf"):
        resolve_gguf("package:no-such-gguf-package", tmp_path)
    with pytest.raises(LLMBackendError, match=r"llm\.embedded\.gguf"):
        resolve_gguf(str(tmp_path / "missing.gguf"), tmp_path)
    with pytest.raises(LLMBackendError, match="write_batch_requests"), open_llm(_config(tmp_path, backend="batch")):
        pass
    with pytest.raises(LLMBackendError, match=r"llm\.base_url"), open_llm(_config(tmp_path, backend="server")):
        pass


def _vllm_output_line(custom_id: str, body: dict | None, status: int = 200, error: str | None = None) -> str:
    # vLLM run-batch output (BatchRequestOutput): id, custom_id, response {status_code, request_id, body}, error
    return json.dumps({"id": f"vllm-{custom_id[:8]}", "custom_id": custom_id,
                       "response": {"status_code": status, "request_id": f"vllm-batch-{custom_id[:8]}", "body": body},
                       "error": error})


def test_batch_write_import_then_served_from_cache(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    chat = LLMRequest("a@1", "verify_v1", "google/gemma-3-1b-it", "chat",
                      messages=({"role": "user", "content": "rate"},), sampling=sampling(max_tokens=16),
                      json_schema='{"type": "object", "properties": {"score": {"type": "number"}}}')
    completion = LLMRequest("b@1", "fewshot_v1", "google/gemma-3-1b-it", "completion", prompt="Tool: x\n-",
                            sampling=sampling(max_tokens=32, repetition_penalty=1.1))
    failing = LLMRequest("c@1", "fewshot_v1", "google/gemma-3-1b-it", "completion", prompt="Tool: y\n-")
    done = LLMRequest("d@1", "fewshot_v1", "google/gemma-3-1b-it", "completion", prompt="Tool: z\n-")
    cache.put(_ok(done.request_id, "already"))  # answered earlier: must not be written again

    requests_path = tmp_path / "batch" / "requests.jsonl"
    assert write_batch_requests([chat, completion, failing, done, chat], requests_path, cache=cache) == 3
    lines = [json.loads(x) for x in requests_path.read_text().splitlines()]
    assert [x["custom_id"] for x in lines] == [chat.request_id, completion.request_id, failing.request_id]
    assert {x["method"] for x in lines} == {"POST"}
    assert [x["url"] for x in lines] == ["/v1/chat/completions", "/v1/completions", "/v1/completions"]
    assert lines[0]["body"]["response_format"]["type"] == "json_schema"
    assert lines[1]["body"]["repetition_penalty"] == 1.1 and lines[1]["body"]["prompt"] == "Tool: x\n-"

    output = tmp_path / "batch" / "output.jsonl"
    chat_body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "google/gemma-3-1b-it",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"score": 0.9}'},
                              "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}}
    completion_body = {"id": "cmpl-2", "object": "text_completion", "created": 1, "model": "google/gemma-3-1b-it",
                       "choices": [{"index": 0, "text": " send a message to #ops", "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}
    output.write_text("\n".join([
        _vllm_output_line(chat.request_id, chat_body),
        _vllm_output_line(completion.request_id, completion_body),
        _vllm_output_line(failing.request_id, None, status=400, error="prompt too long"),
        _vllm_output_line("f" * 64, completion_body),
        "{not json",
    ]) + "\n")
    counts = read_batch_output(output, cache, requests_path=requests_path)
    assert counts == {"ok": 2, "error": 2, "unknown_id": 1}

    # no server: a closed port; cached ids are answered without a request, the failed one errors
    offline = LLMClient("http://127.0.0.1:9/v1", "google/gemma-3-1b-it", api_key=None, concurrency=2,
                        timeout_s=2, max_retries=0, backoff_s=0.01, cache=cache)
    r_chat, r_completion, r_failing = offline.generate([chat, completion, failing])
    assert r_chat.cached and json.loads(r_chat.text) == {"score": 0.9} and r_chat.completion_tokens == 6
    assert r_completion.cached and r_completion.text == " send a message to #ops"
    assert r_failing.error and not r_failing.cached


def _ok(request_id: str, text: str) -> LLMResponse:
    return LLMResponse(request_id=request_id, text=text, finish_reason="stop", prompt_tokens=1, completion_tokens=1,
                       model="m", error=None, attempts=1, cached=False, seconds=0.0)
