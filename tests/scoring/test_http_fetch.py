"""The polite fetcher against a local ThreadingHTTPServer on 127.0.0.1 (port 0) that the tests start.

Name resolution for anything but 127.0.0.1 is blocked in every test here (``block_dns``), so no
test can reach the real network, and a lookup failure is simulated exactly as this machine sees it.
The helpers are imported by the link-check and doc-page tests.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ecoagent.testing.standin_llm import ServedInThread
from scoring.http_fetch import (
    DNS_ERROR,
    ROBOTS_DISALLOWED,
    TIMEOUT,
    TOO_MANY_REDIRECTS,
    DiskCache,
    HostRateLimiter,
    HttpFetcher,
    classify_exception,
)
from scoring.settings import HttpConfig

# -- shared helpers ----------------------------------------------------------------------------


@dataclass
class Route:
    status: int = 200
    body: bytes | str = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    head_status: int | None = None  # a different answer to HEAD (e.g. 405)
    slow: bool = False  # wait for the server's release event (up to 5 s): a timeout trigger
    gate: bool = False  # wait until `gate_target` requests are in flight (up to 2 s)


class LocalServer(ServedInThread):
    """Serves ``routes`` (path -> Route) and counts what it saw."""

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.calls: Counter[tuple[str, str]] = Counter()
        self.user_agents: set[str] = set()
        self.in_flight = 0
        self.max_in_flight = 0
        self.gate_target = 1
        self.gate_open = threading.Event()
        self.release = threading.Event()
        self._lock = threading.Lock()
        super().__init__(ThreadingHTTPServer(("127.0.0.1", 0), self._handler()))
        self.port = self.httpd.server_address[1]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def count(self, path: str, method: str | None = None) -> int:
        return sum(n for (m, p), n in self.calls.items() if p == path and (method is None or m == method))

    def total(self, exclude: tuple[str, ...] = ("/probe",)) -> int:
        return sum(n for (_, p), n in self.calls.items() if p not in exclude)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep pytest output clean
                pass

            def _serve(self, method: str) -> None:
                path = self.path.split("?", 1)[0]
                with server._lock:
                    server.calls[(method, path)] += 1
                    server.user_agents.add(self.headers.get("User-Agent", ""))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    if server.in_flight >= server.gate_target:
                        server.gate_open.set()
                route = server.routes.get(path, Route(404, "not found", "text/plain"))
                if route.gate:
                    server.gate_open.wait(2.0)
                if route.slow:
                    server.release.wait(5.0)
                # leave the in-flight count before answering: once the client has the answer it
                # may start its next request, which must not see this one still counted
                with server._lock:
                    server.in_flight -= 1
                status = route.head_status if method == "HEAD" and route.head_status else route.status
                body = route.body.encode() if isinstance(route.body, str) else route.body
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", route.content_type)
                    self.send_header("Content-Length", str(len(body)))
                    for key, value in route.headers.items():
                        self.send_header(key, value.replace("{base}", server.url("")))
                    self.end_headers()
                    if method != "HEAD":
                        self.wfile.write(body)
                except OSError:
                    pass  # the client gave up (timeout test)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_HEAD(self) -> None:
                self._serve("HEAD")

        return Handler

    def __exit__(self, *exc: object) -> None:
        self.release.set()  # a slow or gated request still waiting answers now
        self.gate_open.set()
        super().__exit__(*exc)


def block_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every name but 127.0.0.1/localhost fails to resolve, as on the offline build machine."""
    real = socket.getaddrinfo

    def fake(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host in ("127.0.0.1", "localhost", b"127.0.0.1"):
            return real(host, *args, **kwargs)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fake)


def http_config(tmp_path, **overrides) -> HttpConfig:  # type: ignore[no-untyped-def]
    settings = {"concurrency": 4, "per_host_interval_s": 0.0, "timeout_s": 1.0, "cache_dir": str(tmp_path / "http")}
    return HttpConfig(**(settings | overrides))


class FakeClock:
    """A clock that only moves when something sleeps on it."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.t += seconds


# -- tests -------------------------------------------------------------------------------------

ROBOTS = "User-agent: *\nDisallow: /private/\n"


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    block_dns(monkeypatch)


@pytest.fixture
def server() -> Iterator[LocalServer]:
    routes = {
        "/robots.txt": Route(200, ROBOTS, "text/plain"),
        "/page": Route(200, "<html><title>Hi</title></html>"),
        "/private/page": Route(200, "secret"),
        "/r1": Route(301, "", headers={"Location": "/r2"}),
        "/r2": Route(302, "", headers={"Location": "{base}/page"}),
        "/loop": Route(302, "", headers={"Location": "/loop"}),
        "/slow": Route(200, "late", slow=True),
        "/missing": Route(404, "nope"),
    }
    routes |= {f"/gated/{i}": Route(200, f"page {i}", gate=True) for i in range(9)}
    with LocalServer(routes) as srv:
        yield srv


def test_fetch_sends_user_agent_and_records_status_headers_body(server, tmp_path):
    fetcher = HttpFetcher(http_config(tmp_path, user_agent="EcoAgentTest/1.0"))
    result = fetcher.fetch(server.url("/page"))
    assert (result.status, result.error, result.body) == (200, None, b"<html><title>Hi</title></html>")
    assert result.header("content-type") == "text/html; charset=utf-8"
    assert result.fetched_at and result.fetched_at.endswith("+00:00")
    assert server.user_agents == {"EcoAgentTest/1.0"}
    missing = fetcher.fetch(server.url("/missing"))
    assert (missing.status, missing.error) == (404, None)  # an HTTP answer is not a fetch error


def test_redirect_chain_is_followed_and_recorded(server, tmp_path):
    result = HttpFetcher(http_config(tmp_path)).fetch(server.url("/r1"))
    assert result.status == 200 and result.final_url == server.url("/page")
    assert result.redirects == [(301, server.url("/r2")), (302, server.url("/page"))]


def test_redirect_loop_is_bounded(server, tmp_path):
    result = HttpFetcher(http_config(tmp_path)).fetch(server.url("/loop"))
    assert result.error == TOO_MANY_REDIRECTS
    assert server.count("/loop") == 11  # MAX_REDIRECTS + 1 hops, then it stops


def test_second_fetch_is_served_from_disk_cache(server, tmp_path):
    first = HttpFetcher(http_config(tmp_path)).fetch(server.url("/r1"))
    before = server.total()
    second = HttpFetcher(http_config(tmp_path)).fetch(server.url("/r1"))  # a new run, same cache dir
    assert server.total() == before  # neither the page, the redirects nor robots.txt were asked again
    assert second.from_cache and not first.from_cache
    assert (second.status, second.body, second.redirects, second.fetched_at) == (
        first.status, first.body, first.redirects, first.fetched_at,
    )  # fmt: skip
    entry = tmp_path / "http" / DiskCache.key(server.url("/r1"))[:2] / f"{DiskCache.key(server.url('/r1'))}.json"
    assert entry.exists()


def test_cache_entries_expire_and_head_is_cached_apart_from_get(server, tmp_path):
    now = [1_000_000.0]
    fetcher = HttpFetcher(http_config(tmp_path), cache_max_age_s=60, now=lambda: now[0])
    fetcher.fetch(server.url("/page"), "HEAD")
    fetcher.fetch(server.url("/page"))
    assert (server.count("/page", "HEAD"), server.count("/page", "GET")) == (1, 1)
    fetcher.fetch(server.url("/page"))
    assert server.count("/page", "GET") == 1
    now[0] += 61
    fetcher.fetch(server.url("/page"))
    assert server.count("/page", "GET") == 2


def test_network_failures_are_not_cached(server, tmp_path):
    fetcher = HttpFetcher(http_config(tmp_path, timeout_s=0.3))
    assert fetcher.fetch(server.url("/slow")).error == TIMEOUT
    cached = {json.loads(p.read_text())["url"] for p in (tmp_path / "http").rglob("*.json")}
    assert cached == {server.url("/robots.txt")}


def test_robots_disallow_is_respected_and_robots_fetched_once(server, tmp_path):
    fetcher = HttpFetcher(http_config(tmp_path))
    blocked = fetcher.fetch(server.url("/private/page"))
    assert blocked.error == ROBOTS_DISALLOWED and blocked.status is None
    assert server.count("/private/page") == 0
    fetcher.fetch(server.url("/page"))
    fetcher.fetch(server.url("/missing"))
    assert server.count("/robots.txt") == 1


def test_robots_can_be_switched_off(server, tmp_path):
    result = HttpFetcher(http_config(tmp_path, respect_robots=False)).fetch(server.url("/private/page"))
    assert result.status == 200 and server.count("/robots.txt") == 0


def test_robots_rules_for_our_user_agent(tmp_path):
    robots = "User-agent: EcoAgentCrawler\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    with LocalServer({"/robots.txt": Route(200, robots, "text/plain"), "/a": Route(200, "a")}) as srv:
        result = HttpFetcher(http_config(tmp_path)).fetch(srv.url("/a"))
        assert result.error == ROBOTS_DISALLOWED and srv.count("/a") == 0


def test_missing_robots_allows_and_forbidden_robots_disallows(tmp_path):
    with LocalServer({"/a": Route(200, "a")}) as srv:  # robots.txt -> 404
        assert HttpFetcher(http_config(tmp_path / "1")).fetch(srv.url("/a")).status == 200
    with LocalServer({"/robots.txt": Route(403, "no"), "/a": Route(200, "a")}) as srv:
        assert HttpFetcher(http_config(tmp_path / "2")).fetch(srv.url("/a")).error == ROBOTS_DISALLOWED


def test_timeout_is_reported(server, tmp_path):
    result = HttpFetcher(http_config(tmp_path, timeout_s=0.3)).fetch(server.url("/slow"))
    assert result.error == TIMEOUT and result.status is None


def test_dns_failure_is_reported_not_raised(tmp_path):
    result = HttpFetcher(http_config(tmp_path)).fetch("https://docs.n8n.io/integrations/")
    assert result.error == DNS_ERROR and result.status is None


def test_bounded_concurrency_never_exceeds_the_limit(server, tmp_path):
    server.gate_target = 3  # each handler waits until 3 are in flight: proves 3 run at once
    fetcher = HttpFetcher(http_config(tmp_path, concurrency=3, respect_robots=False))
    results = fetcher.fetch_many([server.url(f"/gated/{i}") for i in range(9)])
    assert all(r.status == 200 for r in results.values()) and len(results) == 9
    assert server.max_in_flight == 3


def test_semaphore_bounds_callers_own_threads(server, tmp_path):
    server.gate_target = 2
    fetcher = HttpFetcher(http_config(tmp_path, concurrency=2, respect_robots=False))
    threads = [threading.Thread(target=fetcher.fetch, args=(server.url(f"/gated/{i}"),)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert server.max_in_flight == 2 and server.total() == 6


def test_rate_limiter_spaces_requests_per_host():
    clock = FakeClock()
    limiter = HostRateLimiter(1.5, clock=clock, sleep=clock.sleep)
    for _ in range(3):
        limiter.wait("docs.n8n.io")
    assert clock.sleeps == [1.5, 1.5]
    limiter.wait("python.langchain.com")  # another host does not wait
    assert clock.sleeps == [1.5, 1.5]
    clock.t += 10
    limiter.wait("docs.n8n.io")  # the interval has long passed
    assert clock.sleeps == [1.5, 1.5]


def test_rate_limiter_reserves_slots_for_parallel_callers():
    clock = FakeClock()
    limiter = HostRateLimiter(2.0, clock=clock, sleep=clock.sleep)
    # three workers arriving at the same instant get slots 0, 2 and 4 seconds out
    assert [limiter.reserve("h") for _ in range(3)] == [0.0, 2.0, 4.0]


def test_fetcher_applies_per_host_interval(server, tmp_path):
    clock = FakeClock()
    fetcher = HttpFetcher(http_config(tmp_path, concurrency=1, per_host_interval_s=1.0), clock=clock, sleep=clock.sleep)
    for path in ("/page", "/missing", "/r1"):  # /r1 redirects twice: each hop is a request
        fetcher.fetch(server.url(path))
    # robots.txt, /page, /missing, /r1, /r2, /page: six requests, five waits
    assert clock.sleeps == [1.0] * 5
    assert fetcher.requests_sent == 6


def test_classify_exception_walks_the_cause_chain():
    inner = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    outer = RuntimeError("wrapped")
    outer.__cause__ = inner
    assert classify_exception(outer) == DNS_ERROR
    assert classify_exception(ValueError("x")) == "request_error"
