"""The mapping report (``LABEL_FILES.workflow_mapping``): every node occurrence of every template, counted.

Per node type (as the workflow names it; a tool variant also names the node it wraps): how often it occurs and in
how many templates, how many occurrences the non-gold rule set apart and why, how many app-node occurrences map to
a catalog tool and how (``read``, ``default``, ``stripped_single_tool``, ``stripped_node_name``), how many map at
the node level only (``node_level``: a stripped node whose operation is unknown, its tools are alternatives), how
many do not and why, how many mapped tools no text of their template supports (``unsupported``: not labels), how
many labels the type gave, and how many (occurrence, tool) alternatives the text supports (``alternatives``) or
not. The totals hold the acceptance share: app-node occurrences of n8n's own packages (``n8n-nodes-base``,
``@n8n/n8n-nodes-langchain``) that map (exactly or at the node level) over all of them, and the exact share beside
it. ``completion`` counts the labels :mod:`labeling.workflows.completion` added by resolution, the queries that
gained one, the services completed (by queries) and the calls that added nothing (``already_labelled``: the
query has a native label of the service; ``unsupported``: no text of the query names it).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from labeling.workflows.completion import Completion
from labeling.workflows.mapping import NodeMapping

OFFICIAL_PACKAGES = ("n8n-nodes-base", "@n8n/n8n-nodes-langchain")
GOAL_SHARE = 0.9  # issue 25: >= 90 % of the official app-node occurrences map to a catalog tool


@dataclass
class _TypeCounts:
    base_type: str
    occurrences: int = 0
    templates: set[int] = field(default_factory=set)
    non_gold: Counter = field(default_factory=Counter)
    mapped: Counter = field(default_factory=Counter)  # by resolution
    node_level: int = 0  # stripped: the node's tools, its operation unknown (alternatives)
    unmapped: Counter = field(default_factory=Counter)  # by reason
    unsupported: int = 0  # exact tools no text of the template supports: no label
    labels: int = 0
    alternatives: int = 0  # (occurrence, tool) pairs of stripped nodes the text supports
    alternatives_unsupported: int = 0
    tools: set[str] = field(default_factory=set)

    def row(self, node_type: str) -> dict:
        app = sum(self.mapped.values()) + self.node_level + sum(self.unmapped.values())
        return {
            "node_type": node_type,
            "package": node_type.rsplit(".", 1)[0],
            "variant_of": self.base_type if self.base_type != node_type else None,
            "occurrences": self.occurrences,
            "templates": len(self.templates),
            "non_gold": dict(sorted(self.non_gold.items())),
            "app_occurrences": app,
            "mapped": sum(self.mapped.values()),
            "mapped_by_resolution": dict(sorted(self.mapped.items())),
            "node_level": self.node_level,
            "unmapped": dict(sorted(self.unmapped.items())),
            "unsupported": self.unsupported,
            "labels": self.labels,
            "alternatives": self.alternatives,
            "alternatives_unsupported": self.alternatives_unsupported,
            "distinct_tools": len(self.tools),
        }


class MappingReport:
    """Counts node occurrences as the build reads them; :meth:`as_dict` is the report."""

    def __init__(self) -> None:
        self.types: dict[str, _TypeCounts] = {}
        self.templates: Counter = Counter()
        self.completion = {"labels_by_resolution": Counter(), "queries": 0, "services": Counter(),
                           "skipped": Counter()}  # fmt: skip

    def node(self, template_id: int, mapping: NodeMapping) -> None:
        counts = self.types.setdefault(mapping.node_type, _TypeCounts(mapping.base_type))
        counts.occurrences += 1
        counts.templates.add(template_id)
        if mapping.non_gold is not None:
            counts.non_gold[mapping.non_gold] += 1
        elif mapping.tool_id is not None:
            counts.mapped[mapping.resolution] += 1
            counts.tools.add(mapping.tool_id)
        elif mapping.alternatives:
            counts.node_level += 1
            counts.tools.update(mapping.alternatives)
        else:
            counts.unmapped[mapping.unmapped] += 1

    def label(self, node_type: str, supported: bool, alternative: bool = False) -> None:
        counts = self.types[node_type]
        if alternative:
            if supported:
                counts.alternatives += 1
            else:
                counts.alternatives_unsupported += 1
        elif supported:
            counts.labels += 1
        else:
            counts.unsupported += 1

    def completed(self, done: Completion) -> None:
        """Count one query's completion (:func:`labeling.workflows.completion.complete`)."""
        c = self.completion
        c["labels_by_resolution"].update(row["resolution"] for row in done.labels.values())
        c["queries"] += bool(done.labels)
        c["services"].update(list(done.services))
        c["skipped"].update(done.skipped)

    def completion_counts(self) -> dict:
        c = self.completion
        return {"labels": sum(c["labels_by_resolution"].values()),
                "labels_by_resolution": dict(sorted(c["labels_by_resolution"].items())),
                "queries": c["queries"], "skipped": dict(sorted(c["skipped"].items())),
                "services_by_queries": dict(sorted(c["services"].items(), key=lambda kv: (-kv[1], kv[0])))}  # fmt: skip

    def template(self, status: str) -> None:
        self.templates[status] += 1

    def totals(self) -> dict:
        rows = [c.row(t) for t, c in self.types.items()]
        official = [r for r in rows if r["package"] in OFFICIAL_PACKAGES]
        app, mapped = sum(r["app_occurrences"] for r in official), sum(r["mapped"] for r in official)
        node_level = sum(r["node_level"] for r in official)
        reasons: Counter = Counter()
        resolutions: Counter = Counter()
        for r in rows:
            reasons.update(r["unmapped"])
            resolutions.update(r["mapped_by_resolution"])
        return {
            "node_occurrences": sum(r["occurrences"] for r in rows),
            "non_gold": dict(sorted(sum((Counter(r["non_gold"]) for r in rows), Counter()).items())),
            "app_occurrences": sum(r["app_occurrences"] for r in rows),
            "mapped": sum(r["mapped"] for r in rows),
            "mapped_by_resolution": dict(sorted(resolutions.items())),
            "unmapped_by_reason": dict(sorted(reasons.items())),
            "unsupported": sum(r["unsupported"] for r in rows),
            "labels": sum(r["labels"] for r in rows),
            "alternatives": sum(r["alternatives"] for r in rows),
            "alternatives_unsupported": sum(r["alternatives_unsupported"] for r in rows),
            "node_level": sum(r["node_level"] for r in rows),
            "official_packages": {
                "packages": list(OFFICIAL_PACKAGES),
                "app_occurrences": app,
                "mapped_exact": mapped,
                "mapped_node_level": node_level,
                "mapped_share": round((mapped + node_level) / app, 4) if app else None,
                "mapped_exact_share": round(mapped / app, 4) if app else None,
                "goal_share": GOAL_SHARE,
                "what": "mapped_share: app-node occurrences of n8n's own packages that map to catalog tools, exactly "
                "(their tool) or, in a stripped template whose node's operation is unknown, at the node level (the "
                "node's tools as acceptable alternatives); mapped_exact_share counts the exact ones only",
            },
        }

    def as_dict(self, head: dict) -> dict:
        by_type = sorted((c.row(t) for t, c in self.types.items()), key=lambda r: (-r["occurrences"], r["node_type"]))
        return {**head, "templates_by_status": dict(sorted(self.templates.items())), "totals": self.totals(),
                "completion": self.completion_counts(), "by_node_type": by_type}  # fmt: skip

