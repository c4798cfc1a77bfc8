"""What a running step is handed: its settings, its folders, and one way to report progress and stats.

A runner (a :class:`pipeline.runner.Runner`: the CLI's :class:`pipeline.cli.CliRunner`, or the base itself in an
Airflow task, whose log is the console) makes a :class:`StepContext` for each stage it runs, installs it for the
duration (:meth:`StepContext.running`) and reads back what the stage reported. The stage and every helper below it
report through the context that is running, never through callbacks passed by hand:

- :func:`phase` opens a named, counted step (``with phase("embed the catalog (e5)", total=n) as p: p.advance()``);
  the runner turns it into a progress bar or plain log lines with counts, rate and ETA;
- :func:`stat` adds to a named figure of the step (the LLM's wall and CPU seconds, read into ``--usage``);
- :func:`say` shows a line the step says about itself (what it found, what it chose).

A long helper of the core (an encode call, the LLM client, a package fetch) takes the *name* of its phase from its
caller and opens the phase itself, so a stage names what its lines say and the helper counts. Outside a runner (a
test, a notebook) nothing listens: phases and stats cost nothing and the work is the same.

Work handed to another thread keeps the context when it is started through :func:`in_thread` (a new thread starts
with an empty one).
"""

from __future__ import annotations

import contextvars
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from ecoagent.config import Config

T = TypeVar("T")


class PhaseSink(Protocol):
    """Where one phase's counts go: a progress bar, a line logger.

    ``share`` (0 to 1), where a phase's items differ in cost: how much of its work is done, for the time left (the
    Embedder goes longest text first, so its count moves slowest at the start)."""

    def update(self, done: int, total: int | None, share: float | None = None) -> None: ...

    def close(self, failed: bool) -> None: ...


class Reporter(Protocol):
    """Turns phases into what a person sees (the runners' bars and log lines)."""

    def open(self, name: str, total: int | None) -> PhaseSink: ...

    def say(self, line: str) -> None:
        """A line the step says about itself (what it found, what it chose)."""


class _Silent:
    def open(self, name: str, total: int | None) -> _Silent:
        return self

    def say(self, line: str) -> None:
        pass

    def update(self, done: int, total: int | None, share: float | None = None) -> None:
        pass

    def close(self, failed: bool) -> None:
        pass


SILENT = _Silent()


class Recording:
    """A reporter that keeps what it hears: ``events`` as ``(phase, done, total)``, ``shares`` as ``(phase, share)``
    where a phase gave its share of work done, ``lines`` as said, ``closed`` phases as ``(phase, failed)`` (for tests
    and notebooks; thread-safe)."""

    def __init__(self, on_update: Callable[[str, int, int | None], None] | None = None) -> None:
        self.on_update = on_update  # called with each (phase, done, total) as it is heard
        self.events: list[tuple[str, int, int | None]] = []
        self.shares: list[tuple[str, float]] = []
        self.lines: list[str] = []
        self.closed: list[tuple[str, bool]] = []
        self._lock = threading.Lock()

    def open(self, name: str, total: int | None) -> PhaseSink:
        recording = self

        class Sink:
            def update(self, done: int, total: int | None, share: float | None = None) -> None:
                with recording._lock:
                    recording.events.append((name, done, total))
                    if share is not None:
                        recording.shares.append((name, share))
                if recording.on_update is not None:
                    recording.on_update(name, done, total)

            def close(self, failed: bool) -> None:
                with recording._lock:
                    recording.closed.append((name, failed))

        return Sink()

    def say(self, line: str) -> None:
        with self._lock:
            self.lines.append(line)

    def phases(self) -> list[str]:
        """The phases heard, in the order they were first heard."""
        return list(dict.fromkeys(name for name, _, _ in self.events))

    def heard(self, config: Config) -> StepContext:
        """A context reporting here (enter it with :meth:`StepContext.running`)."""
        return StepContext(config, reporter=self)


class Phase:
    """One named step being counted: :meth:`update` sets the count (and, where items differ in cost, the share of the
    work done), :meth:`advance` adds to it (thread-safe)."""

    def __init__(self, name: str, total: int | None, sink: PhaseSink) -> None:
        self.name, self.total, self.done = name, total, 0
        self._sink = sink
        self._lock = threading.Lock()
        sink.update(0, total)  # from the start: a phase with nothing to do still says so

    def update(self, done: int, total: int | None = None, share: float | None = None) -> None:
        with self._lock:
            self.done = done
            self.total = self.total if total is None else total
            self._sink.update(self.done, self.total, share)

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            self._sink.update(self.done, self.total)


@dataclass
class StepContext:
    """A stage's settings and folders, and where its phases and stats go (:class:`Reporter`, :attr:`stats`).

    ``inputs`` maps the name of each stage it reads to that stage's folder; ``out`` is the folder it writes.
    """

    config: Config
    inputs: Mapping[str, str] = field(default_factory=dict)
    out: str = ""
    reporter: Reporter = SILENT
    stats: Counter = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def input(self, stage: str) -> str:
        """The folder of the input stage ``stage`` (its name, as the stage declares it)."""
        try:
            return self.inputs[stage]
        except KeyError:
            raise KeyError(f"no folder for the input {stage!r}; this step was given {sorted(self.inputs)}") from None

    @contextmanager
    def phase(self, name: str, total: int | None = None) -> Iterator[Phase]:
        """A named step of the work, counted while the block runs; it ends (its last line) when the block does."""
        sink = self.reporter.open(name, total)
        failed = False
        try:
            yield Phase(name, total, sink)
        except BaseException:
            failed = True
            raise
        finally:
            sink.close(failed)

    def stat(self, name: str, value: float = 1) -> None:
        """Add ``value`` to the step's figure ``name``."""
        with self._lock:
            self.stats[name] += value

    def say(self, line: str) -> None:
        """A line the step says about itself, shown with its progress."""
        self.reporter.say(line)

    def with_folders(self, inputs: Mapping[str, str] | None = None, out: str | None = None,
                     config: Config | None = None) -> StepContext:  # fmt: skip
        """The same reporting and stats for other folders or settings (a partition, a gate over a folder)."""
        child = StepContext(config or self.config, self.inputs if inputs is None else inputs,
                            self.out if out is None else out, self.reporter, self.stats)  # fmt: skip
        child._lock = self._lock
        return child

    @contextmanager
    def running(self) -> Iterator[StepContext]:
        """Make this the context :func:`phase` and :func:`stat` report to, for the block."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)


_current: contextvars.ContextVar[StepContext | None] = contextvars.ContextVar("ecoagent_step", default=None)


def current() -> StepContext | None:
    """The running step's context, or None outside a runner."""
    return _current.get()


@contextmanager
def phase(name: str | None, total: int | None = None) -> Iterator[Phase]:
    """A phase of the running step (see :meth:`StepContext.phase`); silent outside a runner or without a name."""
    ctx = _current.get()
    if ctx is None or name is None:
        yield Phase(name or "", total, SILENT)
        return
    with ctx.phase(name, total) as opened:
        yield opened


def stat(name: str, value: float = 1) -> None:
    """Add to a figure of the running step (nothing outside a runner)."""
    ctx = _current.get()
    if ctx is not None:
        ctx.stat(name, value)


def say(line: str) -> None:
    """A line the running step says about itself (nothing outside a runner)."""
    ctx = _current.get()
    if ctx is not None:
        ctx.say(line)


def in_thread(work: Callable[..., T]) -> Callable[..., T]:
    """``work`` bound to the caller's context, for another thread (which would start with none)."""
    snapshot = contextvars.copy_context()

    def bound(*args: Any, **kwargs: Any) -> T:
        return snapshot.copy().run(work, *args, **kwargs)

    return bound
