"""The one LLM client every stage uses: OpenAI-compatible, async, bounded, retrying, resumable.

A request is a frozen value (:class:`LLMRequest`) whose ``request_id`` is a sha256 over all of
its fields, so the same item, prompt version, model and sampling always get the same id. The
client looks ids up in a :class:`~ecoagent.llm.cache.ResponseCache` first and sends only the
missing ones; each success is written to the cache as soon as it arrives. A killed run therefore
loses only what was in flight, and a rerun sends exactly the requests that have no answer yet.

The same client talks to vLLM in production and to the embedded llama.cpp server (see
:mod:`ecoagent.llm.backends`). The SDK's own retries are off (``max_retries=0``): retries,
backoff and error classification live here, where they can be tested and where errors can be
sanitized before anybody logs them.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import httpx
import openai

from ecoagent.llm.errors import LLMBackendError
from ecoagent.llm.request import RESERVED_KEYS, LLMRequest, LLMResponse
from ecoagent.text.redaction import sanitize  # re-exported: ecoagent.llm.sanitize

if TYPE_CHECKING:
    from ecoagent.llm.cache import ResponseCache
    from ecoagent.llm.embedded import PinnedPrefixes

log = logging.getLogger(__name__)

_MAX_BACKOFF_S = 60.0


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class _Final(Exception):
    pass


@lru_cache(maxsize=2)
def _sdk_params(kind: str) -> frozenset[str]:
    """Parameter names the SDK's create() knows; anything else must travel in extra_body."""
    from openai.resources.chat.completions import AsyncCompletions as ChatCompletions
    from openai.resources.completions import AsyncCompletions

    method = ChatCompletions.create if kind == "chat" else AsyncCompletions.create
    return frozenset(inspect.signature(method).parameters) - {"self"} - RESERVED_KEYS


class LLMClient:
    """OpenAI-compatible client: bounded concurrency, retries with backoff, response cache."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        concurrency: int = 4,
        timeout_s: float = 120.0,
        max_retries: int = 4,
        backoff_s: float = 1.0,
        cache: ResponseCache | None = None,
        server_options: dict[str, Any] | None = None,
        pinned_prefixes: PinnedPrefixes | None = None,
    ):
        if concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        self.base_url = base_url
        self.model = model
        self.api_key = api_key
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.cache = cache
        # sent with every request, outside the request id: how this server must compute, not what is asked
        # (the embedded llama.cpp server: no prompt-cache reuse, see ecoagent.llm.embedded)
        self.server_options = dict(server_options or {})
        if clash := RESERVED_KEYS.intersection(self.server_options):
            raise ValueError(f"server_options may not set {sorted(clash)} (the client sets them)")
        # the embedded server: a request's shared prefix restored into its slot before it is sent
        self.pinned_prefixes = pinned_prefixes

    def __repr__(self) -> str:  # never show the key
        return f"LLMClient(base_url={self.base_url!r}, model={self.model!r}, concurrency={self.concurrency})"

    def generate(
        self, requests: Sequence[LLMRequest], on_done: Callable[[LLMResponse], None] | None = None
    ) -> list[LLMResponse]:
        """Synchronous :meth:`agenerate` (not callable from inside a running event loop)."""
        return asyncio.run(self.agenerate(requests, on_done))

    async def agenerate(
        self, requests: Sequence[LLMRequest], on_done: Callable[[LLMResponse], None] | None = None
    ) -> list[LLMResponse]:
        """One response per request, in input order.

        Cached ids are answered from the cache (``cached=True``) and never sent; an id that
        occurs several times is sent once. ``on_done`` is called once per distinct id as soon as
        its response is final (cached, success or error). Errors are returned, never raised.
        """
        unique: dict[str, LLMRequest] = {}
        for request in requests:
            unique.setdefault(request.request_id, request)
        results: dict[str, LLMResponse] = self.cache.get_many(unique) if self.cache is not None else {}
        if on_done is not None:
            for response in results.values():
                on_done(response)
        pending = [r for rid, r in unique.items() if rid not in results]
        if pending:
            semaphore = asyncio.Semaphore(self.concurrency)
            client = openai.AsyncOpenAI(
                base_url=self.base_url,
                # servers without auth (llama.cpp, vLLM without --api-key) ignore it; the SDK insists on one
                api_key=self.api_key or "EMPTY",
                max_retries=0,
                timeout=self.timeout_s,
                # the pool must not be the bottleneck nor keep idle sockets past the semaphore's bound
                http_client=httpx.AsyncClient(
                    limits=httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
                    timeout=self.timeout_s,
                ),
            )

            slots: asyncio.Queue[int] = asyncio.Queue()
            for slot in range(self.pinned_prefixes.slots if self.pinned_prefixes else 0):
                slots.put_nowait(slot)

            async def run(request: LLMRequest) -> None:
                response = await self._run_one(client, semaphore, request, slots)
                if response.ok and self.cache is not None:
                    self.cache.put(response)  # before anything else can fail: finished work is kept
                results[request.request_id] = response
                if on_done is not None:
                    on_done(response)

            try:
                await asyncio.gather(*(run(r) for r in pending))
            finally:
                await client.close()
        return [results[r.request_id] for r in requests]

    async def _run_one(
        self, client: openai.AsyncOpenAI, semaphore: asyncio.Semaphore, request: LLMRequest, slots: asyncio.Queue
    ) -> LLMResponse:
        started = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            retry_after: float | None = None
            # the semaphore covers the request only, not the backoff sleep: a backing-off
            # request must not keep a slot from the others
            async with semaphore:
                try:
                    async with self._pinned(request, slots) as options:
                        text, finish, usage, model = await self._send(client, request, options)
                    return LLMResponse(
                        request_id=request.request_id,
                        text=text,
                        finish_reason=finish,
                        prompt_tokens=usage[0],
                        completion_tokens=usage[1],
                        model=model or request.model,
                        error=None,
                        attempts=attempts,
                        cached=False,
                        seconds=round(time.monotonic() - started, 4),
                    )
                except _Final as exc:
                    return self._error(request, str(exc), attempts, started)
                except _Retryable as exc:
                    error, retry_after = str(exc), exc.retry_after
            if attempts > self.max_retries:
                return self._error(request, f"{error} (gave up after {attempts} attempts)", attempts, started)
            delay = self._backoff(attempts, retry_after)
            log.debug("LLM request %s: %s; retry %d in %.2fs", request.request_id[:12], error, attempts, delay)
            await asyncio.sleep(delay)

    @contextlib.asynccontextmanager
    async def _pinned(self, request: LLMRequest, slots: asyncio.Queue) -> AsyncIterator[dict[str, Any]]:
        """The server options of one attempt: with pinned prefixes and a request that shares one, a slot holding
        the prefix's evaluation (restored now) and kept for this attempt alone; otherwise none."""
        if self.pinned_prefixes is None or not request.shared_prefix:
            yield {}
            return
        slot = await slots.get()
        try:
            try:
                await asyncio.to_thread(self.pinned_prefixes.restore, request.prompt[: request.shared_prefix], slot)
            except LLMBackendError as exc:
                raise _Retryable(self._sanitize(f"prefix restore: {exc}")) from exc
            yield self.pinned_prefixes.request_options(slot)
        finally:
            slots.put_nowait(slot)

    async def _send(
        self, client: openai.AsyncOpenAI, request: LLMRequest, options: dict[str, Any] | None = None
    ) -> tuple[str, str | None, tuple[int, int], str | None]:
        body = {**self.server_options, **(options or {}), **request.body()}
        known = _sdk_params(request.kind)
        kwargs = {k: v for k, v in body.items() if k in known or k in RESERVED_KEYS}
        extra = {k: v for k, v in body.items() if k not in kwargs}
        if extra:
            kwargs["extra_body"] = extra
        try:
            # the SDK timeout bounds each read; this one bounds the whole attempt (a trickling server)
            async with asyncio.timeout(self.timeout_s):
                if request.kind == "chat":
                    raw = await client.chat.completions.create(**kwargs)
                else:
                    raw = await client.completions.create(**kwargs)
        except (openai.APITimeoutError, TimeoutError) as exc:
            raise _Retryable(f"timeout after {self.timeout_s}s") from exc
        except openai.APIConnectionError as exc:
            raise _Retryable(self._sanitize(f"connection error: {exc.__cause__ or exc}")) from exc
        except openai.APIStatusError as exc:
            message = self._sanitize(f"HTTP {exc.status_code}: {exc.message}")
            if exc.status_code == 429 or exc.status_code >= 500 or exc.status_code == 408:
                raise _Retryable(message, _retry_after(exc.response)) from exc
            raise _Final(message) from exc
        except (openai.APIResponseValidationError, json.JSONDecodeError) as exc:
            raise _Retryable(self._sanitize(f"malformed response: {exc}")) from exc
        try:
            choice = raw.choices[0]
            text = choice.message.content if request.kind == "chat" else choice.text
            if not isinstance(text, str):
                raise TypeError(f"no text in choice: {type(text).__name__}")
            usage = raw.usage
            tokens = (int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)) if usage else (0, 0)
            model = raw.model if isinstance(raw.model, str) else None
            return text, choice.finish_reason, tokens, model
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            # e.g. a proxy answering 200 with an HTML page or a truncated body
            raise _Retryable(self._sanitize(f"malformed response: {type(exc).__name__}: {exc}")) from exc

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        # full exponential growth with +-50% jitter, so many clients that failed together spread out
        delay = self.backoff_s * (2 ** (attempt - 1)) * random.uniform(0.5, 1.5)
        if retry_after is not None:
            delay = max(delay, retry_after)
        return min(delay, _MAX_BACKOFF_S)

    def _error(self, request: LLMRequest, message: str, attempts: int, started: float) -> LLMResponse:
        return LLMResponse(
            request_id=request.request_id,
            text=None,
            finish_reason=None,
            prompt_tokens=0,
            completion_tokens=0,
            model=request.model,
            error=self._sanitize(message),
            attempts=attempts,
            cached=False,
            seconds=round(time.monotonic() - started, 4),
        )

    def _sanitize(self, message: str) -> str:
        return sanitize(message, secrets=(self.api_key,) if self.api_key else ())


def _retry_after(response: httpx.Response | None) -> float | None:
    try:
        value = response.headers.get("retry-after") if response is not None else None
        return max(0.0, float(value)) if value is not None else None
    except ValueError:  # an HTTP date: rare from inference servers, the backoff covers it
        return None
