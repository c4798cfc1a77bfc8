"""EcoAgent-Syn as a stage of the refresh (:mod:`ecoagent.stage`): generation requests planned from the scored
catalog, answered (in DAG shards or here), then assembled into queries and pairs by :mod:`synth.generate`."""

from __future__ import annotations

from types import ModuleType

from ecoagent.layout import SYNTH_FILES
from ecoagent.stage import CliOption, LLMStage


def steps() -> ModuleType:
    """The stage's plan and assemble steps (polars, the embedders, the LLM client): imported when the stage runs."""
    from synth import generate

    return generate


SYNTH = LLMStage("synth", ("score",), SYNTH_FILES, ask_phase="generate queries (tools)", shard_task="generate_shard",
                 steps=steps, help="Generate EcoAgent-Syn: LLM queries per tool, filters, MinHash dedup, round trip, "
                 "negatives.", cli_options=(CliOption("--tools", "synth.tools", "'sample' (stratified) or 'all'."),))
synth = SYNTH.run_on  # synth(config, in_dir=None, out=None): the stage on a score folder, from Python
