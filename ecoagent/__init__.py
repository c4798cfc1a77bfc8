"""EcoAgent's ground floor: what every stage stands on.

Eight modules: the configuration (:mod:`ecoagent.config`), the error base and exit codes (:mod:`ecoagent.errors`),
the artifact store (:mod:`ecoagent.store`), the run layout and file names (:mod:`ecoagent.layout`), the one sha256
(:mod:`ecoagent.hashing`), the stage contract (:mod:`ecoagent.stage`), bootstrap intervals
(:mod:`ecoagent.statistics`) and reproducible figures (:mod:`ecoagent.figures`). The rest lives in rooms: run
infrastructure (:mod:`ecoagent.runtime`: the step context, progress lines, child processes, usage, the
great-expectations runner), shared text (:mod:`ecoagent.text`: words and language, redaction, the tokenizer,
near-duplicate grouping, leakage-free splits, Markdown tables), embedders and rankers (:mod:`ecoagent.retrieval`),
the release as readers see it (:mod:`ecoagent.release_format`: the verified reader, the review-sample format, the
MTEB task), the LLM layer (:mod:`ecoagent.llm`), registry packages read safely (:mod:`ecoagent.packages`) and the
test doubles (:mod:`ecoagent.testing`).

Nothing here imports a stage, a downstream package or an entry point (``tests/test_import_floors.py``).
"""

__version__ = "0.1.0"
