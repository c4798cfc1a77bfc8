"""The CSV sheets a benchmark hands a person to fill (a blind sheet and its key), written whole or not at all."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ecoagent.store import ArtifactStore


def write_csv(path: Path, columns: tuple[str, ...] | list[str], rows: list[dict]) -> None:
    """``rows`` under a header of ``columns`` (a column a row lacks is left empty), as the csv module writes them."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=columns, restval="")
    writer.writeheader()
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    ArtifactStore(str(path.parent)).write_text(text.getvalue(), path.name)
