"""Stage folders on object storage (an S3 server on 127.0.0.1: moto's server mode, through s3fs): a folder commits by
its marker, uploaded last; readers trust only committed folders; a stage that fails uploads nothing."""

from __future__ import annotations

import polars as pl
import pytest

from ecoagent.errors import MissingInput
from ecoagent.layout import SCORE_FILES, newest_release
from ecoagent.store import ArtifactStore, StageFolder
from tests.object_store import BUCKET, s3_server


@pytest.fixture(scope="module")
def bucket():
    with s3_server():
        yield f"s3://{BUCKET}"


def _score_generation(url: str, rows: int) -> None:
    with StageFolder(url, SCORE_FILES.names()).replace() as out:
        out.write_parquet(pl.DataFrame({"tool_id": [str(i) for i in range(rows)]}), SCORE_FILES.tools)
        out.write_json({"tools": rows}, SCORE_FILES.summary)


def test_a_stage_folder_commits_by_its_marker(bucket):
    url = f"{bucket}/a/score"
    _score_generation(url, 3)
    store = ArtifactStore(url)
    assert store.files() == sorted([SCORE_FILES.summary, SCORE_FILES.tools])
    assert store.read_table(SCORE_FILES.tools).height == 3
    _score_generation(url, 2)  # the next generation replaces the files, and only its own files are there
    assert store.read_json(SCORE_FILES.summary) == {"tools": 2}
    # a writer killed after it uncommitted the folder: readers refuse it with a line naming it
    store.fs.rm(store.path(SCORE_FILES.summary))
    with pytest.raises(MissingInput, match=r"not committed \(no score_summary\.json"):
        store.read_table(SCORE_FILES.tools)
    _score_generation(url, 4)  # the next run of the stage replaces it
    assert store.read_table(SCORE_FILES.tools).height == 4


def test_a_failing_stage_uploads_nothing_and_amend_keeps_the_rest(bucket):
    url = f"{bucket}/b/score"
    _score_generation(url, 3)
    with pytest.raises(RuntimeError, match="boom"), StageFolder(url, SCORE_FILES.names()).replace() as out:
        out.write_json({"tools": 0}, SCORE_FILES.summary)
        raise RuntimeError("boom")
    store = ArtifactStore(url)
    assert store.read_json(SCORE_FILES.summary) == {"tools": 3}
    with StageFolder(url, SCORE_FILES.names()).amend() as out:
        out.write_text("# gate\n", SCORE_FILES.gate_report)
    assert store.files() == sorted([SCORE_FILES.summary, SCORE_FILES.tools, SCORE_FILES.gate_report])
    assert store.read_table(SCORE_FILES.tools).height == 3


def test_the_newest_release_is_a_committed_one(bucket):
    root = ArtifactStore(f"{bucket}/c/release")
    for version in ("2026.11.3", "2026.11.29"):
        root.write_json({"version": version}, version, "manifest.json")
    root.write_text("half", "2026.12.1", "README.md")  # uploading: no manifest yet
    assert newest_release(root.url()) == f"{bucket}/c/release/2026.11.29"
    assert newest_release(f"{bucket}/c/missing") is None
