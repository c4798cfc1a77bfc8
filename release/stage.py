"""The release as the last stage of the refresh (:mod:`ecoagent.stage`): the stage folders built into a gated,
Hub-ready ``<root>/release/<version>/`` (:mod:`release.run`); the refresh DAG promotes it to the run root and
announces it as the ``ecoagent/release`` asset RATED is scheduled on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ecoagent.layout import RELEASE_FILES
from ecoagent.stage import CliOption, Published, Stage, StageResult

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.layout import RunLayout
    from ecoagent.runtime.context import StepContext


class ReleaseStage(Stage, Published):
    name = "release"
    inputs = ("crawl", "score", "synth", "label")
    optional_inputs = ("history",)  # the catalog month by month, when it was made (`ecoagent history`)
    outputs = RELEASE_FILES
    task = "build_release"
    asset = "ecoagent/release"
    help = "Assemble <root>/release/<version>/ (Hub-ready) and copy its manifest, card and changelog to releases/."
    cli_options = (
        CliOption("--version", "release.version", "MAJOR.MINOR.PATCH (default: the UTC date, 2026.11.29)."),
        CliOption("--previous", "release.previous", "Previous release folder (default: the newest one)."),
    )

    @property
    def command(self) -> tuple[str, ...]:
        return (self.name, "build")  # beside `release publish` and `release verify`

    def run(self, ctx: StepContext) -> StageResult:
        from ecoagent.layout import RunLayout
        from release.build import ReleaseInputs
        from release.run import release_run

        config = ctx.config
        # the history step's folder under the run root, then the store's (`ecoagent history` writes there by default)
        history = [ctx.inputs[name] for name in self.optional_inputs if name in ctx.inputs]
        history_dirs = tuple(dict.fromkeys([*history, *map(RunLayout.of(config).folder, self.optional_inputs)]))
        stage_inputs = ReleaseInputs(*(ctx.input(name) for name in self.inputs), history_dirs=history_dirs)
        result = release_run(config, stage_inputs, ctx.out, previous_releases=ctx.inputs.get(self.earlier_results))
        summary = {"version": result.version, "folder": result.folder, "counts": result.manifest.get("counts", {}),
                   "previous": result.previous, "gate": {"expectations": len(result.gate.results)}}  # fmt: skip
        return StageResult(result.folder, summary, summary_lines(summary))

    def promote(self, config: Config, result: StageResult, root: RunLayout) -> StageResult:
        """Copy the gated build to ``<root>/release/<version>`` as a whole (replacing an older copy; on object
        storage its manifest is uploaded last, which commits it)."""
        from ecoagent.store import ArtifactStore, StageFolder

        target = f"{root.folder(self.name)}/{result.summary['version']}"
        with StageFolder(target, marker=RELEASE_FILES.manifest).replace() as store:
            ArtifactStore(result.out).download(store.local_path)
        lines = [*result.lines, f"promoted to {target} (previous: {result.summary['previous']})"]
        return StageResult(target, {**result.summary, "folder": target}, lines)


def summary_lines(summary: dict) -> list[str]:
    folder = summary["folder"]
    counts = [f"  {name}: " + ", ".join(f"{split} {rows}" for split, rows in splits.items())
              for name, splits in sorted(summary["counts"].items())]  # fmt: skip
    return [f"release {summary['version']}: {folder}", *counts,
            f"gate passed ({summary['gate']['expectations']} expectations); load it with "
            f"datasets.load_dataset('{folder}', 'real-queries')"]  # fmt: skip


RELEASE = ReleaseStage()
