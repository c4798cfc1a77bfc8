"""The artifact store: fsspec paths (a local folder by default), atomic files and atomic stage folders.

Every stage writes its outputs into one folder of the store (``<store>/<stage>/``) or into the folder given
with ``--out``. Two levels of atomicity, both here and nowhere else:

- a file (:meth:`ArtifactStore.write_bytes`) is written to a temporary name and renamed into place, so no
  reader ever sees half a file under its final name;
- a stage's folder (:class:`StageFolder`) is written as a whole into a hidden sibling,
  ``.<name>.tmp-<pid>-<random>``, and renamed into place when every file is there (the previous generation is
  renamed aside first, then deleted), so a reader never sees a new ``tools.parquet`` beside the previous run's
  ``crawl_summary.json``. A kill before the swap leaves the previous generation untouched; a kill between the
  two renames leaves it aside, and the next run puts it back before anything else.

Leftovers of a killed run (hidden ``.tmp-``/``.old-`` siblings, ``*.tmp-*`` files) are removed when the next
run of the stage starts, unless the process that made them is still alive on this machine. One run writes a
stage folder at a time (the DAG runs one refresh at a time; each Airflow run has its own partition).

On a local disk the swap is two ``rename(2)`` calls. On object storage (``s3://``) a folder rename is a copy, so
a folder there commits by a **marker**: one of its own files (a stage's summary, a release's manifest), uploaded
last. The new generation is written into a local staging folder (``<tmp>/ecoagent-staging/<pid>-<hex>``, so a stage
writes local files either way); the commit removes the marker (the folder is uncommitted from then on), the
previous generation's files, uploads the new files and the marker last. Readers trust only committed folders
(:meth:`ArtifactStore.require`, :meth:`ArtifactStore.download`): a folder whose writer was killed is refused with
a line naming it, and the next run of its writer replaces it. Leftover cleanup by process id only ever concerns
local temporaries (hidden siblings, staging folders) of processes on this machine.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

import fsspec
import polars as pl

from ecoagent.errors import BadInput, MissingInput
from ecoagent.layout import commit_marker, producer_of

# what a killed run leaves: ".<folder>.tmp-<pid>-<hex>" / ".<folder>.old-<pid>-<hex>" beside a stage folder,
# "<file>.tmp-<pid>-<hex>" inside one (older builds wrote no pid: their owner counts as gone)
_SIBLING = re.compile(r"^\.(?P<name>.+)\.(?P<kind>tmp|old)-(?:(?P<pid>\d+)-)?[0-9a-f]{8}$")
_FILE = re.compile(r"^.+\.tmp-(?:(?P<pid>\d+)-)?[0-9a-f]{8}$")


def _token() -> str:
    return f"{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _owner_alive(pid: str | None) -> bool:
    """Whether a temporary belongs to another process still alive on this machine (no pid, or ours: a leftover)."""
    if not pid or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's
        return True
    return True


class ArtifactStore:
    def __init__(self, root: str):
        self.fs, self.root = fsspec.core.url_to_fs(str(root))
        self.protocol = self.fs.protocol if isinstance(self.fs.protocol, str) else self.fs.protocol[0]
        if not self.is_local:
            # fsspec caches listings per filesystem instance, shared in the process: another task's writes must show
            self.fs.invalidate_cache()

    @property
    def is_local(self) -> bool:
        return self.protocol in ("file", "local")

    def path(self, *parts: str) -> str:
        return "/".join([self.root.rstrip("/"), *parts])

    def url(self, *parts: str) -> str:
        """A path other tools can open: plain for local files, protocol-prefixed otherwise."""
        p = self.path(*parts)
        return p if self.is_local else f"{self.protocol}://{p}"

    def exists(self, *parts: str) -> bool:
        return self.fs.exists(self.path(*parts))

    @property
    def local_path(self) -> Path:
        """The folder as a local path, for steps that need one (a stage's staging folder always is local)."""
        if not self.is_local:
            raise ValueError(f"{self.url()} is not a local folder")
        return Path(self.root)

    def files(self) -> list[str]:
        """Every file under the folder, as sorted paths relative to it (``corpus/corpus-00000-of-00001.parquet``)."""
        base = self.root.rstrip("/")
        if not self.fs.isdir(base):
            return []
        return sorted(p[len(base) + 1 :] for p in self.fs.find(base) if p.startswith(base + "/"))

    def folders(self) -> list[str]:
        """The names of the folder's subfolders, sorted (none when the folder is not there)."""
        base = self.root.rstrip("/")
        if not self.fs.isdir(base):
            return []
        entries = self.fs.ls(base, detail=True)
        return sorted(e["name"].rstrip("/").rsplit("/", 1)[-1] for e in entries if e["type"] == "directory")

    def checksum(self, *parts: str) -> int:
        """A token of a file's current version (its size and modification time, an object's ETag): it changes when
        the file is written again."""
        return self.fs.checksum(self.path(*parts))

    def committed(self, marker: str | None) -> bool:
        """Whether readers may trust the folder: always on a local disk (folders are renamed into place), on object
        storage when its ``marker`` (the file its writer uploads last) is there."""
        return self.is_local or marker is None or self.exists(marker)

    def require_committed(self, marker: str | None, producer: str) -> None:
        if not self.committed(marker):
            raise MissingInput(
                f"{self.url()} is not committed (no {marker}: its writer is still running or was killed): "
                f"rerun `ecoagent {producer}`"
            )

    def download(self, dest: str | Path) -> Path:
        """Copy every file of the folder into the local folder ``dest`` (hard links on a local disk)."""
        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        for rel in self.files():
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if self.is_local:
                with contextlib.suppress(FileNotFoundError):
                    target.unlink()
                os.link(self.path(rel), target)
            else:
                self.fs.get_file(self.path(rel), str(target))
        return dest

    def write_bytes(self, data: bytes, *parts: str) -> str:
        final = self.path(*parts)
        if not self.is_local:  # one PUT: an object appears whole or not at all (a rename there would be a copy)
            self.fs.pipe_file(final, data)
            return self.url(*parts)
        self.fs.makedirs(final.rsplit("/", 1)[0], exist_ok=True)
        tmp = f"{final}.tmp-{_token()}"
        with self.fs.open(tmp, "wb") as fh:
            fh.write(data)
        self.fs.mv(tmp, final)
        return self.url(*parts)

    def write_parquet(self, frame: pl.DataFrame, *parts: str) -> str:
        buf = io.BytesIO()
        # statistics off and one row group: the bytes depend only on the data (byte-identical reruns)
        frame.write_parquet(buf, compression="zstd", statistics=False, row_group_size=max(len(frame), 1))
        return self.write_bytes(buf.getvalue(), *parts)

    def write_json(self, obj: Any, *parts: str, sort_keys: bool = True) -> str:
        """``obj`` as indented JSON; ``sort_keys=False`` keeps the dicts' order, for a file whose reader renders it
        in that order (a RATED step's record: its tables come out as the step made them)."""
        return self.write_bytes((json.dumps(obj, indent=2, sort_keys=sort_keys, default=str) + "\n").encode(),
                                *parts)  # fmt: skip

    def write_text(self, text: str, *parts: str) -> str:
        return self.write_bytes(text.encode(), *parts)

    def read_parquet(self, *parts: str) -> pl.DataFrame:
        with self.fs.open(self.path(*parts), "rb") as fh:
            return pl.read_parquet(fh)

    def require(self, name: str, producer: str | None = None, option: str = "--in") -> str:
        """The path of an input file, or a :class:`MissingInput` naming the command that makes it (default: the
        command of the stage declaring the file, :func:`ecoagent.layout.producer_of`)."""
        producer = producer or producer_of(name)
        if not self.exists(name):
            raise MissingInput(
                f"no {name} in {self.url()}: run `ecoagent {producer}` first or pass {option} DIR with its outputs"
            )
        self.require_committed(commit_marker(name), producer)
        return self.path(name)

    def read_table(self, name: str, columns: Iterable[str] = (), option: str = "--in") -> pl.DataFrame:
        """An input table of another stage, checked: there, readable Parquet, with ``columns``.

        Each problem is a :class:`BadInput` (exit 2) naming the file and the command that writes it, never a
        traceback from deep inside a stage (a truncated file, a crawl folder passed where a score folder belongs).
        """
        producer = producer_of(name)
        self.require(name, producer, option)
        try:
            frame = self.read_parquet(name)
        except (pl.exceptions.PolarsError, OSError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise BadInput(
                f"{self.url(name)} is not a readable Parquet file ({reason}): rerun `ecoagent {producer}` "
                f"or pass {option} DIR with its outputs"
            ) from exc
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            raise BadInput(
                f"{self.url(name)} is not a table written by `ecoagent {producer}`: it lacks the column(s) {shown}; "
                f"pass {option} DIR with the outputs of `ecoagent {producer}`"
            )
        return frame

    def read_json(self, *parts: str) -> Any:
        with self.fs.open(self.path(*parts), "rb") as fh:
            return json.load(fh)

    def read_json_input(self, name: str, keys: Iterable[str] = (), option: str = "--in") -> dict:
        """An input JSON object of another stage, checked like :meth:`read_table`."""
        producer = producer_of(name)
        self.require(name, producer, option)
        try:
            document = self.read_json(name)
        except (ValueError, OSError) as exc:
            raise BadInput(
                f"{self.url(name)} is not readable JSON ({exc}): rerun `ecoagent {producer}` or pass {option} DIR"
            ) from exc
        missing = [k for k in keys if not isinstance(document, dict) or k not in document]
        if missing:
            raise BadInput(
                f"{self.url(name)} is not a file written by `ecoagent {producer}`: no key(s) {', '.join(missing)}; "
                f"pass {option} DIR with its outputs"
            )
        return document


class FolderNotOwned(BadInput):
    """A stage's output folder holds files the stage does not write: replacing it would delete them."""


class StageFolder:
    """A stage's output folder, replaced as a whole by each run (see the module docstring).

    Made at the start of a stage: it puts back a generation a killed run left aside, removes that run's leftovers,
    and checks that the folder holds nothing but ``outputs`` (when given), so ``--out .`` fails at once with a
    clear error instead of replacing a folder of somebody else's files. Then, at the end of the stage::

        with folder.replace() as store:      # an ArtifactStore on the hidden sibling
            store.write_parquet(frame, "tools.parquet")
            ...                              # leaving the block swaps the folder in; an error discards it

    :meth:`amend` adds files to the current generation the same way (the score gate's report).
    """

    def __init__(self, final: str, outputs: Collection[str] | None = None, marker: str | None = None):
        self.store = ArtifactStore(final)
        self.final = self.store.root.rstrip("/")
        if not self.final.strip("/"):
            raise BadInput(f"{final!r} cannot be a stage's output folder: give a folder below the root")
        parent, self.name = self.final.rsplit("/", 1) if "/" in self.final else ("", self.final)
        self.parent = parent or "/"
        self.outputs = frozenset(outputs) if outputs is not None else None
        # the file a commit on object storage uploads last (see the module docstring)
        self.marker = marker or next((commit_marker(n) for n in sorted(self.outputs or ()) if commit_marker(n)), None)
        if not self.store.is_local and self.marker is None:
            raise ValueError(f"{self.url()}: a stage folder on object storage needs a marker (the file written last)")
        _clean_staging()
        self.clean()
        self._check_owned()

    @property
    def fs(self):
        return self.store.fs

    def url(self, *parts: str) -> str:
        return self.store.url(*parts)

    # ----------------------------------------------------------------- leftovers of killed runs

    def clean(self) -> None:
        """Put back a generation a killed swap left aside, and remove dead runs' temporaries of this folder (object
        storage has none: the generations are staged on the local disk)."""
        if not self.store.is_local:
            return
        siblings = self._leftover_siblings()
        if not self.fs.exists(self.final):
            aside = sorted((s for s in siblings if s[0] == "old"), key=lambda s: self._mtime(s[1]))
            if aside:
                self._rename(aside[-1][1], self.final)
                siblings.remove(aside[-1])
        for _, path in siblings:
            self._remove(path)
        if self.fs.isdir(self.final):
            for entry in self.fs.ls(self.final, detail=False):
                match = _FILE.match(entry.rstrip("/").rsplit("/", 1)[-1])
                if match and not _owner_alive(match["pid"]):
                    self._remove(entry)

    def _leftover_siblings(self) -> list[tuple[str, str]]:
        if not self.fs.isdir(self.parent):
            return []
        found = []
        for entry in self.fs.ls(self.parent, detail=False):
            match = _SIBLING.match(entry.rstrip("/").rsplit("/", 1)[-1])
            if match and match["name"] == self.name and not _owner_alive(match["pid"]):
                found.append((match["kind"], entry.rstrip("/")))
        return found

    def _check_owned(self) -> None:
        if not self.fs.exists(self.final):
            return
        if not self.fs.isdir(self.final):
            raise FolderNotOwned(f"{self.url()} is a file, not a folder: give the stage a folder of its own")
        if self.outputs is None:
            return
        names = {p.rstrip("/").rsplit("/", 1)[-1] for p in self.fs.ls(self.final, detail=False)}
        foreign = sorted(n for n in names - self.outputs if not _FILE.match(n))
        if foreign:
            shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
            raise FolderNotOwned(
                f"{self.url()} holds files this stage does not write ({shown}): the stage replaces its folder as a "
                "whole, so give --out a folder of its own (empty or a previous output of this stage)"
            )

    # ----------------------------------------------------------------- the next generation

    @contextlib.contextmanager
    def replace(self) -> Iterator[ArtifactStore]:
        """A fresh generation: what the block writes, and nothing else, becomes the folder. The yielded store is
        always a local folder (a hidden sibling, or a staging folder for object storage)."""
        tmp = self._sibling("tmp") if self.store.is_local else _staging()
        os.makedirs(tmp, exist_ok=False)
        with self._committed(tmp):
            yield ArtifactStore(tmp)

    @contextlib.contextmanager
    def amend(self) -> Iterator[ArtifactStore]:
        """The next generation is the current one plus what the block writes (a file of the same name replaced)."""
        if self.store.is_local:
            tmp = self._sibling("tmp")
            self.fs.makedirs(self.parent, exist_ok=True)
            if self.fs.exists(self.final):
                # hard links: no copy of the data, and a rewritten file gets a new inode, never the old one's
                shutil.copytree(self.final, tmp, copy_function=os.link)
            else:
                os.makedirs(tmp, exist_ok=False)
        else:
            tmp = _staging()
            self.store.download(tmp)
        with self._committed(tmp):
            yield ArtifactStore(tmp)

    @contextlib.contextmanager
    def _committed(self, tmp: str) -> Iterator[None]:
        try:
            yield
        except BaseException:
            if self.store.is_local:
                self._remove(tmp)
            else:
                shutil.rmtree(tmp, ignore_errors=True)
            raise
        if not self.store.is_local:
            try:
                self._upload(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            return
        aside = None
        if self.fs.exists(self.final):
            aside = self._sibling("old")
            self._rename(self.final, aside)
        self._rename(tmp, self.final)
        if aside is not None:
            self._remove(aside)

    # ----------------------------------------------------------------- file system steps

    def _sibling(self, kind: str) -> str:
        return f"{self.parent.rstrip('/')}/.{self.name}.{kind}-{_token()}"

    def _upload(self, staged: str) -> None:
        """Commit a staged generation to object storage: uncommit, drop the old files, upload, the marker last."""
        files = ArtifactStore(staged).files()
        if self.marker not in files:
            raise ValueError(f"{self.url()}: the generation has no {self.marker}, the file that commits it")
        if self.fs.exists(self.final):
            with contextlib.suppress(FileNotFoundError):
                self.fs.rm(self.store.path(self.marker))
            self.fs.rm(self.final, recursive=True)
        for rel in [f for f in files if f != self.marker] + [self.marker]:
            self.fs.put_file(os.path.join(staged, rel), self.store.path(rel))

    def _rename(self, src: str, dst: str) -> None:
        if self.store.is_local:
            os.rename(src, dst)  # never shutil.move: it would move src *into* an existing dst
        else:
            self.fs.mv(src, dst, recursive=True)

    def _remove(self, path: str) -> None:
        if self.store.is_local:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
        else:
            with contextlib.suppress(FileNotFoundError):
                self.fs.rm(path, recursive=True)

    def _mtime(self, path: str) -> float:
        try:
            return os.stat(path).st_mtime if self.store.is_local else 0.0
        except OSError:
            return 0.0


# ----------------------------------------------------------------- staging folders (object storage)

_STAGING = re.compile(r"^(?P<pid>\d+)-[0-9a-f]{8}$")


def _staging_root() -> str:
    return os.path.join(tempfile.gettempdir(), "ecoagent-staging")


def _staging() -> str:
    """A new local folder for a generation bound for object storage, named by this process."""
    return os.path.join(_staging_root(), _token())


def _clean_staging() -> None:
    """Remove the staging folders of processes of this machine that are gone (killed mid-stage)."""
    root = _staging_root()
    with contextlib.suppress(FileNotFoundError):
        for name in os.listdir(root):
            match = _STAGING.match(name)
            if match and not _owner_alive(match["pid"]) and int(match["pid"]) != os.getpid():
                shutil.rmtree(os.path.join(root, name), ignore_errors=True)
