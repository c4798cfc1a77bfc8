"""The opt-in online link check: fill ``link_status`` / ``reason`` of the crawl's links.

Off by default and never run in CI (the config's ``score.check_links``). Two rules keep the result
honest on a machine without the network:

* before any request the network is probed; when it is down every checkable link stays
  ``unknown`` with reason ``offline`` and nothing is fetched;
* if the network drops during the run (a re-probe after the batch fails), every network-level
  failure of that run becomes ``unknown`` / ``dns_unavailable``: a DNS failure here is an
  environment fact, not evidence of a broken link.

Docs are judged by HTTP status. Endpoints are API base URLs that usually answer 401/403/404/405
without credentials, so for them any HTTP answer below 500 (host reachable, TLS fine) is ``ok``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar
from urllib.parse import urlsplit

import requests

from schemas.tool_record import Link
from scoring.http_fetch import (
    CONNECTION_ERROR,
    DNS_ERROR,
    NETWORK_ERRORS,
    ROBOTS_DISALLOWED,
    ROBOTS_UNAVAILABLE,
    TIMEOUT,
    TLS_ERROR,
    TOO_MANY_REDIRECTS,
    FetchResult,
    HttpFetcher,
)
from scoring.settings import HttpConfig

# Not a package registry (those resolve even on the offline build machine) and served by a CDN
# that answers HEAD: a reply of any status proves outbound HTTP works.
DEFAULT_PROBE_URL = "https://www.example.com/"
HEAD_REFUSED = frozenset({405, 501})
T = TypeVar("T")


def network_available(probe_url: str | None = None, timeout_s: float = 2.0) -> bool:
    """Whether an HTTP request to ``probe_url`` gets any answer at all (status is irrelevant)."""
    try:
        response = requests.head(probe_url or DEFAULT_PROBE_URL, timeout=timeout_s, allow_redirects=False)
    except Exception:  # DNS, refused, timeout, TLS: all mean "cannot tell anything from here"
        return False
    response.close()
    return True


def fetch_while_online(
    urls: Iterable[str],
    http: HttpConfig,
    fetch: Callable[[HttpFetcher], dict[str, FetchResult]],
    judge: Callable[[str, FetchResult], T],
    unreachable: Callable[[str, str], T],
    *,
    probe_url: str | None = None,
    fetcher: HttpFetcher | None = None,
) -> dict[str, T]:
    """``{url: judge(url, result)}`` over what ``fetch`` fetched, when the network answers.

    Offline (the probe gets no answer) nothing is fetched and every URL is ``unreachable(url, "offline")``; a URL
    whose fetch failed on a network error while the probe stopped answering is ``unreachable(url,
    "dns_unavailable")``: the network went away mid-run, which says nothing about the page.
    """
    probe_timeout = min(http.timeout_s, 5.0)
    if not network_available(probe_url, timeout_s=probe_timeout):
        return {url: unreachable(url, "offline") for url in urls}
    results = fetch(fetcher or HttpFetcher(http))
    judged = {url: judge(url, result) for url, result in results.items()}
    failed = [url for url, result in results.items() if result.error in NETWORK_ERRORS]
    if failed and not network_available(probe_url, timeout_s=probe_timeout):
        for url in failed:
            judged[url] = unreachable(url, "dns_unavailable")
    return judged


def _same_target(a: str, b: str) -> bool:
    """Whether a redirect only normalized the URL (scheme, www., trailing slash, query)."""
    pa, pb = urlsplit(a), urlsplit(b)
    host_a = (pa.hostname or "").lower().removeprefix("www.")
    host_b = (pb.hostname or "").lower().removeprefix("www.")
    return host_a == host_b and (pa.path.rstrip("/") or "/") == (pb.path.rstrip("/") or "/")


def _checked(link: Link, status: str, reason: str) -> Link:
    return link.model_copy(update={"link_status": status, "reason": reason})


def _fetch_with_fallback(fetcher: HttpFetcher, url: str) -> FetchResult:
    head = fetcher.fetch(url, "HEAD")
    if head.error is None and head.status in HEAD_REFUSED:
        return fetcher.fetch(url, "GET")  # the server refuses HEAD, not the page
    return head


def _network_failure(link: Link, error: str) -> Link:
    if error == DNS_ERROR:
        return _checked(link, "dns_error", "dns_error")
    if error == TIMEOUT:
        return _checked(link, "timeout", "timeout")
    if error == TLS_ERROR:
        return _checked(link, "server_error", "tls_error")
    return _checked(link, "server_error", CONNECTION_ERROR)


def judge(link: Link, result: FetchResult) -> Link:
    """The link's status from one fetch result (pure; the rules of the module docstring)."""
    if result.error is not None:
        if result.error in NETWORK_ERRORS:
            return _network_failure(link, result.error)
        if result.error in (ROBOTS_DISALLOWED, ROBOTS_UNAVAILABLE):
            return _checked(link, "unknown", result.error)
        if result.error == TOO_MANY_REDIRECTS:
            return _checked(link, "redirect", TOO_MANY_REDIRECTS)
        return _checked(link, "unknown", result.error)
    status = result.status or 0
    moved = bool(result.redirects) and not _same_target(link.url, result.final_url)
    suffix = "_after_redirect" if result.redirects else ""
    if link.kind == "endpoint":
        if status >= 500:
            return _checked(link, "server_error", f"http_{status}{suffix}")
        if 200 <= status < 400:
            return _checked(link, "ok", f"http_{status}{suffix}")
        return _checked(link, "ok", f"reachable_{status}")
    if status >= 500:
        return _checked(link, "server_error", f"http_{status}{suffix}")
    if status >= 400:
        return _checked(link, "client_error", f"http_{status}{suffix}")
    if 300 <= status < 400:  # a redirect without a Location header: nowhere to follow
        return _checked(link, "redirect", f"http_{status}_no_location")
    if moved:
        return _checked(link, "redirect", f"redirect_to:{result.final_url}"[:300])
    return _checked(link, "ok", f"http_{status}{suffix}")


def _checkable(link: Link) -> bool:
    return link.kind != "placeholder" and urlsplit(link.url).scheme in ("http", "https")


def check_links(
    links: list[Link], http: HttpConfig, *, probe_url: str | None = None, fetcher: HttpFetcher | None = None
) -> dict[str, Link]:
    """url -> Link with link_status/reason filled. Placeholders are not fetched (stay unknown, reason kept).

    Docs: HTTP status decides (2xx ok, 3xx followed -> redirect when the final URL differs on
    another path/host, 4xx client_error, 5xx server_error). Endpoints: any answer below 500 is ok
    (reason e.g. ``reachable_401``). HEAD first, GET fallback when HEAD is refused (405/501).
    ``probe_url`` overrides the connectivity probe; ``fetcher`` shares one fetcher (and its cache,
    rate limits and robots cache) with other steps.
    """
    out: dict[str, Link] = {}
    to_check: dict[str, Link] = {}
    for link in links:
        if link.url in out or link.url in to_check:
            continue
        if _checkable(link):
            to_check[link.url] = link
        else:
            out[link.url] = link.model_copy()  # placeholders and package files keep their reason
    if not to_check:
        return out
    judged = fetch_while_online(
        to_check, http, lambda fetcher: fetcher.map_urls(to_check, lambda url: _fetch_with_fallback(fetcher, url)),
        lambda url, result: judge(to_check[url], result),
        lambda url, reason: _checked(to_check[url], "unknown", reason),
        probe_url=probe_url, fetcher=fetcher,
    )  # fmt: skip
    out.update(judged)
    return out
