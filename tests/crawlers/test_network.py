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
