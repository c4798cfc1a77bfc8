"""``ecoagent rated``: RATED on one release, end to end, into one output folder.

1. read the release (:mod:`ecoagent.release_reader`);
2. fit the offline baselines (:mod:`rated.baselines`) and train the RATED encoder on Syn train, the
   grid chosen on validation (:mod:`rated.encoder`);
3. Table 1: MRR, Recall@1/5, nDCG@10 with ranx on Syn test, Real test, the gold set (human-annotated, several
   relevant tools per query) and the cold-start splits
   (:mod:`rated.offline`);
4. Table 2: the failure-injection simulator over the Real test stream for every static retriever
   and every dynamic policy on the trained ranker, each (scenario, rho) over the configured seeds
   (:mod:`rated.simulator`), with plots (:mod:`rated.plots`);
5. Table 3: per-step latency at batch 1 (:mod:`rated.latency`) and the simulator's wall time;
6. ``report.md`` (our numbers beside the paper's, :mod:`rated.report`) and ``metrics.json``.

Outputs in ``out_dir``: ``report.md``, ``metrics.json``, ``plots/*.png``, ``model/`` (the trained
encoder with ``rated_train.json``; reused by a rerun with the same release and settings).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ecoagent.config import Config
from ecoagent.progress import ProgressLog
from ecoagent.release_reader import Release, load_release, query_set
from ecoagent.retrieval import DenseRetriever, Retriever, top_k
from ecoagent.store import ArtifactStore
from rated.simulator import Method, SimulationConfig, SimulationInputs, run_experiment

log = logging.getLogger(__name__)

TABLE1_SETS = ("syn/test", "real/test", "gold/test", "syn/cold_start", "real/cold_start")


def dynamic_policies(config: Config) -> dict[str, tuple[str, dict]]:
    """Table 2's dynamic rows: display name -> (policy short name, constructor options from ``rated``)."""
    rated = config.rated
    fusion = {"weights": tuple(rated.fusion_weights)}
    bandit = {**fusion, "alpha": rated.alpha, "gamma": rated.gamma}
    return {
        "Health Check Blacklist": ("blacklist", {}),
        "Retry (k=3)": ("retry", {"k": 3}),
        "ToolRL-like Batch (periodic)": ("batch", {**fusion, "period": rated.batch_period}),
        "RATED (w/o Feedback)": ("rated_no_feedback", {**fusion, "alpha": rated.alpha}),
        "RATED (w/ Global MAB)": ("rated_global_mab", bandit),
        "RATED (Full)": ("rated", {**bandit, "diagonal": rated.diagonal}),
        "RATED (Full, full-matrix A)": ("rated", {**bandit, "diagonal": False}),
        # ours, not the paper's: see rated.bandit (the prior on a constant feature, the ridge kept)
        "RATED (Full, intercept prior)": ("rated", {**bandit, "diagonal": True, "intercept": True}),
    }


@dataclass
class RatedResult:
    out_dir: Path
    report_path: Path
    metrics_path: Path
    metrics: dict


def simulation_config(config: Config) -> SimulationConfig:
    sim = config.rated.simulation
    return SimulationConfig(
        steps=sim.steps,
        onset=sim.onset,
        post=tuple(sim.metric_window),
        window=sim.adaptation_window,
        theta={float(k): v for k, v in sim.thresholds.items()},
        skip_top=sim.skip_top_share,
        recover_at=sim.recovery_step,
        flap_down=sim.flap_down,
        flap_up=sim.flap_up,
    )


def simulation_inputs(
    scores: np.ndarray, query_vectors: np.ndarray, gold: list[list[int]], r_static: np.ndarray, k: int
) -> SimulationInputs:
    candidates = top_k(scores, k)
    return SimulationInputs(query_vectors, candidates, np.take_along_axis(scores, candidates, axis=1), gold, r_static)


def dynamic_evaluation(
    release: Release,
    stream_name: str,
    statics: list[Retriever],
    ranker: DenseRetriever,
    config: Config,
    plots_dir: Path,
    progress: Callable[[str], None] = log.info,
) -> dict:
    """Table 2 on one query stream: static rows per retriever, dynamic rows on the trained ranker; a progress line
    (simulations done / total, rate, ETA) every ``progress_interval_s``."""
    queries = query_set(release, stream_name)
    if queries is None:
        return {"stream": stream_name, "skipped": f"the release has no {stream_name} queries"}
    k = config.rated.top_k
    vectors = ranker.encode_queries(queries.texts)  # the bandit context of every method
    r_static = release.corpus.r_static
    ranker_inputs = simulation_inputs(ranker.score(queries.texts), vectors, queries.relevant, r_static, k)
    methods = [
        Method(
            f"{r.name} (static)",
            "static",
            simulation_inputs(r.score(queries.texts), vectors, queries.relevant, r_static, k),
        )
        for r in statics
    ]
    methods.append(Method("RATED encoder (static)", "static", ranker_inputs))
    for name, (policy, options) in dynamic_policies(config).items():
        methods.append(Method(name, policy, ranker_inputs, options))
    sim = config.rated.simulation
    sim_config = simulation_config(config)
    started = time.perf_counter()
    description = f"Table 2 on {queries.name}: simulations"
    with ProgressLog(description, interval_s=config.progress_interval_s, emit=progress) as bar:
        experiment = run_experiment(
            methods, sim.seeds, sim.scenarios, sim.failure_rates, sim_config, progress=bar.update
        )
    seconds = time.perf_counter() - started
    from rated.plots import plot_traces

    safe = stream_name.replace("/", "-").replace("+", "_")
    plots = plot_traces(
        experiment.traces,
        plots_dir / safe,
        window=sim_config.window,
        onset=sim_config.onset,
        recover_at=sim_config.recover_at,
    )
    return {
        "stream": queries.name,
        "queries": len(queries),
        "distinct_gold_tools": len({t for rel in queries.relevant for t in rel}),
        "seconds": round(seconds, 1),
        "plots": [str(p.relative_to(plots_dir.parent)) for p in plots],
        **experiment.summary,
    }


def latency_table(ranker: DenseRetriever, release: Release, config: Config) -> dict:
    from rated.latency import measure_latency

    queries = query_set(release, config.rated.stream) or query_set(release, config.rated.stream_fallback)
    texts = queries.texts if queries else ["find a tool"]
    assert ranker.tool_vectors is not None
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # batch 1 gains nothing from more threads, and they add jitter on a shared CPU
    try:
        return measure_latency(
            ranker.encode_query_uncached,
            ranker.tool_vectors,
            release.corpus.r_static,
            texts,
            k=config.rated.top_k,
            steps=config.rated.latency_steps,
            warmup=min(200, config.rated.latency_steps),
        )
    finally:
        torch.set_num_threads(threads)


def rated_run(
    config: Config,
    release_folder: Path,
    out_dir: Path,
    progress: Callable[[str], None] = log.info,
) -> RatedResult:
    from rated.baselines import offline_baselines, reranker
    from rated.encoder import choose_encoder
    from rated.offline import evaluate
    from rated.report import render_report

    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    release = load_release(release_folder)
    cache = config.resolve_path(config.embedding.cache_dir)
    progress(f"release {release.version}: {len(release.corpus)} tools, splits {sorted(release.query_sets)}")

    interval = config.progress_interval_s
    with ProgressLog("fit the offline baselines", interval_s=interval, emit=progress):
        baselines = offline_baselines(config.rated, release.corpus, cache)
    progress(f"baselines: {', '.join(r.name for r in baselines.retrievers)}")
    with ProgressLog("train (or reuse) the RATED encoder", interval_s=interval, emit=progress):
        encoder = choose_encoder(release, config.rated, out_dir, config.seed, cache)
    progress(f"encoder: {encoder.record['settings']}, {encoder.record['steps']} steps")
    rerank, rerank_skipped = reranker(config.rated, encoder.trained, release.corpus)
    skipped = dict(baselines.skipped)
    if rerank_skipped:
        skipped["cross-encoder re-ranker"] = rerank_skipped

    retrievers: list[Retriever] = [*baselines.retrievers, encoder.untrained]
    if rerank is not None:
        retrievers.append(rerank)
    retrievers.append(encoder.trained)
    table1: dict[str, dict] = {}
    with ProgressLog("Table 1: query sets", len(TABLE1_SETS), interval_s=interval, emit=progress) as bar:
        for done, name in enumerate(TABLE1_SETS, 1):
            queries = release.queries(name)
            if queries is None:
                table1[name] = {"skipped": f"no {name} queries in release {release.version}"}
            else:
                table1[name] = {r.name: evaluate(r.score(queries.texts), queries, release.corpus) for r in retrievers}
            bar.update(done)
    progress("Table 1 done")

    statics = [r for r in retrievers if r is not encoder.trained]
    streams = [config.rated.stream]
    main = query_set(release, config.rated.stream)
    if main is None or len(main) < config.rated.min_stream_queries:
        streams.append(config.rated.stream_fallback)
    table2 = [
        dynamic_evaluation(release, s, statics, encoder.trained, config, out_dir / "plots", progress) for s in streams
    ]
    progress("Table 2 done")
    table3 = latency_table(encoder.trained, release, config)
    progress("Table 3 done")

    metrics = {
        "release": {"folder": str(release.folder), "version": release.version},
        "profile": config.profile,
        "seed": config.seed,
        "settings": config.rated.model_dump(mode="json"),
        "encoder": encoder.record,
        "skipped": skipped,
        "table1": table1,
        "table2": table2,
        "table3": table3,
        "seconds": round(time.perf_counter() - started, 1),
    }
    store = ArtifactStore(str(out_dir))
    metrics_path = Path(store.write_json(metrics, "metrics.json"))
    report_path = Path(store.write_text(render_report(metrics), "report.md"))
    return RatedResult(out_dir, report_path, metrics_path, metrics)


def read_metrics(out_dir: Path) -> dict:
    return json.loads((out_dir / "metrics.json").read_text())
