"""Where each trained encoder chooses its epoch (``rated.encoder.selection_queries``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ecoagent.config import make_config
from ecoagent.release_format.reader import Corpus, QuerySet, Release
from rated.encoder import selection_queries

CORPUS = Corpus(ids=["a", "b"], titles=["", ""], texts=["x", "y"], r_static=np.zeros(2), platforms=["n8n"] * 2)


def _release(*names: str) -> Release:
    sets = {name: QuerySet(name, ["q"], ["text"], [[0]]) for name in names}
    return Release(Path("."), "0", CORPUS, pl.DataFrame({"tool_id": CORPUS.ids}), sets)


def test_a_tool_disjoint_source_chooses_on_its_own_validation_split_the_others_on_the_shared_one() -> None:
    rated = make_config().rated
    release = _release("workflows/validation", "workflows-disjoint/validation")
    assert selection_queries(release, rated, "workflows-disjoint/train").name == "workflows-disjoint/validation"
    assert selection_queries(release, rated, "syn/train").name == "workflows/validation"
    assert selection_queries(release, rated, "workflows/train").name == "workflows/validation"
    # a release without the disjoint view's validation split: the shared one, as before
    assert selection_queries(_release("workflows/validation"), rated, "workflows-disjoint/train").name == (
        "workflows/validation")
