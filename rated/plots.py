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


def plot_figure4(figure: dict, path: str | Path) -> Path:
    """The paper's Figure 4 from :func:`rated.tuning.figure4`: FSR (top) and Post-Fail SR (bottom) against
    w1 for each w3 (left) and against gamma for each alpha (right); dotted lines and a ring mark the
    chosen point (the configured fusion weights and alpha, the validation-chosen gamma)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    chosen = figure["chosen"]
    fig, axes = plt.subplots(2, 2, figsize=(10, 6.5), sharex="col")
    panels = (
        ("a", "w1", "w3", "w1 (semantic weight)", chosen["w1"], chosen["w3"]),
        ("b", "gamma", "alpha", "gamma (discount)", chosen["gamma"], chosen["alpha"]),
    )
    for col, (panel, x_key, line_key, x_label, x_chosen, line_chosen) in enumerate(panels):
        data = figure[panel]
        for row, metric in enumerate(("fsr", "post_fail_sr")):
            ax = axes[row][col]
            for values, line in zip(data[metric], data[line_key], strict=True):
                xs = [x for x, v in zip(data[x_key], values, strict=True) if v is not None]
                ys = [100 * v for v in values if v is not None]
                ax.plot(xs, ys, marker="o", markersize=3, linewidth=1, label=f"{line_key} = {line:g}")
                if abs(line - line_chosen) < 1e-9 and x_chosen in data[x_key]:
                    value = values[data[x_key].index(x_chosen)]
                    if value is not None:
                        ax.plot([x_chosen], [100 * value], marker="o", markersize=10, fillstyle="none", color="black")
            ax.axvline(x_chosen, color="black", linestyle=":", linewidth=0.8)
            ax.set_ylabel("FSR (%)" if metric == "fsr" else "Post-Fail SR (%)")
            if row == 1:
                ax.set_xlabel(x_label)
            if row == 0:
                ax.set_title(f"({panel}) {'fusion weights, bandit fixed' if panel == 'a' else 'bandit, fusion fixed'}")
                ax.legend(fontsize=7)
    fig.suptitle(f"Sensitivity at {100 * figure['rate']:g}% failure injection (validation stream; mean over "
                 f"{len(figure['seeds'])} seeds; ring: chosen point)", fontsize=9)  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata={"Software": None})
    plt.close(fig)
    return path
