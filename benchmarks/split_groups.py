"""How many split groups the grouping rules merge on real query sets: text, + templates, + paraphrases, + gold sets.

    .venv/bin/python benchmarks/split_groups.py [--toolbench DIR]

Reads BFCL live (``label.bfcl_categories`` of the default profile, every query with a gold function) and a folder
in ToolBench's format (``--toolbench DIR``: an unpacked ToolBench release; by default
``benchmarks/data/toolbench_format_sample``, nine queries written in that format around issue 17's SQUAKE family,
because ToolBench itself is not on the package registries this project reaches), and counts the groups of
:mod:`ecoagent.text.splits` under each rule in turn: the text rule alone (same normalized text, word Jaccard above
``label.dedup_threshold``), plus templates (a number or an entity apart), plus paraphrases (the same gold tools in
the source and a MiniLM cosine of at least ``label.paraphrase_min_cosine``), plus identical gold sets (queries of
one source written for the same tools, whatever their wording). Prints one table and a few merged examples of each
new rule.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from ecoagent.config import Config, load_config
from ecoagent.retrieval.embedding import query_and_tool_encoders
from ecoagent.text.dedup import DisjointSets, shingles
from ecoagent.text.markdown import markdown_table
from ecoagent.text.splits import (
    gold_set_key,
    normalize,
    paraphrase_key,
    paraphrase_pairs,
    same_key_pairs,
    similar_pairs,
    template_pairs,
)

TOOLBENCH_SAMPLE = Path(__file__).resolve().parent / "data" / "toolbench_format_sample"


def groups(n: int, edges) -> int:
    sets = DisjointSets(range(n))
    for a, b in edges:
        sets.union(a, b)
    return len({sets.find(i) for i in range(n)})


def measure(name: str, queries: list, config: Config, encoder) -> tuple[list, list[str]]:
    texts = [q.text for q in queries]
    norms = [normalize(t) for t in texts]
    threshold = config.label.dedup_threshold
    first: dict[str, int] = {}
    text_edges = [(first.setdefault(n, i), i) for i, n in enumerate(norms)]
    sets = [frozenset(shingles(n)) for n in norms]
    text_edges += [(a, b) for a, b, _ in similar_pairs(sets, threshold)]
    templates = template_pairs(norms, threshold)
    started = time.perf_counter()
    vectors = encoder.encode(texts)
    keys = [paraphrase_key(q.gold_tools) for q in queries]
    paraphrases = paraphrase_pairs(keys, vectors, config.label.paraphrase_min_cosine)
    seconds = time.perf_counter() - started
    n = len(texts)
    g_text = groups(n, text_edges)
    g_tmpl = groups(n, text_edges + templates)
    g_para = groups(n, text_edges + templates + paraphrases)
    gold_sets = same_key_pairs([gold_set_key(q.source, q.gold_tools) for q in queries])
    g_gold = groups(n, text_edges + templates + paraphrases + gold_sets)
    row = [name, n, g_text, g_tmpl, g_text - g_tmpl, g_para, g_tmpl - g_para, g_gold, g_para - g_gold,
           f"{seconds:.1f}"]  # fmt: skip
    rng = random.Random(0)
    examples = []
    for label, pairs in (("template", templates), ("paraphrase", paraphrases), ("gold set", gold_sets)):
        fresh = [(a, b) for a, b in pairs if norms[a] != norms[b]]
        for a, b in rng.sample(fresh, min(3, len(fresh))):
            examples.append(f"{name} {label}: {texts[a][:90]!r} ~ {texts[b][:90]!r}")
    return row, examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--toolbench",
        type=Path,
        default=TOOLBENCH_SAMPLE,
        help="a folder in ToolBench's format (data/instruction/...); default: the bundled sample",
    )
    args = parser.parse_args()

    from ecoagent.packages.fetch import fetch_data_wheel
    from labeling import sources

    config = load_config("default")
    encoder, _ = query_and_tool_encoders(
        config.label.agreement_embedder, config.resolve_path(config.embedding.cache_dir), "label.agreement_embedder"
    )
    bfcl = sources.read_bfcl(fetch_data_wheel(config, config.label.bfcl_package), config.label.bfcl_categories)
    sets = [("BFCL live", [q for q in bfcl.queries if q.gold_tools])]
    if args.toolbench:
        sets.append((f"ToolBench format ({args.toolbench.name})", sources.read_toolbench(args.toolbench).queries))
    rows, examples = [], []
    for name, queries in sets:
        row, ex = measure(name, queries, config, encoder)
        rows.append(row)
        examples += ex
    print("\n".join(markdown_table(
        ["queries", "n", "groups: text", "+ templates", "merged", "+ paraphrases", "merged", "+ gold sets", "merged",
         "embed s"], rows
    )))  # fmt: skip
    print()
    print("\n".join(f"- {e}" for e in examples))


if __name__ == "__main__":
    main()
