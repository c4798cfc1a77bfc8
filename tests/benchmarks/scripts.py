"""Running a benchmark script from a test as a person runs it (``python benchmarks/NAME.py ARGS``).

No test imports the ``benchmarks`` package (``tests/test_no_benchmark_imports.py``): the benchmarks are scripts,
and what a test needs from them it gets by running one. :func:`run_script` runs a script's ``__main__`` with its
arguments, in this process (a fresh process pays 10-40 s of imports on 2 cores; here the libraries and models other
tests loaded are shared), and returns its exit code and what it printed. Where a script cannot run here as a whole
(a GPU, the network, a multi-minute run, a service this machine lacks), its test calls the parts it shares from
``benchmarking/`` (the scripts' own package) on fixture data: no test loads a script's file to reach inside it.

A script's records (``--record NAME``) go to the folder ``ECOAGENT_RESULTS_DIR`` names (``results_dir``), never to
the documentation's ``docs/results/``.
"""

from __future__ import annotations

import contextlib
import io
import json
import runpy
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"


@dataclass(frozen=True, repr=False)
class Ran:
    """What a script's run left: its exit code and what it printed."""

    code: int
    out: str
    err: str

    def __repr__(self) -> str:  # shown when an assertion about the run fails
        return f"exit {self.code}\n--- stdout\n{self.out[-4000:]}\n--- stderr\n{self.err[-4000:]}"

    def json_after(self, marker: str = "") -> dict:
        """The first JSON object the script printed (``print_report``'s figures) at or after ``marker``."""
        text = self.out[self.out.index(marker) :] if marker else self.out
        return json.JSONDecoder().raw_decode(text[text.index("{") :])[0]


def script_path(name: str) -> Path:
    path = BENCHMARKS / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(path)
    return path


def run_script(name: str, *args: object) -> Ran:
    """``python benchmarks/NAME.py ARGS`` in this process: its exit code (``SystemExit``) and its output."""
    path = script_path(name)
    out, err = io.StringIO(), io.StringIO()
    argv, path_before = sys.argv, list(sys.path)
    sys.argv = [str(path), *map(str, args)]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_path(str(path), run_name="__main__")
            except SystemExit as exc:
                if isinstance(exc.code, str):
                    print(exc.code, file=sys.stderr)
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv, sys.path[:] = argv, path_before
    return Ran(code, out.getvalue(), err.getvalue())


def record_written(folder: Path, name: str) -> dict:
    """The record a script wrote with ``--record NAME`` into ``folder`` (``ECOAGENT_RESULTS_DIR``)."""
    record = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    assert record["source"] == "written by the benchmark" and record["command"].startswith(".venv/bin/python ")
    return record
