"""Runners: what runs a stage, apart from the stage itself (as datatrove keeps executors apart from pipeline steps).

A stage only reads its inputs and writes its folder, reporting phases and stats to the context it is handed
(:class:`ecoagent.runtime.context.StepContext`). A runner owns the rest: it makes that context (settings, folders,
where the phases go), records each stage's usage (``--usage``), runs the quality gate of a gated stage, prints the
lines a stage says about itself and keeps the run's exit code. Two runners share this base:

- the CLI's (:class:`pipeline.cli.CliRunner`): bars on a terminal, else plain lines; a failure is one red line and
  the exit code of its kind;
- the Airflow task's, this base as it is (:mod:`pipeline.orchestration`): plain lines in the task log; a failure
  raises, so Airflow marks the task failed (and retries the tasks that talk to the network).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ecoagent.runtime.context import Reporter, StepContext
from ecoagent.runtime.progress import LineReporter, print_line
from ecoagent.runtime.usage import UsageRecorder

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.layout import RunLayout
    from ecoagent.runtime.quality_gate import GateResult
    from ecoagent.stage import Gated, Stage, StageResult

T = TypeVar("T")


class Runner:
    """Runs stages (or any named step) on one config; see the module docstring."""

    def __init__(self, config: Config, usage: Path | str | None = None) -> None:
        self.config = config
        self.usage = UsageRecorder(usage)
        self.stats: Counter = Counter()  # every step's figures (the LLM's seconds), read into --usage
        self.exit_code = 0  # a partial stage (exit 3) still wrote its folder: later stages run, the run says so

    # ---- what a kind of runner decides: how phases show, where lines go, what a failure does

    def reporter(self, step: str) -> Reporter:
        """Where the phases of ``step`` go: plain lines, each starting with the step's name."""
        return LineReporter(f"{step}: ", interval_s=self.config.progress_interval_s, emit=self.say)

    def say(self, line: str) -> None:
        print_line(line)

    def attempt(self, failure: str, call: Callable[[], T]) -> T:
        """``call()``; a runner that ends a failure its own way (the CLI: one line and an exit code) overrides it."""
        return call()

    def gate_checked(self, step: str, result: GateResult) -> None:
        """Say the gate's outcome; a failed gate raises :class:`~ecoagent.runtime.quality_gate.QualityGateFailed`."""
        from ecoagent.runtime.quality_gate import enforce

        self.say(f"{step} gate: success={result.success}, report {result.report_path}")
        enforce(result)

    # ---- running

    def context(self, step: str, inputs: Mapping[str, str] | None = None, out: str = "") -> StepContext:
        return StepContext(self.config, dict(inputs or {}), out, self.reporter(step), self.stats)

    def step(self, name: str, work: Callable[[StepContext], T], inputs: Mapping[str, str] | None = None,
             out: str = "") -> T:  # fmt: skip
        """``work(ctx)`` as the running step ``name``: its phases shown, its failure ended the runner's way."""
        ctx = self.context(name, inputs, out)
        with ctx.running():
            return self.attempt(f"{name} failed", lambda: work(ctx))

    def run(self, stage: Stage, inputs: Mapping[str, str], out: str,
            work: Callable[[StepContext], StageResult] | None = None) -> StageResult:  # fmt: skip
        """The stage (or ``work``, one of its capabilities: a partition, an assembly) into ``out``; the lines it says
        printed, its exit code kept."""
        result = self.step(stage.name, work or stage.run, inputs, out)
        for line in result.lines:
            self.say(line)
        self.exit_code = self.exit_code or result.exit_code
        return result

    def gate(self, stage: Gated, folder: str, inputs: Mapping[str, str]) -> GateResult:
        """The stage's quality gate over ``folder``; a failed gate ends the run (:meth:`gate_checked`)."""
        name = stage.name  # type: ignore[attr-defined]  # a Stage's

        def check(ctx: StepContext) -> GateResult:
            with ctx.phase("quality gate (great-expectations)", 1) as gating:
                result = stage.gate(ctx)
                gating.advance()
            return result

        result = self.step(name, check, inputs, folder)
        self.gate_checked(name, result)
        return result

    def run_all(self, stages: Sequence[Stage], layout: RunLayout) -> int:
        """Every stage in order on the run root's folders, each gated stage's gate right after it; the exit code."""
        from ecoagent.stage import Gated

        for stage in stages:
            inputs = stage.inputs_under(layout)
            with self.usage.stage(stage.name, self.stats):
                result = self.run(stage, inputs, layout.folder(stage.name))
                if isinstance(stage, Gated):
                    self.gate(stage, result.out, inputs)
        return self.exit_code
