"""The LLM response cache: one SQLite row per request id.

It is what makes generation resumable: the client writes every successful response here the
moment it arrives (one committed transaction each), and never sends a request whose id is
already here. WAL journaling lets one writer and any number of readers (another process
watching progress, a test polling it) work at the same time; a killed writer loses at most the
responses still in flight, never a committed row.

Errors are never stored: a failed request is simply tried again on the next run.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from ecoagent.llm.request import LLMResponse

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    request_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    model TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    seconds REAL NOT NULL,
    created_at REAL NOT NULL
)
"""
_COLUMN_NAMES = ("request_id", "text", "finish_reason", "prompt_tokens", "completion_tokens", "model", "attempts",
                 "seconds")  # fmt: skip
_COLUMNS = ", ".join(_COLUMN_NAMES)


class ResponseCache:
    """Successful LLM responses by request id, in one SQLite file."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # the asyncio client may run its loop in another thread than the one that opened the
        # cache (e.g. a worker thread); a lock serializes access instead of forbidding it
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a killed process (only a power cut may drop the last commits)
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA busy_timeout=30000")
        self._conn.execute(_SCHEMA)

    def get(self, request_id: str) -> LLMResponse | None:
        with self._lock:
            row = self._conn.execute(f"SELECT {_COLUMNS} FROM responses WHERE request_id = ?", (request_id,)).fetchone()
        return None if row is None else _to_response(row)

    def get_many(self, request_ids: Iterable[str]) -> dict[str, LLMResponse]:
        """The cached responses among ``request_ids`` (missing ids are absent from the result)."""
        ids = list(dict.fromkeys(request_ids))
        out: dict[str, LLMResponse] = {}
        # SQLite caps bound parameters per statement; chunks keep far below that limit
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._conn.execute(
                    f"SELECT {_COLUMNS} FROM responses WHERE request_id IN ({marks})", chunk
                ).fetchall()
            out.update((row[0], _to_response(row)) for row in rows)
        return out

    def put(self, response: LLMResponse) -> None:
        if response.error is not None or response.text is None:
            raise ValueError(f"only successful responses are cached ({response.request_id}: {response.error})")
        values = (*(getattr(response, name) for name in _COLUMN_NAMES), time.time())
        with self._lock:
            # autocommit mode: each statement is its own atomic transaction
            self._conn.execute(f"INSERT OR REPLACE INTO responses ({_COLUMNS}, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                               values)

    def __contains__(self, request_id: object) -> bool:
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM responses WHERE request_id = ?", (request_id,)).fetchone()
        return row is not None

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def __iter__(self) -> Iterator[str]:
        with self._lock:
            ids = [row[0] for row in self._conn.execute("SELECT request_id FROM responses ORDER BY request_id")]
        return iter(ids)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"


def _to_response(row: tuple) -> LLMResponse:
    return LLMResponse(**dict(zip(_COLUMN_NAMES, row, strict=True)), error=None, cached=True)
