"""Edit a built release the way a careless hand or an attacker would, and re-seal one the way a build would.

``edit_rows`` and ``flip_byte`` change files after the build (the manifest no longer matches: every reader must
refuse the release). ``reseal`` rewrites the manifest's entry for a file, as if the build itself had produced
those bytes: tests of the gate's data checks use it to get an intact release holding bad data.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import polars as pl

from ecoagent.hashing import sha256_file

TOOLS_FILE = "tools/train-00000-of-00001.parquet"


def edit_rows(folder: Path, path: str, change: Callable[[pl.DataFrame], pl.DataFrame]) -> None:
    frame = pl.read_parquet(folder / path)
    change(frame).write_parquet(folder / path)


def make_first_tool_harmless(folder: Path) -> None:
    """The issue's edit: one tool's side effect changed to read_only and its permission scope emptied."""
    first = pl.int_range(pl.len()) == 0
    edit_rows(folder, TOOLS_FILE, lambda f: f.with_columns(
        pl.when(first).then(pl.lit("read_only")).otherwise("side_effect").alias("side_effect"),
        pl.when(first).then(pl.lit("")).otherwise("permission_scope").alias("permission_scope"),
    ))  # fmt: skip


def flip_byte(folder: Path, path: str, offset: int = -100) -> None:
    """Invert one byte (in the parquet footer by default, where a reader may not notice it)."""
    data = bytearray((folder / path).read_bytes())
    data[offset] ^= 0xFF
    (folder / path).write_bytes(bytes(data))


def reseal(folder: Path, *paths: str) -> None:
    """Record the current size and sha256 of ``paths`` in the manifest, as the build would have."""
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for path in paths:
        entry = manifest["files"].setdefault(path, {})
        entry.update(sha256=sha256_file(folder / path), bytes=(folder / path).stat().st_size)
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True))
