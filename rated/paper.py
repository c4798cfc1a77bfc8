"""The RATED paper's published numbers (CIKM 2026, Tables 1-3), printed beside ours in every report.

Transcribed from ``shared/seeds/000_0543a462e9b23d60.txt`` (and checked against the restatement in
``003_a1fec6a1f8d993b3.txt``). The paper reports one run each, on its own 5,172-tool release with
DRAGON+ on a GPU; ours differ in data, encoder and hardware, so the columns compare settings, not
implementations.
"""

from __future__ import annotations


def _rows(table: str) -> dict[str, tuple[float | int | None, ...]]:
    """A table as transcribed, one row per line (``| name | value | ... |``, the header first): ``{name: values}``,
    a whole number read as an int (adaptation steps), ``-`` as None (the paper's "Failed", or no value)."""
    rows = {}
    for line in table.strip().splitlines()[1:]:
        name, *cells = (cell.strip() for cell in line.strip().strip("|").split("|"))
        rows[name] = tuple(None if c == "-" else int(c) if c.isdigit() else float(c) for c in cells)
    return rows


# Table 1: (MRR, Recall@1, Recall@5) on EcoAgent-Syn and EcoAgent-Real.
TABLE1: dict[str, dict[str, tuple[float, float, float]]] = {
    name: {"syn": row[:3], "real": row[3:]}
    for name, row in _rows("""
| method                  | Syn MRR |   R@1 |   R@5 | Real MRR |   R@1 |   R@5 |
| TF-IDF                  |   0.680 | 0.607 | 0.769 |    0.274 | 0.116 | 0.326 |
| BM25                    |   0.235 | 0.178 | 0.300 |    0.169 | 0.078 | 0.194 |
| OpenAI Ada-002          |   0.790 | 0.736 | 0.857 |    0.670 | 0.430 | 0.750 |
| BGE-M3                  |   0.765 | 0.702 | 0.840 |    0.511 | 0.289 | 0.579 |
| GTE-Large               |   0.772 | 0.713 | 0.842 |    0.515 | 0.294 | 0.581 |
| E5-Large-v2             |   0.746 | 0.674 | 0.830 |    0.597 | 0.466 | 0.756 |
| DRAGON (pretrained)     |   0.751 | 0.690 | 0.823 |    0.518 | 0.407 | 0.654 |
| SPLADE-v3               |   0.754 | 0.689 | 0.834 |    0.626 | 0.491 | 0.789 |
| BGE-Reranker            |   0.596 | 0.483 | 0.735 |    0.642 | 0.491 | 0.840 |
| ToolLLM API Retriever   |   0.724 | 0.666 | 0.795 |    0.406 | 0.222 | 0.409 |
| RATED (w/o Contrastive) |   0.751 | 0.690 | 0.823 |    0.518 | 0.407 | 0.654 |
| RATED (Full)            |   0.845 | 0.804 | 0.893 |    0.618 | 0.516 | 0.740 |
""").items()
}  # fmt: skip

# Table 2: (Post-Fail SR %, FSR %, adaptation steps or None = "Failed") at failure rate 20 % and 30 %.
TABLE2: dict[str, dict[float, tuple[float, float, int | None]]] = {
    name: {0.2: row[:3], 0.3: row[3:]}
    for name, row in _rows("""
| method                 | SR 20% | FSR 20% | steps 20% | SR 30% | FSR 30% | steps 30% |
| BM25                   |   18.8 |    20.0 |         - |   10.2 |    30.0 |         - |
| ToolLLM API Retriever  |   17.4 |    79.6 |         - |   10.5 |    86.2 |         - |
| OpenAI Ada-002         |   19.4 |    80.4 |         - |   11.1 |    88.8 |         - |
| DRAGON (pretrained)    |   78.1 |    18.1 |         - |   75.7 |    21.2 |         - |
| SPLADE-v3              |   16.0 |     7.7 |         - |   15.8 |     9.1 |         - |
| BGE-Reranker           |   83.2 |    17.5 |         - |   81.0 |    20.5 |         - |
| Health Check Blacklist |   82.6 |     1.4 |      2620 |   80.2 |     1.9 |         - |
| Retry (k=3)            |   84.8 |    16.4 |        70 |   82.9 |    19.1 |         - |
| ToolRL-like Batch GRPO |   80.3 |     5.4 |      2620 |   79.5 |     6.1 |         1 |
| RATED (w/o Feedback)   |   81.1 |    16.5 |         - |   78.7 |    19.4 |         - |
| RATED (w/ Global MAB)  |   78.1 |    10.1 |      3852 |   74.3 |    13.2 |      2718 |
| RATED (Full)           |   83.4 |     2.5 |      1603 |   82.1 |     2.9 |         0 |
""").items()
}  # fmt: skip

# Table 3: (average ms, P95 ms, overhead over encode-only ms) at batch size 1 on an RTX 5070.
TABLE3: dict[str, tuple[float, float, float | None]] = _rows("""
| method                 | avg ms | P95 ms | overhead ms |
| encode only            |  3.223 |  4.269 |           - |
| ToolRL-like Batch GRPO | 17.839 | 28.921 |      14.616 |
| RATED (w/o Feedback)   |  3.248 |  4.274 |       0.025 |
| RATED (w/ Global MAB)  |  3.331 |  4.351 |       0.108 |
| RATED (Full)           |  3.395 |  4.391 |       0.172 |
""")  # type: ignore[assignment]

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
