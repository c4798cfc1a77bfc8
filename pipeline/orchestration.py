"""What the DAG tasks share: a run's config and folders from its params, loaded once per task.

Standard library only at import time (the DAG files import this while Airflow parses them); the config
and the stages are imported inside the functions, which tasks call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.layout import RunLayout

# The stages that ask the LLM, by name: the module whose ``llm_requests(config, in_dir)`` lists what the stage
# asks, in a deterministic order, and whose stage function (named like the stage) assembles its outputs.
LLM_STAGES = {"synth": "synth.generate", "label": "labeling.label"}


@dataclass(frozen=True)
class RunContext:
    config: Config
    root: RunLayout  # the ``out`` param, else the profile's store: promoted releases live here
    run: RunLayout | None  # ``<root>/runs/<run_id>``: this run's stage folders (None without a run id)


def run_context(params: dict, run_id: str | None = None, *extra: str) -> RunContext:
    """The run's config (the profile, the run's overrides, then the explicit params) and its folders."""
    from ecoagent.config import load_config
    from ecoagent.layout import RunLayout

    overrides = list(params.get("overrides") or [])
    if params.get("out"):
        # the store is the root, so stage defaults (the shared LLM response cache) live under it too
        overrides.append(f"store={params['out']}")
    if params.get("sample_size") is not None:
        overrides.append(f"synth.sample_size={int(params['sample_size'])}")
    config = load_config(params.get("profile") or "default", overrides=[*overrides, *extra])
    root = RunLayout.of(config)
    return RunContext(config, root, root.run(run_id) if run_id else None)


def answer_stage_shard(stage: str, config: Config, score_dir: str, shard: int, shards: int) -> dict:
    """Ask the LLM one shard of an LLM stage's requests (generation or verification), filling the response cache."""
    from ecoagent.llm.backends import answer_shard

    return answer_shard(config, _llm_stage(stage).llm_requests(config, score_dir), shard, shards)


def assemble_stage(stage: str, config: Config, score_dir: str, out: str) -> None:
    """Run an LLM stage once its shards filled the cache: it finds every answer there and only assembles."""
    getattr(_llm_stage(stage), stage)(config, in_dir=score_dir, out=out)


def _llm_stage(stage: str):
    import importlib

    return importlib.import_module(LLM_STAGES[stage])
