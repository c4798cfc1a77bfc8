"""Opt-in documentation enrichment: a title and first descriptive paragraph per doc page.

Pages come through the shared polite fetcher (cache, robots.txt, rate limits). The parser targets
the shapes of the real docs sites: mkdocs-material (n8n: nav + h1 + intro + admonitions),
Docusaurus/Mintlify-like pages (LangChain, CrewAI: sidebar, article, cookie banners). It keeps the
page's own words (no generation), so a summary is as reliable as the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message
from urllib.parse import urlsplit

from bs4 import BeautifulSoup, Tag

from ecoagent.text.redaction import redact
from scoring.http_fetch import FetchResult, HttpFetcher
from scoring.link_check import fetch_while_online
from scoring.settings import HttpConfig

MIN_PARAGRAPH_CHARS = 40
MIN_PARAGRAPH_WORDS = 6
MAX_SUMMARY_CHARS = 1000  # one paragraph; doc_summary_text trims further
SUMMARY_TEXT_CHARS = 500

# Whole regions that are never the page's description.
_NOISE_TAGS = ("script", "style", "noscript", "nav", "footer", "aside", "form", "button", "svg", "template",
               "iframe", "dialog", "select")  # fmt: skip
_NOISE_ROLES = {"navigation", "banner", "contentinfo", "complementary", "dialog", "alertdialog", "search", "alert"}
# Matched against id, class, role and aria-label as whole words (so "stock" is not "toc").
_NOISE_ATTR = re.compile(
    r"(?<![a-z])(cookies?|consent|gdpr|cc-banner|banner|breadcrumbs?|sidebar|side-bar|navbar|nav|navigation|menu|toc"
    r"|table-of-contents|edit-this-page|edit-page|md-source-file|feedback|admonition|callout|alert|announcement"
    r"|skip-link|pagination|pager|theme-doc-footer|theme-admonition|copy-button)(?![a-z])",
    re.IGNORECASE,
)
# A paragraph with one of these phrases is page furniture, not a description.
_BOILERPLATE = re.compile(
    r"edit this page|was this (page|article) helpful|we use cookies|(accept|reject) (all )?cookies|cookie (policy|"
    r"settings|preferences)|last updated|all rights reserved|skip to (main )?content|on this page|copyright ©",
    re.IGNORECASE,
)
_SKIP_ANCESTORS = ("li", "td", "th", "figure", "pre", "code", "blockquote", "table", "details")
_TITLE_SEPARATORS = re.compile(r"\s+[|\u2013\u2014-]\s+")
_CONTENT_SELECTORS = ("main article", "article", "main", "[role=main]", "#content", ".content", "#main-content")


@dataclass
class DocPage:
    url: str
    status: int | None
    title: str | None
    summary: str | None
    reason: str  # ok, meta_description, no_summary, not_html, http_<code>, offline, robots_disallowed, ...


def _clean(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    # get_text(" ") puts a space before the punctuation that followed an inline link
    text = re.sub(r"\s+([.,;:!?)\]])", r"\1", text)
    return re.sub(r"([(\[])\s+", r"\1", text)


def _is_noise(tag: Tag) -> bool:
    if tag.name in _NOISE_TAGS:
        return True
    if str(tag.get("role") or "").lower() in _NOISE_ROLES:
        return True
    if tag.get("aria-hidden") == "true" or tag.has_attr("hidden"):
        return True
    labels = " ".join([str(tag.get("id") or ""), *map(str, tag.get("class") or []), str(tag.get("aria-label") or "")])
    if not _NOISE_ATTR.search(labels):
        return False
    # "layout--with-sidebar" wrappers hold the page itself: a widget never holds the h1 or the article
    return tag.find(["h1", "article", "main"]) is None


def _strip_noise(root: Tag, keep_header: bool) -> None:
    for tag in list(root.find_all(True)):
        if tag.decomposed:
            continue
        if (tag.name == "header" and not keep_header) or _is_noise(tag):
            tag.decompose()


def _content_root(soup: BeautifulSoup) -> tuple[Tag, bool]:
    """The main content element, and whether it is a real content element (not just <body>)."""
    for selector in _CONTENT_SELECTORS:
        found = soup.select_one(selector)
        if found is not None and found.find_parent(["nav", "aside", "footer"]) is None:
            return found, True
    return soup.body or soup, False


def _first_paragraph(root: Tag) -> str | None:
    for p in root.find_all("p"):
        if any(p.find_parent(name) is not None for name in _SKIP_ANCESTORS):
            continue
        text = _clean(p.get_text(" "))
        if len(text) < MIN_PARAGRAPH_CHARS or len(text.split()) < MIN_PARAGRAPH_WORDS:
            continue  # labels, captions, "Beta", "Credentials"
        if _BOILERPLATE.search(text):
            continue
        return text[:MAX_SUMMARY_CHARS]
    return None


def _meta(soup: BeautifulSoup, *names: str) -> str | None:
    for name in names:
        tag = soup.find("meta", attrs={"name": name}) or soup.find("meta", attrs={"property": name})
        if tag is not None and (content := _clean(str(tag.get("content") or ""))):
            return content
    return None


def _title(soup: BeautifulSoup, root: Tag) -> str | None:
    for scope in (root, soup):
        for h1 in scope.find_all("h1"):
            if h1.find_parent("nav") is None and (text := _clean(h1.get_text(" "))):
                return text.removesuffix("¶").strip()  # mkdocs permalink anchors
    if title := _meta(soup, "og:title"):
        return title
    if soup.title and (text := _clean(soup.title.get_text(" "))):
        # "Slack node documentation | n8n Docs" -> the page's own part
        return _TITLE_SEPARATORS.split(text)[0] or text
    return None


def parse_doc_html(html: bytes | str, encoding: str | None = None) -> tuple[str | None, str | None, str]:
    """(title, summary, reason) of one docs page; reason is ok, meta_description or no_summary."""
    soup = BeautifulSoup(html, "html.parser", from_encoding=encoding if isinstance(html, bytes) else None)
    root, real_root = _content_root(soup)
    title = _title(soup, root)  # before stripping: page headers holding the h1 may look like noise
    _strip_noise(root, keep_header=real_root)
    summary = _first_paragraph(root)
    if summary is None and real_root and soup.body is not None:
        _strip_noise(soup.body, keep_header=False)
        summary = _first_paragraph(soup.body)
    if summary is not None:
        return title, summary, "ok"
    description = _meta(soup, "description", "og:description", "twitter:description")
    if description is not None:
        return title, description[:MAX_SUMMARY_CHARS], "meta_description"
    return title, None, "no_summary"


def _content_type(result: FetchResult) -> tuple[str, str | None]:
    message = Message()
    message["content-type"] = result.header("Content-Type") or ""
    return message.get_content_type(), message.get_param("charset")  # type: ignore[return-value]


def page_from_result(result: FetchResult) -> DocPage:
    """A DocPage from one fetch result (pure)."""
    if result.error is not None:
        return DocPage(result.url, result.status, None, None, result.error)
    status = result.status or 0
    if status >= 400 or status < 200:
        return DocPage(result.url, result.status, None, None, f"http_{status}")
    ctype, charset = _content_type(result)
    if result.header("Content-Type") and ctype not in ("text/html", "application/xhtml+xml"):
        return DocPage(result.url, result.status, None, None, "not_html")
    title, summary, reason = parse_doc_html(result.body, charset if isinstance(charset, str) else None)
    return DocPage(result.url, result.status, title, summary, reason)


def fetch_doc_summaries(
    urls: list[str], http: HttpConfig, *, probe_url: str | None = None, fetcher: HttpFetcher | None = None
) -> dict[str, DocPage]:
    """Fetch each doc page (cached by URL, robots.txt respected: a disallowed URL is not fetched,
    reason ``robots_disallowed``) and keep its title and first descriptive paragraph (skipping nav,
    header, footer, cookie banners, 'Edit this page', breadcrumbs, very short paragraphs; main or
    article content first; the meta description as a fallback).

    Offline (the probe gets no answer) nothing is fetched and every page has reason ``offline``.
    """
    out: dict[str, DocPage] = {}
    todo: list[str] = []
    for url in dict.fromkeys(urls):
        if urlsplit(url).scheme in ("http", "https"):
            todo.append(url)
        else:
            out[url] = DocPage(url, None, None, None, "not_http")
    if not todo:
        return out
    pages = fetch_while_online(
        todo, http, lambda fetcher: fetcher.fetch_many(todo, "GET"), lambda url, result: page_from_result(result),
        lambda url, reason: DocPage(url, None, None, None, reason), probe_url=probe_url, fetcher=fetcher,
    )  # fmt: skip
    out.update(pages)
    return out


def doc_summary_text(page: DocPage, max_chars: int = SUMMARY_TEXT_CHARS) -> str | None:
    """``"Title. First paragraph"`` trimmed to about ``max_chars`` at a word boundary; None when empty.

    A page is third-party text like a crawled description: a key pasted into it is redacted the same way.
    """
    title = redact((page.title or "").strip())[0]
    summary = redact((page.summary or "").strip())[0]
    if not title and not summary:
        return None
    if title and summary and not summary.lower().startswith(title.lower()):
        text = f"{title if title[-1] in '.!?:' else title + '.'} {summary}"
    else:
        text = summary or title
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    if " " in cut[max_chars // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "…"
