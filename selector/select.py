"""The tool selector: query from task state, permission filter, hybrid ranking, token budget.

One call of :meth:`ToolSelector.select`:

1. build the query from the last message plus task state (goal, plan, recent turns, tools used),
   so a bare "yes, do it" still finds the tools of the task in progress;
2. keep only the tools the caller may use (tenant subset and scopes) -- before any scoring;
3. score those with BM25 and the dense encoder, fuse by reciprocal rank fusion;
4. optionally re-rank the top ``rerank_top`` (20-50) with a cross-encoder or any callable;
5. pack the core tools, then the tools already used in the conversation, then candidates in rank
   order, into the token budget (real tokens), skipping one that does not fit;
6. emit core tools first, then the rest, each in registry order (a stable prompt prefix).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ecoagent.retrieval.embedding.static import fit_queries
from ecoagent.retrieval.fusion import best_first, fuse
from selector.budget import pack
from selector.encoders import DEFAULT_DENSE_MODEL, DenseEncoder, resolve_dense_model
from selector.ranking import DenseScorer, LexicalScorer, QueryEncoder, Reranker
from selector.registry import ToolRegistry
from selector.selection_log import SelectionLog

logger = logging.getLogger(__name__)

RANKERS = ("bm25", "dense")


class EmptyQuery(ValueError):
    pass


@dataclass(frozen=True)
class TaskState:
    """What the agent knows beyond the last message."""

    goal: str = ""
    plan: Sequence[str] = ()
    history: Sequence[str] = ()  # earlier messages of the conversation, oldest first
    recent_tools: Sequence[str] = ()  # tool ids already called in the conversation


@dataclass(frozen=True)
class SelectorConfig:
    rankers: tuple[str, ...] = RANKERS
    # RRF k and weights tuned on EcoAgent-Real train+validation (recall@5; 31 queries, so only the
    # direction is solid): BM25 alone is far weaker than MiniLM on this catalog and at equal weight
    # drags the fused list down; the textbook k=60 with equal weights is SelectorConfig(rrf_k=60,
    # weights={"bm25": 1.0, "dense": 1.0}).
    rrf_k: float = 30.0
    weights: dict[str, float] = field(default_factory=lambda: {"bm25": 0.25, "dense": 1.0})
    fusion_depth: int = 100  # each ranker's top list that enters the fusion
    candidate_pool: int = 50  # fused candidates handed to the re-ranker and the budgeter
    rerank_top: int = 0  # 0: no re-ranking; else the top 20-50 of the fused list
    max_tools: int = 5  # non-core tools on the menu (the seed: keep k at 3-8)
    token_budget: int = 4000  # default budget in real prompt tokens when a call gives none
    core_tools: tuple[str, ...] = ()  # added to the registry's core tools
    history_turns: int = 2  # earlier messages that go into the query
    keep_recent_tools: bool = True  # tools called earlier stay exposed: the history refers to them
    lexical_stats: str = "tenant"  # "tenant" or "scope_set" (see selector.ranking)

    def __post_init__(self):
        unknown = [r for r in self.rankers if r not in RANKERS]
        if unknown or not self.rankers:
            raise ValueError(f"rankers must be a non-empty subset of {RANKERS}, got {self.rankers}")
        if self.max_tools < 0 or self.candidate_pool < 1 or self.fusion_depth < 1 or self.rrf_k <= 0:
            raise ValueError("max_tools >= 0, candidate_pool >= 1, fusion_depth >= 1 and rrf_k > 0")


@dataclass(frozen=True)
class PreparedSelection:
    """A checked request, ready to be scored: what :meth:`ToolSelector.prepare` hands :meth:`ToolSelector.complete`."""

    message: str  # the query as sent
    query: str  # the query the rankers see (message plus task state)
    caller_scopes: tuple[str, ...]
    tenant: str | None
    budget: int
    max_tools: int
    mask: np.ndarray  # allowed registry rows (read-only)
    allowed_rows: np.ndarray
    recent: list[int]  # allowed rows of the tools already called


@dataclass(frozen=True)
class Selection:
    tool_ids: list[str]  # core tools first, then the rest, each in registry order
    tokens: int
    query: str  # the query the rankers saw
    core: list[str]
    ranked: list[str]  # the fused (re-ranked) candidates, best first, before the budget
    selection_id: str | None = None


def build_query(message: str, state: TaskState | None, history_turns: int, tool_names: Sequence[str] = ()) -> str:
    """The last message first, then the goal, plan, recent turns and names of the tools in use."""
    parts = [message.strip()]
    if state is not None:
        parts += [state.goal.strip(), *(p.strip() for p in state.plan)]
        if history_turns > 0:
            parts += [h.strip() for h in list(state.history)[-history_turns:]]
        parts += list(tool_names)
    return "\n".join(p for p in parts if p)


class ToolSelector:
    """Selects tool definitions for one agent turn over a :class:`ToolRegistry`.

    The dense side is injected: ``tool_vectors`` (one L2-normalized row per registry row) and
    ``encode_query`` (text -> vector). :meth:`from_release` wires the packaged MiniLM.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        settings: SelectorConfig | None = None,
        tool_vectors: np.ndarray | None = None,
        encode_query: QueryEncoder | None = None,
        reranker: Reranker | None = None,
        log: SelectionLog | None = None,
    ):
        self.registry = registry
        self.encoder: DenseEncoder | None = None  # batch query encoding for the service (set by from_release)
        self.settings = settings or SelectorConfig()
        self.reranker = reranker
        self.log = log
        if self.settings.rerank_top and reranker is None:
            raise ValueError("rerank_top > 0 needs a reranker")
        self.lexical = LexicalScorer([t.document for t in registry.tools], self.settings.lexical_stats)
        self.dense: DenseScorer | None = None
        if "dense" in self.settings.rankers:
            if tool_vectors is None or encode_query is None:
                raise ValueError("the dense ranker needs tool_vectors and encode_query (or rankers=('bm25',))")
            if len(tool_vectors) != len(registry):
                raise ValueError(f"{len(tool_vectors)} tool vectors for {len(registry)} registry tools")
            self.dense = DenseScorer(tool_vectors, encode_query)
        extra_core = [registry.row_of[c] for c in self.settings.core_tools if c in registry.row_of]
        missing = [c for c in self.settings.core_tools if c not in registry.row_of]
        if missing:
            raise ValueError(f"core tool(s) {missing} are not in the registry")
        self.core_rows = np.array(sorted(set(registry.core_rows.tolist()) | set(extra_core)), dtype=np.int64)

    @classmethod
    def from_release(
        cls,
        folder: str | Path,
        settings: SelectorConfig | None = None,
        dense_model: str = DEFAULT_DENSE_MODEL,
        cache_dir: Path | None = None,
        log: SelectionLog | None = None,
        reranker: Reranker | None = None,
        encoder_threads: int = 1,
        encoder: DenseEncoder | None = None,
    ) -> ToolSelector:
        """A selector over a release folder; the dense side is ``dense_model`` (:mod:`selector.encoders`), or
        ``encoder`` when it is that model's (a release swap keeps the loaded model).

        Tool vectors come from the embedding cache under ``cache_dir`` (encoded once, with a progress line per
        batch); the lexical index of the whole registry is built and the query encoder loaded here too, so the first
        request pays for none of them.
        """
        from ecoagent.release_format.reader import load_release
        from ecoagent.release_format.vectors import adopt_release_vectors, vectors_line

        settings = settings or SelectorConfig()
        release = load_release(folder)
        registry = ToolRegistry.of_release(release, core_tools=settings.core_tools)
        if "dense" in settings.rankers and dense_model != (dense_model := resolve_dense_model(dense_model, release)):
            logger.info("--dense-model auto: %s on release %s", dense_model, release.version)
        vectors = None
        if "dense" not in settings.rankers:
            encoder = None
        elif encoder is None or encoder.spec != dense_model:  # an encoder of the same model is reused (swaps)
            encoder = DenseEncoder(dense_model, cache_dir, threads=encoder_threads)
        if encoder is not None and cache_dir is not None:  # the shipped vectors serve the tools' encoder from the cache
            logger.info(vectors_line(adopt_release_vectors(release, cache_dir)))
        if encoder is not None:
            vectors = encoder.encode_tools([t.document for t in registry.tools],
                                           fit_queries(release) if encoder.needs_fitting else ())  # fmt: skip
        selector = cls(registry, settings, vectors, encoder.encode_query if encoder else None, reranker=reranker,
                       log=log)  # fmt: skip
        selector.encoder = encoder
        if "bm25" in settings.rankers:
            selector.lexical.scores("", registry.rows_of_tenant(None), None, registry.rows_of_tenant(None))
        if encoder is not None:
            encoder.encode_queries(["warm-up"])  # a lazily loaded query model loads now, not on the first request
        return selector

    # -- ranking ---------------------------------------------------------------------------------

    def rank(
        self,
        query: str,
        allowed_rows: np.ndarray,
        tenant: str | None = None,
        limit: int | None = None,
        query_vector: np.ndarray | None = None,
        dense_scores: np.ndarray | None = None,
    ) -> list[int]:
        """Allowed registry rows best first (fused, then re-ranked), at most ``limit`` (candidate_pool).

        The dense side takes ``dense_scores`` (every registry tool's, computed for a batch of queries at once) or
        ``query_vector`` (the query encoded), else encodes ``query``.
        """
        return self._rank_rows(query, allowed_rows, tenant, limit, query_vector, dense_scores).tolist()

    def _rank_rows(self, query: str, allowed_rows: np.ndarray, tenant: str | None, limit: int | None,
                   query_vector: np.ndarray | None, dense_scores: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        cfg = self.settings
        limit = cfg.candidate_pool if limit is None else limit
        if not len(allowed_rows) or limit <= 0:
            return np.zeros(0, dtype=np.int64)
        rankings, weights = [], []
        if "bm25" in cfg.rankers:
            lexical = self.lexical.scores(query, allowed_rows, tenant, self.registry.rows_of_tenant(tenant))
            rankings.append(best_first(lexical, cfg.fusion_depth, positive=True))  # no shared word: no lexical rank
            weights.append(cfg.weights.get("bm25", 1.0))
        if self.dense is not None:
            semantic = self.dense.scores(query, allowed_rows, query_vector, dense_scores)
            rankings.append(best_first(semantic, cfg.fusion_depth))
            weights.append(cfg.weights.get("dense", 1.0))
        order = fuse(rankings, weights, cfg.rrf_k, limit)
        if self.reranker is not None and cfg.rerank_top:
            head, tail = order[: cfg.rerank_top], order[cfg.rerank_top :]
            rerank = np.asarray(self.reranker(query, [self.registry.tools[allowed_rows[p]].document for p in head]))
            order = np.concatenate([head[np.argsort(-rerank, kind="stable")], tail])
        return allowed_rows[order]

    # -- selection -------------------------------------------------------------------------------

    def select(self, query: str, task_state: TaskState | None = None, caller_scopes: Sequence[str] = (),
               token_budget: int | None = None, tenant: str | None = None) -> list[str]:  # fmt: skip
        """Tool ids for the prompt: core tools first, then the chosen ones, each in registry order."""
        return self.select_detailed(query, task_state, caller_scopes, token_budget, tenant).tool_ids

    def select_detailed(
        self,
        query: str,
        task_state: TaskState | None = None,
        caller_scopes: Sequence[str] = (),
        token_budget: int | None = None,
        tenant: str | None = None,
        query_vector: np.ndarray | None = None,
        max_tools: int | None = None,
    ) -> Selection:
        """:meth:`select` with the details; ``query_vector`` skips encoding, ``max_tools`` overrides the settings'."""
        return self.complete(self.prepare(query, task_state, caller_scopes, token_budget, tenant, max_tools),
                             query_vector)  # fmt: skip

    def prepare(self, query: str, task_state: TaskState | None = None, caller_scopes: Sequence[str] = (),
                token_budget: int | None = None, tenant: str | None = None,
                max_tools: int | None = None) -> PreparedSelection:  # fmt: skip
        """Steps 1-2 of a selection: check the caller, filter the registry, build the query; nothing is scored.

        Raises what a bad request deserves (UnknownScope, UnknownTenant, EmptyQuery, ValueError for the budget)
        before any encoder runs. The service encodes :attr:`PreparedSelection.query` in a batch with other
        requests' queries, then calls :meth:`complete`.
        """
        cfg = self.settings
        budget = cfg.token_budget if token_budget is None else token_budget
        if budget <= 0:
            raise ValueError(f"token_budget must be positive, got {budget}")
        mask, allowed_rows = self.registry.allowed_rows(caller_scopes, tenant)  # raises UnknownScope / UnknownTenant
        recent = self._recent_rows(task_state, mask)
        names = [self.registry.tools[r].name for r in recent]
        built = build_query(query, task_state, cfg.history_turns, names)
        if not built:
            raise EmptyQuery("the query is empty and there is no task state to build one from")
        return PreparedSelection(query, built, tuple(caller_scopes), tenant, budget,
                                 cfg.max_tools if max_tools is None else max_tools, mask, allowed_rows, recent)

    def complete(self, prepared: PreparedSelection, query_vector: np.ndarray | None = None,
                 dense_scores: np.ndarray | None = None) -> Selection:  # fmt: skip
        """Steps 3-6: rank the allowed tools, pack the budget, emit in registry order (and log the selection).

        ``dense_scores``: the dense scores of every registry tool for this query (the service's batches).
        """
        p = prepared
        ranked = self._rank_rows(p.query, p.allowed_rows, p.tenant, None, query_vector, dense_scores)
        core = [r for r in self.core_rows.tolist() if p.mask[r]]
        core_kept, picked, used = pack(core, [*p.recent, *ranked.tolist()], self.registry.token_list, p.budget,
                                       p.max_tools)  # fmt: skip
        ids = self.registry.ids
        core_ids = [ids[r] for r in sorted(core_kept)]
        chosen = core_ids + [ids[r] for r in sorted(picked)]
        selection_id = None
        if self.log is not None:
            selection_id = self.log.record_selection(p.message, p.query, p.caller_scopes, chosen, p.tenant)
        logger.debug("selected %s for %r (%d tokens)", chosen, p.query[:80], used)
        return Selection(chosen, used, p.query, core_ids, self.registry.id_array[ranked].tolist(), selection_id)

    def _recent_rows(self, state: TaskState | None, mask: np.ndarray) -> list[int]:
        if state is None or not self.settings.keep_recent_tools:
            return []
        rows = []
        for tool_id in dict.fromkeys(state.recent_tools):
            row = self.registry.row_of.get(tool_id)
            if row is not None and mask[row]:  # an unknown or forbidden past tool is simply not kept
                rows.append(row)
        return rows
