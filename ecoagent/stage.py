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
- :class:`Published`: its result is promoted to the run root and announced as an Airflow asset (the release);
- :class:`Stepped`: it declares steps, each writing its own file into the stage's folder; one step runs alone and
  reuses the files of the steps it needs when their inputs and settings are unchanged (RATED: train, Table 1, ...);
  the DAG runs one task per step.

Standard library only at import time: the DAG files import the stage list while Airflow parses them, so every
stage module keeps its heavy imports inside its methods.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.layout import RunLayout, StageFiles
    from ecoagent.llm.ask import LLMAnswers
    from ecoagent.packages.source import Source
    from ecoagent.runtime.context import StepContext
    from ecoagent.runtime.quality_gate import GateResult
    from ecoagent.store import ArtifactStore, StageFolder


@dataclass
class StageResult:
    """What a stage run returns: its folder, its summary, and the lines it says about itself."""

    out: str
    summary: dict
    lines: list[str] = field(default_factory=list)
    exit_code: int = 0  # ecoagent.errors.EXIT_PARTIAL: the outputs are written, some inputs could not be read


@dataclass(frozen=True)
class CliOption:
    """An option of a stage's CLI command that sets one of its settings: ``--latest`` sets ``crawl.latest=true``.

    ``value`` is what a flag sets (None: the option takes a value, written into ``setting``); ``repeat``: the option
    may be given several times, and the setting is the list. ``path``: the value is a file, made absolute."""

    flag: str
    setting: str
    help: str
    value: str | None = None
    repeat: bool = False
    path: bool = False

    def override(self, given: Any) -> str | None:
        """The ``section.key=value`` override for what the command line gave, or None when it gave nothing."""
        if given in (None, False, [], ()):
            return None
        if self.value is not None:
            return f"{self.setting}={self.value}"
        if self.repeat:
            return f"{self.setting}=[{','.join(map(str, given))}]"
        if self.path:
            from pathlib import Path

            given = Path(given).resolve()
        return f"{self.setting}={given}"


class Stage:
    """One stage of the refresh. A subclass sets the class attributes and implements :meth:`run`."""

    name: ClassVar[str]  # its folder under a run root, its CLI command, the prefix of its progress lines
    inputs: ClassVar[tuple[str, ...]] = ()  # the stages whose folders it reads; the first is the CLI's --in
    in_flag: ClassVar[str] = "--in"  # the CLI option naming its first input's folder
    optional_inputs: ClassVar[tuple[str, ...]] = ()  # steps it reads when their folder is there (the history)
    outputs: ClassVar[StageFiles]
    network: ClassVar[bool] = False  # it talks to the registries: its DAG tasks retry
    task: ClassVar[str | None] = None  # its DAG task, when not named like the stage
    help: ClassVar[str] = ""  # its CLI command's help
    cli_options: ClassVar[tuple[CliOption, ...]] = ()  # its CLI command's own options, each setting a setting

    def __init__(self) -> None:
        self.outputs.made_by(" ".join(self.command))  # the command named when a reader misses one of its files

    @property
    def task_id(self) -> str:
        return self.task or self.name

    @property
    def command(self) -> tuple[str, ...]:
        """Its CLI command's words (``ecoagent crawl``; a subcommand of a group: ``ecoagent release build``)."""
        return (self.name,)

    def inputs_under(self, layout: RunLayout, in_dir: str | None = None) -> dict[str, str]:
        """The folders of the stages this one reads under a run root, the first one replaced by ``in_dir``."""
        inputs = {name: layout.folder(name) for name in (*self.inputs, *self.optional_inputs)}
        if in_dir and self.inputs:
            inputs[self.inputs[0]] = in_dir
        return inputs

    def out_under(self, layout: RunLayout, inputs: Mapping[str, str]) -> str:
        """Its folder under a run root, reading ``inputs`` (:meth:`inputs_under`'s)."""
        return layout.folder(self.name)

    def run(self, ctx: StepContext) -> StageResult:
        """Read ``ctx.inputs`` (stage name -> folder), write this stage's folder ``ctx.out``."""
        raise NotImplementedError

    def run_on(self, config: Config, in_dir: str | None = None, out: str | None = None) -> StageResult:
        """The stage from Python: on the folders of the configured store's run root, the first input replaced by
        ``in_dir`` and the stage's own folder by ``out`` when given (what its CLI command does with ``--in`` and
        ``--out``, without a runner's usage and gate); its phases go where the running context's go, if any."""
        from ecoagent.layout import RunLayout
        from ecoagent.runtime.context import SILENT, StepContext, current

        layout = RunLayout.of(config)
        reporter = current().reporter if current() is not None else SILENT
        inputs = self.inputs_under(layout, in_dir)
        ctx = StepContext(config, inputs, out or self.out_under(layout, inputs), reporter)
        with ctx.running():
            return self.run(ctx)

    def __repr__(self) -> str:
        return f"<stage {self.name}>"


class Partitioned:
    """A stage the DAG runs per partition (``partition_by``), in parallel, then merges into the stage's folder."""

    partition_by: ClassVar[str]  # what a partition is: its DAG tasks are "<partition_by>s" and "<name>_<partition_by>"

    def partitions(self, config: Config) -> list[str]:
        raise NotImplementedError

    def run_partition(self, ctx: StepContext, partition: str) -> StageResult:
        raise NotImplementedError

    def merge(self, ctx: StepContext, partition_folders: Sequence[str]) -> StageResult:
        raise NotImplementedError


@dataclass
class VersionsRead:
    """Package versions read once for a :class:`Recrawlable` stage: each one's read by source key, and how many were
    fetched (from the registries or the package cache)."""

    results: dict[str, Any]
    fetched: int
    cache_hits: int


class Recrawlable:
    """A stage that can crawl any list of package versions into a folder of its kind: the history step reads each
    month's catalog through it, every distinct version read once for all the months that hold it."""

    def pinned(self, config: Config) -> list[Source]:
        """The packages its settings pin (the source list it crawls)."""
        raise NotImplementedError

    def read_versions(self, config: Config, sources: Sequence[Source]) -> VersionsRead:
        """Fetch and read each of ``sources`` (phases of the running step)."""
        raise NotImplementedError

    def write_versions(self, config: Config, sources: Sequence[Source], read: VersionsRead, out: str,
                       note: dict) -> None:  # fmt: skip
        """A folder of this stage's kind at ``out`` holding exactly ``sources`` (their reads in ``read``), ``note``
        at the head of its summary."""
        raise NotImplementedError


class Gated:
    """A stage whose folder a quality gate checks before any later stage reads it (DAG task "<name>_gate")."""

    def gate(self, ctx: StepContext) -> GateResult:
        """Check the folder ``ctx.out`` (written from ``ctx.inputs``)."""
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


@dataclass(frozen=True)
class Step:
    """One declared step of a :class:`Stepped` stage.

    ``output``: the file it writes into the stage's folder, holding what it found and the fingerprint of what it was
    computed from (its inputs, settings and the fingerprints of the steps it ``needs``); ``reusable`` False: it is
    cheap and always runs (a report rendered from the other steps' files, which writes its own files and no
    fingerprint); ``gpu``: its DAG task goes to the GPU queue."""

    name: str
    output: str
    needs: tuple[str, ...] = ()
    reusable: bool = True
    gpu: bool = False
    help: str = ""


class Stepped:
    """A stage made of declared :attr:`steps`, in order. Run as a whole, every step runs; run as one step
    (``ecoagent <stage> --step NAME``, one DAG task per step), the steps it needs are reused when the fingerprint in
    their file matches (same inputs, settings and upstream steps) and run first otherwise, and a step that is not
    reusable (the report) follows once everything it needs is up to date (:func:`run_steps`)."""

    steps: ClassVar[tuple[Step, ...]]

    def step(self, name: str) -> Step:
        for step in self.steps:
            if step.name == name:
                return step
        from ecoagent.errors import BadInput

        raise BadInput(f"no step named {name!r}: the steps are {', '.join(s.name for s in self.steps)}")

    def needed(self, name: str) -> list[Step]:
        """The step ``name`` and every step it needs, however indirectly, in declared order."""
        wanted = {name}
        for step in reversed(self.steps):
            if step.name in wanted:
                wanted.update(step.needs)
        return [s for s in self.steps if s.name in wanted]

    def run_steps(self, ctx: StepContext, only: str | None = None) -> StageResult:
        """Every step (``only`` None) or the step ``only`` with what it needs, into ``ctx.out``."""
        raise NotImplementedError


def fingerprint(what: Mapping[str, Any]) -> str:
    """sha256 of ``what`` as canonical JSON: the key a step's output is reused by."""
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()


def recorded_fingerprint(store: ArtifactStore, step: Step) -> str | None:
    """The fingerprint in ``step``'s file in ``store``; None when the file is not there or not readable."""
    if not store.exists(step.output):
        return None
    try:
        return store.read_json(step.output).get("fingerprint")
    except (ValueError, AttributeError):
        return None


def run_steps(stage: Stepped, store: ArtifactStore, only: str | None, inputs: Mapping[str, Any],
              work: Callable[[Step], dict | None]) -> list[str]:  # fmt: skip
    """The plan of :meth:`Stepped.run_steps` over the folder ``store``: ``work(step)`` computes a step and returns
    what goes into its file (a reusable step) or writes its own files (None). ``inputs`` is what every step's
    fingerprint is computed from besides its needs' fingerprints. Returns one line per step: run, reused or left."""
    needed = {s.name for s in (stage.steps if only is None else stage.needed(only))}
    current: set[str] = set()  # the steps whose file now matches its fingerprint
    prints: dict[str, str] = {}
    lines = []
    for step in stage.steps:
        prints[step.name] = key = fingerprint({"step": step.name, "inputs": inputs,
                                               "needs": {n: prints[n] for n in step.needs}})  # fmt: skip
        stale = [n for n in step.needs if n not in current]
        if step.reusable and only not in (None, step.name) and recorded_fingerprint(store, step) == key:
            current.add(step.name)
            if step.name in needed:
                lines.append(f"{step.name}: reused {step.output} (same inputs, settings and earlier steps)")
            continue
        if step.name not in needed and (step.reusable or stale):  # the report follows only a complete folder
            if not step.reusable:
                lines.append(f"{step.name}: not run ({', '.join(stale)} not up to date; --step {step.name} runs them)")
            continue
        started = time.perf_counter()
        record = work(step)
        seconds = round(time.perf_counter() - started, 1)
        if step.reusable:
            store.write_json({"fingerprint": key, "seconds": seconds, "inputs": inputs, "record": record},
                             step.output, sort_keys=False)  # fmt: skip
        current.add(step.name)
        lines.append(f"{step.name}: ran in {seconds} s")
    return lines


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
    answers (the embedded llama.cpp server decodes on one core; the other would idle), joined before assemble. Each
    step reports its phases to the running context (:mod:`ecoagent.runtime.context`); the LLM's answers are the
    phase ``ask_phase``.
    """

    def __init__(self, name: str, inputs: tuple[str, ...], outputs: StageFiles, *, shard_task: str,
                 steps: Callable[[], Any], ask_phase: str, help: str = "",
                 cli_options: tuple[CliOption, ...] = ()) -> None:  # fmt: skip
        self.name, self.inputs, self.outputs = name, inputs, outputs  # type: ignore[misc]
        self.help, self.cli_options = help, cli_options  # type: ignore[misc]
        self.shard_task = shard_task  # the DAG's mapped task answering the requests in shards
        self.steps = steps
        self.ask_phase = ask_phase
        super().__init__()

    def plan(self, ctx: StepContext) -> Any:
        return self.steps().plan(ctx.config, ctx.input(self.inputs[0]))

    @property
    def plan_task(self) -> str:
        return f"plan_{self.name}"

    def write_plan(self, ctx: StepContext, exchange: str) -> dict:
        """Plan once and write the plan and its requests to the exchange folder ``exchange`` (in the store)."""
        from ecoagent.llm.exchange import write_plan

        return write_plan(self.plan(ctx), exchange)

    def assemble_from(self, ctx: StepContext, exchange: str) -> StageResult:
        """Assemble from the plan and the shards' answers in ``exchange``: the orchestrated :meth:`run`."""
        from ecoagent.llm.exchange import read_answers, read_plan
        from ecoagent.store import StageFolder

        started = time.perf_counter()
        folder = StageFolder(ctx.out, self.outputs.names())
        plan = read_plan(exchange)
        answers = read_answers(ctx.config, exchange, plan.requests, phase=self.ask_phase)
        return self._assemble(ctx, plan, answers, folder, started)

    def run(self, ctx: StepContext) -> StageResult:
        from ecoagent.llm.ask import ask
        from ecoagent.store import StageFolder

        started = time.perf_counter()
        folder = StageFolder(ctx.out, self.outputs.names())
        plan = self.plan(ctx)
        beside = getattr(self.steps(), "while_answering", None)
        finish = _in_background(lambda: beside(ctx.config, plan)) if beside and plan.requests else (lambda: None)
        answers = ask(ctx.config, plan.requests, phase=self.ask_phase)
        finish()  # not on an error: the thread is a daemon, and only fills a cache
        return self._assemble(ctx, plan, answers, folder, started)

    def _assemble(self, ctx: StepContext, plan: Any, answers: LLMAnswers, folder: StageFolder,
                  started: float) -> StageResult:  # fmt: skip
        return self.steps().assemble(ctx.config, plan, answers, folder, started)


def _in_background(work: Callable[[], Any]) -> Callable[[], None]:
    """Start ``work`` in a thread, in the caller's context; the returned function waits for it and raises what it
    raised."""
    import threading

    from ecoagent.runtime.context import in_thread

    failure: list[BaseException] = []
    work = in_thread(work)

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
