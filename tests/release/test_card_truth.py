"""The card's statements about the catalog and Syn are true: each is read back from the card of a built release and
checked against the release's own tables (issue 25, section 5): how many packages yield a tool and why each other
one yields none, what de-duplication did and left, how many tools have an empty description, what ``on_topic`` is.

One release is built on the fixture profile from the real crawl and score of the fixture mirror (plus a package
with no tool in it); the Syn and Real files are the release tests' own (``make_stage_outputs``) on those tools. A
second one is built from crafted crawl records, so that every reason a package yields no tool, and every reason an
identical (name, description) group has no ``duplicate_group``, occurs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from crawlers.crawl import crawl
from ecoagent.config import load_config
from ecoagent.layout import CRAWL_FILES, LABEL_FILES, SCORE_FILES, SYNTH_FILES
from release.build import build_release
from scoring.score import score
from tests.fixture_packages import build_fixture_mirror, fixture_overrides
from tests.package_builders import build_npm_tgz
from tests.release.test_build import CONFIG, CREATED, make_stage_outputs, tool_id

EMPTY_PACKAGE = "@fixture/server-empty"


def _retarget(inputs, ids: list[str]) -> None:
    """The release tests' Syn and Real files with tool ``i`` replaced by ``ids[i]``."""
    mapping = {tool_id(i): real for i, real in enumerate(ids)}
    for folder, names in ((inputs.synth_dir, (SYNTH_FILES.queries, SYNTH_FILES.pairs)),
                          (inputs.label_dir, (LABEL_FILES.pairs,))):  # fmt: skip
        for name in names:
            path = Path(folder) / name
            frame = pl.read_parquet(path)
            frame.with_columns(pl.col("tool_id").replace(mapping)).write_parquet(path)


@pytest.fixture(scope="module")
def fixture_release(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("truth")
    mirror = tmp / "mirror"
    sources = build_fixture_mirror(mirror)
    build_npm_tgz(mirror, EMPTY_PACKAGE, "0.1.0", {"dist/index.js": "console.log('no tools here');\n"})
    sources.write_text(sources.read_text() + f'  - {{platform: mcp, registry: npm, name: "{EMPTY_PACKAGE}", '
                       'version: "0.1.0", listing: community}\n')  # fmt: skip
    config = load_config("fixture", overrides=[*fixture_overrides(mirror, tmp / "cache"),
                                                f"embedding.cache_dir={tmp / 'emb'}"], environ={})  # fmt: skip
    crawl(config, out=str(tmp / "crawl"), sources_path=sources)
    score(config, in_dir=str(tmp / "crawl"), out=str(tmp / "score"))
    ids = sorted(pl.read_parquet(tmp / "score" / SCORE_FILES.tools)["tool_id"])
    inputs = make_stage_outputs(tmp / "stages", list(range(len(ids))))
    for stage in ("crawl", "score"):
        shutil.rmtree(getattr(inputs, f"{stage}_dir"))
        shutil.copytree(tmp / stage, getattr(inputs, f"{stage}_dir"))
    _retarget(inputs, ids)
    result = build_release(inputs, tmp / "release" / "4.0.0", version="4.0.0", config=config, created=CREATED)
    return Path(result.folder)


def _card(folder: Path) -> str:
    from huggingface_hub import DatasetCard

    return DatasetCard.load(folder / "README.md").text


def _tools(folder: Path) -> pl.DataFrame:
    return pl.read_parquet(next((folder / "tools").glob("*.parquet")))


def _identical(tools: pl.DataFrame) -> tuple[int, int]:
    """(groups of tools with an identical (name, description), tools in them), from the tools config."""
    sizes = tools.group_by("name", pl.col("description").fill_null("")).len().filter(pl.col("len") > 1)
    return len(sizes), int(sizes["len"].sum())


def _checks(folder: Path) -> str:
    """Read every statement of section 5 back and check it against the release's tables; returns the card."""
    card, tools = _card(folder), _tools(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    with_tools = set(tools.select("platform", "package").iter_rows())
    fetched = [(p["platform"], p["name"]) for p in manifest["sources"]["packages"]]
    none = len([p for p in fetched if p not in with_tools])
    assert f"Tools: {len(tools)} from {len(with_tools)} packages" in card
    assert f"{len(fetched)} pinned packages were fetched and read, {none} of them yield no tool" in card
    assert "normalized into one schema and de-duplicated" not in card
    assert "exact duplicates are dropped" in card and "near-duplicates are kept and grouped" in card
    groups, members = _identical(tools)
    assert f"{groups} groups of tools with an identical (name, description) remain ({members} tools" in card
    empty = int((tools["description"].fill_null("").str.strip_chars() == "").sum())
    assert f"{empty} tools have an empty description" in card
    assert "**`on_topic`** is a round-trip retrieval check" in card
    assert "not measured against people's judgment" in card
    return card


def test_the_fixture_release_card_tells_the_truth_about_its_catalog(fixture_release: Path):
    card = _checks(fixture_release)
    assert f"| mcp | {EMPTY_PACKAGE} | 0.1.0 | nothing found" in card


def test_every_reason_a_package_yields_no_tool_and_a_group_has_no_duplicate_group(tmp_path: Path):
    inputs = make_stage_outputs(tmp_path / "stages", list(range(8)))
    crawl_dir, score_dir = Path(inputs.crawl_dir), Path(inputs.score_dir)
    fetched = json.loads((crawl_dir / CRAWL_FILES.fetch_manifest).read_text())
    for name in ("pkg-broken-archive", "pkg-all-dropped", "pkg-nothing"):
        fetched.append({**fetched[0], "name": name, "platform": "mcp"})
    (crawl_dir / CRAWL_FILES.fetch_manifest).write_text(json.dumps(fetched))
    summary = {"package_errors": [{"package": "npm:pkg-broken-archive@1.0.0", "platform": "mcp", "where": "a.tgz",
                                   "reason": "not a gzip file", "fatal": True}],
               "drops_by_reason": {"exact_duplicate": 2}, "near_duplicates": {"same_description_groups": 1,
                                                                               "same_description_tools": 2}}
    (crawl_dir / CRAWL_FILES.summary).write_text(json.dumps(summary))
    drops = [{"tool_id": "mcp:pkg-all-dropped:a", "reason": "exact_duplicate", "kept": tool_id(0)},
             {"tool_id": "mcp:pkg-all-dropped:b", "reason": "invalid_record: name: too short"}]
    (crawl_dir / CRAWL_FILES.drops).write_text(json.dumps(drops))
    path = score_dir / SCORE_FILES.tools
    tools = pl.read_parquet(path)
    same = pl.col("tool_id").is_in([tool_id(1), tool_id(2)])  # one package, a long description: no group
    short = pl.col("tool_id").is_in([tool_id(3), tool_id(4)])  # a description too short to group
    tools = tools.with_columns(
        pl.when(same).then(pl.lit("twin_tool")).when(short).then(pl.lit("short_tool")).otherwise("name").alias("name"),
        pl.when(same).then(pl.lit("Manage twin records: create, list and delete them."))
        .when(short).then(pl.lit("Short.")).when(pl.col("tool_id") == tool_id(5)).then(pl.lit(""))
        .otherwise("description").alias("description"),
    )  # fmt: skip
    tools.write_parquet(path)
    folder = Path(build_release(inputs, tmp_path / "release" / "4.0.1", version="4.0.1", config=CONFIG,
                           created=CREATED).folder)  # fmt: skip
    card = _checks(folder)
    assert "| mcp | pkg-broken-archive | 1.0.0 | could not be read: a.tgz: not a gzip file |" in card
    dropped = "every tool found was dropped: exact_duplicate 1, invalid_record 1"
    assert f"| mcp | pkg-all-dropped | 1.0.0 | {dropped} |" in card
    assert "| mcp | pkg-nothing | 1.0.0 | nothing found" in card
    assert "exact duplicates are dropped (2 tools" in card and "(1 groups, 2 tools)" in card
    assert "4 of those tools carry no `duplicate_group` (all copies in one package 2, description under 20 " \
           "characters 2" in card
