"""The release info (every fact the card, the Croissant file, the changelog and the manifest are written from) and
the manifest itself (``manifest.json``: versions, sources, models, seeds, config, counts, files, the gate's result).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import polars as pl

from ecoagent.config import Config
from ecoagent.runtime.quality_gate import GateResult
from schemas.tool_event import EVENTS
from schemas.unknown_fields import REDUCED_COPY_FLAG, unknown_field_counts

NAME = "EcoAgent"


_URL_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")


def _scrub(value: Any) -> Any:
    """Config values as recorded: credentials embedded in a URL (user:pass@host) are removed."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v) for v in value]
    if isinstance(value, str):
        return _URL_USERINFO.sub("", value)
    return value


def _unique(frame: pl.DataFrame, column: str) -> list[str]:
    if column not in frame.columns:
        return []
    return sorted(str(v) for v in frame[column].drop_nulls().unique())


def release_info(
    stage: dict[str, Any], config: Config, prev: dict[str, Any] | None, version: str, created: str,
    layout: dict[str, dict[str, str]], files: dict[str, dict], stats: dict[str, Any],
) -> dict:
    """The release info of one build: the stage outputs' provenance, counts, models, seeds and scrubbed config."""
    synth_summary, label_summary = stage["synth_summary"], stage["label_summary"]
    syn_q = stage["syn_queries"]
    backend = synth_summary.get("backend") or config.llm.backend
    packages = _packages(stage)
    counts = {c: {s: files[p]["rows"] for s, p in splits.items()} for c, splits in sorted(layout.items())}
    return {
        "name": NAME,
        "version": version,
        "created": created,
        "previous_version": prev["version"] if prev else None,
        "layout": layout,
        "files": files,
        "counts": counts,
        "stats": stats,
        "packages": packages,
        "package_errors": sorted(p["name"] for p in stage["fetch_manifest"] if p.get("error")),
        "platforms": _unique(stage["tools"], "platform"),
        "platform_counts": dict(sorted(Counter(stage["tools"]["platform"].to_list()).items())),
        "tools": len(stage["tools"]),
        "catalog": catalog_info(stage),
        "reliable_share": round(float(stage["tools"]["reliable"].mean()), 4) if len(stage["tools"]) else 0.0,
        # other readings of eq. 4-5 measured by the score stage (score.readings), e.g. paper_compatible
        "reliable_share_readings": {
            name: {"share": r["reliable_share"], "description": r.get("description", "")}
            for name, r in stage["score_summary"].get("readings", {}).items()
        },
        "generator": _generator_info(syn_q, synth_summary, config, backend),
        "real": _real_info(stage, config),
        "syn": _syn_info(stage),
        "gold": _gold_info(stage, layout),
        "history": _history_info(stage),
        "tool_events": _tool_events_info(stage, layout, stats),
        "failure_prediction": (stage.get("history") or {}).get("failure"),
        "workflows": _workflows_info(stage, layout, stats),
        "package_requests": _package_requests_info(stage, layout, stats),
        "models": _models_info(syn_q, label_summary, config),
        "seeds": _seeds_info(config),
        "dedup_threshold": {"syn": config.synth.dedup_threshold, "real": config.label.dedup_threshold},
        "score": _score_info(stage, config),
        "config": _scrub(config.model_dump(mode="json")),
    }


def _packages(stage: dict) -> list[dict]:
    """The packages fetched without an error, by platform and name: what the release was crawled from."""
    return sorted(
        (
            {k: p.get(k) for k in ("platform", "registry", "name", "version", "sha256")}
            for p in stage["fetch_manifest"]
            if not p.get("error")
        ),
        key=lambda p: (str(p["platform"]), str(p["name"])),
    )


def _generator_info(syn_q: pl.DataFrame, synth_summary: dict, config: Config, backend: str) -> dict:
    """The Syn generator: its backend, models and prompt versions; the embedded base model's output is no benchmark."""
    return {
        "backend": backend,
        "models": _unique(syn_q, "generator_model") or [config.llm.model],
        "prompt_versions": _unique(syn_q, "prompt_version") or [synth_summary.get("prompt_version")],
        "not_a_benchmark": backend == "embedded",
    }


def _models_info(syn_q: pl.DataFrame, label_summary: dict, config: Config) -> dict:
    """Every model the stages used, as the stages recorded them (else as configured)."""
    return {
        "embedder": config.score.embedder,
        "tokenizer": config.score.tokenizer,
        "generator_model": _unique(syn_q, "generator_model") or [config.llm.model],
        "retriever": label_summary.get("retriever", config.label.retriever),
        "verifier": label_summary.get("verifier_model", config.llm.model),
        "agreement_embedder": label_summary.get("agreement_embedder", config.label.agreement_embedder),
        "roundtrip_embedder": config.synth.roundtrip_embedder,
        "negative_embedder": config.synth.negative_embedder,
    }


def _seeds_info(config: Config) -> dict:
    return {
        "seed": config.seed,
        "split_seed": config.seed,
        "split_ratios": list(config.release.syn_split_ratios),
        "generation_request_seed": "sha256(f'{seed}:{tool_id}')[:8] per tool (synth.generate.request_seed)",
    }


def _score_info(stage: dict, config: Config) -> dict:
    """The reliability score's settings, and what it gave per listing."""
    return {
        "weights": list(config.score.weights),
        "quality_weights": list(config.score.quality_weights),
        "source_weights": dict(config.score.source_weights),
        "reliable_threshold": config.score.reliable_threshold,
        # per listing: tools, reliable share, the w_src each platform took and the rule's reason
        "per_listing": stage["score_summary"].get("per_listing", {}),
    }


# the crawl's near-duplicate rule (crawlers.normalize.deduplicate): a normalized description this short is no group
MIN_GROUP_DESCRIPTION_CHARS = 20
NOTHING_FOUND = "nothing found: the extractor found no tool definition in the package's files"


def _normalized(text: str | None) -> str:
    return re.sub(r"[^a-z0-9]+", " ", (text or "").lower()).strip()


def catalog_info(stage: dict) -> dict:
    """What the card says about the catalog, from the release's own tools and the crawl's records: the packages
    that yield a tool, each package fetched and read that yields none with the crawl's reason, the identical (name,
    description) groups left and why some carry no ``duplicate_group``, the tools with an empty description."""
    tools = stage["tools"]
    with_tools = set(zip(tools["platform"], tools["package"], strict=True))
    errors: dict[str, list[str]] = {}
    for e in stage["crawl_summary"].get("package_errors", []):
        errors.setdefault(e["package"], []).append(f"{e['where']}: {str(e['reason'])[:160]}")
    drops: dict[str, Counter] = {}
    for d in stage["crawl_drops"]:
        platform_package = ":".join(str(d["tool_id"]).split(":")[:2])  # tool ids are platform:package:...
        drops.setdefault(platform_package, Counter())[str(d["reason"]).split(":")[0]] += 1
    without = []
    for p in stage["fetch_manifest"]:
        if p.get("error") or (p["platform"], p["name"]) in with_tools:  # a fetch error is listed on its own
            continue
        key = f"{p.get('registry')}:{p['name']}@{p.get('version')}"
        if key in errors:
            reason = "could not be read: " + "; ".join(errors[key])
        elif dropped := drops.get(f"{p['platform']}:{p['name']}"):
            reason = "every tool found was dropped: " + ", ".join(f"{r} {n}" for r, n in sorted(dropped.items()))
        else:
            reason = NOTHING_FOUND
        without.append({"platform": p["platform"], "package": p["name"], "version": p.get("version"),
                        "reason": reason})  # fmt: skip
    return {
        "packages_with_tools": len(with_tools),
        "packages_without_tools": sorted(without, key=lambda w: (str(w["platform"]), str(w["package"]))),
        "exact_duplicates_dropped": stage["crawl_summary"].get("drops_by_reason", {}).get("exact_duplicate", 0),
        "near_duplicates": stage["crawl_summary"].get("near_duplicates") or {},
        # n8n's community listing (crawl.community_listing): the packages it named and the tools read from its copy
        "community_listing": _listing_info(stage["crawl_summary"].get("community_listing"), tools),
        **_identical_groups(tools),
        "empty_description": int((tools["description"].fill_null("").str.strip_chars() == "").sum()),
    }


def _listing_info(listing: dict | None, tools: pl.DataFrame) -> dict | None:
    """The community listing's data package and package count, how many tools came from its copy, and of those the
    fields the copy could not show (unknown, not absent: :func:`schemas.unknown_fields.unknown_field_counts`)."""
    if not listing:
        return None
    copy = tools.filter(pl.col("flags").list.contains(REDUCED_COPY_FLAG)) if "flags" in tools.columns else tools.clear()
    unknown = copy["unknown_fields"].to_list() if "unknown_fields" in copy.columns else []
    return {"data_package": listing.get("data_package"), "packages": listing.get("packages", 0),
            "tools_from_copy": len(copy), "unknown_fields": unknown_field_counts(unknown)}  # fmt: skip


def _identical_groups(tools: pl.DataFrame) -> dict:
    """Groups of tools with an identical (name, description) and, for the tools without a ``duplicate_group``, why
    the crawl's near-duplicate rule gave them none (one package; a description too short to group)."""
    frame = tools.select("tool_id", "package", "name", pl.col("description").fill_null(""), "duplicate_group")
    sizes = frame.group_by("name", "description").agg(pl.len().alias("n"), pl.col("package").n_unique().alias("p"))
    groups = sizes.filter(pl.col("n") > 1)
    rows = frame.join(groups, on=["name", "description"], how="inner")
    ungrouped = rows.filter(pl.col("duplicate_group").is_null())
    why: Counter = Counter()
    for description, packages in ungrouped.select("description", "p").iter_rows():
        if len(_normalized(description)) < MIN_GROUP_DESCRIPTION_CHARS:
            why["description_under_20_characters"] += 1
        elif packages == 1:
            why["all_copies_in_one_package"] += 1
        else:
            why["other"] += 1
    return {"identical_groups": len(groups), "identical_tools": len(rows), "identical_ungrouped": len(ungrouped),
            "identical_ungrouped_by_reason": dict(sorted(why.items()))}  # fmt: skip


def _real_info(stage: dict, config: Config) -> dict:
    """How Real was labelled, as the label stage ran it: the deciding scores, the drops, the precision on gold."""
    summary = stage["label_summary"]
    cfg = config.label
    decided_by = summary.get("decided_by")
    if not decided_by:  # a label folder written before the stage recorded it: the configured verifier, said so
        model = cfg.agreement_embedder if summary.get("verifier", cfg.verifier) == "embedding" else config.llm.model
        decided_by = [{"verifier": summary.get("verifier", cfg.verifier), "model": model, "min_score": None}]
    evaluation = (summary.get("gold") or {}).get("evaluation") or {}
    precision = evaluation.get("precision")
    return {
        "sources": _unique(stage["real_queries"], "source") or [summary.get("source", cfg.source)],
        "verifier": summary.get("verifier", cfg.verifier),
        "decided_by": decided_by,
        "verifier_model": " + ".join(str(d["model"]) for d in decided_by),
        "retriever": summary.get("retriever", cfg.retriever),
        "top_k": summary.get("top_k", cfg.top_k),
        "min_cosine": summary.get("min_cosine", cfg.min_cosine),
        "agreement_embedder": summary.get("agreement_embedder", cfg.agreement_embedder),
        "queries_in": summary.get("queries_in"),
        "queries_after_filters": summary.get("queries_after_filters"),
        "queries_kept": summary.get("queries_kept"),
        "drops_by_reason": summary.get("drops_by_reason", {}),
        "llm": summary.get("llm", {}),
        "split_groups": summary.get("split_groups"),
        "review": stage["review"],
        "gold_evaluation": evaluation or None,
        "precision_on_gold": precision,
        "min_precision": config.release.min_real_precision,
        "not_a_benchmark": precision is None or precision < config.release.min_real_precision,
    }


def _syn_info(stage: dict) -> dict:
    """Syn coverage: tools with a released query over all tools, the on-topic share, the generation drops."""
    syn, tools = stage["syn_queries"], stage["tools"]
    with_queries = syn["tool_id"].n_unique() if len(syn) else 0
    summary = stage["synth_summary"]
    return {
        "tools_with_queries": with_queries,
        "tools": len(tools),
        "coverage": round(with_queries / len(tools), 4) if len(tools) else 0.0,
        "tools_selected": summary.get("tools_selected"),
        "selection": summary.get("selection"),
        "queries": len(syn),
        "on_topic_share": round(float(syn["on_topic"].mean()), 4) if len(syn) and "on_topic" in syn.columns else None,
        "drops_by_reason": summary.get("drops_by_reason", {}),
    }


def _history_info(stage: dict) -> dict | None:
    """The `ecoagent history` curve the release embeds (its months, the paper's point, its Markdown table)."""
    history = stage.get("history")
    if not history:
        return None
    table = history["table"]
    last = table["months"][-1] if table["months"] else {}
    return {"since": table["since"], "until": table["until"], "paper": table["paper"], "markdown": history["markdown"],
            "last": {k: last.get(k) for k in ("month", "tools", "reliable", "reliable_share")}}  # fmt: skip


def _tool_events_info(stage: dict, layout: dict, stats: dict) -> dict:
    """Where ``tools.status`` came from and its counts; with the history's tool events, how many of each kind and
    how many per platform and month (the ``tool-events`` config)."""
    history = stage.get("history") or {}
    events = history.get("tool_events")
    info = {"status": stats["tool_status"], "history": bool(history), "config": "tool-events" in layout}
    if events is None:
        return info
    per_month = events.group_by("month", "platform").agg(pl.len().alias("n")).sort("month", "platform")
    return {
        **info,
        "events": len(events),
        "since": history["table"]["since"],
        "until": history["table"]["until"],
        "by_event": {e: int((events["event"] == e).sum()) for e in EVENTS},
        "by_platform": dict(sorted(Counter(events["platform"].to_list()).items())),
        "by_month_platform": [list(row) for row in per_month.iter_rows()],
    }


def _gold_info(stage: dict, layout: dict) -> dict | None:
    """The gold set's mapping counts and provenance, when the release has it."""
    if "gold-queries" not in layout or stage["gold_mapping"] is None:
        return None
    report = stage["gold_mapping"]
    keep = ("source", "rule", "scoring", "tasks", "gold_queries", "gold_queries_complete",
            "gold_queries_alternatives_only", "gold_qrels", "gold_qrels_alternative", "annotated", "mapped",
            "mapped_by_resolution", "mapped_affix", "ambiguous", "unmapped")  # fmt: skip
    info = {k: report.get(k) for k in keep}
    unannotated = report.get("unannotated_server") or {}
    info["unannotated_server"] = {k: unannotated.get(k) for k in ("what", "tasks")}
    by_reason = (report.get("unmapped") or {}).get("by_reason", {})
    info["unmapped_by_reason"] = {reason: v.get("pairs") for reason, v in by_reason.items()}
    return info


def _workflows_info(stage: dict, layout: dict, stats: dict) -> dict | None:
    """The workflow set's source, rules, mapping totals, label-stage summary, released qrel counts and the filled
    blind review of its labels, when the release has it."""
    if "workflows-queries" not in layout:
        return None
    report = stage["workflow_mapping"] or {}
    return {
        "source": report.get("source") or {},
        "non_gold_rule": report.get("non_gold_rule"),
        "mapping_rule": report.get("mapping_rule"),
        "grade_rule": report.get("grade_rule"),
        "templates_by_status": report.get("templates_by_status") or {},
        "totals": report.get("totals") or {},
        "summary": (stage["label_summary"] or {}).get("workflows") or {},
        "qrels": stats.get("workflows_qrels") or {},
        "queries_stripped": stats.get("workflows_queries_stripped"),
        "review": stage.get("workflow_review"),
    }


def _package_requests_info(stage: dict, layout: dict, stats: dict) -> dict | None:
    """The package-requests set's rule, what was read and dropped, and its released counts, when the release has it."""
    if "package-requests-queries" not in layout:
        return None
    report = stage.get("package_request_report") or {}
    keep = ("rule", "packages_listed", "archives_read", "by_tie", "packages_contributing", "not_requests",
            "drops_by_reason")  # fmt: skip
    return {**{k: report.get(k) for k in keep}, **(stats.get("package_requests") or {})}


def release_manifest(info: dict, gate: GateResult) -> dict:
    """``manifest.json``'s content: the release info's record part and the gate's result."""
    return {
        "name": info["name"],
        "version": info["version"],
        "created": info["created"],
        "previous_version": info["previous_version"],
        "sources": {
            "packages": info["packages"],
            "package_errors": info["package_errors"],
            "real_query_sources": info["real"]["sources"],
            **({"gold": info["gold"]["source"]} if info["gold"] else {}),
            **({"workflows": info["workflows"]["source"]} if info.get("workflows") else {}),
        },
        "labels": {
            "real_decided_by": info["real"]["decided_by"],
            "real_precision_on_gold": info["real"]["precision_on_gold"],
            "real_not_a_benchmark": info["real"]["not_a_benchmark"],
        },
        "models": info["models"],
        "generator_backend": info["generator"]["backend"],
        "prompt_versions": info["generator"]["prompt_versions"],
        "seeds": info["seeds"],
        "config": info["config"],
        "configs": info["layout"],
        "counts": info["counts"],
        "stats": {k: (len(v) if isinstance(v, list) else v) for k, v in info["stats"].items()},
        "files": info["files"],
        "croissant_warnings": info.get("croissant_warnings", []),
        "gate": {"name": gate.name, "success": gate.success, "expectations": len(gate.results)},
        **({"baselines": info["baselines"]} if info.get("baselines") else {}),
        **({"failure_prediction": info["failure_prediction"]} if info.get("failure_prediction") else {}),
        **({"embeddings": info["embeddings"]} if info.get("embeddings") else {}),
    }
