"""The replay's part of ``report.md`` (:mod:`rated.replay_table`): the report's first lines (does the reliability
prior lower FSR on the catalog's real events?) and its section (the overlap table, the stream and why, the table
with intervals over seeds, the paired comparisons)."""

from __future__ import annotations

from ecoagent.text.markdown import markdown_table
from rated.replay_table import WITHOUT_PRIOR
from rated.simulator import percent_text

HEADLINE_ROW = "RATED (Full)"
QUESTION = "Does r_static lower FSR on real events?"


def _difference(diff: dict) -> str:
    """A paired difference in points with its 95 % interval: ``+0.4 [-0.1, 0.9]``."""
    mean, ci = diff.get("mean"), diff.get("ci95")
    if mean is None:
        return "–"
    if ci is None:
        return f"{100 * mean:+.1f}"
    return f"{100 * mean:+.1f} [{100 * (mean - ci):+.1f}, {100 * (mean + ci):+.1f}]"


def prior_finding(replay: dict, row: str = HEADLINE_ROW) -> str:
    """One sentence: what the paired test found for ``row`` on FSR, with what it did to Post-Fail SR."""
    fsr, sr = replay["prior"][row]["fsr"], replay["prior"][row]["post_fail_sr"]
    word = {"lower": "lowers", "higher": "raises", "no difference": "makes no difference to"}
    return (f"With the reliability prior, {row} {word[fsr['finding']]} FSR on the catalog's real events (with minus "
            f"without r_static: {_difference(fsr)} points) and {word[sr['finding']]} its Post-Fail SR "
            f"({_difference(sr)} points); 95 % intervals over {len(replay['seeds'])} paired seeds, the replay of "
            f"{replay['months'][0]} to {replay['months'][1]} on the {replay['stream']} stream.")  # fmt: skip


def replay_headline(metrics: dict) -> list[str]:
    """The report's first lines about the replay (nothing when it did not run)."""
    replay = metrics.get("replay")
    if not replay:
        return []
    if "skipped" in replay:
        return [f"> **{QUESTION}** Not measured: {replay['skipped']}.", ""]
    return [f"> **{QUESTION}** {prior_finding(replay)} "
            "[The replay](#table-2-on-the-catalogs-real-history-replay).", ""]  # fmt: skip


def card_quote(replay: dict, encoder: dict, profile: str) -> str:
    """The dataset card's quote of the replay (:mod:`ecoagent.release_format.card_quote`): the paired test's
    finding, each row's Post-Fail SR and FSR, and what it ran on (a replay that ran: the card step checks)."""
    results = replay["results"]
    rows = "; ".join(f"{name} {percent_text(results[name]['post_fail_sr'])} / {percent_text(results[name]['fsr'])}"
                     for name in replay["rows"] if not name.endswith(WITHOUT_PRIOR))  # fmt: skip
    device = encoder.get("settings", {}).get("device", "an unrecorded device")
    return (f"> **{QUESTION}** {prior_finding(replay)} Post-Fail SR / FSR in %, mean ± 95 % interval: {rows}. "
            f"Measured on this release after it was built, by `ecoagent rated` (profile `{profile}`, the RATED "
            f"encoder trained on `{encoder.get('source')}` on {device}); the replay's table, its overlap with the "
            "real tasks and the method are in that run's `report.md`.")  # fmt: skip


def replay_section(metrics: dict) -> list[str]:
    """The replay's section of the report."""
    replay = metrics.get("replay")
    if not replay:
        return []
    lines = ["## Table 2 on the catalog's real history (replay)", ""]
    if "skipped" in replay:
        return [*lines, f"Not run: {replay['skipped']}.", ""]
    overlap = replay["overlap"]
    lines += ["Real tasks against the history: a task overlaps when a tool it requires is removed, renamed (either "
              "id) or deprecated after the task's month (a set without dates: any event counts).", "",
              *markdown_table(overlap["columns"], overlap["rows"], 1), ""]  # fmt: skip
    if overlap["by_month"]:
        lines += [*markdown_table(["set", "event month", "platform", "tasks"], overlap["by_month"], 3), ""]
    events = replay["event_tools"]
    lines += [
        f"Stream: {replay['why']}. {replay['tasks']} tasks, {replay['distinct_gold_tools']} gold tools, of which "
        f"{events['gold_tools_that_stop']} stop executing in some month and {events['gold_tools_marked_deprecated']} "
        f"are only marked deprecated (rated.simulation.replay_deprecation = {replay['deprecation']}); "
        f"{events['renamed_in_catalog']} renames have both ids in the catalog. {replay['steps']:,} steps spread over "
        f"the months {replay['months'][0]} to {replay['months'][1]}, seeds {replay['seeds']}; RATED (Full) as Table 2 "
        f"chose it on validation ({replay['chosen']}). Metrics over the steps from the first month a drawn task's "
        "tool stops executing; mean ± 95 % interval over the seeds, in %. Replacement recall: success on the steps "
        "whose task lost a tool while another of its tools still executes. Stranded: steps with none of the task's "
        "tools executing (no policy can succeed). Deprecated picks: executed tools deprecated that month.",
        "",
    ]
    header = ["Method", "Post-Fail SR", "FSR", "replacement recall", "stranded", "deprecated picks"]
    rows = [[name, *(percent_text(replay["results"][name].get(key)) for key in
                     ("post_fail_sr", "fsr", "replacement_recall", "stranded", "deprecated_share"))]
            for name in replay["rows"]]  # fmt: skip
    lines += [*markdown_table(header, rows, 1), ""]
    lines += ["The reliability prior, paired per seed (the same policy with r_static flattened to its mean; with "
              "minus without, in points, 95 % interval):", ""]  # fmt: skip
    metrics_ = ("fsr", "post_fail_sr", "replacement_recall")
    prior_rows = [[name, *(f"{_difference(diff[m])} ({diff[m]['finding']})" for m in metrics_)]
                  for name, diff in replay["prior"].items()]  # fmt: skip
    lines += [*markdown_table(["Policy", "FSR", "Post-Fail SR", "replacement recall"], prior_rows, 1), ""]
    return lines
