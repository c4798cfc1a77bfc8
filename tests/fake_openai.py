"""A tiny OpenAI-compatible server on 127.0.0.1 for tests: completions and chat JSON, scripted failures.

Per prompt it can be told to answer 429/500/503/400, hang past the client's timeout, drop the
connection or send malformed JSON. It counts requests per prompt and the largest number in
flight, so tests check what really went over the wire. ``respond(body, content) -> text`` decides
what a successful answer says (default: an echo of the prompt).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    """A tiny OpenAI-compatible server whose misbehaviour is scripted per prompt."""

    def __init__(self, respond: Callable[[dict, str], str] | None = None) -> None:
        self.respond = respond or default_text
        self.lock = threading.Lock()
        self.plans: dict[str, list[str]] = {}  # prompt -> actions for its successive requests
        self.default = "ok"
        self.counts: Counter[str] = Counter()
        self.bodies: list[dict] = []
        self.auth: list[str | None] = []
        self.in_flight = 0
        self.max_in_flight = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                content = body["prompt"] if "prompt" in body else body["messages"][-1]["content"]
                with fake.lock:
                    fake.counts[content] += 1
                    fake.bodies.append(body)
                    fake.auth.append(self.headers.get("Authorization"))
                    plan = fake.plans.get(content)
                    action = plan.pop(0) if plan else fake.default
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    self._act(action, body, content)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): expected
                finally:
                    with fake.lock:
                        fake.in_flight -= 1

            def _act(self, action: str, body: dict, content: str) -> None:
                name, _, arg = action.partition(":")
                if name in ("slow", "hang"):
                    time.sleep(float(arg))
                    name = "ok"
                if name == "ok":
                    self._json(200, _answer(body, content, fake.respond(body, content)))
                elif name == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                elif name == "malformed":
                    self._raw(200, b'{"choices": [{"text": "trunc')
                elif name == "echo_auth":  # an error body that leaks the caller's header, as bad proxies do
                    self._json(400, {"error": {"message": f"bad request from {self.headers.get('Authorization')}"}})
                else:
                    status = int(name)
                    self._json(
                        status,
                        {"error": {"message": f"scripted {status}", "type": "fake"}},
                        {"Retry-After": "0"} if status == 429 else None,
                    )

            def _json(self, status: int, obj: dict, headers: dict | None = None) -> None:
                self._raw(status, json.dumps(obj).encode(), headers)

            def _raw(self, status: int, data: bytes, headers: dict | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def default_text(body: dict, content: str) -> str:
    return '{"score": 0.5}' if "response_format" in body else f"echo:{content}"


def _answer(body: dict, content: str, text: str) -> dict:
    usage = {"prompt_tokens": len(content.split()), "completion_tokens": 3, "total_tokens": len(content.split()) + 3}
    if "messages" in body:
        choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        return {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [choice],
            "usage": usage,
        }
    choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
    return {
        "id": "x",
        "object": "text_completion",
        "created": 0,
        "model": body["model"],
        "choices": [choice],
        "usage": usage,
    }
