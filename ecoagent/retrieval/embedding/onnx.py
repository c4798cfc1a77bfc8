"""ONNX Runtime for the CPU: a sentence-transformers transformer with mean pooling, its graph exported once.

On the CPU, a sentence-transformers model that is a transformer with mean pooling (MiniLM) runs on ONNX Runtime
(:class:`_OnnxModel`: the same fp32 weights, its graph exported once per machine; vectors within about 2e-7 of
``SentenceTransformer.encode``), about 1.2x its texts/s on these 2 cores; any other model, and any model on CUDA,
runs on sentence-transformers (:attr:`ecoagent.retrieval.embedding.cache.Embedder.model` chooses).
"""

from __future__ import annotations

import hashlib
import json
import uuid
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np

from ecoagent.retrieval.embedding.threads import ThreadsNow

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
        config_file = folder / "sentence_bert_config.json"
        self.max_length = (int(json.loads(config_file.read_text()).get("max_seq_length") or 512)
                           if config_file.exists() else 512)
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
