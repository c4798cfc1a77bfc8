"""LLMStage.run: the steps' optional while_answering work runs in a thread while the LLM answers, and is joined (its
error raised) before assemble; the stand-in server is a real HTTP server on 127.0.0.1, not a mock of the client."""

from __future__ import annotations

import dataclasses
import threading
import types

import pytest

from ecoagent.config import make_config
from ecoagent.layout import StageFiles
from ecoagent.llm.request import LLMRequest, sampling
from ecoagent.runtime.context import Recording, StepContext, phase
from ecoagent.stage import LLMStage, StageResult
from ecoagent.testing.standin_llm import StandInOpenAI


@dataclasses.dataclass
class Plan:
    requests: list


def _steps(events: list, fail: bool = False, heard: bool = False) -> types.SimpleNamespace:
    requests = [LLMRequest(key=f"tool-{i}", prompt_version="v1", model="fake", kind="completion", prompt=f"tool {i}",
                           sampling=sampling(max_tokens=8, stop=["\n\n"], seed=i)) for i in range(3)]  # fmt: skip

    def while_answering(config, plan) -> None:
        events.append(("beside", threading.current_thread().name, len(plan.requests)))
        if fail:
            raise RuntimeError("the catalog could not be embedded")

    def assemble(config, plan, answers, folder, started) -> StageResult:
        events.append(("assemble", threading.current_thread().name, len(answers.responses)))
        return StageResult(folder.url(), {}, [])

    def while_answering_heard(config, plan) -> None:  # a hook that reports its phase, from its own thread
        with phase("embed the catalog", 2) as embedding:
            embedding.advance(2)

    return types.SimpleNamespace(plan=lambda config, in_dir: Plan(requests), assemble=assemble,
                                 while_answering=while_answering_heard if heard else while_answering)  # fmt: skip


def _run(tmp_path, events: list, fail: bool = False, heard: Recording | None = None) -> None:
    steps = _steps(events, fail, heard is not None)
    stage = LLMStage("demo", ("score",), StageFiles(), ask_phase="demo", shard_task="demo_shard", steps=lambda: steps)
    with StandInOpenAI() as server:
        config = make_config(llm={"backend": "server", "base_url": server.base_url, "model": "fake",
                                  "cache_path": str(tmp_path / "responses.sqlite")})  # fmt: skip
        ctx = StepContext(config, {"score": str(tmp_path / "score")}, str(tmp_path / "out"), heard or Recording())
        with ctx.running():
            stage.run(ctx)


def test_the_work_beside_the_answers_runs_in_a_thread_before_assemble(tmp_path) -> None:
    events: list = []
    _run(tmp_path, events)
    assert events == [("beside", "while-answering", 3), ("assemble", threading.current_thread().name, 3)]


def test_an_error_beside_the_answers_fails_the_stage(tmp_path) -> None:
    events: list = []
    with pytest.raises(RuntimeError, match="could not be embedded"):
        _run(tmp_path, events, fail=True)
    assert [e[0] for e in events] == ["beside"]


def test_the_work_beside_the_answers_reports_its_own_phase(tmp_path) -> None:
    # the Syn catalog pass outlasts the LLM: its lines say what the stage waits for after the last answer
    heard = Recording()
    _run(tmp_path, [], heard=heard)
    assert ("embed the catalog", 2, 2) in heard.events
    assert heard.phases() == ["embed the catalog", "demo"] or heard.phases() == ["demo", "embed the catalog"]
