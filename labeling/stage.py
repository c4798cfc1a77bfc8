"""EcoAgent-Real as a stage of the refresh (:mod:`ecoagent.stage`): candidate pairs planned by retrieval, the LLM
verifier's requests answered (in DAG shards or here), then labels, splits and the gold evaluation assembled by
:mod:`labeling.label`."""

from __future__ import annotations

from types import ModuleType

from ecoagent.layout import LABEL_FILES
from ecoagent.stage import CliOption, LLMStage


def steps() -> ModuleType:
    """The stage's plan and assemble steps (polars, the embedders, the LLM client): imported when the stage runs."""
    from labeling import label

    return label


# phases: the retrieval's embedding passes (plan), then the verifier's answers
LABEL = LLMStage("label", ("score",), LABEL_FILES, ask_phase="verify pairs", shard_task="verify_shard", steps=steps,
                 help="Map real user queries to catalog tools: retrieval, verification, splits, review sample.",
                 cli_options=(CliOption("--source", "label.source", "bfcl (default) or toolbench."),))
label = LABEL.run_on  # label(config, in_dir=None, out=None): the stage on a score folder, from Python
