"""``report.md`` of ``ecoagent rated``: Tables 1-3 with the paper's numbers beside ours, and what they mean.

Pure formatting of the ``metrics.json`` dict (:func:`rated.run.rated_run`), so a report can be
re-rendered from a metrics file without rerunning anything (``render_report(json.load(...))``).
"""

from __future__ import annotations

from ecoagent.markdown import markdown_table
from rated.latency import markdown_table as latency_table
from rated.paper import TABLE1, TABLE2

ACCEPT_FSR = 0.05  # RATED (Full) at rho = 0.3 must keep FSR at or below this (the acceptance)

# our row -> the paper's row it corresponds to (same role, not the same model on CPU)
PAPER_ROW_TABLE2 = {
    "BM25 (static)": "BM25",
    "RATED (w/o Contrastive) (static)": "DRAGON (pretrained)",
    "Health Check Blacklist": "Health Check Blacklist",
    "Retry (k=3)": "Retry (k=3)",
    "ToolRL-like Batch (periodic)": "ToolRL-like Batch GRPO",
    "RATED (w/o Feedback)": "RATED (w/o Feedback)",
    "RATED (w/ Global MAB)": "RATED (w/ Global MAB)",
    "RATED (Full)": "RATED (Full)",
}


def _paper_row_table1(name: str) -> str | None:
    if name in TABLE1:
        return name
    if "bge-reranker" in name.lower():
        return "BGE-Reranker"
    return None


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table1(metrics: dict) -> list[str]:
    lines = ["## Table 1: offline retrieval", ""]
    lines.append(
        "ranx, strict ranking (ties broken by corpus order). Paper values in parentheses (its own release, "
        "DRAGON+ on a GPU); `–` = no paper value for that row. `gold/test` is LiveMCPBench's human-annotated tasks "
        "(several relevant tools per query, recall@k = the share of them in the top k); the paper has no such set."
    )
    for set_name, results in metrics["table1"].items():
        lines += ["", f"### {set_name}", ""]
        if "skipped" in results:
            lines.append(f"Not evaluated: {results['skipped']}.")
            continue
        subset = set_name.split("/")[0]
        rows = []
        for name, values in results.items():
            paper = TABLE1.get(_paper_row_table1(name) or "", {}).get(subset) if "cold_start" not in set_name else None
            cells = [name, str(values["queries"])]
            for i, metric in enumerate(("mrr", "recall@1", "recall@5")):
                cells.append(f"{_num(values[metric])} ({_num(paper[i]) if paper else '–'})")
            cells.append(_num(values["ndcg@10"]))
            rows.append(cells)
        lines += markdown_table(
            ["Method", "Queries", "MRR (paper)", "Recall@1 (paper)", "Recall@5 (paper)", "nDCG@10"], rows, 1
        )
    return lines


def _pct(summary: dict) -> str:
    if summary.get("mean") is None:
        return "–"
    ci = summary.get("ci95")
    return f"{100 * summary['mean']:.1f} ± {100 * ci:.1f}" if ci is not None else f"{100 * summary['mean']:.1f}"


def _steps(summary: dict) -> str:
    seeds = len(summary["values"])
    failed = summary.get("failed", 0)
    if summary.get("mean") is None:
        return f"Failed ({failed}/{seeds})"
    text = (
        f"{summary['mean']:.0f} ± {summary['ci95']:.0f}"
        if summary.get("ci95") is not None
        else f"{summary['mean']:.0f}"
    )
    return text + (f" ({failed}/{seeds} Failed)" if failed else "")


def _paper_cells(method: str, rho: float) -> list[str]:
    row = TABLE2.get(PAPER_ROW_TABLE2.get(method, ""), {}).get(rho)
    if row is None:
        return ["–", "–", "–"]
    return [f"{row[0]:.1f}", f"{row[1]:.1f}", "Failed" if row[2] is None else f"{row[2]:,}"]


def table2(metrics: dict) -> list[str]:
    lines = ["## Table 2: dynamic reliability under injected failures", ""]
    for stream in metrics["table2"]:
        if "skipped" in stream:
            lines += [f"Stream {stream['stream']}: not run ({stream['skipped']}).", ""]
            continue
        cfg = stream["config"]
        lines += [
            f"### Stream {stream['stream']} ({stream['queries']} queries, {stream['distinct_gold_tools']} distinct "
            f"gold tools; {len(cfg['seeds'])} seeds {cfg['seeds']}; simulated in {stream['seconds']} s)",
            "",
            f"T = {cfg['steps']:,}, onset after step {cfg['onset']:,}, metrics over steps {cfg['post'][0]:,}-"
            f"{cfg['post'][1]:,}, AS window W = {cfg['window']} (steps after the first full post-onset window "
            f"until windowed SR >= theta x pre-failure peak, theta {cfg['theta']}). Mean ± 95% CI over seeds "
            "(Student t), in %. Number of failing tools per seed: "
            + ", ".join(f"rho {r:g}: {_failing(stream, r)}" for r in cfg["rhos"])
            + ".",
        ]
        for scenario in cfg["scenarios"]:
            lines += ["", f"#### Scenario: {scenario}", ""]
            header = ["Method"]
            for rho in cfg["rhos"]:
                pct = f"{100 * rho:g}%"
                header += [f"SR {pct}", f"FSR {pct}", f"AS {pct}"]
            if scenario == "recovery":
                header += [f"readmit steps {100 * r:g}%" for r in cfg["rhos"]]
            if scenario == "persistent":
                header += ["paper SR/FSR/AS 20%", "paper SR/FSR/AS 30%"]
            rows = []
            for method, by_scenario in stream["results"].items():
                per_rho = by_scenario.get(scenario, {})
                cells = [method]
                for rho in cfg["rhos"]:
                    values = per_rho.get(f"{rho:g}")
                    if values is None:
                        cells += ["–", "–", "–"]
                        continue
                    cells += [_pct(values["post_fail_sr"]), _pct(values["fsr"]), _steps(values["adaptation_steps"])]
                if scenario == "recovery":
                    for rho in cfg["rhos"]:
                        values = per_rho.get(f"{rho:g}", {})
                        readmit = values.get("readmission_steps", {})
                        never = values.get("never_readmitted", {})
                        text = "–" if readmit.get("mean") is None else f"{readmit['mean']:.0f}"
                        if never.get("mean"):
                            text += f" ({never['mean']:.1f} tools never)"
                        cells.append(text)
                if scenario == "persistent":
                    cells += ["/".join(_paper_cells(method, rho)) for rho in (0.2, 0.3)]
                rows.append(cells)
            lines += markdown_table(header, rows, 1)
        if stream.get("plots"):
            lines += ["", "Windowed SR and FSR over time: " + ", ".join(f"[{p}]({p})" for p in stream["plots"])]
        lines.append("")
    return lines


def _failing(stream: dict, rho: float) -> list[int]:
    for by_scenario in stream["results"].values():
        for per_rho in by_scenario.values():
            if f"{rho:g}" in per_rho:
                return per_rho[f"{rho:g}"].get("n_failing", [])
    return []


def table3(metrics: dict) -> list[str]:
    latency = metrics["table3"]
    lines = [
        "## Table 3: per-step latency at batch size 1",
        "",
        f"{latency['steps']:,} steps after {latency['warmup']} warm-up, K = {latency['k']}, "
        f"{latency['n_tools']:,} tools, d = {latency['dim']}, this CPU (the paper: DRAGON on an RTX 5070). "
        "Each step encodes the query (no cache) and takes the top K; each method then re-ranks and updates "
        "on the same candidates.",
        "",
    ]
    lines.append(latency_table(latency))
    if "bandit_within_budget" in latency:
        full = latency["methods"]["RATED (Full)"]["overhead_ms"]
        verdict = "within" if latency["bandit_within_budget"] else "OVER"
        lines += [
            "",
            f"RATED (Full) adds {full:.3f} ms per step: {verdict} the {latency['bandit_budget_ms']} ms budget.",
        ]
    return lines


def acceptance(metrics: dict) -> list[str]:
    """The issue's acceptance check on the main stream, stated plainly (pass or not, and why)."""
    lines = ["## Acceptance check", ""]
    stream = next((s for s in metrics["table2"] if "results" in s), None)
    if stream is None:
        return [*lines, "No stream could be simulated."]
    for method in ("RATED (Full)", "RATED (Full, intercept prior)"):
        by_rho = stream["results"].get(method, {}).get("persistent", {})
        for rho in stream["config"]["rhos"]:
            values = by_rho.get(f"{rho:g}")
            if values is None:
                continue
            fsr = values["fsr"]["mean"]
            failed = values["adaptation_steps"].get("failed", 0)
            seeds = len(values["adaptation_steps"]["values"])
            target = ""
            if rho >= 0.3:
                target = f" (target <= {100 * ACCEPT_FSR:.0f}%: {'met' if fsr <= ACCEPT_FSR else 'NOT met'})"
            adapted = "reached in every seed" if not failed else f"Failed in {failed}/{seeds} seeds"
            lines.append(f"- {method}, rho {rho:g}, stream {stream['stream']}: FSR {100 * fsr:.1f}%{target}; "
                         f"adaptation {adapted}.")  # fmt: skip
    statics = {m: r for m, r in stream["results"].items() if m.endswith("(static)")}
    for name, by_scenario in statics.items():
        values = by_scenario.get("persistent", {}).get("0.3")
        if values:
            lines.append(
                f"- {name}: FSR {100 * values['fsr']['mean']:.1f}% at rho 0.3 "
                "(no feedback: it keeps picking failed tools)."
            )
    lines += ["", *WHY_NOT]
    return lines


# Why the paper's Algorithm 1 does not reach its FSR here (measured; see rated/bandit.py).
WHY_NOT = [
    "Where RATED (Full) misses the target, these are the measured reasons, not tuning left undone:",
    "",
    "1. The paper's prior `b = r_static x0` with `x0 = 1/sqrt(d)` gives `theta . x = r_static sum(x)/sqrt(d)`, "
    "about 0 for real sentence embeddings: the catalog prior does not reach the score.",
    "2. `A <- gamma A + x x^T` discounts the identity prior away, so a tool that keeps failing ends with "
    "`theta -> 0` but an exploration bonus `alpha sqrt(x^T A^-1 x) -> alpha sqrt(d (1 - gamma))` (0.44 at "
    "d = 384), larger than an untouched alternative's `alpha ||x|| = 0.1`: the failed tool stays on top. "
    "With the diagonal A a tool that succeeded scores up to `d`, so whichever tool ran first stays locked in.",
    "3. `w2 = 0.15` caps what any bandit can change: a failing top candidate is left only when the next "
    "candidate's semantic score is within about `(w2 / w1) x Delta S_bandit` of it.",
    "",
    "`RATED (Full, intercept prior)` (our variant: prior on a constant context feature, ridge not discounted) "
    "fixes 1 and 2 and is reported beside the paper's version; 3 remains with the paper's fusion weights.",
]


def render_report(metrics: dict) -> str:
    release = metrics["release"]
    encoder = metrics["encoder"]
    lines = [
        f"# RATED on EcoAgent {release['version']}",
        "",
        f"Release `{release['folder']}`, profile `{metrics['profile']}`, seed {metrics['seed']}; "
        f"the whole run took {metrics['seconds']} s. Every number below is in `metrics.json` with its seeds.",
        "",
        "## Encoder",
        "",
        f"Trained on {encoder['train_pairs']} Syn train pairs with in-batch InfoNCE (scale "
        f"{encoder['settings']['scale']}) and hard negatives: {encoder['steps']} steps, final loss "
        f"{_num(encoder['train_loss'])}, settings {encoder['settings']}. Chosen on "
        f"{encoder['selection']['queries']} ({encoder['selection']['size']} queries) among "
        f"{len(encoder['candidates'])} candidate(s): {encoder['candidates']}.",
        "",
    ]
    if metrics.get("skipped"):
        lines += [
            "Baselines that did not run here: " + "; ".join(f"{k}: {v}" for k, v in metrics["skipped"].items()),
            "",
        ]
    lines += [*table1(metrics), "", *table2(metrics), "", *table3(metrics), "", *acceptance(metrics), ""]
    lines += [
        "## Reading these numbers",
        "",
        "- The paper reports one run on its own 5,172-tool release with DRAGON+ fine-tuned on 70k Syn pairs. A "
        "release built on the embedded default profile has Syn queries from Gemma 3 270M (a base model: many are "
        "not sensible requests) and Real labels decided by MiniLM cosine agreement, which favours MiniLM-like "
        "encoders on Real. Compare rows within this report; compare with the paper's columns only for shape.",
        "- With few stream queries, few distinct gold tools exist and rho N rounds to a handful of failing tools; "
        "the confidence intervals say how much that moves the numbers.",
    ]
    return "\n".join(lines) + "\n"
