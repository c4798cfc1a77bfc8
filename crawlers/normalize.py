"""Turn extractor output into ToolRecords: ids, hashes, links, redaction, dedup, near-duplicate report.

Redaction is :mod:`ecoagent.text.redaction`'s, over every string of the record (its one list of secret formats).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from pydantic import ValidationError

from crawlers.base import ExtractedTool
from crawlers.links import classify_links
from ecoagent.packages.source import Source
from ecoagent.text.redaction import redact_value
from ecoagent.text.words import service_key
from schemas.tool_record import ToolRecord

# Fields that define what a tool is; the package version is deliberately not one of them so that
# a version bump that changes nothing keeps the hash (incremental refresh relies on it).
_CONTENT_FIELDS = (
    "platform", "name", "display_name", "description", "parameters", "auth_type", "auth_env_vars",
    "auth_credentials", "endpoints", "http_methods", "doc_urls", "categories", "deprecated", "runtime_only",
)  # fmt: skip


def _sorted_unique(values: list[str]) -> list[str]:
    return sorted({v.strip() for v in values if v and v.strip()})


def content_hash(fields: dict) -> str:
    payload = json.dumps({k: fields[k] for k in _CONTENT_FIELDS}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def tool_id_of(source: Source, local_id: str) -> str:
    """The catalog id of a tool: ``platform:package:local_id``."""
    return f"{source.platform}:{source.name}:{local_id}"


def to_record(source: Source, tool: ExtractedTool) -> ToolRecord:
    """Normalize one extracted tool; raises ValueError (with the reason) for a record to drop."""
    name = (tool.name or "").strip()
    if not name:
        raise ValueError("empty_name")
    params = tool.parameters or {"type": "object", "properties": {}}
    if params.get("type") != "object":
        raise ValueError("parameters_not_an_object_schema")
    fields = {
        "tool_id": tool_id_of(source, tool.local_id),
        "platform": source.platform,
        "listing": source.listing,
        "package": source.name,
        "package_version": source.version,
        "source_path": tool.source_path,
        "source_symbol": tool.local_id,
        "service": tool.service or "",
        "name": name,
        "display_name": (tool.display_name or name).strip(),
        "description": (tool.description or "").strip(),
        "parameters": params,
        "required_parameters": sorted(set(params.get("required", []))),
        "auth_type": tool.auth_type,
        "auth_env_vars": _sorted_unique([*tool.auth_env_vars, *tool.env_vars_declared, *tool.env_vars_read]),
        "auth_env_vars_declared": _sorted_unique(tool.env_vars_declared),
        "auth_env_vars_read": _sorted_unique(tool.env_vars_read),
        "auth_credentials": _sorted_unique(tool.auth_credentials),
        "endpoints": _sorted_unique(tool.endpoints),
        "http_methods": _sorted_unique([m.upper() for m in tool.http_methods]),
        "doc_urls": _sorted_unique(tool.doc_urls),
        "categories": _sorted_unique(tool.categories),
        "package_dependencies": _sorted_unique(tool.package_dependencies),
        "deprecated": bool(tool.deprecated),
        "replacement": tool.replacement,
        "runtime_only": bool(tool.runtime_only),
        "usable_as_tool": tool.usable_as_tool,
        "unknown_fields": sorted(set(tool.unknown_fields)),
    }
    # One pass over every text and URL field, the parameter schema's names, descriptions and defaults included
    # (before it becomes JSON text, so a replacement can never break the JSON); links are made from the result.
    fields, redactions = redact_value(fields)
    fields["parameters"] = json.dumps(fields["parameters"], sort_keys=True, ensure_ascii=False)
    for key in ("endpoints", "doc_urls", "categories", "auth_credentials", "package_dependencies"):
        fields[key] = _sorted_unique(fields[key])  # two values may have become one
    fields["flags"] = sorted({*tool.flags, "redacted_secret"} if redactions else set(tool.flags))
    fields["links"] = classify_links(fields["doc_urls"], fields["endpoints"])
    fields["content_hash"] = content_hash(fields)
    try:
        return ToolRecord(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"invalid_record: {'.'.join(map(str, first['loc']))}: {first['msg']}") from exc


def _norm_text(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


@dataclass
class DedupResult:
    records: list[ToolRecord]
    drops: Counter = field(default_factory=Counter)
    dropped: list[dict] = field(default_factory=list)  # audit trail: tool_id, reason, kept
    near_duplicates: dict = field(default_factory=dict)


def deduplicate(records: list[ToolRecord], min_description_chars: int = 20) -> DedupResult:
    """Drop exact duplicates, report (never drop) near-duplicates.

    Exact: the same tool_id, or the same content (same platform, name, description, schema, auth)
    in another package of the platform, e.g. a tool copied between two LangChain packages. The
    record with the smallest tool_id survives, so the choice is deterministic.
    Near: the same normalized description, or the same name, in several packages or platforms.
    Same service: the tools of one service (:func:`ecoagent.text.words.service_key`) offered by more than one
    package, kept and flagged with a ``service_group`` (several community packages wrap the same API).
    """
    result = DedupResult(records=[])
    seen_ids: set[str] = set()
    seen_content: dict[str, str] = {}
    for rec in sorted(records, key=lambda r: r.tool_id):
        if rec.tool_id in seen_ids:
            result.drops["duplicate_tool_id"] += 1
            result.dropped.append({"tool_id": rec.tool_id, "reason": "duplicate_tool_id", "kept": rec.tool_id})
            continue
        if rec.content_hash in seen_content:
            kept = seen_content[rec.content_hash]
            result.drops["exact_duplicate"] += 1
            result.dropped.append({"tool_id": rec.tool_id, "reason": "exact_duplicate", "kept": kept})
            continue
        seen_ids.add(rec.tool_id)
        seen_content[rec.content_hash] = rec.tool_id
        result.records.append(rec)

    by_desc: dict[str, list[ToolRecord]] = defaultdict(list)
    by_name: dict[str, list[ToolRecord]] = defaultdict(list)
    for rec in result.records:
        text = _norm_text(rec.description)
        if len(text) >= min_description_chars:
            by_desc[text].append(rec)
        by_name[_norm_text(rec.name)].append(rec)
    groups = {}
    for text, members in by_desc.items():
        if len({m.package for m in members}) > 1:
            groups[hashlib.sha256(text.encode()).hexdigest()[:16]] = members
    group_of = {m.tool_id: gid for gid, members in groups.items() for m in members}
    service_of, result.near_duplicates = same_service_groups(result.records)
    result.records = [
        r.model_copy(update={"duplicate_group": group_of.get(r.tool_id), "service_group": service_of.get(r.tool_id)})
        for r in result.records
    ]
    name_groups = {n: ms for n, ms in by_name.items() if n and len({m.package for m in ms}) > 1}
    result.near_duplicates = {
        **result.near_duplicates,
        "same_description_groups": len(groups),
        "same_description_tools": len(group_of),
        "same_description_cross_platform_groups": sum(len({m.platform for m in ms}) > 1 for ms in groups.values()),
        "same_name_groups": len(name_groups),
        "same_name_tools": sum(len(ms) for ms in name_groups.values()),
        "same_name_cross_platform_groups": sum(len({m.platform for m in ms}) > 1 for ms in name_groups.values()),
        "examples": [
            sorted(m.tool_id for m in ms)[:5] for _, ms in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:10]
        ],
    }
    return result


def same_service_groups(records: list[ToolRecord], examples: int = 10) -> tuple[dict[str, str], dict]:
    """``({tool_id: service group}, the report)``: a group is a normalized service offered by several packages.

    The report counts the groups, their tools, the groups spanning several listings (a community package wrapping
    an API an official or platform package already covers) and the listing combinations, with the largest groups as
    examples (service, listings, packages).
    """
    by_service: dict[str, list[ToolRecord]] = defaultdict(list)
    for rec in records:
        key = service_key(rec.service)
        if key:
            by_service[key].append(rec)
    groups = {key: ms for key, ms in by_service.items() if len({m.package for m in ms}) > 1}
    group_of = {m.tool_id: f"service:{key}" for key, ms in groups.items() for m in ms}
    listings = {key: tuple(sorted({m.listing for m in ms})) for key, ms in groups.items()}
    largest = sorted(groups, key=lambda k: (-len({m.package for m in groups[k]}), k))[:examples]
    report = {
        "same_service_groups": len(groups),
        "same_service_tools": len(group_of),
        "same_service_cross_listing_groups": sum(len(ls) > 1 for ls in listings.values()),
        "same_service_by_listings": dict(sorted(Counter("+".join(ls) for ls in listings.values()).items())),
        "same_service_examples": [_service_example(key, listings[key], groups[key]) for key in largest],
    }
    return group_of, report


def _service_example(service: str, listings: tuple[str, ...], members: list[ToolRecord]) -> dict:
    packages = sorted({m.package for m in members})
    return {"service": service, "listings": list(listings), "packages": packages[:8], "tools": len(members)}
