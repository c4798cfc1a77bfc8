"""One polite HTTP fetcher shared by the opt-in online steps (link check, doc enrichment).

Politeness is enforced here, once, so no caller can forget it:

* bounded concurrency: a semaphore caps requests in flight, whatever threads the callers use;
* a per-host minimum interval between requests (slots are reserved under a lock, so parallel
  workers queue up instead of bursting), with an injectable clock and sleep for tests;
* robots.txt (urllib.robotparser), fetched once per host and cached, checked on every redirect hop;
* timeouts, a response-size cap and a total read deadline (an endpoint may stream forever);
* redirects followed by hand, so each hop is rate limited, robots-checked and recorded;
* a disk cache keyed by sha256(url) holding status, headers, body, redirect chain and fetch time.

Network failures are reported as an ``error`` string, never raised, and never cached: on a machine
without DNS they describe the environment, not the URL.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import ssl
import tempfile
import threading
import time
import urllib.robotparser
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar
from urllib.parse import urljoin, urlsplit

import requests
import urllib3.exceptions

from scoring.settings import HttpConfig

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 10
MAX_BODY_BYTES = 2 * 1024 * 1024  # a docs page is far smaller; anything bigger is not worth summarizing
DEFAULT_CACHE_MAX_AGE_S = 7 * 24 * 3600.0
ROBOTS_CACHE_MAX_AGE_S = 24 * 3600.0  # RFC 9309 suggests not reusing robots.txt for more than a day

# Fetch errors (FetchResult.error). None means an HTTP response arrived, whatever its status.
DNS_ERROR = "dns_error"
TIMEOUT = "timeout"
CONNECTION_ERROR = "connection_error"
TLS_ERROR = "tls_error"
TOO_MANY_REDIRECTS = "too_many_redirects"
ROBOTS_DISALLOWED = "robots_disallowed"
ROBOTS_UNAVAILABLE = "robots_unavailable"
INVALID_URL = "invalid_url"
REQUEST_ERROR = "request_error"
NETWORK_ERRORS = frozenset({DNS_ERROR, TIMEOUT, CONNECTION_ERROR, TLS_ERROR})

T = TypeVar("T")


@dataclass
class FetchResult:
    """What one fetch of one URL produced, after following redirects."""

    url: str
    method: str
    final_url: str
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    body_truncated: bool = False
    redirects: list[tuple[int, str]] = field(default_factory=list)  # (status, location) per hop
    fetched_at: str | None = None  # ISO 8601, UTC
    fetched_ts: float | None = None  # epoch seconds, for cache age
    error: str | None = None
    detail: str | None = None  # the exception text behind an error
    from_cache: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and self.status is not None

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == lowered), None)


def host_key(url: str) -> str:
    """The politeness unit: the host name, whatever the port or scheme."""
    return (urlsplit(url).hostname or "").lower()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def classify_exception(exc: BaseException) -> str:
    """Map a requests/urllib3 exception to a fetch error, looking through the whole cause chain."""
    if isinstance(exc, requests.exceptions.Timeout):
        return TIMEOUT
    if isinstance(exc, requests.exceptions.InvalidURL | requests.exceptions.MissingSchema
                  | requests.exceptions.InvalidSchema | UnicodeError):  # fmt: skip
        return INVALID_URL
    seen: set[int] = set()
    node: BaseException | None = exc
    while node is not None and id(node) not in seen:  # chains can loop; bound the walk
        seen.add(id(node))
        if isinstance(node, urllib3.exceptions.NameResolutionError | socket.gaierror):
            return DNS_ERROR
        if isinstance(node, ssl.SSLError | requests.exceptions.SSLError | urllib3.exceptions.SSLError):
            return TLS_ERROR
        if isinstance(node, TimeoutError | socket.timeout | urllib3.exceptions.TimeoutError):
            return TIMEOUT
        nxt = getattr(node, "reason", None)  # MaxRetryError keeps the real cause in .reason
        if not isinstance(nxt, BaseException):
            nxt = node.__cause__ or node.__context__
        if nxt is None and node.args and isinstance(node.args[0], BaseException):
            nxt = node.args[0]
        node = nxt
    if isinstance(exc, requests.exceptions.ConnectionError):
        return CONNECTION_ERROR
    return REQUEST_ERROR


class HostRateLimiter:
    """At most one request per host per ``interval_s``.

    ``wait(host)`` reserves the host's next free slot under a lock and sleeps outside it, so
    concurrent workers hitting one host are spaced out rather than all passing at once.
    """

    def __init__(
        self,
        interval_s: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval_s = max(0.0, interval_s)
        self._clock = clock
        self._sleep = sleep
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def reserve(self, host: str) -> float:
        """Reserve the next slot for ``host``; returns how long to wait for it."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next.get(host, now))
            self._next[host] = slot + self.interval_s
            return slot - now

    def wait(self, host: str) -> float:
        delay = self.reserve(host)
        if delay > 0:
            self._sleep(delay)
        return delay


class DiskCache:
    """``<dir>/<sha256(key)[:2]>/<sha256(key)>.json`` (+ ``.body``), written atomically."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @staticmethod
    def key(url: str, method: str = "GET") -> str:
        # GET is keyed by the URL alone; a HEAD answer has no body and must not satisfy a GET
        return hashlib.sha256((url if method == "GET" else f"{method} {url}").encode()).hexdigest()

    def _paths(self, url: str, method: str) -> tuple[Path, Path]:
        digest = self.key(url, method)
        folder = self.root / digest[:2]
        return folder / f"{digest}.json", folder / f"{digest}.body"

    def get(self, url: str, method: str, max_age_s: float | None, now: float) -> FetchResult | None:
        meta_path, body_path = self._paths(url, method)
        try:
            meta = json.loads(meta_path.read_text())
            body = body_path.read_bytes() if meta.get("has_body") else b""
        except (OSError, ValueError):
            return None  # a missing or half-written entry is just a miss
        if meta.get("url") != url or meta.get("method") != method:
            return None
        if max_age_s is not None and now - float(meta.get("fetched_ts") or 0) > max_age_s:
            return None
        meta.pop("has_body", None)
        meta["redirects"] = [tuple(hop) for hop in meta.get("redirects", [])]
        return FetchResult(**meta, body=body, from_cache=True)

    def put(self, result: FetchResult) -> None:
        meta_path, body_path = self._paths(result.url, result.method)
        meta_path.parent.mkdir(parents=True, exist_ok=True)
        meta = asdict(result)
        meta.pop("body")
        meta.pop("from_cache")
        meta["has_body"] = bool(result.body)
        if result.body:
            _atomic_write(body_path, result.body)
        _atomic_write(meta_path, json.dumps(meta, sort_keys=True, indent=1).encode())


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class HttpFetcher:
    """The shared polite fetcher. Thread-safe; one instance per run."""

    def __init__(
        self,
        http: HttpConfig,
        *,
        cache_dir: Path | str | None = None,
        cache_max_age_s: float | None = DEFAULT_CACHE_MAX_AGE_S,
        max_body_bytes: int = MAX_BODY_BYTES,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.http = http
        root = Path(cache_dir if cache_dir is not None else http.cache_dir).expanduser()
        self.cache = DiskCache(root)
        self.cache_max_age_s = cache_max_age_s
        self.max_body_bytes = max_body_bytes
        self.limiter = HostRateLimiter(http.per_host_interval_s, clock=clock, sleep=sleep)
        self._now = now
        self._in_flight = threading.BoundedSemaphore(max(1, http.concurrency))
        self._local = threading.local()  # one requests.Session per thread: Session is not documented thread-safe
        self._robots: dict[str, tuple[urllib.robotparser.RobotFileParser | None, str | None]] = {}
        self._robots_locks: dict[str, threading.Lock] = {}
        self._robots_guard = threading.Lock()
        self.requests_sent = 0  # network requests actually made (robots.txt included)
        self._count_lock = threading.Lock()

    # -- public -----------------------------------------------------------------------------

    def fetch(self, url: str, method: str = "GET", *, use_cache: bool = True) -> FetchResult:
        """Fetch ``url`` (following redirects), from the disk cache when fresh. Never raises for network trouble."""
        method = method.upper()
        if use_cache:
            cached = self.cache.get(url, method, self.cache_max_age_s, self._now())
            if cached is not None:
                return cached
        result = self._fetch_following(url, method, check_robots=self.http.respect_robots)
        if use_cache and result.status is not None and result.error is None:
            self.cache.put(result)
        return result

    def fetch_many(self, urls: Iterable[str], method: str = "GET") -> dict[str, FetchResult]:
        """``fetch`` over distinct URLs, at most ``concurrency`` at a time."""
        return self.map_urls(urls, lambda url: self.fetch(url, method))

    def map_urls(self, urls: Iterable[str], work: Callable[[str], T]) -> dict[str, T]:
        """Run ``work`` (which fetches through this fetcher) over distinct URLs in a bounded thread pool."""
        distinct = list(dict.fromkeys(urls))
        if not distinct:
            return {}
        with ThreadPoolExecutor(max_workers=max(1, min(self.http.concurrency, len(distinct)))) as pool:
            return dict(zip(distinct, pool.map(work, distinct), strict=True))

    def robots_allowed(self, url: str) -> tuple[bool, str | None]:
        """Whether robots.txt lets our user agent fetch ``url``; the second item says why not."""
        origin = _origin(url)
        with self._robots_guard:
            lock = self._robots_locks.setdefault(origin, threading.Lock())
        with lock:  # one robots.txt fetch per host, even with many workers on it
            if origin not in self._robots:
                self._robots[origin] = self._load_robots(origin)
        parser, error = self._robots[origin]
        if parser is None:
            return False, error
        if parser.can_fetch(self.http.user_agent, url):
            return True, None
        return False, ROBOTS_DISALLOWED

    # -- internals --------------------------------------------------------------------------

    def _load_robots(self, origin: str) -> tuple[urllib.robotparser.RobotFileParser | None, str | None]:
        robots_url = f"{origin}/robots.txt"
        result = self.cache.get(robots_url, "GET", ROBOTS_CACHE_MAX_AGE_S, self._now())
        if result is None:
            result = self._fetch_following(robots_url, "GET", check_robots=False)
            if result.status is not None and result.error is None:
                self.cache.put(result)
        parser = urllib.robotparser.RobotFileParser(robots_url)
        if result.error is not None:
            if result.error in NETWORK_ERRORS:
                # the page fetch would fail the same way: report that, not a robots verdict
                return None, result.error
            return None, ROBOTS_UNAVAILABLE
        status = result.status or 0
        if status in (401, 403):
            parser.disallow_all = True  # same rule as RobotFileParser.read()
        elif 400 <= status < 500:
            parser.allow_all = True  # no robots.txt: everything is allowed
        elif status >= 500 or status in REDIRECT_STATUSES:
            return None, ROBOTS_UNAVAILABLE  # RFC 9309: an unreachable robots.txt means "assume disallowed"
        else:
            parser.parse(result.body.decode("utf-8", errors="replace").splitlines())
        return parser, None

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.headers["User-Agent"] = self.http.user_agent
            session.max_redirects = MAX_REDIRECTS
            self._local.session = session
        return session

    def _fetch_following(self, url: str, method: str, *, check_robots: bool) -> FetchResult:
        result = FetchResult(url=url, method=method, final_url=url)
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            parts = urlsplit(current)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                result.error = INVALID_URL
                return result
            if check_robots:
                allowed, why = self.robots_allowed(current)
                if not allowed:
                    result.error, result.final_url = why, current
                    return result
            self._request_once(current, method, result)
            if result.error is not None:
                return result
            location = result.header("Location")
            if result.status in REDIRECT_STATUSES and location:
                nxt = urljoin(current, location.strip())
                result.redirects.append((result.status, nxt))
                current = nxt
                result.final_url = nxt
                continue
            return result
        result.error = TOO_MANY_REDIRECTS
        return result

    def _request_once(self, url: str, method: str, result: FetchResult) -> None:
        """One request, no redirects followed; fills ``result`` in place."""
        self.limiter.wait(host_key(url))
        timeout = self.http.timeout_s
        with self._in_flight:
            with self._count_lock:
                self.requests_sent += 1
            started = time.monotonic()
            try:
                response = self._session().request(
                    method, url, timeout=(timeout, timeout), allow_redirects=False, stream=True
                )
            except Exception as exc:  # every failure becomes an error string
                result.error, result.detail = classify_exception(exc), f"{type(exc).__name__}: {exc}"[:500]
                result.status = None
                return
            try:
                body, truncated = b"", False
                if method != "HEAD" and response.status_code not in REDIRECT_STATUSES:
                    body, truncated = self._read_body(response, started, timeout)
            except Exception as exc:  # a body cut off mid-read is still an answer
                body, truncated = b"", True
                result.detail = f"body: {type(exc).__name__}: {exc}"[:500]
            finally:
                response.close()
        stamp = self._now()
        result.status = response.status_code
        result.headers = dict(response.headers)
        result.body, result.body_truncated = body, truncated
        result.fetched_ts = stamp
        result.fetched_at = datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")

    def _read_body(self, response: requests.Response, started: float, timeout: float) -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        # requests' timeout is per socket read; a trickling server needs a total deadline too
        deadline = started + max(timeout * 3, timeout + 5)
        for chunk in response.iter_content(chunk_size=65536):
            chunks.append(chunk)
            size += len(chunk)
            if size >= self.max_body_bytes or time.monotonic() > deadline:
                return b"".join(chunks)[: self.max_body_bytes], True
        return b"".join(chunks), False
