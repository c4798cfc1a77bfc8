"""Plain progress lines for logs: how much of a long step is done, how fast, and when it will end.

A progress bar redraws one terminal line; written to a file (a ``make run`` log, an Airflow task log)
it shows up only when it finishes, so a log can stay silent for many minutes. :class:`ProgressLog`
writes whole lines instead, such as ``generate queries: 12/60 (20%), 0.41/s, elapsed 0:29, ETA 1:57``,
from a heartbeat thread every ``interval_s`` seconds: a step that makes no visible progress for a
while (one slow LLM request, an embedding pass) still shows that it is alive and where it stands.

The stages report progress by phases of the running step (:mod:`ecoagent.runtime.context`); a runner turns them
into lines with :class:`LineReporter` (one :class:`ProgressLog` per phase), or draws bars on a terminal (the CLI).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

DEFAULT_INTERVAL_S = 15.0


def print_line(line: str) -> None:
    """Print and flush: a log file or a task log gets each line when it is written, not when a buffer fills."""
    print(line, flush=True)


def format_seconds(seconds: float) -> str:
    """``H:MM:SS`` above an hour, else ``M:SS``."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ProgressLog:
    """Progress of one step as plain lines: one every ``interval_s`` seconds while it runs, one at the end.

    No line at the start: a step shorter than the interval gets one line (its end), and a step that fails
    on bad input before its first line leaves the caller's one-line error alone in the log.

    Use as a context manager (it starts and stops the heartbeat thread) and pass :meth:`update` as the
    stage's ``progress(done, total)`` callback. ``total=None`` is a step without a count: its lines say how
    long it has been running. Where its items differ in cost, ``update(done, total, share)`` also gives the share
    of the work done (0 to 1), and the time left follows it instead of the count: the Embedder embeds the longest
    texts first, and a count-based ETA at 15 s said 1:02:10 for an embedding that ended 5:23 later.
    ``clock`` is injectable so the line format can be tested without waiting.
    """

    def __init__(
        self,
        description: str,
        total: int | None = None,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        emit: Callable[[str], None] = print_line,
        clock: Callable[[], float] = time.monotonic,
    ):
        if interval_s <= 0:
            raise ValueError(f"progress interval must be > 0 seconds, not {interval_s} (setting progress_interval_s)")
        self.description = description
        self.total = total
        self.done = 0
        self.interval_s = interval_s
        self.emit = emit
        self.clock = clock
        self.started = clock()
        self.share: float | None = None
        self._first: tuple[float, int, float | None] | None = None  # (time, done, share) when the first items ended
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._emitted = False

    def update(self, done: int, total: int | None = None, share: float | None = None) -> None:
        """Record progress (thread-safe); the heartbeat prints it."""
        with self._lock:
            # from the first items done: the phase's opening count (0) is not work, and what came before them (a model
            # loading, a first batch warming the runtime up) would make the work look slower than it is
            if self._first is None and done > 0:
                self._first = (self.clock(), done, share)
            self.done = done
            if total is not None:
                self.total = total
            if share is not None:
                self.share = share

    def _rate(self, done: int, elapsed: float) -> float:
        """Items per second since the first items ended: the setup before them (a model loading, a server starting)
        would make the rate look lower, and the ETA longer, than the work itself is; until a second update, since
        the start."""
        if self._first is not None:
            since, done_then, _ = self._first
            if done > done_then and self.clock() > since:
                return (done - done_then) / (self.clock() - since)
        return done / elapsed if elapsed > 0 else 0.0

    def _seconds_left(self, done: int, total: int, rate: float) -> float | None:
        """By the share of work done where the step gives one (since the first items ended, as :meth:`_rate`), else
        by the count's rate; None before there is a rate to extrapolate from."""
        if self.share is None or self._first is None:
            return (total - done) / rate if rate > 0 else None
        since, _, share_then = self._first
        moved, spent = self.share - (share_then or 0.0), self.clock() - since
        return (1.0 - self.share) * spent / moved if moved > 0 and spent > 0 else None

    def line(self, final: bool = False) -> str:
        """The current state as one line."""
        with self._lock:
            done, total = self.done, self.total
        elapsed = self.clock() - self.started
        rate = self._rate(done, elapsed)
        if final:
            count = f"{done}/{total}" if total is not None else f"{done}"
            tail = f", {done / elapsed:.2f}/s" if done and elapsed > 0 else ""  # the whole step's throughput
            return f"{self.description}: done, {count} in {format_seconds(elapsed)}{tail}"
        if total is None:
            count = f"{done} done, {rate:.2f}/s, " if done else "running, "
            return f"{self.description}: {count}elapsed {format_seconds(elapsed)}"
        if done >= total:  # the counted part is over; the step is finishing what comes after it
            return f"{self.description}: {done}/{total} done, elapsed {format_seconds(elapsed)}, finishing"
        share = f" ({done / total:.0%})" if total else ""
        left = self._seconds_left(done, total, rate)
        eta = format_seconds(left) if left is not None else "unknown"
        return f"{self.description}: {done}/{total}{share}, {rate:.2f}/s, elapsed {format_seconds(elapsed)}, ETA {eta}"

    def __enter__(self) -> ProgressLog:
        self.started = self.clock()
        self._thread = threading.Thread(target=self._beat, name=f"progress: {self.description}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(failed=exc_type is not None)

    def close(self, failed: bool = False) -> None:
        """Stop the heartbeat and print the last line (once)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if not failed:
            self._emit(self.line(final=True))
        elif self._emitted:  # a failure before the first line is the caller's error line alone
            self._emit(f"{self.description}: stopped after {format_seconds(self.clock() - self.started)}")

    def _emit(self, line: str) -> None:
        self._emitted = True
        self.emit(line)

    def _beat(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._emit(self.line())


class LineReporter:
    """Phases as plain lines (:class:`ProgressLog`, one per phase): a log file, an Airflow task log. Each line starts
    with ``prefix`` (the stage's name)."""

    def __init__(self, prefix: str = "", *, interval_s: float = DEFAULT_INTERVAL_S,
                 emit: Callable[[str], None] = print_line) -> None:  # fmt: skip
        if interval_s <= 0:
            raise ValueError(f"progress interval must be > 0 seconds, not {interval_s} (setting progress_interval_s)")
        self.prefix, self.interval_s, self.emit = prefix, interval_s, emit

    def open(self, name: str, total: int | None) -> ProgressLog:
        return ProgressLog(f"{self.prefix}{name}", total, interval_s=self.interval_s, emit=self.emit).__enter__()

    def say(self, line: str) -> None:
        self.emit(f"{self.prefix}{line}")
