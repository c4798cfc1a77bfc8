"""The link check against a local server: status vocabulary, endpoint reachability, HEAD->GET
fallback, robots.txt, and the offline rule (never a broken status without the network)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

import scoring.link_check as link_check
from schemas.tool_record import Link
from scoring.http_fetch import FetchResult
from scoring.link_check import check_links, judge, network_available
from tests.scoring.test_http_fetch import LocalServer, Route, block_dns, http_config


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    block_dns(monkeypatch)  # the default probe (www.example.com) can never answer in these tests


@pytest.fixture
def server() -> Iterator[LocalServer]:
    routes = {
        "/probe": Route(200, "up"),
        "/robots.txt": Route(200, "User-agent: *\nDisallow: /private/\n", "text/plain"),
        "/docs/ok": Route(200, "<p>hi</p>"),
        "/docs/missing": Route(404, "not found"),
        "/docs/broken": Route(500, "oops"),
        "/docs/old": Route(301, "", headers={"Location": "/docs/a"}),
        "/docs/a": Route(302, "", headers={"Location": "{base}/docs/new"}),
        "/docs/new": Route(200, "<p>new</p>"),
        "/docs/slash": Route(301, "", headers={"Location": "/docs/slash/"}),
        "/docs/slash/": Route(200, "<p>slash</p>"),
        "/docs/gone": Route(301, "", headers={"Location": "/docs/missing"}),
        "/docs/nohead": Route(200, "<p>get only</p>", head_status=405),
        "/docs/slow": Route(200, "late", slow=True),
        "/private/page": Route(200, "secret"),
        "/api": Route(401, '{"error": "unauthorized"}', "application/json"),
        "/api/v2": Route(404, "{}", "application/json"),
        "/api/v3": Route(405, "{}", "application/json", head_status=405),
        "/api/down": Route(503, "down"),
        "/api/moved": Route(308, "", headers={"Location": "/docs/ok"}),
    }
    with LocalServer(routes) as srv:
        yield srv


def _doc(url: str) -> Link:
    return Link(url=url, kind="doc")


def _endpoint(url: str) -> Link:
    return Link(url=url, kind="endpoint")


def _check(server: LocalServer, tmp_path, links: list[Link], **http) -> dict[str, Link]:  # type: ignore[no-untyped-def]
    return check_links(links, http_config(tmp_path, **http), probe_url=server.url("/probe"))


def _status(result: dict[str, Link], url: str) -> tuple[str, str]:
    return result[url].link_status, result[url].reason


def test_doc_links_are_judged_by_http_status(server, tmp_path):
    urls = {name: server.url(f"/docs/{name}") for name in ("ok", "missing", "broken", "old", "slash", "gone")}
    result = _check(server, tmp_path, [_doc(u) for u in urls.values()])
    assert _status(result, urls["ok"]) == ("ok", "http_200")
    assert _status(result, urls["missing"]) == ("client_error", "http_404")
    assert _status(result, urls["broken"]) == ("server_error", "http_500")
    assert _status(result, urls["old"]) == ("redirect", f"redirect_to:{server.url('/docs/new')}")
    assert _status(result, urls["slash"]) == ("ok", "http_200_after_redirect")  # only a trailing slash added
    assert _status(result, urls["gone"]) == ("client_error", "http_404_after_redirect")
    assert all(link.kind == "doc" for link in result.values())


def test_endpoints_count_as_alive_when_the_host_answers(server, tmp_path):
    urls = [server.url(p) for p in ("/api", "/api/v2", "/api/v3", "/api/down", "/api/moved")]
    result = _check(server, tmp_path, [_endpoint(u) for u in urls])
    assert [_status(result, u) for u in urls] == [
        ("ok", "reachable_401"),
        ("ok", "reachable_404"),
        ("ok", "reachable_405"),
        ("server_error", "http_503"),
        ("ok", "http_200_after_redirect"),
    ]


def test_head_first_then_get_when_head_is_refused(server, tmp_path):
    ok, nohead = server.url("/docs/ok"), server.url("/docs/nohead")
    result = _check(server, tmp_path, [_doc(ok), _doc(nohead)])
    assert _status(result, nohead) == ("ok", "http_200")
    assert (server.count("/docs/nohead", "HEAD"), server.count("/docs/nohead", "GET")) == (1, 1)
    assert (server.count("/docs/ok", "HEAD"), server.count("/docs/ok", "GET")) == (1, 0)


def test_placeholders_and_package_files_are_not_fetched(server, tmp_path):
    links = [
        Link(url="https://{{$credentials.domain}}/api", kind="placeholder", reason="templated"),
        Link(url="http://localhost:5678/webhook", kind="placeholder", reason="placeholder_host"),
        Link(url="README.md", kind="doc", reason="package_file"),
    ]
    result = _check(server, tmp_path, links)
    assert {url: _status(result, url) for url in result} == {
        links[0].url: ("unknown", "templated"),
        links[1].url: ("unknown", "placeholder_host"),
        "README.md": ("unknown", "package_file"),
    }
    assert server.total() == 0  # not even the probe: nothing was checkable


def test_robots_disallowed_links_stay_unknown(server, tmp_path):
    url = server.url("/private/page")
    assert _status(_check(server, tmp_path, [_doc(url)]), url) == ("unknown", "robots_disallowed")
    assert server.count("/private/page") == 0


def test_timeout_and_dns_failure_online(server, tmp_path):
    slow, nowhere = server.url("/docs/slow"), "https://no-such-host.example-docs.dev/page"
    result = _check(server, tmp_path, [_doc(slow), _doc(nowhere)], timeout_s=0.3)
    assert _status(result, slow) == ("timeout", "timeout")
    # the probe answered, so this one host failing to resolve is evidence about the link
    assert _status(result, nowhere) == ("dns_error", "dns_error")


def test_offline_every_link_is_unknown_and_nothing_is_fetched(server, tmp_path):
    links = [_doc(server.url("/docs/missing")), _endpoint(server.url("/api")), _doc("https://docs.n8n.io/x/")]
    result = check_links(links, http_config(tmp_path))  # the default probe cannot resolve here
    assert {(link.link_status, link.reason) for link in result.values()} == {("unknown", "offline")}
    assert server.total() == 0


def test_network_lost_mid_run_gives_dns_unavailable(server, tmp_path, monkeypatch):
    answers = iter([True, False])  # up for the first probe, down for the re-probe after failures
    monkeypatch.setattr(link_check, "network_available", lambda *a, **k: next(answers))
    ok, lost = server.url("/docs/ok"), "https://docs.n8n.io/integrations/"
    result = check_links([_doc(ok), _doc(lost)], http_config(tmp_path))
    assert _status(result, lost) == ("unknown", "dns_unavailable")
    assert _status(result, ok) == ("ok", "http_200")


def test_duplicates_are_checked_once_and_input_is_not_mutated(server, tmp_path):
    link = _doc(server.url("/docs/ok"))
    result = _check(server, tmp_path, [link, link.model_copy()])
    assert len(result) == 1 and server.count("/docs/ok") == 1
    assert (link.link_status, link.reason) == ("unknown", "not_checked")


def test_second_check_is_served_from_cache(server, tmp_path):
    links = [_doc(server.url("/docs/ok")), _doc(server.url("/docs/nohead")), _endpoint(server.url("/api"))]
    first = _check(server, tmp_path, links)
    before = server.total()
    assert _check(server, tmp_path, links) == first
    assert server.total() == before


def test_network_available(server):
    assert network_available(server.url("/probe"))
    assert network_available(server.url("/does-not-exist"))  # any answer means the network works
    assert not network_available("https://www.example.com/")  # DNS blocked
    with socket.socket() as sock:  # a port nobody listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert not network_available(f"http://127.0.0.1:{port}/", timeout_s=1.0)


def test_judge_is_pure():
    link = _doc("https://docs.example-site.dev/a")
    redirected = FetchResult(
        url=link.url, method="HEAD", final_url="http://www.docs.example-site.dev/a/", status=200,
        redirects=[(301, "http://www.docs.example-site.dev/a/")],
    )  # fmt: skip
    assert judge(link, redirected).link_status == "ok"  # scheme, www. and slash are not a move
    failed = FetchResult(url=link.url, method="HEAD", final_url=link.url, error="tls_error")
    assert (judge(link, failed).link_status, judge(link, failed).reason) == ("server_error", "tls_error")
