"""The batch backend's files: requests as an OpenAI Batch JSONL file for ``vllm run-batch``, its output imported
into the response cache (after which the client answers those requests from the cache)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Sequence
from pathlib import Path

from ecoagent.llm.cache import ResponseCache
from ecoagent.llm.request import LLMRequest, LLMResponse


def write_batch_requests(requests: Sequence[LLMRequest], path: Path, cache: ResponseCache | None = None) -> int:
    """Write an OpenAI Batch JSONL file for ``vllm run-batch``; returns the number of lines.

    ``custom_id`` is the request id, so the output maps back without any side table. Ids already
    in ``cache`` and repeated ids are skipped. The file is written atomically.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set(cache.get_many(r.request_id for r in requests)) if cache is not None else set()
    tmp = path.with_name(f"{path.name}.tmp-{uuid.uuid4().hex[:8]}")
    count = 0
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            for request in requests:
                if request.request_id in seen:
                    continue
                seen.add(request.request_id)
                line = {
                    "custom_id": request.request_id,
                    "method": "POST",
                    "url": request.endpoint,
                    "body": request.body(),
                }
                fh.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
                count += 1
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return count


def read_batch_output(path: Path, cache: ResponseCache, requests_path: Path | None = None) -> dict[str, int]:
    """Import a ``vllm run-batch`` output file into the cache.

    Each line is ``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``.
    Returns counts: ``ok`` (imported), ``error`` (failed or unparseable lines, not imported) and
    ``unknown_id`` (ids not in ``requests_path``, the file written by :func:`write_batch_requests`;
    without it every id is accepted).
    """
    known: set[str] | None = None
    if requests_path is not None:
        with Path(requests_path).open(encoding="utf-8") as fh:
            known = {json.loads(line)["custom_id"] for line in fh if line.strip()}
    counts = {"ok": 0, "error": 0, "unknown_id": 0}
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                custom_id = record["custom_id"]
            except (ValueError, KeyError, TypeError):
                counts["error"] += 1
                continue
            if known is not None and custom_id not in known:
                counts["unknown_id"] += 1
                continue
            response = _batch_line_response(custom_id, record)
            if response is None:
                counts["error"] += 1
                continue
            cache.put(response)
            counts["ok"] += 1
    return counts


def _batch_line_response(custom_id: str, record: dict) -> LLMResponse | None:
    try:
        if record.get("error"):
            return None
        response = record["response"]
        if int(response.get("status_code", 200)) != 200:
            return None
        body = response["body"]
        choice = body["choices"][0]
        text = choice["message"]["content"] if "message" in choice else choice["text"]
        if not isinstance(text, str):
            return None
        usage = body.get("usage") or {}
        return LLMResponse(
            request_id=custom_id,
            text=text,
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            model=str(body.get("model") or ""),
            error=None,
            attempts=1,
            cached=False,
            seconds=0.0,
        )
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return None
