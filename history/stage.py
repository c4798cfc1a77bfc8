"""The history as a step of its own (:mod:`ecoagent.stage`): run when a maintainer wants the curve (``ecoagent
history``, the ``ecoagent_history`` DAG), not on every refresh; the release reads its folder when it is there.

Each month's catalog is crawled and scored by the refresh's own crawl and score stages, handed to the step where the
stage list is made (``pipeline/stages.py``): a stage never imports another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ecoagent.layout import HISTORY_FILES
from ecoagent.stage import CliOption, Stage, StageResult

if TYPE_CHECKING:
    from ecoagent.runtime.context import StepContext
    from ecoagent.stage import Recrawlable


class HistoryStage(Stage):
    name = "history"
    outputs = HISTORY_FILES
    network = True  # the registries' publish times and archives
    help = ("The catalog month by month (the paper's Figure 1): every pinned package at the newest version published "
            "by each month's end, crawled and scored; a table, a plot and every tool's first month.")  # fmt: skip
    cli_options = (
        CliOption("--since", "history.since", "First month, YYYY-MM (default: history.since, 2025-02)."),
        CliOption("--until", "history.until", "Last month, YYYY-MM (default: the newest complete month)."),
        CliOption("--fresh", "history.fresh", "Crawl and score every month again, even unchanged.", value="true"),
    )

    def __init__(self, crawl: Recrawlable, score: Stage) -> None:
        self.crawl, self.score = crawl, score  # the refresh's stages: each month is crawled and scored as today's
        super().__init__()

    def run(self, ctx: StepContext) -> StageResult:
        from history.run import history

        result = history(ctx, self.crawl, self.score)
        return StageResult(result.out, result.summary, result.lines)
