"""The crawl as a stage of the refresh (:mod:`ecoagent.stage`): every platform's pinned packages fetched and
read statically into one catalog; the refresh DAG crawls each platform in its own task, then merges them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ecoagent.layout import CRAWL_FILES
from ecoagent.stage import Partitioned, Progress, Stage, StageResult

if TYPE_CHECKING:
    from crawlers.crawl import CrawlResult
    from ecoagent.config import Config


class CrawlStage(Stage, Partitioned):
    name = "crawl"
    outputs = CRAWL_FILES
    progress = "{phase} packages"
    phased = True
    network = True
    partition_by = "platform"

    def run(self, config: Config, inputs: Mapping[str, str], out: str, progress: Progress | None = None) -> StageResult:
        from crawlers.crawl import crawl

        return _result(crawl(config, out=out, progress=progress))

    def partitions(self, config: Config) -> list[str]:
        return list(config.crawl.platforms)

    def run_partition(self, config: Config, partition: str, inputs: Mapping[str, str], out: str,
                      progress: Progress | None = None) -> StageResult:  # fmt: skip
        one = config.model_copy(update={"crawl": config.crawl.model_copy(update={"platforms": [partition]})})
        return self.run(one, inputs, out, progress)

    def merge(self, config: Config, partition_folders: Sequence[str], out: str) -> StageResult:
        from crawlers.crawl import merge_crawl_shards

        return _result(merge_crawl_shards(config, list(partition_folders), out))


def _result(crawled: CrawlResult) -> StageResult:
    from crawlers.summary import summary_lines

    return StageResult(crawled.out, crawled.summary, summary_lines(crawled.summary, crawled.out), crawled.exit_code)


CRAWL = CrawlStage()
