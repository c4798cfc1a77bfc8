"""The score stage: ``tools.parquet`` -> ``tools_scored.parquet`` (+ summary, plot), then the gate.

``score(config, in_dir, out)`` and ``gate(config, in_dir)`` are what the CLI, the DAGs and the tests
call. Outputs, in ``out`` (default ``<store>/score/``):

- ``tools_scored.parquet``: one ScoredToolRecord per tool, same order as the crawl (by tool_id)
- ``score_summary.json``: reliable share, score distribution, flaw shares per platform,
  side-effect distribution, prompt-token totals, cache statistics, timings
- ``reliability_by_platform.png``: the r_static distribution per platform
- ``scored_catalog_gate.md`` / ``scored_catalog_gate.json``: the quality-gate report (the gate is its own step)

The stage replaces its folder as a whole (:class:`ecoagent.store.StageFolder`), so a new ``tools_scored.parquet``
never sits beside the previous run's gate report. The gate, run after the stage, adds its report to the folder
as the next generation (:meth:`~ecoagent.store.StageFolder.amend`), validating the ``tools_scored.parquet`` of
that same generation: a score folder either has no report (not gated yet, or the gate was killed) or the report
of the catalog beside it.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import polars as pl

from ecoagent.config import Config
from ecoagent.figures import png_bytes
from ecoagent.layout import CRAWL_FILES, SCORE_FILES
from ecoagent.retrieval.embedding.cache import Embedder
from ecoagent.runtime import context
from ecoagent.store import ArtifactStore, StageFolder
from ecoagent.text.tokenizer import load_tokenizer
from schemas.scored_tool import SIDE_EFFECTS, ScoredToolRecord
from schemas.tool_record import ToolRecord, polars_schema
from schemas.unknown_fields import unknown_field_counts
from scoring.flaws import find_flaws
from scoring.reliability import (
    LISTING_RULES,
    consistency_scores,
    name_texts,
    quality_reference,
    quality_scores,
    source_weight,
    source_weight_key,
    static_prior,
)
from scoring.settings import ScoreConfig, ScoreReading
from scoring.side_effect.rules import UNKNOWABLE_INPUTS

COUNT_EVERY = 2000  # tools per progress count of a per-tool step
OUTPUTS = SCORE_FILES.names()
PAPER_RELIABLE_SHARE = 0.568  # RATED Section 2: 2,940 of 5,172 tools


@dataclass
class ScoreResult:
    out: str
    scored_path: str
    summary: dict


def prompt_definition(name: str, description: str, parameters: str) -> str:
    """The tool as a model sees it: an OpenAI-style function definition (vendor x- keys dropped)."""

    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if not k.startswith("x-")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    fn = {"name": name, "description": description, "parameters": strip(json.loads(parameters))}
    return json.dumps({"type": "function", "function": fn}, ensure_ascii=False)


def count_prompt_tokens(tools: pl.DataFrame, config: Config, phase: str | None = None) -> list[int]:
    """Each tool's definition (:func:`prompt_definition`) in tokens of ``score.tokenizer``; with ``phase``, the tools
    are counted under that name in the running step."""
    tokenizer = load_tokenizer(config.score.tokenizer, config.resolve_path(config.score.tokenizer_cache))
    texts = [
        prompt_definition(r["name"], r["description"], r["parameters"])
        for r in tools.select("name", "description", "parameters").iter_rows(named=True)
    ]
    counts: list[int] = []
    with context.phase(phase, len(texts)) as counting:
        for start in range(0, len(texts), COUNT_EVERY):  # each text is tokenized alone: the chunks change nothing
            batch = tokenizer.encode_batch(texts[start : start + COUNT_EVERY], add_special_tokens=False)
            counts += [len(enc.ids) for enc in batch]
            counting.update(len(counts))
    return counts


def _online_enrichment(tools: pl.DataFrame, config: Config) -> tuple[pl.DataFrame, dict]:
    """Opt-in: check links and fetch doc pages. Offline, everything stays unknown."""
    from schemas.tool_record import Link
    from scoring.doc_pages import doc_summary_text, fetch_doc_summaries
    from scoring.link_check import check_links, network_available

    info = {"check_links": config.score.check_links, "fetch_docs": config.score.fetch_docs}
    if not network_available():
        info["skipped"] = "offline: links stay unknown (reason offline), no doc pages fetched"

        def offline(links: list[dict]) -> list[dict]:
            return [{**link, "reason": "offline"} if link["reason"] == "not_checked" else link for link in links]

        tools = tools.with_columns(
            pl.col("links").map_elements(offline, return_dtype=tools.schema["links"]),
            pl.lit(None, dtype=pl.String).alias("doc_summary"),
        )
        return tools, info
    summaries: dict[str, str | None] = {}
    if config.score.fetch_docs:
        urls = sorted({u for us in tools["doc_urls"] for u in us if u.startswith("http")})
        pages = fetch_doc_summaries(urls, config.score.http)
        summaries = {u: doc_summary_text(p) for u, p in pages.items()}
        info["doc_pages"] = len(pages)
    checked: dict[str, Link] = {}
    if config.score.check_links:
        links = {link["url"]: Link(**link) for ls in tools["links"] for link in ls}
        checked = check_links(list(links.values()), config.score.http)
        info["links_checked"] = len(checked)

    def relink(links: list[dict]) -> list[dict]:
        return [checked[link["url"]].model_dump() if link["url"] in checked else link for link in links]

    def first_summary(urls: list[str]) -> str | None:
        return next((summaries[u] for u in urls if summaries.get(u)), None)

    tools = tools.with_columns(
        pl.col("links").map_elements(relink, return_dtype=tools.schema["links"]),
        pl.col("doc_urls").map_elements(first_summary, return_dtype=pl.String).alias("doc_summary"),
    )
    return tools, info


def _distribution(values: np.ndarray) -> dict:
    if len(values) == 0:
        return {}
    q = np.quantile(values, [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])
    hist, edges = np.histogram(values, bins=10, range=(0.0, 1.0))
    return {
        "mean": round(float(values.mean()), 4),
        "quantiles": dict(
            zip(["min", "p10", "p25", "median", "p75", "p90", "max"], map(lambda v: round(float(v), 4), q), strict=True)
        ),
        "histogram": {f"{edges[i]:.1f}-{edges[i + 1]:.1f}": int(hist[i]) for i in range(len(hist))},
    }


def _plot(scored: pl.DataFrame, threshold: float) -> bytes:

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    platforms = sorted(scored["platform"].unique())
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    data = [scored.filter(pl.col("platform") == p)["r_static"].to_numpy() for p in platforms]
    ax.violinplot(data, showmedians=True)
    ax.axhline(threshold, color="tab:red", linestyle="--", linewidth=1, label=f"reliable threshold {threshold}")
    ax.set_xticks(range(1, len(platforms) + 1), [f"{p}\n(n={len(d)})" for p, d in zip(platforms, data, strict=True)])
    ax.set_ylabel("r_static")
    ax.set_ylim(0, 1)
    ax.set_title("Metadata reliability (RATED eq. 5) per platform")
    ax.legend(loc="lower right")
    fig.tight_layout()
    return png_bytes(fig)


def score(config: Config, in_dir: str, out: str) -> ScoreResult:
    """Score every tool of the crawled catalog; each step is a phase of the running context, counted."""
    started = time.perf_counter()
    folder = StageFolder(out, OUTPUTS)
    source = ArtifactStore(in_dir)
    tools = source.read_table(CRAWL_FILES.tools, ToolRecord.model_fields)
    timings: dict[str, float] = {}
    with _timed(timings, "online"):
        tools, online = _enriched(tools, config)
    with _timed(timings, "embed"):
        embedder = score_embedder(config)
        scored, readings = _reliability(tools, config, embedder)
    with _timed(timings, "side_effect"):
        scored = _side_effects(scored)
    with _timed(timings, "flaws"):
        scored = _flaws(scored)
    with _timed(timings, "tokens"):
        tokens = count_prompt_tokens(scored, config, phase="count prompt tokens (Gemma tokenizer)")
        scored = scored.with_columns(pl.Series("prompt_tokens", tokens, dtype=pl.Int64))
    scored = scored.select(list(polars_schema(ScoredToolRecord))).cast(polars_schema(ScoredToolRecord))
    summary = _summary(scored, config, embedder, online)
    summary["readings"] = readings
    summary["seconds"] = {k: round(v, 2) for k, v in {**timings, "total": time.perf_counter() - started}.items()}
    plot = _plot(scored, config.score.reliable_threshold)
    with folder.replace() as store:
        store.write_parquet(scored, SCORE_FILES.tools)
        store.write_bytes(plot, SCORE_FILES.reliability_plot)
        store.write_json(summary, SCORE_FILES.summary)
    return ScoreResult(out=folder.url(), scored_path=folder.url(SCORE_FILES.tools), summary=summary)


@contextmanager
def _timed(timings: dict[str, float], name: str) -> Iterator[None]:
    """The block's wall seconds into ``timings[name]`` (the summary's ``seconds``)."""
    started = time.perf_counter()
    yield
    timings[name] = time.perf_counter() - started


def _enriched(tools: pl.DataFrame, config: Config) -> tuple[pl.DataFrame, dict]:
    """The catalog with its ``doc_summary`` column: the opt-in online checks, or nothing (not enabled)."""
    cfg = config.score
    if cfg.check_links or cfg.fetch_docs:
        with context.phase("online checks (links, doc pages)"):
            return _online_enrichment(tools, config)
    return tools.with_columns(pl.lit(None, dtype=pl.String).alias("doc_summary")), {"skipped": "not enabled"}


def _reliability(tools: pl.DataFrame, config: Config, embedder: Embedder) -> tuple[pl.DataFrame, dict]:
    """The catalog with r_cons, w_src, r_qual, r_static and reliable (eq. 4-5), and the other readings' shares."""
    cfg = config.score
    descriptions = scored_descriptions(tools)
    names, display_names = tools["name"].to_list(), tools["display_name"].to_list()
    r_cons = consistency_scores(embedder, name_texts(names, display_names, cfg.name_text), descriptions,
                                phase="r_cons: embed {} (MiniLM)")  # fmt: skip
    w_src = _source_weights(tools, cfg.source_weights)
    r_qual = documentation_quality(tools, descriptions, cfg)
    r_static = static_prior(r_cons, w_src, r_qual, cfg.weights)
    readings = {
        name: _reading(tools, reading, cfg, embedder, descriptions, r_cons, r_qual)
        for name, reading in cfg.readings.items()
    }
    scored = tools.with_columns(
        pl.Series("r_cons", r_cons.round(6)),
        pl.Series("w_src", w_src),
        pl.Series("r_qual", r_qual.round(6)),
        pl.Series("r_static", r_static.round(6)),
        pl.Series("reliable", r_static >= cfg.reliable_threshold),
    )
    return scored, readings


def documentation_quality(tools: pl.DataFrame, descriptions: list[str], cfg: ScoreConfig) -> np.ndarray:
    """r_qual of every tool (``listing`` and ``categories`` columns), z-scored against ``score.r_qual_reference``."""
    return quality_scores(
        np.array([len(d) for d in descriptions]),
        np.array([len(", ".join(c)) for c in tools["categories"]]),
        cfg.quality_weights,
        quality_reference(tools["listing"].to_list(), cfg.r_qual_reference),
    )


def scored_descriptions(tools: pl.DataFrame) -> list[str]:
    """What r_cons and r_qual read: the description, the doc page's summary where there is none (never over one)."""
    return [d if d.strip() else (s or "") for d, s in zip(tools["description"], tools["doc_summary"], strict=True)]


def _side_effects(scored: pl.DataFrame) -> pl.DataFrame:
    """The side-effect tier, its rule, the inverse tool and the permission scope of every tool."""
    from scoring.side_effect import classify_side_effects

    with context.phase("side effects and permission scopes", len(scored)) as classifying:
        side = classify_side_effects(scored)
        classifying.update(len(scored))
    return scored.join(side, on="tool_id", how="left", maintain_order="left")


def _flaws(scored: pl.DataFrame) -> pl.DataFrame:
    """Every tool's flaws (:mod:`scoring.flaws`) and whether one is critical."""
    flaws = []
    with context.phase("flaws", len(scored)) as finding:
        for row in scored.iter_rows(named=True):
            flaws.append([f.model_dump() for f in find_flaws(row)])
            if len(flaws) % COUNT_EVERY == 0:
                finding.update(len(flaws))
        finding.update(len(flaws))
    return scored.with_columns(
        pl.Series("flaws", flaws, dtype=polars_schema(ScoredToolRecord)["flaws"]),
        pl.Series("critical_flaw", [any(f["severity"] == "critical" for f in fl) for fl in flaws]),
    )


def score_embedder(config: Config) -> Embedder:
    """The encoder of ``score.embedder``, on ``embedding.device``, its vectors cached under ``embedding.cache_dir``."""
    return Embedder(
        config.score.embedder,
        config.resolve_path(config.embedding.cache_dir),
        config.embedding.batch_size,
        setting="score.embedder",
        device=config.embedding.device,
    )


def _source_weights(tools: pl.DataFrame, weights: dict[str, float]) -> np.ndarray:
    pairs = zip(tools["platform"], tools["listing"], strict=True)
    return np.array([source_weight(platform, listing, weights) for platform, listing in pairs])


def _reading(
    tools: pl.DataFrame,
    reading: ScoreReading,
    cfg: ScoreConfig,
    embedder: Embedder,
    descriptions: list[str],
    r_cons: np.ndarray,
    r_qual: np.ndarray,
) -> dict:
    """The reliable share under another reading of eq. 4-5 (``score.readings``); the scores are not kept."""
    name_text = reading.name_text or cfg.name_text
    weights = {**cfg.source_weights, **reading.source_weights}
    reliable = reading_r_static(tools, reading, cfg, embedder, descriptions, r_cons, r_qual) >= cfg.reliable_threshold
    platforms = tools["platform"].to_numpy()
    return {
        "description": reading.description,
        "name_text": name_text,
        "r_qual_reference": reading.r_qual_reference or cfg.r_qual_reference,
        "source_weights": weights,
        "reliable": int(reliable.sum()),
        "reliable_share": round(float(reliable.mean()), 4) if len(reliable) else 0.0,
        "per_platform": {p: round(float(reliable[platforms == p].mean()), 4) for p in sorted(set(platforms))},
    }


def reading_r_static(tools: pl.DataFrame, reading: ScoreReading, cfg: ScoreConfig, embedder: Embedder,
                     descriptions: list[str], r_cons: np.ndarray, r_qual: np.ndarray) -> np.ndarray:  # fmt: skip
    """Every tool's r_static under another reading of eq. 4-5: ``r_cons`` re-embedded only when the reading's name
    text differs from ``cfg.name_text``, ``r_qual`` recomputed only when its reference differs from
    ``cfg.r_qual_reference`` (``r_cons`` and ``r_qual``: ours, scored with ``cfg``), its source weights merged over
    ours."""
    name_text = reading.name_text or cfg.name_text
    if name_text != cfg.name_text:
        texts = name_texts(tools["name"].to_list(), tools["display_name"].to_list(), name_text)
        r_cons = consistency_scores(embedder, texts, descriptions,
                                    phase=f"r_cons, {name_text} names: embed {{}} (MiniLM)")  # fmt: skip
    reference = reading.r_qual_reference or cfg.r_qual_reference
    if reference != cfg.r_qual_reference:
        r_qual = documentation_quality(tools, descriptions, cfg.model_copy(update={"r_qual_reference": reference}))
    weights = {**cfg.source_weights, **reading.source_weights}
    return static_prior(r_cons, _source_weights(tools, weights), r_qual, cfg.weights)


def _summary(scored: pl.DataFrame, config: Config, embedder: Embedder, online: dict) -> dict:
    per_platform = {}
    for platform in sorted(scored["platform"].unique()):
        part = scored.filter(pl.col("platform") == platform)
        flaw_counts = Counter(f["flaw"] for fl in part["flaws"] for f in fl)
        per_platform[platform] = {
            "tools": len(part),
            "reliable_share": round(float(part["reliable"].mean()), 4),
            "r_static_mean": round(float(part["r_static"].mean()), 4),
            "critical_flaw_share": round(float(part["critical_flaw"].mean()), 4),
            "any_flaw_share": round(float((part["flaws"].list.len() > 0).mean()), 4),
            "flaws": dict(sorted(flaw_counts.items())),
            "side_effect": {s: int((part["side_effect"] == s).sum()) for s in SIDE_EFFECTS},
        }
    return {
        "profile": config.profile,
        "tools": len(scored),
        "reliable": int(scored["reliable"].sum()),
        "reliable_share": round(float(scored["reliable"].mean()), 4) if len(scored) else 0.0,
        "paper_reliable_share": PAPER_RELIABLE_SHARE,
        "reliable_threshold": config.score.reliable_threshold,
        "weights": list(config.score.weights),
        "name_text": config.score.name_text,
        "r_qual_reference": config.score.r_qual_reference,
        "source_weights": dict(config.score.source_weights),
        "embedder": config.score.embedder,
        "tokenizer": config.score.tokenizer,
        "distribution": {k: _distribution(scored[k].to_numpy()) for k in ("r_static", "r_cons", "w_src", "r_qual")},
        "critical_flaw_share": round(float(scored["critical_flaw"].mean()), 4) if len(scored) else 0.0,
        "per_platform": per_platform,
        "per_listing": per_listing(scored, config.score.source_weights),
        "side_effect": {s: int((scored["side_effect"] == s).sum()) for s in SIDE_EFFECTS},
        "prompt_tokens": prompt_token_summary(scored),
        "embedding_cache": {"hits": embedder.hits, "misses": embedder.misses},
        "online": online,
    }


def prompt_token_summary(scored: pl.DataFrame) -> dict:
    """Total, median, p90 and max prompt tokens of the tools whose parameter schema is known. A tool whose schema its
    source could not show counts only what the source showed (its name and description, and any part of a schema),
    a lower bound: it is counted apart (``schema_unknown``: tools and their lower-bound total), never in the
    figures."""
    unknown = scored["unknown_fields"].list.contains("parameters")
    tokens = scored.filter(~unknown)["prompt_tokens"].to_numpy()
    lower = scored.filter(unknown)["prompt_tokens"]
    return {
        "total": int(tokens.sum()),
        "median": float(np.median(tokens)) if len(tokens) else 0.0,
        "p90": float(np.quantile(tokens, 0.9)) if len(tokens) else 0.0,
        "max": int(tokens.max()) if len(tokens) else 0,
        "schema_unknown": {"tools": len(lower), "total_lower_bound": int(lower.sum())},
    }


def unknown_reading(part: pl.DataFrame) -> dict:
    """What a listing's scores read without knowing: its tools' unknown fields (per field), the side-effect tiers
    decided while an input was unknown, and the tools whose prompt tokens are a lower bound (schema unknown)."""
    unknown = part["unknown_fields"].to_list()
    tiers = Counter(tier for tier, fields in zip(part["side_effect"], unknown, strict=True)
                    if set(fields or ()) & set(UNKNOWABLE_INPUTS))  # fmt: skip
    return {
        "fields": unknown_field_counts(unknown),
        "side_effect_with_unknown_inputs": dict(sorted(tiers.items())),
        "prompt_tokens_lower_bound": int(part["unknown_fields"].list.contains("parameters").sum()),
    }


def per_listing(scored: pl.DataFrame, weights: dict[str, float]) -> dict:
    """Per listing: tools, reliable tools and share, per platform the w_src it took, from which key of
    ``score.source_weights`` and why (:data:`scoring.reliability.LISTING_RULES`), and what its scores read without
    knowing (:func:`unknown_reading`)."""
    out = {}
    for listing in sorted(scored["listing"].unique()):
        part = scored.filter(pl.col("listing") == listing)
        platforms = {}
        for platform in sorted(part["platform"].unique()):
            rows = part.filter(pl.col("platform") == platform)
            key = source_weight_key(platform, listing, weights)
            platforms[platform] = {"tools": len(rows), "reliable_share": round(float(rows["reliable"].mean()), 4),
                                   "w_src": weights[key], "weight": key}  # fmt: skip
        out[listing] = {
            "tools": len(part),
            "reliable": int(part["reliable"].sum()),
            "reliable_share": round(float(part["reliable"].mean()), 4),
            "w_src_rule": LISTING_RULES.get(listing, ("other", "not a listing the rule names: 'otherwise'"))[1],
            "per_platform": platforms,
            "unknown": unknown_reading(part),
        }
    return out


def gate(config: Config, in_dir: str, crawl_dir: str, out: str | None = None):
    """Run the great-expectations gate over a scored catalog and its crawl's drop counts; returns the GateResult.

    ``in_dir``: the scored catalog; ``crawl_dir``: the crawl it was scored from, whose ``crawl_summary.json`` holds
    the drop counts.
    """
    from scoring.gate import run_scored_catalog_gate

    source = ArtifactStore(in_dir)
    scored = source.read_table(SCORE_FILES.tools, ScoredToolRecord.model_fields)
    crawl_summary = ArtifactStore(crawl_dir).read_json_input(
        CRAWL_FILES.summary, ("tools", "drops_by_reason"), option="--crawl"
    )
    report_dir = out or config.score.gate.report_dir
    if report_dir:  # a folder of its own: the report is written there, file by file
        return run_scored_catalog_gate(scored, crawl_summary, config.score.gate, report_dir)
    # the report joins the catalog it validated, as the score folder's next generation: the catalog is read
    # again from that generation, so a score run that replaced the folder meanwhile cannot pair them wrongly
    folder = StageFolder(source.url(), marker=SCORE_FILES.summary)
    with folder.amend() as store:
        scored = store.read_parquet(SCORE_FILES.tools)
        result = run_scored_catalog_gate(scored, crawl_summary, config.score.gate, store.url())
    result.report_path = folder.url(SCORE_FILES.gate_report)
    return result
