"""The issue's acceptance of RATED (Full), decided from ``metrics.json`` (:func:`rated.steps.report`).

On the test stream at rho = 0.3 with persistent failures, RATED (Full) must keep FSR <= ``ACCEPT_FSR`` and its
Post-Fail SR within ``ACCEPT_SR_GAP`` of the best static ranker's (or above it), on a stream of at least
``ACCEPT_QUERIES`` queries and ``ACCEPT_GOLD`` distinct gold tools, over at least ``ACCEPT_SEEDS`` seeds. The report
(:mod:`rated.report`) states these decisions; it decides nothing itself.
"""

from __future__ import annotations

ACCEPT_FSR = 0.05  # RATED (Full) at rho = 0.3 must keep FSR at or below this (the acceptance)
ACCEPT_SR_GAP = 0.02  # ... with Post-Fail SR within 2 points of the best static ranker's, or above it
ACCEPT_QUERIES, ACCEPT_GOLD = 200, 50  # ... on a stream of at least this many queries and gold tools
ACCEPT_SEEDS = 5  # ... over at least this many seeds


def cell(stream: dict, method: str, rho: float = 0.3) -> dict | None:
    """A method's results at ``rho`` with persistent failures, or None when it did not run."""
    return stream["results"].get(method, {}).get("persistent", {}).get(f"{rho:g}")


def best_static(stream: dict, rho: float = 0.3) -> tuple[str, dict] | None:
    """The static row with the highest Post-Fail SR at ``rho`` (persistent failures)."""
    statics = [(m, cell(stream, m, rho)) for m in stream["results"] if m.endswith("(static)")]
    statics = [(m, c) for m, c in statics if c is not None]
    return max(statics, key=lambda mc: mc[1]["post_fail_sr"]["mean"]) if statics else None


def stream_large_enough(stream: dict) -> bool:
    """The stream has the queries and distinct gold tools the acceptance asks for."""
    return stream["queries"] >= ACCEPT_QUERIES and stream["distinct_gold_tools"] >= ACCEPT_GOLD


def accepted(stream: dict, method: str = "RATED (Full)", rho: float = 0.3) -> dict | None:
    """The issue's acceptance, measured: FSR <= 5 % and Post-Fail SR within 2 points of the best static."""
    row, static = cell(stream, method, rho), best_static(stream, rho)
    if row is None or static is None:
        return None
    fsr, sr = row["fsr"]["mean"], row["post_fail_sr"]["mean"]
    static_sr = static[1]["post_fail_sr"]["mean"]
    return {
        "fsr": fsr,
        "sr": sr,
        "static": static[0],
        "static_sr": static_sr,
        "fsr_met": fsr <= ACCEPT_FSR,
        "sr_met": sr >= static_sr - ACCEPT_SR_GAP - 1e-12,
        "stream_met": stream_large_enough(stream),
        "seeds": len(row["fsr"]["values"]),
    }


def shortfalls(check: dict) -> list[str]:
    """Why an :func:`accepted` check fails the acceptance, one reason per unmet target; empty when it is met."""
    return [
        text
        for text, ok in (
            (f"FSR above {100 * ACCEPT_FSR:.0f}%", check["fsr_met"]),
            (f"Post-Fail SR over {100 * ACCEPT_SR_GAP:.0f} points below the static ranker's", check["sr_met"]),
            ("the stream is too small", check["stream_met"]),
            (f"{check['seeds']} seeds, fewer than {ACCEPT_SEEDS}", check["seeds"] >= ACCEPT_SEEDS),
        )
        if not ok
    ]


def paired_difference(row: dict, static: dict, metric: str = "post_fail_sr") -> dict:
    """Per-seed ``metric`` (Post-Fail SR, FSR) of a row minus the static ranker's on the same stream and failing set
    (or any two rows run on the same seeds); a seed where either has no value is left out."""
    from rated.simulator import summarize

    pairs = zip(row[metric]["values"], static[metric]["values"], strict=True)
    return summarize([a - b for a, b in pairs if a is not None and b is not None])
