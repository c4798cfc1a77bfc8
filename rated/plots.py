"""Figures of the dynamic evaluation: windowed success and fault-selection rates over the stream."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rated.simulator import windowed


def plot_traces(
    traces: dict, out_dir: str | Path, window: int = 200, onset: int = 2_000, recover_at: int | None = None
) -> list[Path]:
    """One PNG per (scenario, rho) of ``Experiment.traces``: windowed SR (top) and FSR (bottom).

    ``traces`` maps ``(scenario, rho)`` to ``{method: (success, fault)}`` per-step arrays (means over
    seeds or one seed's booleans). The failure onset is a dashed line; for ``recovery`` the
    ``recover_at`` step is dotted.
    """
    import matplotlib

    matplotlib.use("Agg")  # headless: the report runs in CI and DAG workers
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for (scenario, rho), methods in traces.items():
        fig, (ax_sr, ax_fsr) = plt.subplots(2, 1, figsize=(11, 6), sharex=True)
        colors = plt.get_cmap("tab20").colors  # more methods than tab10 has colors
        for i, (name, (success, fault)) in enumerate(methods.items()):
            steps = np.arange(window, len(success) + 1)  # window i ends at step i (1-based)
            style = {"color": colors[i % len(colors)], "linewidth": 1, "linestyle": "--" if "static" in name else "-"}
            ax_sr.plot(steps, windowed(success, window), label=name, **style)
            ax_fsr.plot(steps, windowed(fault, window), **style)
        for ax, label in ((ax_sr, "windowed SR"), (ax_fsr, "windowed FSR")):
            ax.axvline(onset, color="black", linestyle="--", linewidth=0.8)
            if scenario == "recovery" and recover_at is not None:
                ax.axvline(recover_at, color="black", linestyle=":", linewidth=0.8)
            ax.set_ylabel(f"{label} (W={window})")
            ax.set_ylim(-0.02, 1.02)
        ax_fsr.set_xlabel("step")
        ax_sr.set_title(f"{scenario} failures, rho = {rho:g}")
        fig.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.75, 0.93), title="dashed: static rankers",
                   title_fontsize=7)
        fig.tight_layout(rect=(0, 0, 0.74, 1))  # room on the right for the legend
        path = out_dir / f"dynamic_{scenario}_rho{rho:g}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written
