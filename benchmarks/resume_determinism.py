"""Why a resumed Syn run used to differ: llama.cpp's prompt-cache reuse, measured with and without it.

    .venv/bin/python benchmarks/resume_determinism.py [--tools 6] [--done 2] [--max-tokens 40]

The Syn stage's real requests (the few-shot completion prompt of ``synth/prompts``, the stage's sampling and a
fixed seed per tool) go to the embedded server (Gemma 3 270M, one slot, one thread) three times, each on a fresh
server, as a killed and resumed run sends them:

- *uninterrupted*: all ``--tools`` requests in order;
- *again*: the same, on another fresh server (is an uninterrupted run reproducible?);
- *resumed*: only the requests after the first ``--done`` (a run killed once they were cached).

With ``cache_prompt`` on (llama.cpp's default), a request reuses the KV cache of the slot's previous prompt for
their common prefix and evaluates only the rest; logits of a prefix evaluated in another batch split are not
bit-identical, so a reply depends on which request came before it, and the first request after a restart has no
cached prefix at all. With it off (``embedded_request_options``: what the pipeline sends unless
``llm.embedded.reuse_prompt_cache`` is set) each request evaluates its whole prompt. Prints, for each setting,
how many resumed replies differ from the uninterrupted run, whether two uninterrupted runs agree, and the
seconds per request (the price of evaluating the whole prompt).
"""

from __future__ import annotations

import argparse
import os
import time

import httpx

from ecoagent.config import load_config
from ecoagent.llm.embedded import EmbeddedServer, embedded_request_options
from synth.generate import request_seed
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


def bodies(config, n: int, max_tokens: int, options: dict) -> list[dict]:
    template = template_for(config.llm.model_kind)
    cfg = config.synth
    return [
        {
            "model": config.llm.model,
            "prompt": template.render(name, description, cfg.queries_per_tool)["prompt"],
            "max_tokens": max_tokens,
            "temperature": cfg.temperature,
            "top_p": cfg.top_p,
            "seed": request_seed(config.seed, name),
            "stop": list(template.stop),
            **template.sampling,
            **options,
        }
        for name, description in TOOLS[:n]
    ]


def replies(config, requests: list[dict]) -> tuple[list[str], float]:
    """The replies on a fresh server, and the seconds per request (server start excluded)."""
    with EmbeddedServer.from_config(config) as server, httpx.Client(timeout=600) as client:
        started = time.perf_counter()
        texts = [client.post(f"{server.base_url}/completions", json=r).json()["choices"][0]["text"] for r in requests]
        return texts, (time.perf_counter() - started) / max(len(requests), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=6, choices=range(2, len(TOOLS) + 1))
    parser.add_argument("--done", type=int, default=2, help="requests the killed run had finished")
    parser.add_argument("--max-tokens", type=int, default=40)
    args = parser.parse_args()
    config = load_config("default", overrides=["llm.embedded.parallel=1", "llm.embedded.threads=1"])
    print(f"embedded {config.llm.model}, 1 slot, 1 thread, {args.tools} Syn requests, resumed after {args.done}; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")  # fmt: skip
    pipeline = embedded_request_options(config)
    for label, options in (("cache_prompt on (llama.cpp default)", {"cache_prompt": True}),
                           (f"pipeline {pipeline}", pipeline)):  # fmt: skip
        requests = bodies(config, args.tools, args.max_tokens, options)
        whole, per_request = replies(config, requests)
        again, _ = replies(config, requests)
        resumed, _ = replies(config, requests[args.done :])
        differ = sum(a != b for a, b in zip(whole[args.done :], resumed, strict=True))
        print(f"{label}: resumed replies differing from the uninterrupted run {differ} of {len(resumed)}; "
              f"two uninterrupted runs {'agree' if whole == again else 'DIFFER'}; {per_request:.2f} s per request")


if __name__ == "__main__":
    main()
