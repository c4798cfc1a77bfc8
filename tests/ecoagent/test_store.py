import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import polars as pl
import pytest

from ecoagent.errors import EXIT_CONFIG, BadInput, MissingInput
from ecoagent.store import ArtifactStore, FolderNotOwned, StageFolder


def test_writes_are_atomic_and_leave_no_temporaries(tmp_path):
    store = ArtifactStore(str(tmp_path / "s"))
    store.write_json({"b": 1, "a": 2}, "stage", "x.json")
    store.write_json({"b": 1, "a": 3}, "stage", "x.json")  # overwrite, never append
    assert store.read_json("stage", "x.json") == {"a": 3, "b": 1}
    assert sorted(p.name for p in (tmp_path / "s" / "stage").iterdir()) == ["x.json"]


def test_parquet_bytes_depend_only_on_the_data(tmp_path):
    store = ArtifactStore(str(tmp_path))
    frame = pl.DataFrame({"id": ["b", "a"], "n": [1, 2]})
    store.write_parquet(frame, "one.parquet")
    store.write_parquet(frame, "two.parquet")
    assert (tmp_path / "one.parquet").read_bytes() == (tmp_path / "two.parquet").read_bytes()
    assert store.read_parquet("one.parquet").equals(frame)


def test_memory_filesystem_works_unchanged():
    store = ArtifactStore("memory://eco-test")
    store.write_text("hello", "a", "b.txt")
    assert store.exists("a", "b.txt")
    assert store.url("a", "b.txt").startswith("memory://")
    folder = StageFolder("memory://eco-test/stage", outputs={"x.txt"}, marker="x.txt")
    with folder.replace() as out:
        assert out.is_local  # a generation bound for object storage is staged on the local disk
        out.write_text("one", "x.txt")
    assert store.fs.cat("/eco-test/stage/x.txt") == b"one"
    with pytest.raises(ValueError, match="needs a marker"):
        StageFolder("memory://eco-test/other")


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _hidden(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def _generation(final: Path, files: dict[str, str]) -> None:
    with StageFolder(str(final), outputs={"a.txt", "b.txt", "c.txt"}).replace() as out:
        for name, text in files.items():
            out.write_text(text, name)


def test_a_stage_folder_is_replaced_as_a_whole(tmp_path):
    final = tmp_path / "crawl"
    _generation(final, {"a.txt": "old a", "b.txt": "old b"})
    _generation(final, {"a.txt": "new a"})
    # the previous run's b.txt does not linger beside the new a.txt
    assert _listing(final) == {"a.txt": b"new a"}
    assert _hidden(tmp_path) == []


def test_a_failing_stage_keeps_the_previous_generation(tmp_path):
    final = tmp_path / "crawl"
    _generation(final, {"a.txt": "old a", "b.txt": "old b"})
    with pytest.raises(RuntimeError, match="boom"), StageFolder(str(final)).replace() as out:
        out.write_text("new a", "a.txt")
        raise RuntimeError("boom")
    assert _listing(final) == {"a.txt": b"old a", "b.txt": b"old b"}
    assert _hidden(tmp_path) == []


def test_a_folder_with_files_the_stage_does_not_write_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FolderNotOwned) as caught:
        StageFolder(str(tmp_path), outputs={"tools.parquet"})
    assert caught.value.exit_code == EXIT_CONFIG
    assert str(tmp_path) in str(caught.value) and "notes.txt" in str(caught.value)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_amend_adds_to_the_current_generation_without_touching_it(tmp_path):
    final = tmp_path / "score"
    _generation(final, {"a.txt": "scored", "b.txt": "old report"})
    before = os.stat(final / "b.txt").st_ino
    with StageFolder(str(final)).amend() as out:
        out.write_text("new report", "b.txt")
        out.write_text("more", "c.txt")
    assert _listing(final) == {"a.txt": b"scored", "b.txt": b"new report", "c.txt": b"more"}
    assert os.stat(final / "b.txt").st_ino != before  # a new file, not the old one rewritten in place
    assert _hidden(tmp_path) == []


def test_leftovers_of_a_live_process_are_kept(tmp_path):
    # pid 1 is always alive: its temporary may still be in use
    live = tmp_path / ".crawl.tmp-1-0123abcd"
    live.mkdir()
    dead = tmp_path / ".crawl.tmp-0123abcd"  # the release build's old naming, without a pid
    dead.mkdir()
    StageFolder(str(tmp_path / "crawl"))
    assert _hidden(tmp_path) == [live.name]


# The child writes a generation and SIGKILLs itself at a chosen point: while writing into the hidden folder,
# or between the two renames of the swap (the old generation renamed aside, the new one not yet in place).
_KILLED_CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from ecoagent.store import StageFolder

    final, point = sys.argv[1], sys.argv[2]
    rename = os.rename

    def rename_then_die(src, dst):
        rename(src, dst)
        if point == "swap" and src == final:
            os.kill(os.getpid(), signal.SIGKILL)

    os.rename = rename_then_die
    with StageFolder(final, outputs={"a.txt", "b.txt", "c.txt"}).replace() as out:
        out.write_text("new a", "a.txt")
        if point == "writing":
            os.kill(os.getpid(), signal.SIGKILL)
        out.write_text("new c", "c.txt")
    """
)


@pytest.mark.parametrize("point", ["writing", "swap"])
def test_a_kill_at_any_point_leaves_one_generation_and_the_rerun_cleans_up(tmp_path, point):
    final = tmp_path / "crawl"
    _generation(final, {"a.txt": "old a", "b.txt": "old b"})
    killed = subprocess.run([sys.executable, "-c", _KILLED_CHILD, str(final), point], cwd=Path(__file__).parents[2])
    assert killed.returncode == -signal.SIGKILL
    assert _hidden(tmp_path)  # the killed run's temporaries
    if point == "writing":
        assert _listing(final) == {"a.txt": b"old a", "b.txt": b"old b"}
    else:
        assert not final.exists()  # aside, complete: the next start puts it back
    StageFolder(str(final), outputs={"a.txt", "b.txt", "c.txt"})
    assert _listing(final) == {"a.txt": b"old a", "b.txt": b"old b"} and _hidden(tmp_path) == []
    _generation(final, {"a.txt": "new a", "c.txt": "new c"})
    assert _listing(final) == {"a.txt": b"new a", "c.txt": b"new c"} and _hidden(tmp_path) == []


def test_bad_input_tables_name_the_file(tmp_path):
    import pipeline.stages  # noqa: F401  (each stage declares the command writing its files)

    store = ArtifactStore(str(tmp_path))
    with pytest.raises(MissingInput, match="ecoagent crawl"):
        store.read_table("tools.parquet")
    store.write_parquet(pl.DataFrame({"tool_id": ["a"]}), "tools_scored.parquet")
    with pytest.raises(BadInput, match=r"tools_scored\.parquet.*r_static"):
        store.read_table("tools_scored.parquet", ["tool_id", "r_static"])
    full = (tmp_path / "tools_scored.parquet").read_bytes()
    (tmp_path / "tools_scored.parquet").write_bytes(full[: len(full) // 2])
    with pytest.raises(BadInput, match=r"tools_scored\.parquet is not a readable Parquet file"):
        store.read_table("tools_scored.parquet")
