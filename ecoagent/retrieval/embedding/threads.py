"""How many CPU threads an encode call runs on.

An encode call runs on the cores other work leaves free now (:func:`encoder_threads`, at least one; this process's
own threads are not other work), asked again every few seconds of a long call (:class:`ThreadsNow`). On a shared
machine a second thread that another job keeps off its core stalls every parallel step of the forward pass, so a
loaded machine encodes several times faster on one thread (``benchmarks/encoder_throughput.py``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def busy_cores(window_s: float = 0.05) -> float | None:
    """Cores other work keeps busy now: the CPU time all processes used over ``window_s`` (``/proc/stat``) less this
    process's own.

    This process is not other work: the calling thread sleeps through the window, and the threads an earlier encode
    call left spinning (ONNX Runtime's and OpenMP's pools wait busily for a while) would otherwise count as a core
    taken, and a ten-minute encode would run on one thread of an idle machine. None where ``/proc/stat`` is not
    readable (not Linux).
    """

    def sample() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields), idle

    try:
        total_0, idle_0, own_0, wall_0 = *sample(), time.process_time(), time.perf_counter()
        time.sleep(window_s)
        total_1, idle_1, own_1, wall_1 = *sample(), time.process_time(), time.perf_counter()
    except (OSError, ValueError, IndexError):
        return None
    elapsed = total_1 - total_0
    if elapsed <= 0:
        return None
    everyone = (os.cpu_count() or 1) * (elapsed - (idle_1 - idle_0)) / elapsed
    return max(0.0, everyone - (own_1 - own_0) / max(wall_1 - wall_0, 1e-9))


def encoder_threads(cores: int | None = None, load: float | None = None) -> int:
    """Threads for one encode call: the cores other work leaves free, at least 1.

    ``load`` counts the running tasks with this one among them (the 1-minute load average is such a count): an idle
    2-core machine (load about 1 while we run) gives 2 threads, a machine with other jobs on both cores gives 1.
    Without it, the load is what the cores are doing now (:func:`busy_cores`, plus this task), and the 1-minute
    average only where that cannot be read: the average lags a minute behind, so right after a busy step (the
    crawl's workers, an earlier encode on both cores) it would keep an idle machine on one thread.
    """
    cores = cores or os.cpu_count() or 1
    if load is None:
        busy = busy_cores()
        average = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        load = busy + 1.0 if busy is not None else average
    return max(1, min(cores, int(cores - max(0.0, load - 1.0) + 0.5)))


THREADS_RECHECK_S = 5.0


class ThreadsNow:
    """:func:`encoder_threads` for one long encode call, asked again every :data:`THREADS_RECHECK_S` seconds: the
    Syn catalog's vectors start beside the LLM (one core free) and end after it (two)."""

    def __init__(self):
        self.threads, self.asked = encoder_threads(), time.perf_counter()

    def __call__(self) -> int:
        if time.perf_counter() - self.asked > THREADS_RECHECK_S:
            self.threads, self.asked = encoder_threads(), time.perf_counter()
        return self.threads


@contextmanager
def _torch_threads(threads: int) -> Iterator[None]:
    """torch's intra-op threads set for one encode call, then put back (RATED and the selector set their own)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)
