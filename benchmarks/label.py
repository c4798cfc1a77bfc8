"""Benchmark (EcoAgent-Real): candidate retrieval and verification throughput.

1. Candidate retrieval for all BFCL live queries over the full catalog: the exact matrix product
   (what the stage uses) vs a brute-force Python loop, on the same embeddings, in the same run.
   The loop is timed on a slice of the queries and extrapolated (it says so).
2. Verification throughput in pairs/s on the embedded backend (fresh response cache).

    .venv/bin/python benchmarks/label.py [--in SCORE_DIR] [--pairs 24]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report
from ecoagent.config import load_config
from ecoagent.layout import SCORE_FILES, RunLayout
from ecoagent.packages.fetch import fetch_data_wheel
from ecoagent.retrieval.embedding import query_and_tool_encoders
from ecoagent.store import ArtifactStore
from ecoagent.text.documents import tool_texts
from labeling.candidates import top_k_candidates, top_k_candidates_loop
from labeling.sources import read_bfcl
from scoring.stage import SCORE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--in", dest="in_dir", help="a score output folder (tools_scored.parquet)")
    parser.add_argument("--pairs", type=int, default=24, help="pairs to verify for the throughput figure")
    parser.add_argument("--loop-queries", type=int, default=20, help="queries timed with the Python loop")
    args = parser.parse_args()
    cfg = load_config()
    store = ArtifactStore(args.in_dir or RunLayout.of(cfg).folder(SCORE.name))
    catalog = store.read_parquet(SCORE_FILES.tools)
    queries = read_bfcl(fetch_data_wheel(cfg, cfg.label.bfcl_package), cfg.label.bfcl_categories).queries
    query_encoder, tool_encoder = query_and_tool_encoders(
        cfg.label.retriever, cfg.resolve_path(cfg.embedding.cache_dir), "label.retriever"
    )
    tool_vecs = tool_encoder.encode(
        tool_texts(catalog)
    )
    query_vecs = query_encoder.encode([q.text for q in queries])

    t = time.perf_counter()
    fast = top_k_candidates(query_vecs, tool_vecs, cfg.label.top_k, cfg.label.min_cosine)
    matrix_s = time.perf_counter() - t
    n = min(args.loop_queries, len(queries))
    t = time.perf_counter()
    slow = top_k_candidates_loop(query_vecs[:n], tool_vecs, cfg.label.top_k, cfg.label.min_cosine)
    loop_s = (time.perf_counter() - t) * len(queries) / n
    same = [[j for j, _ in row] for row in fast[:n]] == [[j for j, _ in row] for row in slow]

    from ecoagent.llm.backends import open_llm
    from labeling.verify import build_verify_requests, load_verify_prompt

    pairs = [
        {"query_id": q.query_id, "text": q.text, **catalog.row(j, named=True)}
        for q, cands in zip(queries, fast, strict=True)
        for j, _ in cands
    ][: args.pairs]
    requests = build_verify_requests(pairs, load_verify_prompt(), cfg.llm.model, cfg.label.max_tokens, cfg.seed)
    with tempfile.TemporaryDirectory() as tmp, open_llm(cfg, cache_path=Path(tmp) / "c.sqlite") as client:
        t = time.perf_counter()
        responses = client.generate(requests)
        verify_s = time.perf_counter() - t
    report = {
        "queries": len(queries),
        "tools": len(catalog),
        "matrix_seconds": round(matrix_s, 4),
        "loop_seconds_extrapolated": round(loop_s, 1),
        "loop_measured_on_queries": n,
        "loop_over_matrix": round(loop_s / matrix_s, 1),
        "same_candidates": same,
        "verified_pairs": len(requests),
        "verify_failed": sum(1 for r in responses if r.error),
        "pairs_per_second": round(len(requests) / verify_s, 3),
        "backend": cfg.llm.backend,
        "model": cfg.llm.model,
    }
    print_report(
        report,
        f"candidates for {len(queries)} queries x {len(catalog)} tools: matrix {matrix_s:.3f}s vs Python loop "
        f"{loop_s:.0f}s (extrapolated from {n} queries) = {loop_s / matrix_s:.0f}x; verification "
        f"{len(requests) / verify_s:.2f} pairs/s on the {cfg.llm.backend} backend",
    )


if __name__ == "__main__":
    main()
