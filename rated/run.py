"""``ecoagent rated``: RATED on one release, end to end, into one output folder.

1. read the release (:mod:`ecoagent.release_format.reader`);
2. fit the offline baselines (:mod:`rated.baselines`) and train the RATED encoder on Syn train, the
   grid chosen on validation (:mod:`rated.encoder`);
3. Table 1: MRR, Recall@1/5, nDCG@10 with ranx on Syn test, Real test, the gold set (human-annotated, several
   relevant tools per query) and the cold-start splits
   (:mod:`ecoagent.retrieval.evaluation`);
4. Table 2: RATED (Full)'s reward, bandit context and gamma chosen on the validation stream, with
   every variant tried and Figure 4's sweeps (:mod:`rated.tuning`); then the failure-injection
   simulator over the test stream (Real test when it is big enough, else the catalog-anchored stream
   of :mod:`rated.anchored`) for every static retriever and every dynamic policy on the trained
   ranker, each (scenario, rho) over the configured seeds (:mod:`rated.simulator`), the fused score
   taken apart at fault selections (:mod:`rated.diagnosis`), with plots (:mod:`rated.plots`);
5. Table 3: per-step latency at batch 1 (:mod:`rated.latency`) and the simulator's wall time;
6. ``report.md`` (our numbers beside the paper's, :mod:`rated.report`) and ``metrics.json``.

Outputs in ``out_dir``: ``report.md``, ``metrics.json``, ``plots/*.png``, ``model/`` (the trained
encoder with ``rated_train.json``; reused by a rerun with the same release and settings).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ecoagent.config import Config
from ecoagent.layout import RATED_FILES, RATED_MARKER
from ecoagent.release_format.reader import QuerySet, Release, load_release, query_set
from ecoagent.retrieval.evaluation import offline_table
from ecoagent.retrieval.rankers import DenseRetriever, Retriever, top_k
from ecoagent.runtime import context
from ecoagent.store import ArtifactStore, StageFolder
from rated.anchored import anchored_streams
from rated.bandit import MAX_INVERSE
from rated.paper import ALGORITHM1
from rated.simulator import (
    SKIP_ROUNDINGS,
    Method,
    SimulationConfig,
    SimulationInputs,
    draw_stream,
    run_experiment,
    skipped_count,
)
from rated.tuning import bandit_options

log = logging.getLogger(__name__)

# workflows-title: the same workflow queries by their title alone (the underspecified track)
TABLE1_SETS = ("syn/test", "real/test", "workflows/test", "workflows-title/test", "gold/test", "syn/cold_start",
               "real/cold_start", "workflows/cold_start")  # fmt: skip
AS_WRITTEN = "RATED (Full, Algorithm 1 as written)"


def dynamic_policies(config: Config, chosen: dict) -> dict[str, tuple[str, dict, tuple[str, ...] | None]]:
    """Table 2's dynamic rows: display name -> (policy short name, options, scenarios or None for all).

    ``chosen`` is the validation choice of :func:`rated.tuning.tune` (reward, context, gamma): RATED
    (Full) and its ablations (global MAB, batch proxy) learn from that reward with that discount.
    "Algorithm 1 as written" is the paper's text whatever the config says; a reward of
    ``rated.tuning.rewards`` that was not chosen gets its own row, so both readings are in the table.
    """
    rated = config.rated
    fusion = {"weights": tuple(rated.fusion_weights)}
    full = bandit_options(config, **chosen)
    learning = {**fusion, "alpha": rated.alpha, "gamma": chosen["gamma"], "reward": chosen["reward"]}
    rows: dict[str, tuple[str, dict, tuple[str, ...] | None]] = {
        "Health Check Blacklist": ("blacklist", {}, None),
        "Retry (k=3)": ("retry", {"k": 3}, None),
        "ToolRL-like Batch (periodic)": ("batch", {**fusion, "period": rated.batch_period, "reward": chosen["reward"]},
                                         None),
        "RATED (w/o Feedback)": ("rated_no_feedback", {**fusion, "alpha": rated.alpha}, None),
        "RATED (w/ Global MAB)": ("rated_global_mab", learning, None),
        "RATED (Full)": ("rated", full, None),
        AS_WRITTEN: ("rated", dict(ALGORITHM1), None),
    }  # fmt: skip
    for reward in rated.tuning.rewards:  # the paper's reward is already in the as-written row
        if reward not in (chosen["reward"], ALGORITHM1["reward"]):
            rows[f"RATED (Full, reward {reward})"] = ("rated", {**full, "reward": reward}, None)
    # ours, not the paper's: see rated.bandit (the prior on a constant feature, the ridge kept)
    rows["RATED (Full, intercept prior)"] = ("rated", {**full, "diagonal": True, "intercept": True}, None)
    # the full-matrix update as the paper writes it (no cap) and/or the capped one as a declared variant
    # (rated.full_matrix); O(d^2) per step and a d x d matrix per touched tool, so persistent failures only
    persistent = ("persistent",)
    if "faithful" in rated.full_matrix:
        rows["RATED (Full, full-matrix A)"] = ("rated", {**full, "diagonal": False}, persistent)
    if "capped" in rated.full_matrix:
        capped = {**full, "diagonal": False, "max_inverse": MAX_INVERSE}
        rows["RATED (Full, full-matrix A, A^-1 capped)"] = ("rated", capped, persistent)
    return rows


@dataclass
class RatedResult:
    out_dir: str  # a local path or the store's URL
    report_path: str
    metrics_path: str
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
        skip_rounding=sim.skip_top_rounding,
        recover_at=sim.recovery_step,
        flap_down=sim.flap_down,
        flap_up=sim.flap_up,
    )


def simulation_inputs(
    scores: np.ndarray,
    query_vectors: np.ndarray,
    gold: list[list[int]],
    r_static: np.ndarray,
    k: int,
    tool_vectors: np.ndarray | None = None,
    popularity: np.ndarray | None = None,
) -> SimulationInputs:
    candidates = top_k(scores, k)
    sem = np.take_along_axis(scores, candidates, axis=1)
    # a tool taken out of a query's ranking (-inf: an alternative) enters its K candidates only when the catalog has
    # fewer than K others; it stays last, at the lowest cosine, so the fused score stays finite
    sem = np.where(np.isfinite(sem), sem, -1.0)
    return SimulationInputs(query_vectors, candidates, sem, gold, r_static, tool_vectors=tool_vectors,
                            popularity=popularity)  # fmt: skip


def stream_popularity(queries: QuerySet, config: Config) -> tuple[np.ndarray | None, str]:
    """``(draw weights or None for uniform, how the stream is drawn in words)`` under ``rated.stream_popularity``:
    weight = the query's views where the split carries them, uniform otherwise."""
    if config.rated.stream_popularity == "views" and queries.views is not None and sum(queries.views) > 0:
        views = np.asarray(queries.views, dtype=np.float64)
        unseen = int((views <= 0).sum())
        return views, (
            f"drawn by views (weight = views, median {np.median(views):.0f}, max {views.max():.0f}"
            + (f"; {unseen} queries with no views are never drawn)" if unseen else ")")
        )
    why = "rated.stream_popularity = uniform" if config.rated.stream_popularity == "uniform" else "no views"
    return None, f"drawn uniformly ({why})"


def query_inputs(
    retriever: Retriever,
    queries: QuerySet,
    vectors: np.ndarray,
    release: Release,
    config: Config,
    tool_vectors: np.ndarray | None = None,
) -> SimulationInputs:
    """A retriever's simulation inputs on a release split: its scores with each query's acceptable tools out of the
    ranking (:meth:`QuerySet.condensed`), the judged tools as gold, drawn by :func:`stream_popularity`."""
    popularity, _ = stream_popularity(queries, config)
    scores = queries.condensed(retriever.score(queries.texts))
    return simulation_inputs(scores, vectors, queries.relevant, release.corpus.r_static, config.rated.top_k,
                             tool_vectors, popularity)  # fmt: skip


@dataclass
class Stream:
    """One query stream of the dynamic evaluation, with the retrievers that can run on it."""

    name: str
    kind: str  # "release": a query split of the release; "anchored": rated.anchored
    inputs: SimulationInputs  # the trained ranker's
    statics: list[Method]  # static rows on other retrievers (release streams only: they need query text)
    note: str  # why this stream, in one sentence
    calibration: dict | None = None


def _distinct_gold(queries) -> int:
    return len({t for rel in queries.relevant for t in rel})


def _size(spec: str, queries: QuerySet | None) -> str:
    if queries is None:
        return f"{spec}: absent"
    left_out = f", {queries.left_out} with only alternatives left out" if queries.left_out else ""
    return f"{queries.name}: {len(queries)} queries, {_distinct_gold(queries)} gold tools{left_out}"


def first_query_set(release: Release, specs: list[str]) -> QuerySet | None:
    """The first of ``specs`` the release has (any size)."""
    return next((q for q in (query_set(release, spec) for spec in specs) if q is not None), None)


def _release_stream(
    role: str, queries: QuerySet, release: Release, statics: list[Retriever], ranker: DenseRetriever, config: Config
) -> Stream:
    """A release split as a stream: the trained ranker's inputs, and every other retriever's on the test stream."""
    vectors = ranker.encode_queries(queries.texts)
    inputs = query_inputs(ranker, queries, vectors, release, config, ranker.tool_vectors)
    rows = []
    if role == "test":
        rows = [Method(f"{r.name} (static)", "static", query_inputs(r, queries, vectors, release, config))
                for r in statics]  # fmt: skip
    _, drawn = stream_popularity(queries, config)
    return Stream(queries.name, "release", inputs, rows, f"{_size(queries.name, queries)}; {drawn}")


class AnchoredStreams:
    """The catalog-anchored streams of a release (:mod:`rated.anchored`), built once when first asked for."""

    def __init__(self, release: Release, ranker: DenseRetriever, config: Config) -> None:
        self.release, self.ranker, self.config = release, ranker, config
        self.built: dict | None = None

    def get(self, role: str) -> Stream | None:
        rated = self.config.rated
        if self.built is None:
            templates = query_set(self.release, rated.anchored.templates)
            if templates is None:
                return None
            assert self.ranker.tool_vectors is not None
            validation, test = anchored_streams(
                self.ranker.tool_vectors,
                self.release.corpus.r_static,
                self.ranker.encode_queries(templates.texts),
                templates.relevant,
                n_queries=rated.anchored.queries,
                zipf=rated.anchored.zipf,
                k=rated.top_k,
                seed=self.config.seed,
            )
            self.built = {"validation": validation, "test": test, "templates": templates.name}
        stream = self.built[role]
        note = (
            f"catalog-anchored: {len(stream.inputs.gold)} real queries of {self.built['templates']} moved onto "
            f"distinct catalog tools, Zipf({rated.anchored.zipf:g}) popularity (rated/anchored.py)"
        )
        return Stream(stream.name, "anchored", stream.inputs, [], note, stream.calibration)


def choose_streams(release: Release, statics: list[Retriever], ranker: DenseRetriever, config: Config) -> dict:
    """``{"validation": Stream, "test": Stream, "comparison": Stream}`` (any may be None): for each role the first
    split of ``rated.stream`` / ``rated.validation_stream`` that is big enough (``rated.min_stream_queries`` queries,
    ``rated.min_stream_gold_tools`` gold tools), else the catalog-anchored stream built from the release's real
    queries; ``comparison`` is the anchored test stream beside a release test stream (``rated.anchored.compare``)."""
    rated = config.rated
    anchored = AnchoredStreams(release, ranker, config)
    streams: dict[str, Stream | None] = {}
    for role, specs in (("validation", rated.validation_stream), ("test", rated.stream)):
        tried = [(spec, query_set(release, spec)) for spec in specs]
        chosen = next((q for _, q in tried if q is not None and len(q) >= rated.min_stream_queries
                       and _distinct_gold(q) >= rated.min_stream_gold_tools), None)  # fmt: skip
        if chosen is not None:
            streams[role] = _release_stream(role, chosen, release, statics, ranker, config)
            continue
        stream = anchored.get(role)
        if stream is not None:
            sizes = "; ".join(_size(spec, q) for spec, q in tried)
            stream.note = (
                f"{sizes}: below rated.min_stream_queries = {rated.min_stream_queries} / "
                f"rated.min_stream_gold_tools = {rated.min_stream_gold_tools}; {stream.note}"
            )
        streams[role] = stream
    test = streams["test"]
    streams["comparison"] = None
    if test is not None and test.kind == "release" and rated.anchored.compare:
        comparison = anchored.get("test")
        if comparison is not None:
            comparison.note = f"for comparison with {test.name}: {comparison.note}"
        streams["comparison"] = comparison
    return streams


def failing_rule_effect(inputs: SimulationInputs, config: Config, sim_config: SimulationConfig) -> dict:
    """The static ranker's FSR under each rounding of "skip the top 10 %" (persistent failures)."""
    sim = config.rated.simulation
    out = {}
    for rounding in SKIP_ROUNDINGS:
        rule = replace(sim_config, skip_rounding=rounding)
        experiment = run_experiment([Method("static", "static", inputs)], sim.seeds, ("persistent",),
                                    sim.failure_rates, rule, keep_traces=False)  # fmt: skip
        cells = experiment.summary["results"]["static"]["persistent"]
        stream = draw_stream(inputs.n_queries, sim_config.steps, sim.seeds[0], inputs.popularity)
        n_gold = len({t for q in np.unique(stream).tolist() for t in inputs.gold[q]})
        out[rounding] = {
            "gold_tools_in_stream": n_gold,
            "skipped": skipped_count(n_gold, sim_config.skip_top, rounding),
            "static_fsr": {rho: cell["fsr"]["mean"] for rho, cell in cells.items()},
            "n_failing": {rho: cell["n_failing"] for rho, cell in cells.items()},
        }
    return out


def _release_stream_rule(
    release: Release, ranker: DenseRetriever, config: Config, sim_config: SimulationConfig, test: Stream
) -> dict | None:
    """When the anchored stream replaced ``rated.stream``, the failing-set rule's effect on that small split."""
    queries = first_query_set(release, config.rated.stream)
    if test.kind != "anchored" or queries is None:
        return None
    inputs = query_inputs(ranker, queries, ranker.encode_queries(queries.texts), release, config)
    return {"stream": queries.name, "queries": len(queries), **failing_rule_effect(inputs, config, sim_config)}


def dynamic_evaluation(
    release: Release,
    statics: list[Retriever],
    ranker: DenseRetriever,
    config: Config,
    plots_dir: Path,
) -> tuple[list[dict], dict, dict]:
    """Table 2 on the test stream with RATED (Full)'s settings chosen on the validation stream, and on the
    catalog-anchored test stream beside it for comparison when the test stream is a release split.

    Returns ``(table2 stream entries, the main one first; validation record, figure 4 grids)``.
    """
    streams = choose_streams(release, statics, ranker, config)
    test, validation = streams["test"], streams["validation"]
    if test is None:
        skipped = {"stream": "+".join(config.rated.stream), "skipped": "the release has no queries to simulate on"}
        return [skipped], {"skipped": skipped["skipped"]}, {}
    validation_record, fig4 = _validation_sweeps(test, validation, config, plots_dir)
    chosen = validation_record["chosen"]
    records = [_table2_stream(test, release, ranker, config, plots_dir, chosen)]
    if streams["comparison"] is not None:
        comparison = _table2_stream(streams["comparison"], release, ranker, config, plots_dir, chosen,
                                    role="comparison")  # fmt: skip
        records.append(comparison)
    return records, validation_record, fig4


def _validation_sweeps(test: Stream, validation: Stream | None, config: Config, plots_dir: Path) -> tuple[dict, dict]:
    """RATED (Full)'s settings chosen on the validation stream (the test stream when there is none), and Figure 4's
    sweeps around them: ``(validation record, figure 4 grids)``."""
    from rated.plots import plot_figure4
    from rated.tuning import figure4, tune

    sim_config = simulation_config(config)
    tuned_on = validation or test
    started = time.perf_counter()
    context.say(f"validation sweeps on {tuned_on.name}")
    tuning = tune(tuned_on.inputs, config, sim_config)
    chosen = tuning["chosen"]
    context.say(f"validation ({tuned_on.name}): RATED (Full) takes {chosen}")
    fig4 = figure4(tuned_on.inputs, config, sim_config, chosen)
    fig4_plot = plot_figure4(fig4, plots_dir / "figure4.png")
    validation_record = {
        "stream": tuned_on.name,
        "kind": tuned_on.kind,
        "note": tuned_on.note + ("" if validation else "; no validation stream: tuned on the test stream"),
        "queries": tuned_on.inputs.n_queries,
        "distinct_gold_tools": len({t for g in tuned_on.inputs.gold for t in g}),
        "calibration": tuned_on.calibration,
        "seconds": round(time.perf_counter() - started, 1),
        **tuning,
    }
    fig4["plot"] = str(fig4_plot.relative_to(plots_dir.parent))
    return validation_record, fig4


def _table2_stream(
    test: Stream,
    release: Release,
    ranker: DenseRetriever,
    config: Config,
    plots_dir: Path,
    chosen: dict,
    role: str = "main",
) -> dict:
    """Table 2's simulations on the test stream with the chosen settings, the fault diagnosis and the plots.

    ``role``: ``main`` (the test stream the acceptance is decided on) or ``comparison`` (the anchored stream beside
    a release stream)."""
    sim = config.rated.simulation
    sim_config = simulation_config(config)
    methods = [*test.statics, Method("RATED encoder (static)", "static", test.inputs)]
    for name, (policy, options, scenarios) in dynamic_policies(config, chosen).items():
        methods.append(Method(name, policy, test.inputs, options, scenarios))
    started = time.perf_counter()
    experiment = run_experiment(methods, sim.seeds, sim.scenarios, sim.failure_rates, sim_config,
                                phase=f"Table 2 on {test.name}: simulations")  # fmt: skip
    seconds = time.perf_counter() - started
    diagnosis, plots, rules = _after_simulations(test, experiment, release, ranker, config, plots_dir, chosen, role)
    return {
        "stream": test.name,
        "kind": test.kind,
        "role": role,
        "note": test.note,
        "queries": test.inputs.n_queries,
        "distinct_gold_tools": len({t for g in test.inputs.gold for t in g}),
        "dim": test.inputs.dim,
        "calibration": test.calibration,
        "chosen": chosen,
        "seconds": round(seconds, 1),
        "plots": [str(p.relative_to(plots_dir.parent)) for p in plots],
        **rules,
        "rows": [m.name for m in methods],  # Table 2's order (metrics.json sorts keys)
        "diagnosis": diagnosis,
        "static_agreement": static_agreement(methods, experiment.summary["results"]),
        **experiment.summary,
    }


def _after_simulations(test: Stream, experiment, release: Release, ranker: DenseRetriever, config: Config,
                       plots_dir: Path, chosen: dict, role: str) -> tuple[dict, list[Path], dict]:  # fmt: skip
    """What Table 2 adds to a stream's simulations, as one counted phase (about 20 s on the default release, which
    was a silent stretch): the fault diagnosis of three bandit settings, the plots, the failing-set rule's effect.
    Returns ``(diagnosis, plots, {"failing_rule": ..., "failing_rule_release_stream": ...})``."""
    from rated.diagnosis import decompose_faults
    from rated.plots import plot_traces

    sim, sim_config = config.rated.simulation, simulation_config(config)
    full = bandit_options(config, **chosen)
    diagnosed = {
        AS_WRITTEN: dict(ALGORITHM1),
        "RATED (Full)": full,
        "RATED (Full, intercept prior)": {**full, "diagonal": True, "intercept": True},
    }
    with context.phase(f"Table 2 on {test.name}: fault diagnosis, plots, failing-set rule", len(diagnosed) + 3) as step:
        diagnosis = {}
        for name, options in diagnosed.items():
            diagnosis[name] = decompose_faults(test.inputs, options, sim_config, sim.seeds, max(sim.failure_rates))
            step.advance()
        safe = test.name.replace("/", "-").replace("+", "_").replace(" ", "-")
        plots = plot_traces(experiment.traces, plots_dir / safe, window=sim_config.window, onset=sim_config.onset,
                            recover_at=sim_config.recover_at)  # fmt: skip
        step.advance()
        rules = {"failing_rule": failing_rule_effect(test.inputs, config, sim_config)}
        step.advance()
        on_release = _release_stream_rule(release, ranker, config, sim_config, test) if role == "main" else None
        rules["failing_rule_release_stream"] = on_release
        step.advance()
    return diagnosis, plots, rules


def static_agreement(methods: list[Method], results: dict) -> dict[str, dict]:
    """Per static row of Table 2: its success@1 on the stream's queries, each query alike (what Table 1 reports) and
    weighted as the stream draws them, beside the simulation's SR before the onset (persistent failures, each
    failure rate: the same healthy steps). A static ranker always takes its first candidate, so its pre-onset SR
    estimates the weighted success@1: the two agree within the simulation's sampling error, and they equal Table 1's
    when the stream draws every query alike (``rated.stream_popularity = uniform``)."""
    out = {}
    for method in methods:
        if method.policy != "static" or "persistent" not in results.get(method.name, {}):
            continue
        inputs = method.inputs
        hit = np.array([int(c[0]) in gold for c, gold in zip(inputs.candidates, inputs.gold, strict=True)], float)
        drawn = hit.mean() if inputs.popularity is None else float(hit @ inputs.popularity / inputs.popularity.sum())
        out[method.name] = {
            "success@1": round(float(hit.mean()), 4),
            "success@1_as_drawn": round(float(drawn), 4),
            "pre_onset_sr": {rho: round(cell["pre_onset_sr"]["mean"], 4)
                             for rho, cell in results[method.name]["persistent"].items()},
        }  # fmt: skip
    return out


def latency_table(ranker: DenseRetriever, release: Release, config: Config) -> dict:
    from rated.latency import measure_latency

    queries = first_query_set(release, [*config.rated.stream, config.rated.anchored.templates])
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


def rated_to(config: Config, release: str, out: str) -> RatedResult:
    """:func:`rated_run` on ``release`` into the folder ``out`` (a local path or the store's URL) as its next
    generation: what is there already (a trained encoder) is kept and reused, and on object storage the folder
    commits by the trained encoder's record, uploaded last (:data:`ecoagent.layout.RATED_MARKER`)."""
    folder = StageFolder(out, marker=RATED_MARKER)
    with folder.amend() as store:
        metrics = rated_run(config, release, store.local_path).metrics
    return RatedResult(folder.url(), folder.url(RATED_FILES.report), folder.url(RATED_FILES.metrics), metrics)


def table2_statics(retrievers: list[Retriever], trained: Retriever) -> list[Retriever]:
    """Table 2's static rows: every Table 1 retriever but RATED (Full) (the bandit's own ranker) and the encoders
    trained on the compared sources (Table 1 rows only)."""
    return [r for r in retrievers if r is not trained and not r.name.startswith("RATED (trained on")]


def paper_scale_tables(release: Release, retrievers: list[Retriever], trained: DenseRetriever, config: Config,
                       plots_dir: Path) -> dict | None:  # fmt: skip
    """Table 1 (and Table 2 with ``rated.paper_scale.table2``) on the paper-scale view; None without listings."""
    from rated.paper_scale import paper_scale_view

    if not config.rated.paper_scale.listings:
        return None
    scale = paper_scale_view(release, retrievers, trained, config.rated)
    table1, judged = offline_table(scale.view, scale.retrievers, TABLE1_SETS, config.seed)
    out = {**scale.record, "table1": table1, "table1_sets": judged}
    if config.rated.paper_scale.table2:
        statics = table2_statics(scale.retrievers, scale.trained)
        out["table2"], out["validation"], _ = dynamic_evaluation(scale.view, statics, scale.trained, config, plots_dir)
    context.say("paper-scale tables done")
    return out


def rated_run(
    config: Config,
    release_folder: str | Path,
    out_dir: Path,
) -> RatedResult:
    """RATED on a release (a local path or the store's URL) into the local working folder ``out_dir``."""
    from rated.baselines import hybrid_retrievers, offline_baselines, reranker
    from rated.encoder import choose_encoder
    from rated.report import render_report

    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    release = load_release(release_folder)
    cache = config.resolve_path(config.embedding.cache_dir)
    context.say(f"release {release.version}: {len(release.corpus)} tools, splits {sorted(release.query_sets)}")
    baselines = offline_baselines(config.rated, release.corpus, cache)
    context.say(f"baselines: {', '.join(r.name for r in baselines.retrievers)}")
    encoder = choose_encoder(release, config.rated, out_dir, config.seed, cache)
    context.say(f"encoder: {encoder.record['settings']}, {encoder.record['steps']} steps")
    rerank, rerank_skipped = reranker(config.rated, encoder.trained, release.corpus)
    skipped = dict(baselines.skipped)
    if rerank_skipped:
        skipped["cross-encoder re-ranker"] = rerank_skipped

    retrievers: list[Retriever] = [*baselines.retrievers, encoder.untrained, *encoder.compared]
    if rerank is not None:
        retrievers.append(rerank)
    retrievers.append(encoder.trained)
    retrievers += hybrid_retrievers(config.rated, retrievers)
    table1, judged = offline_table(release, retrievers, TABLE1_SETS, config.seed)
    context.say("Table 1 done")

    statics = table2_statics(retrievers, encoder.trained)
    table2, validation, fig4 = dynamic_evaluation(release, statics, encoder.trained, config, out_dir / "plots")
    context.say("Table 2 done")
    paper_scale = paper_scale_tables(release, retrievers, encoder.trained, config, out_dir / "plots" / "paper-scale")
    table3 = latency_table(encoder.trained, release, config)
    context.say("Table 3 done")

    metrics = {
        "release": {"folder": release.location, "version": release.version},
        "profile": config.profile,
        "seed": config.seed,
        "settings": config.rated.model_dump(mode="json"),
        "encoder": encoder.record,
        "skipped": skipped,
        "table1": table1,
        "table1_sets": judged,
        "validation": validation,
        "figure4": fig4,
        "table2": table2,
        "table3": table3,
        "paper_scale": paper_scale,
        "seconds": round(time.perf_counter() - started, 1),
    }
    store = ArtifactStore(str(out_dir))
    metrics_path = store.write_json(metrics, RATED_FILES.metrics)
    report_path = store.write_text(render_report(metrics), RATED_FILES.report)
    return RatedResult(str(out_dir), report_path, metrics_path, metrics)


