"""Doc enrichment against fixture pages in the shapes of the real docs sites, served locally."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scoring.doc_pages import DocPage, doc_summary_text, fetch_doc_summaries, parse_doc_html
from tests.scoring.test_http_fetch import LocalServer, Route, block_dns, http_config

# mkdocs-material, as docs.n8n.io: header, sidebar nav, edit button, breadcrumbs, h1 with permalink,
# an admonition before and after the intro paragraph, footer.
N8N_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<title>Slack node documentation | n8n Docs</title>
<meta name="description" content="Documentation for the Slack node in n8n, a workflow automation platform.">
</head><body>
<header class="md-header">
<nav class="md-header__inner" aria-label="Header">n8n Docs <input placeholder="Search"></nav></header>
<div class="md-container"><main class="md-main"><div class="md-main__inner md-grid">
<div class="md-sidebar md-sidebar--primary"><div class="md-sidebar__scrollwrap"><nav class="md-nav md-nav--primary">
<ul class="md-nav__list"><li class="md-nav__item"><a class="md-nav__link">Integrations</a></li>
<li class="md-nav__item"><p>Browse all of the built-in integration nodes that ship with n8n here.</p></li>
</ul></nav></div></div>
<div class="md-content" data-md-component="content"><article class="md-content__inner md-typeset">
<a href="https://github.com/n8n-io/n8n-docs/edit/main/docs/slack.md" title="Edit this page"
class="md-content__button md-icon">Edit this page</a>
<nav class="md-path" aria-label="Navigation"><ol><li>Integrations</li><li>Built-in nodes</li></ol></nav>
<h1 id="slack-node">Slack node<a class="headerlink" href="#slack-node" title="Permanent link">¶</a></h1>
<div class="admonition info"><p class="admonition-title">Node versions</p>
<p>This page describes the latest version of the node; older versions behave slightly differently in places.</p></div>
<p>Use the Slack node to automate work in <a href="https://slack.com">Slack</a>, and integrate Slack with other
applications. n8n has built-in support for a wide range of Slack features, including creating, archiving, and
renaming channels.</p>
<p>On this page, you'll find a list of operations the Slack node supports and links to more resources.</p>
<div class="admonition note"><p class="admonition-title">Credentials</p>
<p>Refer to Slack credentials for guidance on setting up authentication in your n8n instance.</p></div>
<h2 id="operations">Operations</h2><ul><li>
<p>Channel: archive a channel, close a direct message or multi-person message.</p></li></ul>
</article></div></div></main>
<footer class="md-footer">
<p>Copyright © 2024 n8n. All rights reserved, with a sufficiently long footer line.</p></footer>
</div></body></html>"""

# Docusaurus, as python.langchain.com: navbar, sidebar, breadcrumbs, article; intro before "Setup".
LANGCHAIN_PAGE = """<!doctype html><html><head><title>TavilySearch | 🦜️🔗 LangChain</title></head><body>
<nav aria-label="Main" class="navbar navbar--fixed-top"><a class="navbar__brand">LangChain</a></nav>
<div class="main-wrapper docs-wrapper docs-doc-page"><div class="docPage_xyz">
<aside class="theme-doc-sidebar-container"><nav aria-label="Docs sidebar" class="menu thin-scrollbar">
<ul class="theme-doc-sidebar-menu menu__list"><li>
<p>All integrations from the community and partner packages.</p></li></ul>
</nav></aside>
<main class="docMainContainer_abc"><div class="container padding-top--md"><div class="row">
<div class="col docItemCol_q">
<nav class="theme-doc-breadcrumbs" aria-label="Breadcrumbs"><ul class="breadcrumbs"><li>Integrations</li>
<li>Tools</li></ul></nav>
<div class="tocCollapsible_x theme-doc-toc-mobile"><button>On this page</button></div>
<article><div class="theme-doc-markdown markdown"><header><h1>TavilySearch</h1></header>
<p>Beta feature.</p>
<p><a href="https://tavily.com">Tavily's Search API</a> is a search engine built specifically for AI agents (LLMs),
delivering real-time, accurate, and factual results at speed.</p>
<h2>Overview</h2><table><tr><td><p>Class TavilySearch lives in the langchain-tavily package.</p></td></tr></table>
<h2>Setup</h2><p>The integration lives in the <code>langchain-tavily</code> package, installed with pip.</p>
</div>
<footer class="theme-doc-footer docusaurus-mt-lg"><a href="https://github.com/x/edit">Edit this page</a></footer>
</article></div></div></div></main></div></div>
<footer class="footer"><p>Copyright © 2025 LangChain, Inc. Built with Docusaurus and many other tools.</p></footer>
</body></html>"""

# The same site, a page whose first paragraph comes after the "Setup" heading.
LANGCHAIN_SETUP_FIRST = """<html><head><title>Exa Search | 🦜️🔗 LangChain</title></head><body>
<aside class="theme-doc-sidebar-container"><nav class="menu">
<p>Sidebar text that is long enough to be a paragraph.</p></nav></aside>
<main><article><h1>Exa Search</h1><h2>Setup</h2>
<div class="theme-admonition theme-admonition-tip alert alert--success">
<p>Tip: you can also use the hosted version of Exa from the dashboard.</p></div>
<p>To use the Exa search tool you need an Exa API key, which you can get from the Exa dashboard after signing up.</p>
<h2>Instantiation</h2><p>Here we show how to instantiate the tool with a few of its optional settings.</p>
</article></main></body></html>"""

# Mintlify, as docs.crewai.com: a cookie banner first, no main/article element, the h1 in a page header.
CREWAI_PAGE = """<!doctype html><html><head><title>Scrape Website - CrewAI</title>
<meta name="description" content="The ScrapeWebsiteTool is designed to extract and read the content of a
website."></head>
<body>
<div id="cookie-banner" class="fixed bottom-0 z-50"><p>We use cookies to improve your experience on our site and to
analyse traffic. By continuing to browse you agree to our use of cookies.</p><button>Accept all</button></div>
<div id="navbar" class="sticky top-0"><a href="/">CrewAI</a>
<p>Search the documentation, ask the assistant or browse.</p></div>
<div id="sidebar" class="hidden lg:block">
<p>Get Started with CrewAI, the framework for orchestrating agents.</p></div>
<div id="content-area"><header id="header" class="relative"><div class="eyebrow">Tools</div>
<h1 id="page-title">Scrape Website</h1></header>
<div class="mdx-content prose"><h2>Description</h2>
<p>A tool designed to extract and read the content of a specified website. It handles many kinds of web pages by
making HTTP requests and parsing the received HTML content.</p>
<h2>Installation</h2><p>Install the crewai_tools package to start using the tool in your agents.</p>
</div></div>
<footer id="footer"><p>Powered by Mintlify. All rights reserved by the respective owners here.</p></footer>
</body></html>"""

META_ONLY = """<html><head><title>Widget API</title>
<meta property="og:description" content="Reference of the Widget REST API: widgets, gadgets and their owners.">
</head><body><div id="app"></div><script>render()</script></body></html>"""


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    block_dns(monkeypatch)


@pytest.fixture
def server() -> Iterator[LocalServer]:
    routes = {
        "/probe": Route(200, "up"),
        "/robots.txt": Route(200, "User-agent: *\nDisallow: /internal/\n", "text/plain"),
        "/integrations/builtin/app-nodes/n8n-nodes-base.slack/": Route(200, N8N_PAGE),
        "/docs/integrations/tools/tavily_search/": Route(200, LANGCHAIN_PAGE),
        "/docs/integrations/tools/exa_search/": Route(200, LANGCHAIN_SETUP_FIRST),
        "/tools/scrapewebsitetool": Route(200, CREWAI_PAGE.encode("utf-8"), "text/html"),
        "/meta-only": Route(200, META_ONLY),
        "/internal/page": Route(200, N8N_PAGE),
        "/missing": Route(404, "<h1>Not found</h1>"),
        "/broken": Route(500, "<h1>Oops</h1>"),
        "/old": Route(301, "", headers={"Location": "/new"}),
        "/new": Route(302, "", headers={"Location": "/tools/scrapewebsitetool"}),
        "/slow": Route(200, N8N_PAGE, slow=True),
        "/openapi.json": Route(200, '{"openapi": "3.0.0"}', "application/json"),
    }
    with LocalServer(routes) as srv:
        yield srv


def _fetch(server: LocalServer, tmp_path, paths: list[str], **http) -> dict[str, DocPage]:  # type: ignore[no-untyped-def]
    urls = [server.url(p) for p in paths]
    pages = fetch_doc_summaries(urls, http_config(tmp_path, **http), probe_url=server.url("/probe"))
    return {p: pages[u] for p, u in zip(paths, urls, strict=True)}


def test_n8n_page_keeps_h1_and_intro_skipping_nav_edit_and_admonitions(server, tmp_path):
    path = "/integrations/builtin/app-nodes/n8n-nodes-base.slack/"
    page = _fetch(server, tmp_path, [path])[path]
    assert (page.status, page.reason, page.title) == (200, "ok", "Slack node")
    assert page.summary == (
        "Use the Slack node to automate work in Slack, and integrate Slack with other applications. n8n has "
        "built-in support for a wide range of Slack features, including creating, archiving, and renaming channels."
    )


def test_langchain_page_intro_before_setup(server, tmp_path):
    path = "/docs/integrations/tools/tavily_search/"
    page = _fetch(server, tmp_path, [path])[path]
    assert page.title == "TavilySearch"
    assert page.summary == (
        "Tavily's Search API is a search engine built specifically for AI agents (LLMs), "
        "delivering real-time, accurate, and factual results at speed."
    )


def test_langchain_page_first_paragraph_after_setup(server, tmp_path):
    path = "/docs/integrations/tools/exa_search/"
    page = _fetch(server, tmp_path, [path])[path]
    assert page.title == "Exa Search"
    assert page.summary and page.summary.startswith("To use the Exa search tool you need an Exa API key")


def test_crewai_page_skips_cookie_banner_and_chrome(server, tmp_path):
    path = "/tools/scrapewebsitetool"
    page = _fetch(server, tmp_path, [path])[path]
    assert page.title == "Scrape Website"
    assert page.summary and page.summary.startswith("A tool designed to extract and read the content")
    assert "cookies" not in page.summary


def test_meta_description_is_the_fallback(server, tmp_path):
    page = _fetch(server, tmp_path, ["/meta-only"])["/meta-only"]
    assert (page.title, page.reason) == ("Widget API", "meta_description")
    assert page.summary == "Reference of the Widget REST API: widgets, gadgets and their owners."


def test_errors_robots_and_non_html(server, tmp_path):
    pages = _fetch(server, tmp_path, ["/missing", "/broken", "/internal/page", "/openapi.json", "/slow"], timeout_s=0.3)
    assert {p: (page.status, page.reason) for p, page in pages.items()} == {
        "/missing": (404, "http_404"),
        "/broken": (500, "http_500"),
        "/internal/page": (None, "robots_disallowed"),
        "/openapi.json": (200, "not_html"),
        "/slow": (None, "timeout"),
    }
    assert all(page.summary is None for page in pages.values())
    assert server.count("/internal/page") == 0  # disallowed pages are never requested


def test_redirects_are_followed(server, tmp_path):
    page = _fetch(server, tmp_path, ["/old"])["/old"]
    assert page.url == server.url("/old") and page.title == "Scrape Website" and page.reason == "ok"


def test_second_call_is_served_from_cache(server, tmp_path):
    paths = ["/integrations/builtin/app-nodes/n8n-nodes-base.slack/", "/tools/scrapewebsitetool", "/missing"]
    first = _fetch(server, tmp_path, paths)
    before = server.total()
    assert before == 4  # robots.txt + three pages
    assert _fetch(server, tmp_path, paths) == first
    assert server.total() == before


def test_offline_nothing_is_fetched(server, tmp_path):
    urls = [server.url("/tools/scrapewebsitetool"), "https://docs.crewai.com/tools/x", "README.md"]
    pages = fetch_doc_summaries(urls, http_config(tmp_path))  # the default probe cannot resolve
    assert {u: p.reason for u, p in pages.items()} == {urls[0]: "offline", urls[1]: "offline", "README.md": "not_http"}
    assert server.total() == 0


def test_parse_handles_bytes_with_declared_charset():
    html = '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head><body><main><p>'
    html += "Le caf\xe9 est un outil pour r\xe9sumer les pages web en quelques phrases.</p></main></body></html>"
    title, summary, reason = parse_doc_html(html.encode("iso-8859-1"), "iso-8859-1")
    assert (title, reason) == ("Café", "ok") and summary and "café" in summary


def test_doc_summary_text():
    page = DocPage("u", 200, "Slack node", "Use the Slack node to automate work in Slack.", "ok")
    assert doc_summary_text(page) == "Slack node. Use the Slack node to automate work in Slack."
    # no repeated title when the paragraph already starts with it
    same = DocPage("u", 200, "Slack", "Slack is a messaging app for teams.", "ok")
    assert doc_summary_text(same) == "Slack is a messaging app for teams."
    assert doc_summary_text(DocPage("u", 200, "Only title", None, "no_summary")) == "Only title"
    assert doc_summary_text(DocPage("u", None, None, None, "offline")) is None
    long = DocPage("u", 200, "Long", "word " * 300, "ok")
    text = doc_summary_text(long)
    assert text is not None and len(text) <= 500 and text.endswith("…") and text.startswith("Long. word word")


def test_doc_summary_text_redacts_a_pasted_key():
    key = "sk_" + "live_51HxQ2Ab3Cd4Ef5Gh6Ij7Kl8"
    page = DocPage("u", 200, "Payments", f"Try it with the example key {key} in test mode.", "ok")
    text = doc_summary_text(page)
    assert key not in text and "[REDACTED]" in text and text.startswith("Payments. Try it")
