"""EcoAgent's ground floor: what every stage stands on.

Config (``config``), the artifact store (``store``) and the run layout (``layout``), the error base and exit
codes (``errors``), registry packages read safely (``packages``), the LLM layer (``llm``), embedders and the
tokenizer, near-duplicate grouping (``dedup``), leakage-free splits (``splits``), language and word handling
(``text``), the review-sample reader (``review``), the release reader and retrievers that RATED and the tool
selector share (``release_reader``, ``retrieval``), the great-expectations runner and Markdown tables.

Nothing here imports a stage, a downstream package or an entry point (``tests/test_import_floors.py``).
"""

__version__ = "0.1.0"
