"""What the label stage says about itself: the lines the CLI prints and a DAG task logs."""

from __future__ import annotations


def summary_lines(summary: dict, out: str) -> list[str]:
    """Counts in and out, splits, drops, the gold set's mapping and each verifier's precision on it."""
    lines = [
        f"label ({summary['source']}): {summary['queries_in']} queries in, {summary['queries_after_filters']} after "
        f"filters and dedup, {summary['candidates']} candidate pairs, {summary['verified_pairs']} verified "
        f"(verifier: {summary['verifier']}, model {summary['verifier_model']}), {summary['queries_kept']} queries "
        "kept",
        "splits: " + ", ".join(f"{k}={v}" for k, v in summary["splits"].items()),
        "drops by reason: " + ", ".join(f"{k}={v}" for k, v in summary["drops_by_reason"].items()),
    ]
    gold = summary.get("gold")
    if gold:
        lines.append(
            f"gold set (LiveMCPBench, human-annotated): {gold['gold_queries']} of {gold['tasks']} tasks, "
            f"{gold['gold_qrels']} qrels; annotated tool names mapped {gold['mapped']['pairs']} of "
            f"{gold['annotated']['pairs']} ({gold['ambiguous']['pairs']} ambiguous: alternatives only, "
            f"{(gold.get('mapped_affix') or {}).get('pairs', 0)} by affix), unmapped {gold['unmapped']['pairs']}; "
            f"{(gold.get('unannotated_server') or {}).get('tasks', 0)} tasks name a server none of their "
            "annotated tools is on"
        )
        evaluation = gold["evaluation"]
        rows = {"candidates (top-k)": evaluation["candidates"], **evaluation["verifiers"]}
        lines += [
            f"  vs gold, {name}: precision {row['precision']}, recall {row['recall']}, F1 {row['f1']} "
            f"({row['correct_pairs']} of {row['verified_pairs']} pairs right)"
            for name, row in rows.items()
        ]
    if "workflows" in summary:
        lines += workflow_lines(summary["workflows"])
    if "package_requests" in summary:
        found = summary["package_requests"]
        lines.append(
            f"package requests (the packages' own docs): {found['queries']} queries, by platform "
            + ", ".join(f"{k}={v}" for k, v in found["by_platform"].items())
            + "; labels " + ", ".join(f"{k}-level={v}" for k, v in found["by_label_level"].items())
            + "; splits " + ", ".join(f"{k}={v}" for k, v in found["by_split"].items())
        )
    return [*lines, f"review sample: {summary['review_sample_rows']} rows; total {summary['seconds']}s",
            f"outputs: {out}"]  # fmt: skip


def workflow_lines(w: dict) -> list[str]:
    """label.workflows: the set, its mapping share and the labeler measured on it (labeling/workflows)."""
    share = w["mapping"]["official_packages"]
    evaluation = w["evaluation"]
    return [
        f"workflows ({w['package']}): {w['queries_kept']} queries kept ({w['queries_kept_with_exact_label']} with an "
        f"exact label), splits {w['splits']}; n8n app nodes mapped {share['mapped_share']:.1%} "
        f"({share['mapped_exact_share']:.1%} exactly)",
        *(f"  vs workflow labels, {name}: precision {levels['tool']['precision']} "
          f"{levels['tool'].get('precision_ci95')}, recall {levels['tool']['recall']} "
          f"{levels['tool'].get('recall_ci95')}, F1 {levels['tool']['f1']} {levels['tool'].get('f1_ci95')} "
          f"({evaluation['queries']} queries)" for name, levels in evaluation["verifiers"].items()),
    ]  # fmt: skip
