"""The RATED paper's published numbers (CIKM 2026, Tables 1-3), printed beside ours in every report.

Transcribed from ``shared/seeds/000_0543a462e9b23d60.txt`` (and checked against the restatement in
``003_a1fec6a1f8d993b3.txt``). The paper reports one run each, on its own 5,172-tool release with
DRAGON+ on a GPU; ours differ in data, encoder and hardware, so the columns compare settings, not
implementations.
"""

from __future__ import annotations

# Table 1: (MRR, Recall@1, Recall@5) on EcoAgent-Syn and EcoAgent-Real.
TABLE1: dict[str, dict[str, tuple[float, float, float]]] = {
    "TF-IDF": {"syn": (0.680, 0.607, 0.769), "real": (0.274, 0.116, 0.326)},
    "BM25": {"syn": (0.235, 0.178, 0.300), "real": (0.169, 0.078, 0.194)},
    "OpenAI Ada-002": {"syn": (0.790, 0.736, 0.857), "real": (0.670, 0.430, 0.750)},
    "BGE-M3": {"syn": (0.765, 0.702, 0.840), "real": (0.511, 0.289, 0.579)},
    "GTE-Large": {"syn": (0.772, 0.713, 0.842), "real": (0.515, 0.294, 0.581)},
    "E5-Large-v2": {"syn": (0.746, 0.674, 0.830), "real": (0.597, 0.466, 0.756)},
    "DRAGON (pretrained)": {"syn": (0.751, 0.690, 0.823), "real": (0.518, 0.407, 0.654)},
    "SPLADE-v3": {"syn": (0.754, 0.689, 0.834), "real": (0.626, 0.491, 0.789)},
    "BGE-Reranker": {"syn": (0.596, 0.483, 0.735), "real": (0.642, 0.491, 0.840)},
    "ToolLLM API Retriever": {"syn": (0.724, 0.666, 0.795), "real": (0.406, 0.222, 0.409)},
    "RATED (w/o Contrastive)": {"syn": (0.751, 0.690, 0.823), "real": (0.518, 0.407, 0.654)},
    "RATED (Full)": {"syn": (0.845, 0.804, 0.893), "real": (0.618, 0.516, 0.740)},
}

# Table 2: (Post-Fail SR %, FSR %, adaptation steps or None = "Failed") at failure rate 20 % and 30 %.
TABLE2: dict[str, dict[float, tuple[float, float, int | None]]] = {
    "BM25": {0.2: (18.8, 20.0, None), 0.3: (10.2, 30.0, None)},
    "ToolLLM API Retriever": {0.2: (17.4, 79.6, None), 0.3: (10.5, 86.2, None)},
    "OpenAI Ada-002": {0.2: (19.4, 80.4, None), 0.3: (11.1, 88.8, None)},
    "DRAGON (pretrained)": {0.2: (78.1, 18.1, None), 0.3: (75.7, 21.2, None)},
    "SPLADE-v3": {0.2: (16.0, 7.7, None), 0.3: (15.8, 9.1, None)},
    "BGE-Reranker": {0.2: (83.2, 17.5, None), 0.3: (81.0, 20.5, None)},
    "Health Check Blacklist": {0.2: (82.6, 1.4, 2620), 0.3: (80.2, 1.9, None)},
    "Retry (k=3)": {0.2: (84.8, 16.4, 70), 0.3: (82.9, 19.1, None)},
    "ToolRL-like Batch GRPO": {0.2: (80.3, 5.4, 2620), 0.3: (79.5, 6.1, 1)},
    "RATED (w/o Feedback)": {0.2: (81.1, 16.5, None), 0.3: (78.7, 19.4, None)},
    "RATED (w/ Global MAB)": {0.2: (78.1, 10.1, 3852), 0.3: (74.3, 13.2, 2718)},
    "RATED (Full)": {0.2: (83.4, 2.5, 1603), 0.3: (82.1, 2.9, 0)},
}

# Table 3: (average ms, P95 ms, overhead over encode-only ms) at batch size 1 on an RTX 5070.
TABLE3: dict[str, tuple[float, float, float | None]] = {
    "encode only": (3.223, 4.269, None),
    "ToolRL-like Batch GRPO": (17.839, 28.921, 14.616),
    "RATED (w/o Feedback)": (3.248, 4.274, 0.025),
    "RATED (w/ Global MAB)": (3.331, 4.351, 0.108),
    "RATED (Full)": (3.395, 4.391, 0.172),
}

# Algorithm 1 exactly as the paper writes it (Sections 3.3 and 4.1): the "as written" row of Table 2.
ALGORITHM1: dict = {
    "alpha": 0.1,
    "gamma": 0.95,
    "weights": (0.75, 0.15, 0.10),
    "diagonal": True,
    "reward": "paper",  # y_t in {0, 1}
    "context": "query",  # x_t = the query embedding
}

# Figure 4's chosen point (Section 4.5): w1 = 0.75, w3 = 0.10; gamma = 0.95, alpha = 0.1 at 20 % failures.
FIGURE4_POINT = {"w1": 0.75, "w3": 0.10, "gamma": 0.95, "alpha": 0.1}
