"""Benchmark: LLM generation through the client against the embedded llama.cpp server.

Sends N few-shot completion requests (Gemma 3 270M, 1 thread) once one at a time and once with
the client's concurrency, against the SAME server in the same run, and prints tokens/s and
requests/s for both and their ratio. Each pass uses a fresh temporary response cache, so nothing
is answered from a cache; the two passes use different keys, so their request ids differ too.

    .venv/bin/python benchmarks/generation.py [--n 24] [--max-tokens 48] [--concurrency C] [--parallel P]

The server's slots (llm.embedded.parallel) bound how many requests llama.cpp decodes together;
concurrency above that only queues.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from ecoagent.config import load_config
from ecoagent.llm import EmbeddedServer, LLMClient, LLMRequest, ResponseCache, sampling

FEWSHOT = """Tool: Weather lookup
Description: Get the current weather and forecast for a city.
Requests:
- What's the weather like in Lisbon right now?
- Will it rain in Berlin tomorrow afternoon?
- Give me the 5-day forecast for Osaka.

Tool: Currency converter
Description: Convert an amount from one currency to another at the latest rate.
Requests:
- How much is 250 US dollars in euros?
- Convert 1,000 yen to British pounds.
- What's 80 Swiss francs in Canadian dollars today?

Tool: {name}
Description: {description}
Requests:
-"""

TOOLS = [
    ("Slack send message", "Post a message to a Slack channel or user."),
    ("Wikipedia search", "Search Wikipedia and return article summaries."),
    ("Gmail create draft", "Create an email draft in a Gmail account."),
    ("GitHub create issue", "Open a new issue in a GitHub repository."),
    ("Google Calendar event", "Create or update an event in Google Calendar."),
    ("PDF text extractor", "Extract the text of every page of a PDF file."),
    ("SQL query runner", "Run a read-only SQL query against a database."),
    ("Stock price lookup", "Get the latest price of a stock ticker."),
]


def make_requests(n: int, model: str, max_tokens: int, tag: str) -> list[LLMRequest]:
    return [
        LLMRequest(
            key=f"{tag}-{i}",
            prompt_version="bench_fewshot_v1",
            model=model,
            kind="completion",
            prompt=FEWSHOT.format(name=TOOLS[i % len(TOOLS)][0], description=TOOLS[i % len(TOOLS)][1]),
            sampling=sampling(max_tokens=max_tokens, temperature=0.8, top_p=0.95, seed=i),
        )
        for i in range(n)
    ]


def run_pass(base_url: str, model: str, requests: list[LLMRequest], concurrency: int, cache_dir: Path) -> dict:
    client = LLMClient(base_url, model, api_key=None, concurrency=concurrency, timeout_s=300, max_retries=2,
                       backoff_s=0.5, cache=ResponseCache(cache_dir / f"c{concurrency}.sqlite"))
    start = time.perf_counter()
    responses = asyncio.run(client.agenerate(requests))
    seconds = time.perf_counter() - start
    errors = [r.error for r in responses if not r.ok]
    assert not any(r.cached for r in responses), "a benchmark pass must not hit the cache"
    tokens = sum(r.completion_tokens for r in responses)
    return {"concurrency": concurrency, "seconds": seconds, "requests": len(responses), "errors": len(errors),
            "completion_tokens": tokens, "tok_s": tokens / seconds, "req_s": len(responses) / seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="default")
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--concurrency", type=int, help="default: llm.concurrency")
    parser.add_argument("--parallel", type=int, help="server slots; default: llm.embedded.parallel")
    args = parser.parse_args()
    overrides = [f"llm.embedded.parallel={args.parallel}"] if args.parallel else []
    config = load_config(args.profile, overrides=overrides)
    concurrency = args.concurrency or config.llm.concurrency
    model = config.llm.model
    print(f"model={model} threads={config.llm.embedded.threads} slots={config.llm.embedded.parallel} "
          f"n={args.n} max_tokens={args.max_tokens} concurrency={concurrency}")
    started = time.perf_counter()
    with EmbeddedServer.from_config(config) as server, tempfile.TemporaryDirectory(prefix="ecoagent-bench-") as tmp:
        print(f"server up in {time.perf_counter() - started:.1f}s at {server.base_url}")
        # one warm-up request so neither pass pays first-call costs (graph build, prompt cache)
        run_pass(server.base_url, model, make_requests(1, model, 8, "warmup"), 1, Path(tmp) / "w")
        sequential = run_pass(server.base_url, model, make_requests(args.n, model, args.max_tokens, "seq"), 1,
                              Path(tmp))
        concurrent = run_pass(server.base_url, model, make_requests(args.n, model, args.max_tokens, "conc"),
                              concurrency, Path(tmp))
    for row in (sequential, concurrent):
        print(f"concurrency={row['concurrency']:>2}: {row['seconds']:6.1f}s  {row['req_s']:.2f} req/s  "
              f"{row['tok_s']:.1f} completion tok/s  ({row['completion_tokens']} tokens, {row['errors']} errors)")
    print(f"ratio concurrent/sequential: {concurrent['tok_s'] / sequential['tok_s']:.2f}x tok/s, "
          f"{concurrent['req_s'] / sequential['req_s']:.2f}x req/s")


if __name__ == "__main__":
    main()
