"""Split groups and the temporal split of workflow queries; the cold-start view of the test split.

**Clone families.** n8n.io authors publish variants of one template (a Discord bot "via GPT-4o and MCP Client"
and "via MCP Server"), and templates are copied across authors with a new title word. Two templates are clones
when their titles are near-identical (word Jaccard, numbers masked, above ``label.workflows.title_similarity``)
and they come from the same author or run the same tool set. Clones, near-duplicate or templated query texts
(:func:`ecoagent.text.splits.group_rows`: the generated "<Service> Tool MCP Server, all N operations" family
is one) and near-duplicate or templated titles (the ``title`` view is a query too) are one group: a clone never
sits on both sides of a split.

The other Real sources also group queries with an identical gold set (ToolBench writes several queries for one
sampled API set). Workflows do not: each template is its own human task, and an identical gold set here is a
popular tool, not a shared origin (51 templates whose one tool is Google Sheets' "append row", by 40 authors over
eleven months, would be one group and pull the oldest into the test period). The same tool set counts where it
marks a clone: with a near-identical title.

**Temporal split.** A group is as new as its newest template (``created_at``). Whole months, newest first, go
to test until they hold at least the test share of the queries, the months before to validation until they
hold the validation share, the rest to train (``label.workflows.split_shares``). Every train template is then
older than the test period, and a test group holds a template of the test period: the test set is newer than
anything trained on.

**Cold start.** A tool labelled in test and in no train or validation query is a cold-start tool; a test query
with one is a cold-start query: the tools first used in the test period.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from ecoagent.text.splits import group_rows, masked_word_set, same_key_pairs, similar_pairs

SPLITS = ("train", "validation", "test")


def clone_pairs(titles: Sequence[str], authors: Sequence[str], tool_sets: Sequence[frozenset[str]],
                threshold: float) -> list[tuple[int, int]]:  # fmt: skip
    """Pairs of rows whose titles are near-identical and whose author or tool set is the same."""
    sets = [masked_word_set(t) for t in titles]
    distinct: dict[frozenset[str], int] = {}
    rows_of: list[list[int]] = []
    for row, words in enumerate(sets):
        k = distinct.setdefault(words, len(distinct))
        if k == len(rows_of):
            rows_of.append([])
        rows_of[k].append(row)
    title_pairs = [(a, b) for rows in rows_of for i, a in enumerate(rows) for b in rows[i + 1 :]]
    for a, b, _ in _pairs(list(distinct), threshold):
        title_pairs += [(x, y) for x in rows_of[a] for y in rows_of[b]]
    same_author = [bool(authors[a]) and authors[a] == authors[b] for a, b in title_pairs]
    same_tools = [bool(tool_sets[a]) and tool_sets[a] == tool_sets[b] for a, b in title_pairs]
    return [pair for pair, author, tools in zip(title_pairs, same_author, same_tools, strict=True) if author or tools]


def _pairs(keys: list[frozenset[str]], threshold: float) -> list[tuple[int, int, float]]:
    """similar_pairs over the non-empty keys, indices mapped back (an empty title has no similar title)."""
    index = [i for i, k in enumerate(keys) if k]
    return [(index[a], index[b], j) for a, b, j in similar_pairs([keys[i] for i in index], threshold)]


def workflow_groups(texts: Sequence[str], titles: Sequence[str], authors: Sequence[str],
                    tool_sets: Sequence[frozenset[str]], *, dedup_threshold: float,
                    title_similarity: float) -> list[str]:  # fmt: skip
    """The split group id of each workflow query (module docstring)."""
    import polars as pl

    # the title view is a query of its own: near-duplicate or templated titles share a group too
    title_groups = group_rows(pl.DataFrame({"text": list(titles)}, schema={"text": pl.String}),
                              dedup_threshold=dedup_threshold)  # fmt: skip
    linked = clone_pairs(titles, authors, tool_sets, title_similarity) + same_key_pairs(title_groups)
    frame = pl.DataFrame({"text": list(texts)}, schema={"text": pl.String})
    return group_rows(frame, dedup_threshold=dedup_threshold, linked=linked)


def temporal_splits(group_ids: Sequence[str], created_at: Sequence[str], shares: tuple[float, float]) -> list[str]:
    """Each row's split: a group's newest month decides, the newest months are test (module docstring)."""
    validation_share, test_share = shares
    newest: dict[str, str] = {}
    for gid, when in zip(group_ids, created_at, strict=True):
        month = (when or "")[:7]
        newest[gid] = max(newest.get(gid, ""), month)
    per_month = Counter(newest[g] for g in group_ids)
    total = len(group_ids)
    split_of_month: dict[str, str] = {}
    held = {"test": 0, "validation": 0}
    for month in sorted(per_month, reverse=True):
        if held["test"] < test_share * total:
            split = "test"
        elif held["validation"] < validation_share * total:
            split = "validation"
        else:
            split = "train"
        split_of_month[month] = split
        if split != "train":
            held[split] += per_month[month]
    return [split_of_month[newest[g]] for g in group_ids]


def cold_start_tools(splits: Sequence[str], tool_sets: Sequence[Sequence[str]]) -> set[str]:
    """The tools labelled in test and in no train or validation query."""
    seen: dict[str, set[str]] = defaultdict(set)
    for split, tools in zip(splits, tool_sets, strict=True):
        for tool in tools:
            seen[tool].add(split)
    return {tool for tool, where in seen.items() if where == {"test"}}


def split_months(group_ids: Sequence[str], created_at: Sequence[str], splits: Sequence[str]) -> dict[str, dict]:
    """Per split: its period (the months of its groups' newest templates: what decided) and the months of all its
    templates (a group of the test period may hold an older clone)."""
    newest: dict[str, str] = {}
    for gid, when in zip(group_ids, created_at, strict=True):
        newest[gid] = max(newest.get(gid, ""), (when or "")[:7])
    out: dict[str, dict] = {s: {"period": set(), "templates": set()} for s in SPLITS}
    for gid, when, split in zip(group_ids, created_at, splits, strict=True):
        out[split]["period"].add(newest[gid])
        out[split]["templates"].add((when or "")[:7])
    return {s: {k: sorted(v) for k, v in parts.items()} for s, parts in out.items()}
