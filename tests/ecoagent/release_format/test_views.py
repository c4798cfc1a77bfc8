"""The paper-scale view: a release restricted to some listings, its queries re-indexed onto the kept tools."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from ecoagent.release_format.reader import load_release
from ecoagent.release_format.views import listing_view


def _with_community_tools(release, community: set[int]):
    """The release with the tools of rows ``community`` moved to the community listing."""
    listing = ["community" if i in community else "official" for i in range(len(release.corpus))]
    return replace(release, tools=release.tools.with_columns(pl.Series("listing", listing)))


def test_the_view_keeps_the_listed_tools_and_the_queries_it_can_answer(tiny_release: Path) -> None:
    release = _with_community_tools(load_release(tiny_release), {0, 3})
    view, rows, dropped = listing_view(release, ("official",))
    assert rows.tolist() == [i for i in range(len(release.corpus)) if i not in (0, 3)]
    assert view.corpus.ids == [release.corpus.ids[i] for i in rows]
    np.testing.assert_array_equal(view.corpus.r_static, release.corpus.r_static[rows])
    assert view.tools["tool_id"].to_list() == view.corpus.ids
    for name, queries in release.query_sets.items():
        needs_community = sum(any(r in (0, 3) for r in rel) for rel in queries.relevant)
        assert dropped[name] == needs_community
        kept = view.query_sets.get(name)
        assert (len(kept) if kept else 0) == len(queries) - needs_community
        if kept:  # the same tools, by id, at their new rows
            full = dict(zip(queries.ids, queries.relevant, strict=True))
            for qid, rel in zip(kept.ids, kept.relevant, strict=True):
                assert [view.corpus.ids[r] for r in rel] == [release.corpus.ids[r] for r in full[qid]]


def test_an_alternative_outside_the_view_is_dropped_not_the_query(tmp_path: Path) -> None:
    from tests.release.tiny_release import build_tiny_release

    release = load_release(build_tiny_release(tmp_path, workflows=True))
    workflows = release.queries("workflows/train") or release.queries("workflows/test")
    i = next(i for i, a in enumerate(workflows.acceptable or []) if a)
    outside = set(workflows.acceptable[i]) - set(workflows.relevant[i])
    view, _, _ = listing_view(_with_community_tools(release, outside), ("official",))
    kept = view.query_sets[workflows.name]
    j = kept.ids.index(workflows.ids[i])
    assert kept.acceptable[j] == []


def test_no_tool_in_the_listings_names_the_listings_and_the_setting(tiny_release: Path) -> None:
    with pytest.raises(ValueError, match=r"platform.*official.*rated.paper_scale.listings"):
        listing_view(load_release(tiny_release), ("platform",))
