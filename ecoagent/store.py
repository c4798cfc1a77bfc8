"""The artifact store: fsspec paths (a local folder by default), atomic writes.

Every stage writes its outputs into one folder of the store (``<store>/<stage>/``) or into the
folder given with ``--out``. Writes go to a temporary name and are renamed into place, so a
killed run never leaves a half-written file behind under the final name.
"""

from __future__ import annotations

import io
import json
import uuid
from typing import Any

import fsspec
import polars as pl

from ecoagent.errors import MissingInput


class ArtifactStore:
    def __init__(self, root: str):
        self.fs, self.root = fsspec.core.url_to_fs(str(root))
        self.protocol = self.fs.protocol if isinstance(self.fs.protocol, str) else self.fs.protocol[0]

    def path(self, *parts: str) -> str:
        return "/".join([self.root.rstrip("/"), *parts])

    def url(self, *parts: str) -> str:
        """A path other tools can open: plain for local files, protocol-prefixed otherwise."""
        p = self.path(*parts)
        return p if self.protocol in ("file", "local") else f"{self.protocol}://{p}"

    def exists(self, *parts: str) -> bool:
        return self.fs.exists(self.path(*parts))

    def write_bytes(self, data: bytes, *parts: str) -> str:
        final = self.path(*parts)
        self.fs.makedirs(final.rsplit("/", 1)[0], exist_ok=True)
        tmp = f"{final}.tmp-{uuid.uuid4().hex[:8]}"
        with self.fs.open(tmp, "wb") as fh:
            fh.write(data)
        self.fs.mv(tmp, final)
        return self.url(*parts)

    def write_parquet(self, frame: pl.DataFrame, *parts: str) -> str:
        buf = io.BytesIO()
        # statistics off and one row group: the bytes depend only on the data (byte-identical reruns)
        frame.write_parquet(buf, compression="zstd", statistics=False, row_group_size=max(len(frame), 1))
        return self.write_bytes(buf.getvalue(), *parts)

    def write_json(self, obj: Any, *parts: str) -> str:
        return self.write_bytes((json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n").encode(), *parts)

    def write_text(self, text: str, *parts: str) -> str:
        return self.write_bytes(text.encode(), *parts)

    def read_parquet(self, *parts: str) -> pl.DataFrame:
        with self.fs.open(self.path(*parts), "rb") as fh:
            return pl.read_parquet(fh)

    def require(self, name: str, producer: str) -> str:
        """The path of an input file, or a :class:`MissingInput` naming the command that makes it."""
        if not self.exists(name):
            raise MissingInput(
                f"no {name} in {self.url()}: run `ecoagent {producer}` first or pass --in DIR with its outputs"
            )
        return self.path(name)

    def read_json(self, *parts: str) -> Any:
        with self.fs.open(self.path(*parts), "rb") as fh:
            return json.load(fh)
