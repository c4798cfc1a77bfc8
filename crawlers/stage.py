"""The crawl as a stage of the refresh (:mod:`ecoagent.stage`): every platform's pinned packages fetched and
read statically into one catalog; the refresh DAG crawls each platform in its own task, then merges them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ecoagent.layout import CRAWL_FILES
from ecoagent.stage import CliOption, Partitioned, Recrawlable, Stage, StageResult, VersionsRead

if TYPE_CHECKING:
    from crawlers.crawl import CrawlResult
    from ecoagent.config import Config
    from ecoagent.packages.source import Source
    from ecoagent.runtime.context import StepContext


class CrawlStage(Stage, Partitioned, Recrawlable):
    name = "crawl"
    outputs = CRAWL_FILES
    network = True
    partition_by = "platform"
    help = "Fetch the pinned packages and extract every tool into tools.parquet."
    cli_options = (
        CliOption("--sources", "crawl.sources", "Source list to crawl (default: crawl.sources).", path=True),
        CliOption("--latest", "crawl.latest", "Resolve current registry versions.", value="true"),
        CliOption("--platform", "crawl.platforms", "Only these platforms (repeatable).", repeat=True),
        CliOption("--cache-dir", "crawl.cache_dir", "Package cache folder (default: crawl.cache_dir)."),
    )

    def run(self, ctx: StepContext) -> StageResult:
        from crawlers.crawl import crawl

        return _result(crawl(ctx.config, out=ctx.out))

    def partitions(self, config: Config) -> list[str]:
        return list(config.crawl.platforms)

    def run_partition(self, ctx: StepContext, partition: str) -> StageResult:
        config = ctx.config
        one = config.model_copy(update={"crawl": config.crawl.model_copy(update={"platforms": [partition]})})
        return self.run(ctx.with_folders(config=one))

    def merge(self, ctx: StepContext, partition_folders: Sequence[str]) -> StageResult:
        from crawlers.crawl import merge_crawl_shards

        return _result(merge_crawl_shards(ctx.config, list(partition_folders), ctx.out))

    def pinned(self, config: Config) -> list[Source]:
        from crawlers.sources import load_sources

        return load_sources(config.resolve_path(config.crawl.sources), config.crawl.platforms)

    def read_versions(self, config: Config, sources: Sequence[Source]) -> VersionsRead:
        from crawlers.extract import extract_all
        from ecoagent.packages.fetch import crawl_fetcher

        fetched = crawl_fetcher(config).fetch_all(list(sources), phase="fetch packages")
        results = extract_all(config, fetched, len(sources))
        return VersionsRead(results, len(fetched), sum(p.cached for p in fetched))

    def write_versions(self, config: Config, sources: Sequence[Source], read: VersionsRead, out: str,
                       note: dict) -> None:  # fmt: skip
        from crawlers.crawl import write_versions

        write_versions(sources, [read.results[s.key] for s in sources], out, note)


def _result(crawled: CrawlResult) -> StageResult:
    from crawlers.summary import summary_lines

    return StageResult(crawled.out, crawled.summary, summary_lines(crawled.summary, crawled.out), crawled.exit_code)


CRAWL = CrawlStage()
