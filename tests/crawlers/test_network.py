"""One real small package per platform, fetched from the real registries (run with -m network)."""

import pytest

from crawlers.crawl import crawl
from ecoagent.config import load_config

pytestmark = pytest.mark.network

SMALL = {
    "langchain": ("pypi", "langchain-tavily", "0.2.18"),
    "crewai": ("pypi", "crewai-tools", "1.15.30"),
    "llamaindex": ("pypi", "llama-index-tools-slack", "0.6.0"),
    "n8n": ("npm", "@n8n/n8n-nodes-langchain", "2.41.1"),
    "mcp": ("npm", "@modelcontextprotocol/server-slack", "2025.4.25"),
}


def test_one_real_package_per_platform(tmp_path):
    sources = tmp_path / "sources.yaml"
    rows = [
        f'  - {{platform: {p}, registry: {r}, name: "{n}", version: "{v}", '
        f"listing: {'official' if p == 'mcp' else 'platform'}}}"
        for p, (r, n, v) in SMALL.items()
    ]
    sources.write_text("sources:\n" + "\n".join(rows) + "\n")
    cfg = load_config(overrides=[f"crawl.cache_dir={tmp_path / 'cache'}", "crawl.workers=1"], environ={})
    result = crawl(cfg, out=str(tmp_path / "out"), sources_path=sources)
    assert result.summary["package_errors"] == []
    for platform in SMALL:
        assert result.summary["per_platform"][platform]["tools"] > 0, platform


def test_full_pinned_crawl_meets_the_acceptance_counts(tmp_path):
    """The whole pinned catalog: >= 4,500 tools with the per-platform floors of the crawl issue."""
    cfg = load_config(overrides=[f"crawl.cache_dir={tmp_path / 'cache'}"], environ={})
    summary = crawl(cfg, out=str(tmp_path / "out")).summary
    tools = {p: v["tools"] for p, v in summary["per_platform"].items()}
    assert summary["tools"] >= 4500
    floors = {"n8n": 3000, "llamaindex": 400, "langchain": 250, "crewai": 100, "mcp": 60}
    assert all(tools[p] >= n for p, n in floors.items()), tools
    assert summary["coverage"]["name"] == 1.0 and summary["coverage"]["description"] >= 0.95


def test_a_batch_sets_aside_the_package_the_registry_lacks(tmp_path):
    from ecoagent.packages.fetch import Fetcher, PackageCache, miss_reason
    from ecoagent.packages.source import Source

    sources = [Source("mcp", "npm", "@modelcontextprotocol/server-slack", "2025.4.25", "official"),
               Source("n8n", "npm", "ecoagent-test-no-such-package", "0.0.1", "community")]  # fmt: skip
    fetcher = Fetcher(PackageCache(tmp_path / "cache"), retries=0, miss_ttl_s=3600)
    found, missing = fetcher.fetch_all(sources)
    assert found.error is None and miss_reason(missing.error) == "not_in_registry"
    assert fetcher.fetch_all(sources[1:])[0].cached  # remembered: not asked again
