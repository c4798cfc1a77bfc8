"""The score stage of the refresh (:mod:`ecoagent.stage`): every crawled tool scored, then the scored-catalog gate
checks the folder before any LLM stage reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ecoagent.layout import SCORE_FILES
from ecoagent.stage import Gated, Stage, StageResult

if TYPE_CHECKING:
    from ecoagent.runtime.context import StepContext
    from ecoagent.runtime.quality_gate import GateResult


class ScoreStage(Stage, Gated):
    name = "score"
    inputs = ("crawl",)
    outputs = SCORE_FILES
    help = "Score every crawled tool (reliability, flaws, side effects, permission, tokens), then gate it."

    def run(self, ctx: StepContext) -> StageResult:
        from scoring.score import score
        from scoring.summary import summary_lines

        result = score(ctx.config, in_dir=ctx.input(self.inputs[0]), out=ctx.out)
        return StageResult(result.out, result.summary, summary_lines(result.summary, result.out))

    def gate(self, ctx: StepContext) -> GateResult:
        from scoring.score import gate

        return gate(ctx.config, in_dir=ctx.out, crawl_dir=ctx.input(self.inputs[0]))


SCORE = ScoreStage()
