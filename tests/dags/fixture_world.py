"""The fixture world a refresh DAG run needs: a local package mirror, a BFCL wheel with real-looking queries, and
the run conf that points ``ecoagent_refresh`` at them (``profile: fixture``, tiny outputs, everything under one root).

Used by ``tests/dags/test_refresh_dag.py`` (``dag.test()``) and ``benchmarks/airflow_scheduler.py`` (the real
scheduler), so both run the same refresh.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixture_packages import build_fixture_mirror, fixture_overrides
from tests.labeling.fixtures import build_bfcl_wheel

# Real queries a person might send to the fixture tools (weather, notes, web search, chat): the
# shipped BFCL live categories ask for tools the fixture catalog does not have, so without these no
# Real query is verified and the release gate (non-empty Real train and test) rightly fails.
FIXTURE_QUERIES = [
    "What is the current weather in Lisbon today?",
    "Look up the weather forecast for Paris right now",
    "Tell me the current weather conditions in Berlin",
    "How warm is it in Tokyo at the moment?",
    "Search my notes for the meeting agenda",
    "Find the notes I wrote about the budget",
    "Create a new note titled groceries with milk and eggs",
    "Search the internet for the latest news about electric cars",
    "Use a web search to find reviews of the new phone",
    "Send a message to the general channel saying hello team",
    "Archive the old project channel in the chat",
    "Delete the last message I sent in the chat",
]


def _bfcl_record(i: int, text: str) -> dict:
    return {
        "id": f"live_relevance_{i}-{i}-0",
        "question": [[{"role": "user", "content": text}]],
        "function": [{"name": "unknown", "description": "Not in the catalog.", "parameters": {}}],
    }


def fixture_refresh_conf(tmp: Path) -> dict:
    """Build the mirror and the BFCL wheel under ``tmp``; the refresh conf whose root is ``tmp/root``."""
    mirror = tmp / "mirror"
    build_fixture_mirror(mirror)
    lines = "\n".join(json.dumps(_bfcl_record(i, q)) for i, q in enumerate(FIXTURE_QUERIES))
    build_bfcl_wheel(mirror, extra_files={"bfcl_eval/data/BFCL_v4_live_relevance.json": lines})
    overrides = [
        *fixture_overrides(mirror, tmp / "packages"),
        f"crawl.sources={mirror / 'sources.yaml'}",
        f"embedding.cache_dir={tmp / 'embeddings'}",
        "llm.backend=embedded",
        "synth.max_tokens=32",
        "label.source=bfcl",
        "label.bfcl_categories=[live_relevance]",
        "label.max_queries=12",
        "label.top_k=2",
        "label.max_tokens=12",
        # the embedding agreement decides (the default profile's verifier; the 270M base model's scores are
        # recorded but unusable); MiniLM puts these short fixture descriptions at ~0.4 from their queries
        "label.min_agreement_score=0.35",
        f"release.repo_releases_dir={tmp / 'repo_releases'}",  # not the repository's tracked releases/
    ]
    root = tmp / "root"
    conf = {"profile": "fixture", "sample_size": 5, "shards": 2, "overrides": overrides, "out": str(root)}
    return conf
