"""A static query encoder in another encoder's space: model2vec's distillation, then fitted, no transformer per query.

A text's vector is the mean of its tokens' vectors (one row per vocabulary token). :func:`build_static` starts the
rows from each token through the encoder alone (model2vec's distillation) and fits them so that a text's mean lands
where the encoder puts the whole text; :func:`load_static` reads the result back as a batch encoder. The selector
serves it as its ``static:`` query encoder (``selector/encoders.py``), and ``ecoagent rated`` makes one from the query
tower it trains, beside the tower, so the selector starts from it without fitting.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ecoagent.runtime import context

logger = logging.getLogger(__name__)

# the release's query sets whose texts (never their labels) a static form is fitted on: train and validation splits
# only, and not Real's, whose labels were made by MiniLM agreement (the recall tables read Real as a check)
FIT_QUERY_SETS = ("syn/train", "syn/validation", "workflows/train", "workflows/validation", "workflows-title/train",
                  "workflows-title/validation", "package-requests/train", "package-requests/validation")


def fit_queries(release) -> list[str]:
    """The texts of ``release``'s :data:`FIT_QUERY_SETS` (a :class:`~ecoagent.release_format.reader.Release`)."""
    sets = release.query_sets
    return [t for name in FIT_QUERY_SETS if name in sets for t in sets[name].texts]


STATIC_RECORD = "done.json"  # written last into a made static form: what it was made from


def static_record(folder: Path) -> dict | None:
    """The record a made static form holds (what it was made from, e.g. a tower's fingerprint); None when the folder
    holds no finished form."""
    record = folder / STATIC_RECORD
    return json.loads(record.read_text()) if record.is_file() else None


def write_static_record(folder: Path, record: dict) -> None:
    """Mark ``folder`` as a finished static form made from ``record``."""
    (folder / STATIC_RECORD).write_text(json.dumps(record, indent=2))


def token_vectors(source: Path, tokenizer, batch: int = 512) -> np.ndarray:
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


def training_texts(documents: Sequence[str], windows: int = 15_000, seed: int = 0, queries: Sequence[str] = (),
                   whole_documents: bool = True) -> list[str]:  # fmt: skip
    """The tool texts (unless not ``whole_documents``), query-sized word windows of them (4-12 words) and
    ``queries``: the static form's fitting set."""
    rng = np.random.default_rng(seed)
    spans = []
    for document in documents:
        words = document.split()
        spans += [" ".join(words[start : start + int(rng.integers(4, 13))]) for start in range(0, len(words) - 3, 6)]
    chosen = rng.permutation(len(spans))[:windows]
    return list(dict.fromkeys([*(documents if whole_documents else ()), *(spans[i] for i in chosen), *queries]))


def build_static(source: Path, folder: Path, documents: Sequence[str], targets: Callable[[list[str]], np.ndarray],
                  queries: Sequence[str] = (), epochs: int = 20, seed: int = 0,
                  whole_documents: bool = True) -> int:  # fmt: skip
    """A query encoder with no transformer at query time, in the model's own vector space.

    Token vectors start from model2vec's distillation (:func:`token_vectors`; its ``distill`` extra pins a
    transformers older than ours, so the step is written out) and are then fitted so that the mean of a text's token
    vectors points where the model puts the whole text (cosine loss, lazy Adam: :func:`sparse_fitting`), on the tool
    texts, word windows of them and the release's unlabeled training queries (:func:`training_texts`). Tools keep the
    model's own vectors: only the query side is approximated. Saved as a model2vec ``StaticModel``; the number of
    fitting texts is returned.
    """
    import torch
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    torch.manual_seed(seed)
    tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    texts = training_texts(documents, seed=seed, queries=queries, whole_documents=whole_documents)
    logger.info("static embedding: fitting on %d texts (%d tool texts and word windows)", len(texts), len(documents))
    target = torch.nn.functional.normalize(torch.tensor(targets(texts)), dim=1)
    ids = [torch.tensor(e.ids) for e in tokenizer.encode_batch(texts, add_special_tokens=False)]
    bag, optimizer = sparse_fitting(token_vectors(source, tokenizer))
    generator = np.random.default_rng(seed)
    with context.phase("static embedding: fitting (epochs)", epochs) as fitting:
        for epoch in range(epochs):
            loss = fit_epoch(bag, optimizer, ids, target, generator)
            fitting.advance()
            context.say(f"static embedding: epoch {epoch + 1}/{epochs}, cosine loss {loss:.4f}")
    StaticModel(bag.weight.detach().numpy(), tokenizer, normalize=True, base_model_name=source.name,
                config={"fitted_on_texts": len(texts), "epochs": epochs, "pooling": "mean",
                        "optimizer": "SparseAdam"}).save_pretrained(folder)  # fmt: skip
    return len(texts)


def sparse_fitting(token_vectors: np.ndarray, lr: float = 3e-3) -> tuple:
    """The token table as a bag with sparse gradients and a lazy Adam over it: a step reads and moves only the rows of
    the batch's tokens (a few thousand of 30,522), where dense Adam rewrote the whole table every batch (15 s an
    epoch at 32,000 tools on two cores)."""
    import torch

    bag = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(token_vectors), freeze=False, sparse=True)
    return bag, torch.optim.SparseAdam(list(bag.parameters()), lr=lr)


def fit_epoch(bag, optimizer, ids: list, target, generator: np.random.Generator) -> float:
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


def load_static(folder: Path) -> Callable[[list[str]], np.ndarray]:
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
