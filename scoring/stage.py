"""The score stage of the refresh (:mod:`ecoagent.stage`): every crawled tool scored, then the scored-catalog gate
checks the folder before any LLM stage reads it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ecoagent.layout import SCORE_FILES
from ecoagent.stage import Gated, Progress, Stage, StageResult

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.runtime.quality_gate import GateResult


class ScoreStage(Stage, Gated):
    name = "score"
    inputs = ("crawl",)
    outputs = SCORE_FILES
    progress = "scoring the catalog (embeddings are cached by text hash)"

    def run(self, config: Config, inputs: Mapping[str, str], out: str, progress: Progress | None = None) -> StageResult:
        from scoring.score import score
        from scoring.summary import summary_lines

        result = score(config, in_dir=inputs["crawl"], out=out)
        return StageResult(result.out, result.summary, summary_lines(result.summary, result.out))

    def gate(self, config: Config, folder: str, inputs: Mapping[str, str]) -> GateResult:
        from scoring.score import gate

        return gate(config, in_dir=folder, crawl_dir=inputs["crawl"])


SCORE = ScoreStage()
