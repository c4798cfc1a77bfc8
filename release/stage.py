"""The release as the last stage of the refresh (:mod:`ecoagent.stage`): the stage folders built into a gated,
Hub-ready ``<root>/release/<version>/`` (:mod:`release.run`); the refresh DAG promotes it to the run root and
announces it as the ``ecoagent/release`` asset RATED is scheduled on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ecoagent.layout import RELEASE_FILES
from ecoagent.stage import Progress, Published, Stage, StageResult

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.layout import RunLayout


class ReleaseStage(Stage, Published):
    name = "release"
    inputs = ("crawl", "score", "synth", "label")
    outputs = RELEASE_FILES
    progress = "building the release (Parquet, card, Croissant, manifest) and its gate"
    task = "build_release"
    asset = "ecoagent/release"

    def run(self, config: Config, inputs: Mapping[str, str], out: str, progress: Progress | None = None) -> StageResult:
        from pathlib import Path

        from ecoagent.layout import RunLayout
        from release.build import ReleaseInputs
        from release.run import release_run

        # the history beside the releases folder, and the store's (`ecoagent history` writes there by default)
        history = (RunLayout(str(Path(out).parent)).history, RunLayout.of(config).history)
        stage_inputs = ReleaseInputs(*(inputs[name] for name in self.inputs), history_dirs=history)
        result = release_run(config, stage_inputs, out, previous_releases=inputs.get(self.earlier_results))
        summary = {"version": result.version, "folder": result.folder, "counts": result.manifest.get("counts", {}),
                   "previous": result.previous, "gate": {"expectations": len(result.gate.results)}}  # fmt: skip
        return StageResult(result.folder, summary, summary_lines(summary))

    def promote(self, config: Config, result: StageResult, root: RunLayout) -> StageResult:
        """Copy the gated build to ``<root>/release/<version>`` as a whole (replacing an older copy; on object
        storage its manifest is uploaded last, which commits it)."""
        from ecoagent.store import ArtifactStore, StageFolder

        target = root.release(result.summary["version"])
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
