"""The stage contract: what every stage of the refresh declares, how it is run, and what it returns.

A stage reads the folders of the stages named in its ``inputs`` and writes the files it declares in ``outputs``
(:mod:`ecoagent.layout`) into one folder, as a whole (:class:`ecoagent.store.StageFolder`). It returns a
:class:`StageResult`: its folder, its summary (the ``*_summary.json`` it wrote) and the lines it says about itself,
which the CLI prints and a DAG task logs as they are.

One ordered list of stages, ``pipeline.stages.STAGES``, drives the CLI's ``run``, the refresh DAG and its LLM-shard
tasks. What a stage can do beyond :meth:`Stage.run` is a capability it inherits, and each reader of the list asks
for it by type:

- :class:`Partitioned`: the DAG runs one task per partition (the crawl: per platform), then merges them;
- :class:`Gated`: a quality gate runs over the stage's folder before anything reads it (the score stage);
- :class:`LLMStage`: its LLM requests are planned first, so the DAG can answer them in parallel shards;
- :class:`Published`: its result is promoted to the run root and announced as an Airflow asset (the release).

Standard library only at import time: the DAG files import the stage list while Airflow parses them, so every
stage module keeps its heavy imports inside its methods.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.layout import RunLayout, StageFiles
    from ecoagent.llm.ask import LLMAnswers
    from ecoagent.runtime.quality_gate import GateResult
    from ecoagent.store import StageFolder

Progress = Callable[[str, int, int], None]  # (phase, done, total)


def phase(progress: Progress | None, name: str) -> Callable[[int, int], None] | None:
    """``progress`` for one named phase, as a ``(done, total)`` callback (None when nobody listens)."""
    return (lambda done, total: progress(name, done, total)) if progress else None


@dataclass
class StageResult:
    """What a stage run returns: its folder, its summary, and the lines it says about itself."""

    out: str
    summary: dict
    lines: list[str] = field(default_factory=list)
    exit_code: int = 0  # ecoagent.errors.EXIT_PARTIAL: the outputs are written, some inputs could not be read


class Stage:
    """One stage of the refresh. A subclass sets the class attributes and implements :meth:`run`."""

    name: ClassVar[str]  # its folder under a run root, its CLI command
    inputs: ClassVar[tuple[str, ...]] = ()  # the stages whose folders it reads; the first is the CLI's --in
    outputs: ClassVar[StageFiles]
    progress: ClassVar[str]  # what its progress lines say; "{phase}" is replaced by the phase it reports
    phased: ClassVar[bool] = False  # it reports phases (one progress line each) rather than one step
    network: ClassVar[bool] = False  # it talks to the registries: its DAG tasks retry
    task: ClassVar[str | None] = None  # its DAG task, when not named like the stage

    @property
    def task_id(self) -> str:
        return self.task or self.name

    def run_on(self, config: Config, in_dir: str | None = None, out: str | None = None,
               progress: Progress | None = None) -> StageResult:  # fmt: skip
        """Run on the folders of the configured store's run root, the first input replaced by ``in_dir`` and the
        stage's own folder by ``out`` when given: what a stage's CLI command does with ``--in`` and ``--out``."""
        from ecoagent.layout import RunLayout

        layout = RunLayout.of(config)
        return self.run(config, self.inputs_under(layout, in_dir), out or layout.folder(self.name), progress)

    def inputs_under(self, layout: RunLayout, in_dir: str | None = None) -> dict[str, str]:
        """The folders of the stages this one reads under a run root, the first one replaced by ``in_dir``."""
        inputs = {name: layout.folder(name) for name in self.inputs}
        if in_dir and self.inputs:
            inputs[self.inputs[0]] = in_dir
        return inputs

    def run(self, config: Config, inputs: Mapping[str, str], out: str, progress: Progress | None = None) -> StageResult:
        """Read ``inputs`` (stage name -> folder), write this stage's folder ``out``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<stage {self.name}>"


class Partitioned:
    """A stage the DAG runs per partition (``partition_by``), in parallel, then merges into the stage's folder."""

    partition_by: ClassVar[str]  # what a partition is: its DAG tasks are "<partition_by>s" and "<name>_<partition_by>"

    def partitions(self, config: Config) -> list[str]:
        raise NotImplementedError

    def run_partition(self, config: Config, partition: str, inputs: Mapping[str, str], out: str,
                      progress: Progress | None = None) -> StageResult:  # fmt: skip
        raise NotImplementedError

    def merge(self, config: Config, partition_folders: Sequence[str], out: str) -> StageResult:
        raise NotImplementedError


class Gated:
    """A stage whose folder a quality gate checks before any later stage reads it (DAG task "<name>_gate")."""

    def gate(self, config: Config, folder: str, inputs: Mapping[str, str]) -> GateResult:
        raise NotImplementedError


class Published:
    """A stage whose result is promoted to the run root once built, and announced as an Airflow asset."""

    asset: ClassVar[str]

    @property
    def earlier_results(self) -> str:
        """The optional input naming where this stage's earlier results are, when not beside the new one (the DAG
        builds in a run's partition and promotes to the run root)."""
        return f"previous_{self.name}s"  # type: ignore[attr-defined]  # a Stage's name

    def promote(self, config: Config, result: StageResult, root: RunLayout) -> StageResult:
        raise NotImplementedError


class LLMStage(Stage):
    """A stage that asks the LLM: plan the requests, have them answered (from the response cache first), assemble.

    The refresh DAG plans once per run (task ``plan_task``: :meth:`write_plan` into the run's exchange folder in the
    store), answers the requests in parallel shards (task ``shard_task``: each writes its answers file into the same
    folder, :mod:`ecoagent.llm.exchange`), then the stage's own task reads the plan and the answers and only
    assembles (:meth:`assemble_from`); ``ecoagent run`` does the three in one process (:meth:`run`). The work itself
    is in the module ``steps()`` returns (a function, so that the module and its heavy imports load when the stage
    runs, not when a DAG file is parsed): ``plan(config, in_dir)`` (everything before the LLM; the result has the
    ``requests`` in order) and ``assemble(config, plan, answers, folder, started) -> StageResult``; optionally
    ``while_answering(config, plan)``: work that needs the plan but not the answers, run in a thread while the LLM
    answers (the embedded llama.cpp server decodes on one core; the other would idle), joined before assemble. A
    ``plan`` or ``while_answering`` that takes ``progress`` hears the stage's (its own phases).
    """

    def __init__(self, name: str, inputs: tuple[str, ...], outputs: StageFiles, *, progress: str, shard_task: str,
                 steps: Callable[[], Any], ask_phase: str | None = None) -> None:  # fmt: skip
        self.name, self.inputs, self.outputs, self.progress = name, inputs, outputs, progress  # type: ignore[misc]
        self.shard_task = shard_task  # the DAG's mapped task answering the requests in shards
        self.steps = steps
        # with ask_phase, the stage reports phases: the LLM's answers under ask_phase, then what assemble does
        # (``progress`` holds "{phase}"), so the work after the last answer says what it is
        self.phased = ask_phase is not None  # type: ignore[misc]
        self.ask_phase = ask_phase or progress

    def plan(self, config: Config, inputs: Mapping[str, str], progress: Progress | None = None) -> Any:
        """The step's plan; a plan step that takes ``progress`` hears it (its embedding passes, by phase)."""
        step = self.steps().plan
        return step(config, inputs[self.inputs[0]], **_heard(step, progress))

    def assemble(self, config: Config, plan: Any, answers: LLMAnswers, store_folder: StageFolder,
                 started: float, progress: Progress | None = None) -> StageResult:  # fmt: skip
        return self.steps().assemble(config, plan, answers, store_folder, started, progress=progress)

    def llm_requests(self, config: Config, inputs: Mapping[str, str]) -> list:
        return self.plan(config, inputs).requests

    @property
    def plan_task(self) -> str:
        return f"plan_{self.name}"

    def write_plan(self, config: Config, inputs: Mapping[str, str], exchange: str) -> dict:
        """Plan once and write the plan and its requests to the exchange folder ``exchange`` (in the store)."""
        from ecoagent.llm.exchange import write_plan

        return write_plan(self.plan(config, inputs), exchange)

    def assemble_from(self, config: Config, exchange: str, out: str, progress: Progress | None = None) -> StageResult:
        """Assemble from the plan and the shards' answers in ``exchange``: the orchestrated :meth:`run`."""
        from ecoagent.llm.exchange import read_answers, read_plan
        from ecoagent.store import StageFolder

        started = time.perf_counter()
        folder = StageFolder(out, self.outputs.names())
        plan = read_plan(exchange)
        answers = read_answers(config, exchange, plan.requests, progress=(
            lambda done, total: progress(self.progress, done, total)) if progress else None)  # fmt: skip
        return self.assemble(config, plan, answers, folder, started)

    def run(self, config: Config, inputs: Mapping[str, str], out: str, progress: Progress | None = None) -> StageResult:
        from ecoagent.llm.ask import ask
        from ecoagent.store import StageFolder

        started = time.perf_counter()
        folder = StageFolder(out, self.outputs.names())
        plan = self.plan(config, inputs, progress)
        beside = getattr(self.steps(), "while_answering", None)
        finish = (_in_background(lambda: beside(config, plan, **_heard(beside, progress))) if beside and plan.requests
                  else (lambda: None))  # fmt: skip
        answers = ask(config, plan.requests, progress=(lambda done, total: progress(self.ask_phase, done, total))
                      if progress else None)  # fmt: skip
        finish()  # not on an error: the thread is a daemon, and only fills a cache
        return self.assemble(config, plan, answers, folder, started, progress)


def _heard(step: Callable, progress: Progress | None) -> dict:
    """``progress`` as a keyword for a step that takes it (its embedding passes report by phase), else nothing."""
    return {"progress": progress} if progress is not None and "progress" in inspect.signature(step).parameters else {}


def _in_background(work: Callable[[], Any]) -> Callable[[], None]:
    """Start ``work`` in a thread; the returned function waits for it and raises what it raised."""
    import threading

    failure: list[BaseException] = []

    def target() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the joining thread, which raises it
            failure.append(exc)

    thread = threading.Thread(target=target, name="while-answering", daemon=True)
    thread.start()

    def finish() -> None:
        thread.join()
        if failure:
            raise failure[0]

    return finish
