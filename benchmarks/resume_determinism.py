"""Benchmark: a resumed Syn run vs an uninterrupted one, under three ways of reusing the few-shot prompt's work.

    .venv/bin/python benchmarks/resume_determinism.py [--tools 6] [--done 2] [--max-tokens 40] [--modes MODE ...]
        [--record NAME]

The Syn stage's real requests (``synth.generate.build_requests``: the few-shot completion prompt of
``synth/prompts``, the stage's sampling, a fixed seed per tool) go to the embedded server (Gemma 3 270M, one slot,
one thread) three times per mode, each time on a fresh server, as a killed and resumed run sends them:

- *uninterrupted*: all ``--tools`` requests in order;
- *again*: the same, on another fresh server (is an uninterrupted run reproducible?);
- *resumed*: only the requests after the first ``--done`` (a run killed once they were answered).

The modes:

- *previous prompt* (llama.cpp's own ``cache_prompt``): a request reuses the KV cache of the slot's previous
  prompt for their common prefix. Logits of a prefix evaluated in another batch split are not bit-identical, so a
  reply depends on the request before it, and the first request after a restart has no cached prefix at all.
- *pinned prefix* (the pipeline's default, ``llm.embedded.reuse_prompt_cache``): the template's few-shot part is
  evaluated once per server and restored into the slot before every request (``PinnedPrefixes``), through the
  client the stages use.
- *none* (``reuse_prompt_cache: false``): each request evaluates its whole prompt, through the same client.

Prints, per mode, how many resumed replies differ from the uninterrupted run, whether two uninterrupted runs agree,
and the seconds per request; the baseline is *none*, measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

import httpx
import polars as pl

from benchmarking.record import add_record_option, write_record
from ecoagent.config import Config, load_config
from ecoagent.llm.backends import open_llm
from ecoagent.llm.embedded import EmbeddedServer
from synth.generate import build_requests
from synth.prompts import template_for

TOOLS = [
    ("weather_lookup", "Look up the current weather for a city."),
    ("search_notes", "Search the user's notes by keyword and return matching notes."),
    ("send_email", "Send an email to a recipient with a subject and a body."),
    ("create_invoice", "Create an invoice for a customer in the billing system."),
    ("list_files", "List the files in a folder of the user's cloud drive."),
    ("post_message", "Post a message to a Slack channel."),
    ("create_issue", "Open a new issue in a GitHub repository."),
    ("convert_currency", "Convert an amount from one currency to another."),
]
MODES = ("previous prompt", "pinned prefix", "none")


def requests_for(config: Config, n: int) -> list:
    tools = pl.DataFrame({"tool_id": [f"bench:{name}" for name, _ in TOOLS[:n]],
                          "name": [name for name, _ in TOOLS[:n]],
                          "description": [description for _, description in TOOLS[:n]],
                          "content_hash": ["bench"] * n})  # fmt: skip
    return build_requests(tools, template_for(config.llm.model_kind), config)


def replies(config: Config, mode: str, requests: list) -> tuple[list[str], float]:
    """The replies on a fresh server, and the seconds per request (server start excluded)."""
    if mode == "previous prompt":  # llama.cpp's own reuse: raw requests, as the pipeline never sends them
        with EmbeddedServer.from_config(config) as server, httpx.Client(timeout=600) as client:
            started = time.perf_counter()
            texts = [client.post(f"{server.base_url}/completions", json={**r.body(), "cache_prompt": True}).json()
                     ["choices"][0]["text"] for r in requests]  # fmt: skip
            return texts, (time.perf_counter() - started) / max(len(requests), 1)
    config = load_config("default", overrides=[*BASE_OVERRIDES, f"synth.max_tokens={config.synth.max_tokens}",
                                               f"llm.embedded.reuse_prompt_cache={mode == 'pinned prefix'}"])
    with tempfile.TemporaryDirectory() as cache, open_llm(config, cache_path=Path(cache) / "r.sqlite") as client:
        started = time.perf_counter()
        responses = client.generate(requests)
        if not all(r.ok for r in responses):
            raise SystemExit(f"{mode}: failed requests: {[r.error for r in responses if not r.ok]}")
        return [r.text for r in responses], (time.perf_counter() - started) / max(len(requests), 1)


BASE_OVERRIDES = ["llm.embedded.parallel=1", "llm.embedded.threads=1", "llm.concurrency=1"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=6, choices=range(2, len(TOOLS) + 1))
    parser.add_argument("--done", type=int, default=2, help="requests the killed run had finished")
    parser.add_argument("--max-tokens", type=int, default=40)
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="the modes to measure (all)")
    add_record_option(parser)
    args = parser.parse_args()
    config = load_config("default", overrides=[*BASE_OVERRIDES, f"synth.max_tokens={args.max_tokens}"])
    print(f"embedded {config.llm.model}, 1 slot, 1 thread, {args.tools} Syn requests, resumed after {args.done}; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")  # fmt: skip
    requests = requests_for(config, args.tools)
    rows, seconds = [], {}
    for mode in args.modes:
        whole, seconds[mode] = replies(config, mode, requests)
        again, _ = replies(config, mode, requests)
        resumed, _ = replies(config, mode, requests[args.done :])
        differ = sum(a != b for a, b in zip(whole[args.done :], resumed, strict=True))
        agree = "agree" if whole == again else "DIFFER"
        rows.append([mode, f"{differ} of {len(resumed)}", agree, f"{seconds[mode]:.2f}"])
        print(f"{mode}: resumed replies differing from the uninterrupted run {differ} of {len(resumed)}; "
              f"two uninterrupted runs {agree}; {seconds[mode]:.2f} s per request")
    speedup = seconds["none"] / seconds["pinned prefix"] if {"none", "pinned prefix"} <= set(seconds) else None
    if speedup is not None:
        print(f"pinned prefix: {speedup:.2f}x the requests per second of none (the baseline, same run)")
    if args.record:
        figures = {row[0]: f"{row[1]} resumed replies differ; two uninterrupted runs {row[2]}; {row[3]} s per request"
                   for row in rows}  # fmt: skip
        if speedup is not None:
            figures["pinned prefix vs none"] = f"{speedup:.2f}x the requests per second"
        write_record(args.record, title="A resumed Syn run vs an uninterrupted one", section="synth",
                     benchmark=f"{args.tools} Syn requests (max_tokens {args.max_tokens}) on a fresh embedded server "
                               f"per pass, the last {args.tools - args.done} sent again as a run killed after "
                               f"{args.done} would; three ways of reusing the few-shot prompt's work",
                     target="0 resumed replies differ, at fewer seconds per request than no reuse",
                     figures=figures,
                     tables=[{"caption": "Per mode (the pipeline's default: pinned prefix)",
                              "columns": ["mode", "resumed replies differing", "two uninterrupted runs",
                                          "s per request"],
                              "rows": rows}])  # fmt: skip


if __name__ == "__main__":
    main()
