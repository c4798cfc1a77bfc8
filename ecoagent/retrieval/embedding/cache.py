"""The :class:`Embedder`: sentence embeddings with a cache keyed by (model, text hash).

An unchanged text is never embedded twice: vectors live in one ``.npz`` file per model under the
cache folder, plus the shards written since that file was last rewritten (``<file>.parts/``). An
encode call writes only its new vectors, as a shard; the shards fold into the file once they hold as
many rows as it does, so a cache of n vectors costs O(n) writes in all. (Rewriting the whole file on
every call made each call's cost grow with all the persistent cache ever held:
``benchmarks/embedding_cache.py``.) The model itself is loaded lazily, only when some text is missing
from the cache, so a warm rerun does not even import sentence-transformers.

Each text is embedded once per model across the stages: the cache key is the model (and, for a model with query and
document prompts, the role), so a model without prompts (MiniLM) shares one cache file whatever role a caller asks
for (the negatives' tools, the label agreement's pairs and RATED's queries hit the same vectors).

Where the model comes from (:mod:`.models`), where it runs (:mod:`.device`), on ONNX Runtime or sentence-transformers
(:mod:`.onnx`) and on how many threads (:mod:`.threads`): the modules beside this one.
"""

from __future__ import annotations

import hashlib
import time
import uuid
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ecoagent.retrieval.embedding.device import resolve_device
from ecoagent.retrieval.embedding.models import _sentence_transformer, has_role_prompts, resolve_model_path
from ecoagent.retrieval.embedding.onnx import _onnx_model, _OnnxModel, onnx_exportable
from ecoagent.retrieval.embedding.threads import _torch_threads, encoder_threads

# Texts are embedded in chunks, and a phase's count moves after each: the first chunk is small, the next ones hold
# about REPORT_EVERY_S of work at the rate seen so far (e5 on 300 long workflow texts: ~50 texts), at most
# PROGRESS_CHUNK. The vectors do not depend on the chunks (the same bytes: tests/ecoagent/retrieval/embedding).
FIRST_CHUNK = 32
REPORT_EVERY_S = 10.0
PROGRESS_CHUNK = 512
# What a text costs to embed, for the phase's time left (texts go longest first, so the count alone extrapolates the
# slowest texts' rate): its characters, up to what MiniLM reads of a text, plus a fixed cost per text. MiniLM on
# 2 cores: about 0.6 ms a text plus 0.04-0.05 ms a character, flat past about 1,200 characters (its 256 tokens).
TEXT_COST_CHARS = 16
TEXT_CAP_CHARS = 1_200


def text_cost(text: str) -> int:
    """A text's share of an encode call's work, in characters (:data:`TEXT_COST_CHARS`, :data:`TEXT_CAP_CHARS`)."""
    return min(len(text), TEXT_CAP_CHARS) + TEXT_COST_CHARS


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def trained_model_filing(cache_dir: Path | None, fingerprint: str, folder: Path) -> tuple[Path | None, str]:
    """Where a model trained into ``folder`` files its vectors: a cache folder of its weights' ``fingerprint`` (a
    retrained model never reads stale vectors) and a key of the fingerprint and the folder's name, not its path (a copy
    of the folder elsewhere, RATED's or the selector's, reads what the original wrote)."""
    return (cache_dir / f"trained-{fingerprint}" if cache_dir else None), f"trained-{fingerprint}|{folder.name}"


def _parts_dir(cache_path: Path) -> Path:
    return cache_path.with_name(f"{cache_path.name}.parts")


def cache_files(cache_path: Path) -> list[Path]:
    """A model's cache file, then the shards written since it was last rewritten (whichever exist)."""
    parts = _parts_dir(cache_path)
    return [cache_path, *(sorted(parts.glob("*.npz")) if parts.is_dir() else [])]


class Embedder:
    """Normalized sentence embeddings with a persistent per-model cache."""

    def __init__(
        self,
        spec: str,
        cache_dir: Path | None,
        batch_size: int = 64,
        setting: str = "embedder",
        role: str | None = None,
        device: str = "cpu",
        key: str | None = None,
    ):
        # key: the name the vectors are filed under (default: spec); a model trained into a folder is filed under
        # its weights' fingerprint, so a copy of the folder elsewhere reads the vectors the original wrote.
        # role "query" / "document": encode with the model's query or document route and prompt (an
        # asymmetric dual encoder, e5's prefixes); None: plain encode, as the scoring stages do.
        if role not in (None, "query", "document"):
            raise ValueError(f"{setting}: role must be query, document or None, not {role!r}")
        if role is not None and not has_role_prompts(spec):
            role = None  # the same vectors whatever the role: one cache file, each text embedded once
        self.spec = spec
        self.role = role
        self.setting = setting
        self.batch_size = batch_size
        self.device = device  # auto | cpu | cuda (embedding.device): where the model runs when it has to
        self._model = None
        filed = key or spec
        self.name = filed if role is None else f"{filed}|{role}"  # what its vectors are filed and counted under
        safe = hashlib.sha256(self.name.encode()).hexdigest()[:12]
        self.cache_path = cache_dir / f"{safe}.npz" if cache_dir else None
        self.parts_dir = _parts_dir(self.cache_path) if self.cache_path else None
        self._cache: dict[str, np.ndarray] = {}
        self._file_rows = 0  # rows in cache_path when it was read or last written
        self._part_rows = 0
        self._parts: list[Path] = []  # shards whose vectors are in self._cache: the ones a rewrite may delete
        self._file_stamp: int | None = None  # cache_path's mtime when it was read or last written
        self.hits = 0
        self.misses = 0
        if self.cache_path:
            self._read_new_files()

    def _read_new_files(self) -> None:
        """The cache file (when it changed) and the shards not read yet: another embedder of the model (another
        process, or a release's vectors taken in) may have written them since this one read the cache."""
        file, *parts = cache_files(self.cache_path)
        stamp = file.stat().st_mtime_ns if file.exists() else None
        if stamp != self._file_stamp:
            self._file_rows, self._file_stamp = (self._read(file) if stamp is not None else 0), stamp
        for part in parts:
            if part not in self._parts:
                self._part_rows += self._read(part)
                self._parts.append(part)

    def _read(self, path: Path) -> int:
        try:
            data = np.load(path)
            self._cache.update(zip(data["keys"].tolist(), data["vectors"], strict=True))
            return len(data["keys"])
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            # a cache: an unreadable file only costs its texts a new embedding (writes are atomic, so this is a
            # file damaged from outside, not a half-written one)
            return 0

    @property
    def model(self):
        if self._model is None:
            path, device = resolve_model_path(self.spec, self.setting), resolve_device(self.device)
            onnx = device == "cpu" and self.role is None and onnx_exportable(path)
            self._model = _onnx_model(path) if onnx else _sentence_transformer(path, device)
        return self._model

    def _encode_missing(self, texts: list[str]) -> np.ndarray:
        """The model's vectors of ``texts`` on :func:`encoder_threads` threads."""
        if isinstance(self.model, _OnnxModel):  # its own threads per call, and no torch import on the way
            return self.model.encode(texts, batch_size=self.batch_size)
        encode = self.model.encode
        if self.role == "query":
            encode = self.model.encode_query
        elif self.role == "document":
            encode = self.model.encode_document
        with _torch_threads(encoder_threads()):
            return encode(texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True,
                          show_progress_bar=False)  # fmt: skip

    def _uncached(self, keys: Iterable[str]) -> set[str]:
        """The text keys the cache lacks, once it has read what was written to it since (only when some lack)."""
        absent = {key for key in keys if key not in self._cache}
        if absent and self.cache_path:
            self._read_new_files()
            absent = {key for key in absent if key not in self._cache}
        return absent

    def missing(self, texts: Sequence[str]) -> int:
        """How many distinct texts are not in the cache: what :meth:`encode` would embed now."""
        return len(self._uncached(map(text_key, texts)))

    def encode(self, texts: Sequence[str], phase: str | None = None) -> np.ndarray:
        """One L2-normalized float32 row per text, in order. With ``phase``, the texts to embed (the cache's misses)
        are counted under that name in the running step (:mod:`ecoagent.runtime.context`) as chunks of them finish."""
        from ecoagent.runtime import context
        from ecoagent.runtime.usage import EMBEDDED_STAT

        keys = [text_key(t) for t in texts]
        absent = self._uncached(keys)
        missing = {key: text for key, text in zip(keys, texts, strict=True) if key in absent}
        self.misses += len(missing)
        self.hits += len(keys) - len(missing)
        if missing:  # the running stage's usage counts the texts each model embedded (ecoagent.runtime.usage)
            context.stat(f"{EMBEDDED_STAT}{self.name}", len(missing))
        # longest first across all chunks, as one call would batch them: a chunk of mixed lengths pads every batch to
        # its longest text (about 2x slower on the catalog); the vectors do not depend on the batch they are in
        keys_todo = sorted(missing, key=lambda key: -len(missing[key]))
        todo = [missing[key] for key in keys_todo]
        # also with nothing to embed: the phase's line says it was served from the cache
        with context.phase(phase, len(todo)) as embedding:
            if missing:
                costs = np.cumsum([text_cost(text) for text in todo])
                start, chunk = 0, FIRST_CHUNK
                while start < len(todo):
                    started = time.perf_counter()
                    vectors = self._encode_missing(todo[start : start + chunk]).astype(np.float32)
                    self._cache.update(zip(keys_todo[start : start + chunk], vectors, strict=True))
                    start += len(vectors)
                    embedding.update(start, share=float(costs[start - 1] / costs[-1]))
                    rate = len(vectors) / max(time.perf_counter() - started, 1e-6)
                    chunk = int(min(max(rate * REPORT_EVERY_S, FIRST_CHUNK), PROGRESS_CHUNK))
                self._save(keys_todo)
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._cache[k] for k in keys])

    def adopt(self, texts: Sequence[str], vectors: np.ndarray) -> int:
        """Take into the cache the vectors this model gave ``texts`` elsewhere (a release's shipped vectors, checked
        against the manifest when read): a text the cache lacks gains its vector, one it holds keeps its own. Nothing
        is embedded, so nothing counts as embedded; returns how many texts the cache gained."""
        gained: dict[str, np.ndarray] = {}
        for text, vector in zip(texts, vectors, strict=True):
            key = text_key(text)
            if key not in self._cache and key not in gained:
                gained[key] = np.asarray(vector, dtype=np.float32)
        if gained:
            self._cache.update(gained)
            self._save(sorted(gained))
        return len(gained)

    def _save(self, new_keys: list[str]) -> None:
        if not self.cache_path:
            return
        if self._part_rows + len(new_keys) < self._file_rows:
            self._parts.append(self._write(self.parts_dir, f"{uuid.uuid4().hex}.npz", new_keys))
            self._part_rows += len(new_keys)
            return
        # the shards hold as many rows as the file: fold everything into the file, so it at least doubles
        written = self._write(self.cache_path.parent, self.cache_path.name, sorted(self._cache))
        self._file_stamp = written.stat().st_mtime_ns
        for part in self._parts:
            part.unlink(missing_ok=True)  # a shard another process wrote meanwhile is not ours to delete
        self._parts, self._file_rows, self._part_rows = [], len(self._cache), 0

    def _write(self, folder: Path, name: str, keys: list[str]) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / name
        tmp = folder / f".{name}.{uuid.uuid4().hex[:8]}.tmp"  # not *.npz: a reader never picks it up
        with open(tmp, "wb") as fh:
            np.savez(fh, keys=np.array(keys), vectors=np.stack([self._cache[k] for k in keys]))
        tmp.replace(target)
        return target
