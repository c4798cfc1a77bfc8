"""RATED as a stage of the contract (:mod:`ecoagent.stage`): it reads a release and declares its steps, each
writing its own file into the one folder the layout names for that release (``<root>/rated/<version>/``), where the
CLI (``ecoagent rated [--step NAME]``) and the ``ecoagent_rated`` DAG (one task per step) both write.

The steps (:mod:`rated.steps`) are train, Table 1, Table 2, the replay of Table 2 on the catalog's history, the
paper-scale view, Table 3, the report and the card (the replay's finding quoted in the release's card); each writes
its own file, and ``report.md`` and ``metrics.json`` are rendered from those files alone. Run as a whole, every step
runs (the trained encoder is still reused when the folder holds one trained on the same release with the same
settings); run as one step (``--step table2``, one DAG task), the steps it needs are reused when their file's
fingerprint matches the release, profile, seed and settings, and run first otherwise.

Standard library only at import time, like every stage module: the DAG files import it while Airflow parses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ecoagent.layout import RATED_FILES, RATED_MARKER
from ecoagent.stage import Stage, StageResult, Step, Stepped, run_steps

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.layout import RunLayout
    from ecoagent.runtime.context import StepContext

# the steps that each write a file of what they found; the report is rendered from all of them
_RECORDED = (
    Step("train", RATED_FILES.train, gpu=True, help="the RATED encoder, the grid chosen on validation"),
    Step("table1", RATED_FILES.table1, ("train",), gpu=True, help="offline retrieval (ranx)"),
    Step("table2", RATED_FILES.table2, ("train",), gpu=True, help="validation sweeps, failure injection"),
    Step("replay", RATED_FILES.replay, ("train", "table2"), gpu=True,
         help="Table 2 on the catalog's real history (rated.simulation.scenarios: replay)"),
    Step("paper_scale", RATED_FILES.paper_scale, ("train",), gpu=True, help="Tables 1-2 on the paper-scale view"),
    Step("table3", RATED_FILES.table3, ("train",), gpu=True, help="latency at batch 1"),
)


class RatedStage(Stepped, Stage):
    name = "rated"
    inputs = ("release",)
    in_flag = "--release"
    outputs = RATED_FILES
    help = ("RATED on a release: train, Table 1 (offline), Table 2 (failure injection), the replay on the catalog's "
            "history, the paper-scale view, Table 3 (latency), report.md and metrics.json, the replay's finding in "
            "the release's card; --step NAME runs one step, reusing the others' files.")
    steps = (*_RECORDED,
             Step("report", RATED_FILES.report, tuple(s.name for s in _RECORDED), reusable=False,
                  help="metrics.json and report.md"),
             Step("card", RATED_FILES.card, ("train", "replay"), reusable=False,
                  help="the replay's finding quoted in the card of the store's release"))  # fmt: skip

    def inputs_under(self, layout: RunLayout, in_dir: str | None = None) -> dict[str, str]:
        """The release it reads: ``in_dir``, else the newest release under the run root."""
        from ecoagent.errors import BadInput
        from ecoagent.layout import newest_release

        releases = layout.folder(self.inputs[0])
        release = in_dir or newest_release(releases)
        if release is None:
            raise BadInput(f"no release under {releases}: run `ecoagent run` or pass {self.in_flag}")
        return {self.inputs[0]: release}

    def out_under(self, layout: RunLayout, inputs: Mapping[str, str]) -> str:
        """``<root>/rated/<version>``: one folder per release, named by the release folder's name."""
        return layout.versioned(self.name, inputs[self.inputs[0]].rstrip("/").rsplit("/", 1)[-1])

    def run(self, ctx: StepContext) -> StageResult:
        return self.run_steps(ctx)

    def run_steps(self, ctx: StepContext, only: str | None = None) -> StageResult:
        """Every step, or the step ``only`` with what it needs, into ``ctx.out`` (:func:`rated_to`)."""
        if only is not None:
            self.step(only)  # an unknown step fails before anything is read
        result = rated_to(ctx.config, ctx.input(self.inputs[0]), ctx.out, only)
        written = [f"report: {result.report_path}", f"metrics: {result.metrics_path}"] if result.metrics else []
        return StageResult(result.out_dir, {"steps": result.lines}, [*result.lines, *written])


RATED = RatedStage()

# metrics.json's entries that hold a wall time (every step's seconds, Table 3's latencies): they differ from run to run
TIMINGS = ("seconds", "table3")


def without_timings(value: object, keys: tuple[str, ...] = TIMINGS) -> object:
    """``value`` (a ``metrics.json``, or part of one) with every entry named in ``keys`` left out, however deep: what
    two runs of the same steps on the same release and settings must agree on."""
    if isinstance(value, dict):
        return {k: without_timings(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [without_timings(v, keys) for v in value]
    return value


@dataclass
class RatedResult:
    out_dir: str  # a local path or the store's URL
    report_path: str
    metrics_path: str
    metrics: dict | None  # None when a step run alone left the report out (an earlier step is not up to date)
    lines: list[str]  # what each step did: ran, reused, not run


def rated_to(config: Config, release: str, out: str, only: str | None = None) -> RatedResult:
    """:func:`rated_run` on ``release`` into the folder ``out`` (a local path or the store's URL) as its next
    generation: what is there already (a trained encoder, the files of earlier steps) is kept and reused, and on
    object storage the folder commits by the trained encoder's record, uploaded last
    (:data:`ecoagent.layout.RATED_MARKER`)."""
    from ecoagent.store import StageFolder

    folder = StageFolder(out, marker=RATED_MARKER)
    with folder.amend() as store:
        result = rated_run(config, release, store.local_path, only)
    return RatedResult(folder.url(), folder.url(RATED_FILES.report), folder.url(RATED_FILES.metrics), result.metrics,
                       result.lines)  # fmt: skip


def rated_run(config: Config, release_folder: str | Path, out_dir: Path, only: str | None = None) -> RatedResult:
    """Every step of RATED (``only`` None), or the step ``only`` with what it needs, on a release (a local path or
    the store's URL) into the local folder ``out_dir``."""
    from ecoagent.store import ArtifactStore
    from rated.steps import STEP_WORK, Workbench, card, report

    out_dir.mkdir(parents=True, exist_ok=True)
    store = ArtifactStore(str(out_dir))
    bench = Workbench(config, release_folder, out_dir)
    reported: list[dict] = []

    def work(step: Step) -> dict | None:
        if step.reusable:
            return STEP_WORK[step.name](bench)
        if step.name == "card":
            card(bench, store)
        else:
            reported.append(report(store, _RECORDED))
        return None

    lines = run_steps(RATED, store, only, bench.inputs, work)
    metrics = reported[-1] if reported else None
    return RatedResult(str(out_dir), store.path(RATED_FILES.report), store.path(RATED_FILES.metrics), metrics, lines)
