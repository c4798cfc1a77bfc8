"""Negative mining for (query, tool) pairs: SBERT hard negatives plus seeded random ones, behind a false-negative guard.

The RATED paper pairs each positive with two negatives; here ``hard`` of them are the catalog tools closest to the
query under SBERT (query text vs ``tool_text``: the tool's corpus document) and ``random_`` are uniform draws. Neither
may be a tool that would in fact satisfy the query. The FALSE-NEGATIVE GUARD rejects a candidate when any of these
holds:

- it is the positive itself;
- same normalized name (lowercase, letters and digits only), whatever the service: two tools named ``send_message``
  are too likely to be interchangeable for a generic query;
- same or near-identical description: the normalized texts are equal, both carry the same ``duplicate_group``, or their
  word sets have a Jaccard similarity of at least ``NEAR_IDENTICAL_JACCARD``;
- same service on any platform (:func:`ecoagent.text.words.service_key`) doing the same operation: their operation keys
  intersect.

Operation key (``operation_keys``): a tool names its operation in its ``name`` and again in ``source_symbol``
(n8n ``slack:message:post``, LangChain ``SlackSendMessage``, LlamaIndex ``SlackToolSpec.send_message``, MCP
``slack_post_message``). Of the name, the part after an n8n-style "Service:" prefix is used; of the symbol, the n8n
operation and resource, the method after the last ".", or the mode after a "Toolkit:". Each text is split into
lowercase words (camelCase, ``_``, ``:``, ``.``); the service's own words (also spelled over several words: "git hub"),
articles/prepositions and boilerplate (``tool``, ``spec``, ``run``, ``api``) are dropped. The first word that is a
known verb becomes the canonical verb (post/publish/send -> send; get/fetch/retrieve/read/lookup -> get; get many /
get all / list -> list; search/find/query -> search; add/create/insert/new -> create; update/edit/modify/set ->
update; delete/remove/trash -> delete); a verb outside this table (lock, merge, append) stays among the object words
with an empty verb. The object words are singularized, generic ones (data, info, details, results, contents) dropped,
and sorted. The key is ``verb:object+object``, so "Slack: Send a message", ``slack:message:post`` and
``slack_post_message`` all give ``send:message``. A tool gets up to two keys (name and symbol); one shared key is
enough, which errs towards guarding.

Determinism: hard negatives are ordered by score with ties broken by catalog order; random draws use a generator
seeded with ``(seed, hash of query_id)``, so a query's negatives do not depend on which other queries are mined with it.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import polars as pl
from scipy import sparse

from ecoagent.retrieval.embedding.cache import Embedder
from ecoagent.text.documents import tool_texts
from ecoagent.text.words import service_key

NEAR_IDENTICAL_JACCARD = 0.9
_QUERY_CHUNK = 1024

_VERBS = {
    "send": "send", "post": "send", "publish": "send", "notify": "send",
    "get": "get", "fetch": "get", "retrieve": "get", "read": "get", "lookup": "get", "look": "get", "info": "get",
    "show": "get", "view": "get", "describe": "get", "load": "get",
    "list": "list", "getall": "list", "getmany": "list", "browse": "list",
    "search": "search", "find": "search", "query": "search",
    "create": "create", "add": "create", "insert": "create", "new": "create", "make": "create",
    "update": "update", "edit": "update", "modify": "update", "patch": "update", "set": "update", "change": "update",
    "delete": "delete", "remove": "delete", "trash": "delete", "destroy": "delete", "erase": "delete",
}  # fmt: skip
_PLURAL_WORDS = {"many", "all", "multiple", "several"}  # "get many X" is a list operation
_FILLER = {
    "a", "an", "the", "as", "to", "of", "for", "from", "in", "into", "on", "by", "with", "and", "or", "at", "up", "its",
    "tool", "tools", "toolspec", "spec", "run", "api", "action", "operation",
}  # fmt: skip
# Objects too generic to tell operations apart: "search_data" and "search" are one operation.
_GENERIC_OBJECTS = {"data", "info", "information", "detail", "result", "content"}
_NOT_PLURAL = {"news", "series", "species", "https", "sms", "aws", "dns", "os"}


def _split_words(text: str) -> list[str]:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", text)
    return [w for w in re.split(r"[^a-zA-Z0-9]+", text.lower()) if w]


def _singular(word: str) -> str:
    if word in _NOT_PLURAL or len(word) <= 3 or word.endswith(("ss", "us", "is", "as")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def _drop_service(tokens: list[str], service: str) -> list[str]:
    """Remove runs of words that spell the normalized service ("git", "hub" for github; "google", "sheets")."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        run = next((n for n in range(4, 0, -1) if service and "".join(tokens[i : i + n]) == service), 0)
        if run and not (run == 1 and tokens[i] in _VERBS):  # "search" of a service called "search" is the operation
            i += run
        else:
            out.append(tokens[i])
            i += 1
    return out


def _operation_key(text: str, service: str, service_words: set[str]) -> str | None:
    tokens = _drop_service(_split_words(text), service)
    tokens = [w for w in tokens if w not in _FILLER and (w not in service_words or w in _VERBS)]
    verb_at = next((i for i, w in enumerate(tokens) if w in _VERBS), None)
    if verb_at is None:
        if not tokens:
            return None
        verb, rest = "", tokens
    else:
        verb = _VERBS[tokens[verb_at]]
        rest = tokens[:verb_at] + tokens[verb_at + 1 :]
        if verb == "get" and any(w in _PLURAL_WORDS for w in rest):
            verb = "list"
    objects = sorted({_singular(w) for w in rest if w not in _PLURAL_WORDS} - _GENERIC_OBJECTS)
    return f"{verb}:{'+'.join(objects)}"


def operation_keys(name: str | None, source_symbol: str | None, service: str | None) -> set[str]:
    """The tool's normalized operation keys (see the module docstring), from its name and its source symbol."""
    service_words = set(_split_words(service or "")) | {service_key(service)}
    texts = []
    if name:
        # n8n names are "Service Name: Operation"; the prefix is the service.
        texts.append(name.split(":", 1)[1] if ":" in name else name)
    if source_symbol:
        parts = source_symbol.split(":")
        if len(parts) >= 3:  # n8n node:resource:operation
            texts.append(f"{parts[-1]} {parts[-2]}")
        else:  # Class, Class.method, Toolkit:mode
            texts.append(parts[-1].rsplit(".", 1)[-1])
    keys = {_operation_key(t, service_key(service), service_words) for t in texts}
    keys.discard(None)
    return keys  # type: ignore[return-value]


def _norm_text(text: str | None) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", (text or "").lower()))


def _column(catalog: pl.DataFrame, name: str) -> list:
    return catalog[name].to_list() if name in catalog.columns else [None] * catalog.height


class _Guard:
    """Which catalog tools may not be a negative for a given positive (computed once per positive tool)."""

    def __init__(self, catalog: pl.DataFrame):
        names = [_norm_text(n).replace(" ", "") for n in _column(catalog, "name")]
        descriptions = [_norm_text(d) for d in _column(catalog, "description")]
        self.names = np.array(names, dtype=object)
        self.descriptions = np.array(descriptions, dtype=object)
        self.groups = np.array(_column(catalog, "duplicate_group"), dtype=object)
        self.services = np.array([service_key(s) for s in _column(catalog, "service")], dtype=object)
        self.keys = [
            operation_keys(n, s, v)
            for n, s, v in zip(
                _column(catalog, "name"), _column(catalog, "source_symbol"), _column(catalog, "service"), strict=True
            )
        ]
        # Binary word-set matrix: Jaccard of every tool's description with one positive in a sparse product.
        vocab: dict[str, int] = {}
        rows, cols = [], []
        for i, text in enumerate(descriptions):
            for word in set(text.split()):
                rows.append(i)
                cols.append(vocab.setdefault(word, len(vocab)))
        self.bags = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(descriptions), max(len(vocab), 1))
        )
        self.bag_sizes = np.asarray(self.bags.sum(axis=1)).ravel()
        self._cache: dict[int, np.ndarray] = {}

    def blocked(self, positive: int) -> np.ndarray:
        if positive in self._cache:
            return self._cache[positive]
        mask = np.zeros(len(self.names), dtype=bool)
        mask[positive] = True
        if self.names[positive]:
            mask |= self.names == self.names[positive]
        if self.descriptions[positive]:
            mask |= self.descriptions == self.descriptions[positive]
            inter = np.asarray((self.bags @ self.bags[positive].T).todense()).ravel()
            union = self.bag_sizes + self.bag_sizes[positive] - inter
            mask |= inter / np.maximum(union, 1) >= NEAR_IDENTICAL_JACCARD
        if self.groups[positive] is not None:
            mask |= self.groups == self.groups[positive]
        service, keys = self.services[positive], self.keys[positive]
        if service and keys:
            for i in np.flatnonzero(self.services == service):
                if keys & self.keys[i]:
                    mask[i] = True
        self._cache[positive] = mask
        return mask


def _query_rng(seed: int, query_id: object) -> np.random.Generator:
    digest = int.from_bytes(hashlib.sha256(str(query_id).encode()).digest()[:8], "little")
    return np.random.default_rng([seed, digest])


def mine_negatives(
    queries: pl.DataFrame,
    catalog: pl.DataFrame,
    *,
    embedder: Embedder,
    hard: int,
    random_: int,
    seed: int,
) -> pl.DataFrame:
    """Negatives for each query (columns query_id, tool_id, text; tool_id is the positive).

    Returns query_id, tool_id, label (0), negative_type ("hard" first, by descending cosine, then "random"). A query
    gets fewer than ``hard + random_`` rows only when the guard leaves fewer candidates; hard and random negatives of
    one query never repeat a tool.
    """
    tool_ids = catalog["tool_id"].to_list()
    position = {tool_id: i for i, tool_id in enumerate(tool_ids)}
    positives = queries["tool_id"].to_list()
    missing = sorted({t for t in positives if t not in position})
    if missing:
        raise ValueError(f"{len(missing)} positive tool ids are not in the catalog, e.g. {missing[0]!r}")
    guard = _Guard(catalog)
    out_query: list = []
    out_tool: list[str] = []
    out_type: list[str] = []
    if queries.height and catalog.height:
        query_ids = queries["query_id"].to_list()
        query_texts = queries["text"].to_list()
        tool_vectors = _catalog_vectors(catalog, query_texts, embedder, hard)
        for start in range(0, queries.height, _QUERY_CHUNK):
            stop = start + _QUERY_CHUNK
            scores = embedder.encode(query_texts[start:stop]) @ tool_vectors.T if tool_vectors is not None else None
            for j, (query_id, positive) in enumerate(zip(query_ids[start:stop], positives[start:stop], strict=True)):
                blocked = guard.blocked(position[positive])
                row_scores = scores[j] if scores is not None else None
                for i, negative_type in _query_negatives(row_scores, blocked, hard, random_, seed, query_id):
                    out_query.append(query_id)
                    out_tool.append(tool_ids[i])
                    out_type.append(negative_type)
    query_dtype = queries.schema["query_id"] if "query_id" in queries.columns else pl.String()
    return pl.DataFrame(
        {
            "query_id": pl.Series(out_query, dtype=query_dtype),
            "tool_id": pl.Series(out_tool, dtype=pl.String()),
            "label": pl.Series([0] * len(out_tool), dtype=pl.Int8()),
            "negative_type": pl.Series(out_type, dtype=pl.String()),
        }
    )


def _catalog_vectors(
    catalog: pl.DataFrame, query_texts: list[str], embedder: Embedder, hard: int
) -> np.ndarray | None:
    """The catalog tools' vectors (name and description), with the queries embedded into the cache; None when no
    hard negative is asked for."""
    texts = tool_texts(catalog)
    tool_vectors = None
    if hard > 0:  # the queries all at once, for the progress line: the chunks below are served from the cache
        tool_vectors = embedder.encode(texts, phase="negatives: embed the catalog (MiniLM)")
        embedder.encode(query_texts, phase="negatives: embed the queries (MiniLM)")
    return tool_vectors


def _query_negatives(
    scores: np.ndarray | None, blocked: np.ndarray, hard: int, random_: int, seed: int, query_id: object
) -> list[tuple[int, str]]:
    """One query's negatives as (catalog row, type): the ``hard`` closest unblocked tools, then ``random_`` drawn
    from the rest by the query's own RNG."""
    negatives: list[tuple[int, str]] = []
    chosen: list[int] = []
    if scores is not None:
        order = np.argsort(-scores, kind="stable")
        chosen = [int(i) for i in order[~blocked[order]][:hard]]
        negatives += [(i, "hard") for i in chosen]
    allowed = np.flatnonzero(~blocked)
    allowed = allowed[~np.isin(allowed, chosen)]
    if random_ > 0 and allowed.size:
        drawn = _query_rng(seed, query_id).choice(allowed, size=min(random_, allowed.size), replace=False)
        negatives += [(int(i), "random") for i in drawn]
    return negatives
