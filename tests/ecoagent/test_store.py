import polars as pl

from ecoagent.store import ArtifactStore


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
