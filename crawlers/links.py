"""Find and classify the URLs in a tool's metadata.

The crawl never checks a link: every link leaves it with ``link_status = unknown`` (reason
``not_checked``, or why it cannot be checked at all). Checking is an opt-in online step of the
scoring stage; an unreachable network is never evidence of a broken link.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from crawlers.vocabulary import NAMESPACE_URI_HOSTS, PLACEHOLDER_HOST
from schemas.tool_record import Link

_TEMPLATE = re.compile(r"\{|\}|\$\{|<[^>]*>|\[[^\]]*\]|%s|\{\{")


def placeholder_reason(url: str) -> str | None:
    """Why a URL cannot be checked as it stands, or None when it is a concrete URL."""
    if _TEMPLATE.search(url) or url.startswith("="):
        return "templated"
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        return "unparseable"
    if parts.scheme not in ("http", "https"):
        return "not_http"
    if PLACEHOLDER_HOST.match(host):
        return "placeholder_host"
    if "." not in host:
        return "no_host"
    if host in NAMESPACE_URI_HOSTS:
        return "namespace_uri"
    return None


def classify_links(doc_urls: list[str], endpoints: list[str]) -> list[Link]:
    """One Link per distinct URL; a URL listed as both doc and endpoint counts as a doc."""
    links: dict[str, Link] = {}
    for kind, urls in (("doc", doc_urls), ("endpoint", endpoints)):
        for url in urls:
            if url in links:
                continue
            if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", url):
                # a file shipped in the package (e.g. a README beside the tool): nothing to check online
                links[url] = Link(url=url, kind=kind, link_status="unknown", reason="package_file")
                continue
            reason = placeholder_reason(url)
            if reason:
                links[url] = Link(url=url, kind="placeholder", link_status="unknown", reason=reason)
            else:
                links[url] = Link(url=url, kind=kind, link_status="unknown", reason="not_checked")
    return [links[u] for u in sorted(links)]
