"""The refresh's stages in order: the one list that the CLI's ``run``, the refresh DAG and its LLM-shard tasks
read (:mod:`ecoagent.stage` says what a stage is). Importing it stays cheap: each stage module keeps its heavy
imports inside its methods, so the DAG files may import this while Airflow parses them."""

from __future__ import annotations

from collections.abc import Sequence

from crawlers.stage import CRAWL
from ecoagent.layout import RunLayout
from ecoagent.stage import LLMStage, Stage
from history.stage import HistoryStage
from labeling.stage import LABEL
from rated.stage import RATED
from release.stage import RELEASE
from scoring.stage import SCORE
from synth.stage import SYNTH

STAGES: tuple[Stage, ...] = (CRAWL, SCORE, SYNTH, LABEL, RELEASE)
# the catalog month by month, crawled and scored by the refresh's own stages; run on its own, not on every refresh
HISTORY = HistoryStage(CRAWL, SCORE)
# downstream of a release: RATED on each new one (the ecoagent_rated DAG, one task per declared step)
DOWNSTREAM: tuple[Stage, ...] = (RATED,)
# every step the CLI offers as a command of its own: the refresh's stages, the steps run on their own schedule, and
# the downstream stages
STEPS: tuple[Stage, ...] = (*STAGES, HISTORY, *DOWNSTREAM)


def releases_folder(layout: RunLayout) -> str:
    """Where a run root keeps its releases: the published stage's folder (one ``<version>/`` each)."""
    return layout.folder(RELEASE.name)


def stage_named(name: str, stages: Sequence[Stage] | None = None) -> Stage:
    """The stage called ``name`` in ``stages`` (default: :data:`STAGES`)."""
    for stage in STAGES if stages is None else stages:
        if stage.name == name:
            return stage
    raise KeyError(f"no stage named {name!r}; the stages are {[s.name for s in STAGES]}")


def llm_stages(stages: Sequence[Stage] | None = None) -> list[LLMStage]:
    """The stages that ask the LLM, in order: the refresh DAG answers their requests in shards."""
    return [s for s in (STAGES if stages is None else stages) if isinstance(s, LLMStage)]
