"""One stage list drives the CLI's ``run``, the refresh DAG and the LLM-shard tasks: a stage planted in the list is
run by the CLI, becomes tasks of the DAG, and has its requests answered by the shard task."""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from ecoagent.layout import StageFiles
from ecoagent.runtime.context import StepContext
from ecoagent.stage import LLMStage, Stage, StageResult
from pipeline import stages
from tests.dags.conftest import DAGS_FOLDER, REPO

PLANTED_FILES = StageFiles()  # writes a file it does not declare to the layout: a test stage


class PlantedStage(Stage):
    name = "planted"
    outputs = PLANTED_FILES

    def run(self, ctx: StepContext) -> StageResult:
        Path(ctx.out).mkdir(parents=True, exist_ok=True)
        (Path(ctx.out) / "planted.txt").write_text(",".join(sorted(ctx.inputs)))
        return StageResult(ctx.out, {"planted": True}, ["planted: ran"])


@dataclass
class PlantedPlan:
    """A plan as LLM stages make them (a dataclass with its ``requests``): written to the store once per run."""

    requests: list = field(default_factory=list)


def _planted_steps() -> SimpleNamespace:
    return SimpleNamespace(
        plan=lambda config, in_dir: PlantedPlan(),  # nothing to ask: no server starts
        assemble=lambda config, plan, answers, folder, started: StageResult(
            folder.url(), {}, ["planted_llm: done"]),
    )


PLANTED = PlantedStage()
PLANTED_LLM = LLMStage("planted_llm", ("planted",), PLANTED_FILES, ask_phase="asking", shard_task="planted_shard",
                       steps=_planted_steps)  # fmt: skip


def _refresh_module():
    spec = importlib.util.spec_from_file_location("planted_refresh", DAGS_FOLDER / "ecoagent_refresh.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_run_runs_a_planted_stage(tmp_path, monkeypatch) -> None:
    from pipeline.cli import app

    monkeypatch.setattr(stages, "STAGES", (PLANTED,))
    result = CliRunner().invoke(app, ["run", "--out", str(tmp_path), "--profile", "fixture"])
    assert result.exit_code == 0, result.output
    assert "planted: ran" in result.output
    assert (tmp_path / "planted" / "planted.txt").exists()


def test_the_refresh_dag_has_tasks_for_a_planted_stage() -> None:
    dag = _refresh_module().refresh_dag([*stages.STAGES, PLANTED, PLANTED_LLM], dag_id="planted_refresh")
    up = {t: set(dag.task_dict[t].upstream_task_ids) for t in dag.task_dict}
    assert {"planted", "plan_planted_llm", "planted_shard", "planted_llm"} <= set(dag.task_dict)
    assert up["plan_planted_llm"] >= {"planted"}  # planned once per run, from its input
    assert up["planted_shard"] >= {"plan_planted_llm", "shard_ids"}
    assert up["planted_llm"] >= {"planted", "planted_shard"}
    assert dag.task_dict["planted_shard"].retries >= 1  # an LLM shard talks to a server


def test_the_shard_task_answers_a_planted_llm_stage(tmp_path, monkeypatch) -> None:
    from pipeline.orchestration import answer_stage_shard, plan_stage, run_context

    monkeypatch.setattr(stages, "STAGES", (*stages.STAGES, PLANTED, PLANTED_LLM))
    assert stages.llm_stages()[-1] is PLANTED_LLM
    run = run_context({"profile": "fixture", "out": str(tmp_path)}, "manual__planted")
    plan_stage(stages.stage_named("planted_llm"), run, {"planted": str(tmp_path)})
    answered = answer_stage_shard(stages.stage_named("planted_llm"), run, 0, 2)
    assert {k: answered[k] for k in ("shard", "requests", "sent", "failed")} == {
        "shard": 0, "requests": 0, "sent": 0, "failed": 0}  # fmt: skip


@pytest.mark.parametrize("folder", ["pipeline", "dags"])
def test_no_stage_is_looked_up_by_module_name(folder: str) -> None:
    """Stages come from the list, not from importlib or getattr on a module named in a string."""
    for path in sorted((REPO / folder).glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(tree)
                 if isinstance(n, ast.Attribute | ast.Name)}  # fmt: skip
        assert not names & {"import_module", "getattr"}, path
