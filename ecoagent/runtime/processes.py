"""Child processes that die with the stage that started them.

A SIGKILLed parent runs no cleanup: its ``ProcessPoolExecutor`` workers, a ``pip download`` and the embedded
llama.cpp server would live on (measured: crawl extraction workers of 150-250 MB each, still there a minute
after a ``kill -9`` of the crawl). Each child therefore asks to be ended when its parent goes:

- on Linux the kernel does it: ``prctl(PR_SET_PDEATHSIG)`` sends the child a signal the moment its parent
  dies, and the setting survives ``exec`` (so it covers pip and npm, started through :func:`tied_command`);
- elsewhere a daemon thread in the child polls its parent id once a second.

A parent that died before the child made the request is caught by comparing the parent id with the one the
parent passed down.

PR_SET_PDEATHSIG fires when the *thread* that started the child ends, not only the process. Every caller
starts its children from the thread that also waits for them (a pool inside a ``with`` block, ``subprocess.run``,
the embedded server's context manager), so the child never outlives that thread in normal operation.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence

_PR_SET_PDEATHSIG = 1


def exit_with_parent(parent_pid: int, sig: int = signal.SIGTERM) -> None:
    """Make this process receive ``sig`` (default: terminate) when ``parent_pid``, its parent, dies."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        except (OSError, AttributeError):
            _watch_parent(parent_pid, sig)
    else:
        _watch_parent(parent_pid, sig)
    if os.getppid() != parent_pid:  # the parent was gone before we asked
        os.kill(os.getpid(), sig)


def _watch_parent(parent_pid: int, sig: int) -> None:
    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(1.0)
        os.kill(os.getpid(), sig)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


# The launcher is inline and imports nothing of ours: the command may run in another folder or environment.
_LAUNCHER = (
    "import ctypes, os, sys; ctypes.CDLL(None).prctl(1, int(sys.argv[2]), 0, 0, 0); "
    "os.getppid() == int(sys.argv[1]) or os._exit(1); os.execvp(sys.argv[3], sys.argv[3:])"
)


def tied_command(command: Sequence[str], sig: int = signal.SIGTERM) -> list[str]:
    """``command`` behind a tiny launcher that asks for the parent-death signal and then execs it, so it is
    terminated when the calling process dies (Linux; elsewhere ``command`` unchanged)."""
    if not sys.platform.startswith("linux"):
        return list(command)
    return [sys.executable, "-I", "-c", _LAUNCHER, str(os.getpid()), str(int(sig)), *command]
