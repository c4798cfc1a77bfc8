"""Benchmark: the tool selector's first start on a fresh machine, as a newcomer meets it.

    .venv/bin/python benchmarks/selector_start.py --release data/release/<version> [--home DIR] [--record NAME]

Starts ``python -m selector serve --release DIR`` with a new, empty home folder (no embedding cache, no exported
ONNX graph, no derived static encoder: everything a first start on a machine makes) and times it from the process
start to its first answer on ``/health``; then stops it and starts it again in the same home (everything is cached:
the warm start). The figure is the cold start against the target (60 s on 2 cores, issue 44; issue 33's was 5 minutes)
and against the warm start
measured in the same run. Every progress line the start printed is kept with its time, so the record shows the
longest silence (the target: no step without a line for more than 30 s).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import first_etas, print_report, read_timed_lines
from benchmarking.record import add_record_option, write_record
from benchmarking.timed_lines import longest_silence, selector_phases

TARGET_S = 60
ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return sock.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def start(release: str, home: Path, timeout_s: float, extra: list[str] = ()) -> dict:
    """One start of the service in ``home``: seconds to the first /health answer, and each stderr line's time."""
    port = free_port()
    env = {**os.environ, "HOME": str(home), "HF_HUB_OFFLINE": "1"}
    env = {k: v for k, v in env.items() if not k.startswith(("ECOAGENT", "XDG_CACHE", "HF_HOME"))}
    command = [sys.executable, "-m", "selector", "serve", "--release", release, "--port", str(port), *extra]
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines, reader = read_timed_lines(proc.stderr, started)
    try:
        while not healthy(port):
            if proc.poll() is not None:
                tail = "\n".join(text for _, text in lines[-20:])
                raise SystemExit(f"the selector exited with {proc.returncode}:\n{tail}")
            if time.perf_counter() - started > timeout_s:
                raise SystemExit(f"no /health answer within {timeout_s:.0f} s")
            time.sleep(0.5)
        seconds = time.perf_counter() - started
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        reader.join(timeout=5)
    return {"seconds": seconds, "lines": lines}


def served_model(lines: list[tuple[float, str]], serve_args: list[str]) -> str:
    """The dense model the start served: what ``--dense-model auto`` resolved to (its log line), else the argument."""
    for _, line in lines:
        if "--dense-model auto: " in line:
            return "auto: " + line.split("--dense-model auto: ", 1)[1]
    return " ".join(serve_args) or "the default"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", required=True, help="a release folder")
    parser.add_argument("--home", type=Path, help="the fresh home folder (default: a new temp folder, removed)")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--serve-arg", action="append", default=[], help="an argument for `selector serve` (repeat)")
    add_record_option(parser)
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="selector-home-"))
    home.mkdir(parents=True, exist_ok=True)
    if any(home.iterdir()):
        raise SystemExit(f"{home} is not empty: a first start needs a fresh home")
    cold = start(args.release, home, args.timeout, args.serve_arg)
    warm = start(args.release, home, args.timeout, args.serve_arg)
    gap = longest_silence(cold["lines"], cold["seconds"])
    met = "met" if cold["seconds"] <= TARGET_S else "not met"
    figures = {
        "dense model": served_model(cold["lines"], args.serve_arg),
        "first start (fresh home)": f"{cold['seconds']:.1f} s: {met} (target {TARGET_S} s on 2 cores); "
                                    f"{cold['seconds'] / TARGET_S:.2f}x the target",
        "second start (everything cached)": f"{warm['seconds']:.1f} s; the first start is "
                                            f"{cold['seconds'] / warm['seconds']:.1f}x it",
        "longest stretch without a line, first start": f"{gap:.1f} s",
        "cpu": os.cpu_count(),
    }  # fmt: skip
    table = {"caption": "The first start's counted phases (their last line)", "columns": ["phase", "count", "at s"],
             "rows": selector_phases(cold["lines"])}  # fmt: skip
    etas = {"caption": "Each phase's first ETA against the time it then took (seconds into the phase)",
            "columns": ["phase", "ETA said", "said at", "took from there"],
            "rows": first_etas(line.split("selector start: ", 1)[-1] for _, line in cold["lines"])}  # fmt: skip
    print_report({"figures": figures, "tables": [table, etas]},
                 f"selector first start: {cold['seconds']:.0f} s ({cold['seconds'] / TARGET_S:.2f}x the target), "
                 f"warm {warm['seconds']:.1f} s")  # fmt: skip
    if args.record:
        write_record(args.record, title="The selector's first start on a fresh machine", section="selector",
                     benchmark="`python -m selector serve --release DIR` with a new empty home (no embedding cache, no "
                               "ONNX graph, no static encoder), process start to the first /health answer; then "
                               "again in the same home",
                     target=f"<= {TARGET_S} s on 2 cores, every step with counted progress lines", figures=figures,
                     tables=[table, etas])  # fmt: skip
    if not args.home:
        import shutil

        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
