"""What the benchmark scripts' smoke tests share: one fixture world, crawled and scored once, a stand-in LLM server,
and a results folder of their own.

The world (``world``) is the fixture mirror of the crawl tests with the label stage's sources beside it: the BFCL
wheel with the DAG tests' queries, LiveMCPBench's gold tasks and servers, an ``n8n-nodes-base`` node package and an
``n8n-mcp`` tarball of workflow templates; its catalog is crawled and scored once per session. A script reads the
world's settings the way every EcoAgent command does, from ``ECOAGENT__SECTION__KEY`` variables (:func:`use_world`).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from ecoagent.testing.standin_llm import PaperScaleResponder, StandInOpenAI
from tests.dags.fixture_world import FIXTURE_QUERIES, _bfcl_record
from tests.fixture_packages import LANGCHAIN_PROMPT, LANGCHAIN_TOOL, build_fixture_mirror, fixture_overrides
from tests.labeling import workflow_fixtures as wf
from tests.labeling.fixtures import GOLD_SERVER_TABLE, build_bfcl_wheel, build_gold_livemcpbench_wheel
from tests.package_builders import build_wheel


@pytest.fixture(autouse=True)
def results_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where ``--record NAME`` writes in a smoke test: a folder of the test's own, never ``docs/results/``."""
    folder = tmp_path / "results"
    monkeypatch.setenv("ECOAGENT_RESULTS_DIR", str(folder))
    return folder


def world_overrides(tmp: Path, mirror: Path) -> list[str]:
    return [
        *fixture_overrides(mirror, tmp / "packages"),
        f"embedding.cache_dir={tmp / 'embeddings'}",
        f"store={tmp / 'store'}",
        f"crawl.sources={mirror / 'sources.yaml'}",
        f"crawl.livemcpbench_servers={tmp / 'servers.yaml'}",
        # the fixture profile's, for the scripts that load the default profile
        "crawl.livemcpbench_crosscheck=false",
        "crawl.community_listing.enabled=false",
        f"release.repo_releases_dir={tmp / 'repo_releases'}",
        "label.source=bfcl",
        "label.bfcl_categories=[live_relevance]",
        "label.gold=true",
        "label.min_agreement_score=0.35",  # MiniLM puts the short fixture descriptions at ~0.4 from their queries
        "label.workflows.enabled=true",
        f"label.workflows.package={wf.WORKFLOWS_PACKAGE}@{wf.WORKFLOWS_VERSION}",
        "label.workflows.package_sha256=null",
        f"label.workflows.generic_nodes=[{wf.GENERIC}]",
        "label.workflows.bootstrap_resamples=20",
        "label.min_cosine=0.0",  # the catalog is tiny: every query gets its top-k
    ]


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """The fixture world, its catalog crawled (``crawl``) and scored (``score``) with the fixture profile."""
    from crawlers.crawl import crawl
    from ecoagent.config import load_config
    from scoring.score import score

    tmp = tmp_path_factory.mktemp("benchmarks-world")
    mirror = tmp / "mirror"
    sources = build_fixture_mirror(mirror)
    # the LangChain fixture tool again under another name, in a package of its own: the catalog has a near-duplicate
    # group (the same description in two packages)
    build_wheel(mirror, "langchain-fixture-copy", "0.1.0", {
        "langchain_fixture/__init__.py": "",
        "langchain_fixture/prompt.py": LANGCHAIN_PROMPT,
        "langchain_fixture/tools/weather/tool.py": LANGCHAIN_TOOL.replace('"weather_lookup"', '"city_weather"'),
    })  # fmt: skip
    copy = ('  - {platform: langchain, registry: pypi, name: "langchain-fixture-copy", version: "0.1.0", '
            "listing: platform}\n")
    sources.write_text(sources.read_text() + copy + wf.SOURCES.removeprefix("sources:\n"))
    wf.build_node_package(mirror)
    wf.build_workflows_package(mirror)
    lines = "\n".join(json.dumps(_bfcl_record(i, q)) for i, q in enumerate(FIXTURE_QUERIES))
    build_bfcl_wheel(mirror, extra_files={"bfcl_eval/data/BFCL_v4_live_relevance.json": lines})
    build_gold_livemcpbench_wheel(mirror)
    (tmp / "servers.yaml").write_text(GOLD_SERVER_TABLE)
    overrides = world_overrides(tmp, mirror)
    config = load_config("fixture", overrides=overrides, environ={})
    crawl(config, out=str(tmp / "crawl"), sources_path=sources)
    score(config, in_dir=str(tmp / "crawl"), out=str(tmp / "score"))
    return SimpleNamespace(root=tmp, mirror=mirror, sources=sources, overrides=overrides, crawl=tmp / "crawl",
                           score=tmp / "score")  # fmt: skip


def use_world(monkeypatch: pytest.MonkeyPatch, overrides: list[str], profile: str | None = "fixture") -> None:
    """Point every ``load_config`` of this process (and of the processes it starts) at ``overrides``: one
    ``ECOAGENT__SECTION__KEY`` variable each, and ``ECOAGENT_PROFILE`` (a script that names its profile keeps it)."""
    if profile:
        monkeypatch.setenv("ECOAGENT_PROFILE", profile)
    for item in overrides:
        key, value = item.split("=", 1)
        monkeypatch.setenv("ECOAGENT__" + key.upper().replace(".", "__"), value)


@pytest.fixture(scope="session")
def standin(world: SimpleNamespace):
    """The paper-scale stand-in answering synth and verification prompts from the world's catalog."""
    from ecoagent.layout import SCORE_FILES

    with StandInOpenAI(PaperScaleResponder(world.score / SCORE_FILES.tools), keep_bodies=False) as server:
        yield server


def standin_overrides(server: StandInOpenAI, cache: Path) -> list[str]:
    """The LLM settings that send a script's requests to the stand-in, its answers cached in ``cache``."""
    return ["llm.backend=server", f"llm.base_url={server.base_url}", "llm.model=stand-in", "llm.max_retries=0",
            f"llm.cache_path={cache}"]  # fmt: skip
