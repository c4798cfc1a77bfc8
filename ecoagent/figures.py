"""Figures as PNG bytes that are the same on every rerun, so a stage's plot is as reproducible as its tables."""

from __future__ import annotations

import io


def png_bytes(fig) -> bytes:
    """``fig`` (a matplotlib figure) as PNG bytes, then closed; no software version or date in the file's metadata,
    so the same figure is the same bytes on every rerun."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
