"""Benchmark: the embedding cache's write path (ecoagent.retrieval.embedding.cache.Embedder) at paper scale.

The cache is persistent (``embedding.cache_dir``, by default ``~/.cache/ecoagent/embeddings``) and keeps every text
any refresh embedded. The round trip and the negatives encode a paper-scale Syn set in chunks of 1,024 queries
(``synth/roundtrip.py``, ``synth/negatives.py``), one ``encode`` call each. Before: every call rewrote the whole
cache file, so a call cost grew with everything the cache ever held. After: a call writes its new vectors as a
shard; the shards fold into the file once they hold as many rows as it does.

    .venv/bin/python benchmarks/embedding_cache.py [--held 100000] [--queries 70000] [--chunk 1024] [--record NAME]

Both runs start from the same cache file of ``--held`` vectors (what earlier refreshes left) and encode the same
``--queries`` new texts in chunks. Only the cache is timed: the model is replaced by a hash of the text (384
float32 numbers), the same for both, because the model's cost does not depend on how the cache is written. The
"before" is the previous write reproduced here (the whole file, atomically, after every call); it checks that both
leave the same vectors behind and that a fresh reader finds every text.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report
from benchmarking.record import add_record_option, write_record
from ecoagent.retrieval.embedding.cache import Embedder

DIM = 384


class HashModel:
    """Stands in for the model so that only the cache is timed: a fixed unit vector per text."""

    def encode(self, texts: list[str], **_: object) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            rows.append(np.random.default_rng(seed).standard_normal(DIM, dtype=np.float32))
        vectors = np.stack(rows)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class TimedEmbedder(Embedder):
    """The cache under test, with the model replaced and the time spent writing counted."""

    def __init__(self, cache_dir: Path):
        super().__init__("benchmark-model", cache_dir)
        self._model = HashModel()
        self.write_s = 0.0

    def _save(self, new_keys: list[str]) -> None:
        started = time.perf_counter()
        super()._save(new_keys)
        self.write_s += time.perf_counter() - started


class RewriteEverythingEmbedder(TimedEmbedder):
    """The previous write path: the whole cache file after every call."""

    def _save(self, new_keys: list[str]) -> None:
        started = time.perf_counter()
        keys = sorted(self._cache)
        tmp = self.cache_path.with_name(f"{self.cache_path.stem}.{uuid.uuid4().hex[:8]}.tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self._cache[k] for k in keys]))
        tmp.replace(self.cache_path)
        self.write_s += time.perf_counter() - started


def run(kind: type[TimedEmbedder], seed_cache: Path, work: Path, queries: list[str], chunk: int) -> dict:
    shutil.copytree(seed_cache, work)
    started = time.perf_counter()
    embedder = kind(work)
    load_s = time.perf_counter() - started
    for start in range(0, len(queries), chunk):
        embedder.encode(queries[start : start + chunk])
    total_s = time.perf_counter() - started
    reader = TimedEmbedder(work)
    reader._model = None  # a fresh process: it must find every text without a model
    found = reader.encode(queries[:: max(1, len(queries) // 1000)])
    return {
        "calls": -(-len(queries) // chunk),
        "load_s": round(load_s, 2),
        "write_s": round(embedder.write_s, 2),
        "total_s": round(total_s, 2),
        "bytes_on_disk": sum(p.stat().st_size for p in work.rglob("*") if p.is_file()),
        "reader_misses": reader.misses,
        "checksum": hashlib.sha256(found.tobytes()).hexdigest()[:16],
    }


def record(name: str, result: dict) -> None:
    """The figures as a record of the results page (``benchmarking/record.py``)."""
    before, after = result["before"], result["after"]
    rows = [[label, run["calls"], run["write_s"], run["total_s"], run["bytes_on_disk"], run["reader_misses"]]
            for label, run in (("before: whole file per call", before), ("after: shards", after))]  # fmt: skip
    write_record(
        name,
        title="The embedding cache's write path",
        section="paper-scale",
        benchmark=f"{result['queries']:,} new texts in chunks of {result['chunk']:,} onto a persistent cache of "
        f"{result['held']:,} (the model replaced by a hash: only the cache timed)",
        figures={
            "writes, after / before": f"{result['write_ratio']}x",
            "same vectors left behind": before["checksum"] == after["checksum"],
        },
        target="writes no longer grow with the cache",
        tables=[
            {"columns": ["write path", "calls", "write s", "whole run s", "bytes on disk", "re-embedded"], "rows": rows}
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held", type=int, default=100_000, help="vectors already in the cache")
    parser.add_argument("--queries", type=int, default=70_000, help="new texts encoded (the paper's Syn queries)")
    parser.add_argument("--chunk", type=int, default=1024, help="texts per encode call (the stages' chunk)")
    add_record_option(parser)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="embedding-cache-") as tmp:
        root = Path(tmp)
        seed_cache = root / "seed"
        seeder = TimedEmbedder(seed_cache)
        seeder.encode([f"an earlier refresh's query number {i}" for i in range(args.held)])
        queries = [f"find the invoices of customer {i} from last month" for i in range(args.queries)]
        before = run(RewriteEverythingEmbedder, seed_cache, root / "before", queries, args.chunk)
        after = run(TimedEmbedder, seed_cache, root / "after", queries, args.chunk)
    assert before["reader_misses"] == after["reader_misses"] == 0, "a fresh reader re-embedded a cached text"
    assert before["checksum"] == after["checksum"], "the two write paths left different vectors"
    result = {"held": args.held, "queries": args.queries, "chunk": args.chunk, "before": before, "after": after,
              "write_ratio": round(after["write_s"] / max(before["write_s"], 1e-9), 3)}  # fmt: skip
    print_report(
        result,
        f"{args.queries:,} new texts in {before['calls']} calls onto a cache of {args.held:,}: writes "
        f"{before['write_s']:.1f} s before, {after['write_s']:.1f} s after ({result['write_ratio']:.3f}x); "
        f"whole run {before['total_s']:.1f} s vs {after['total_s']:.1f} s; same vectors, 0 re-embedded",
    )
    if args.record:
        record(args.record, result)


if __name__ == "__main__":
    main()
