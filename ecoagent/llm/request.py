"""One LLM call and its outcome, as values: :class:`LLMRequest` (with its deterministic id) and :class:`LLMResponse`.

The client (:mod:`ecoagent.llm.client`) sends requests, the response cache (:mod:`ecoagent.llm.cache`) stores
responses and the batch files (:mod:`ecoagent.llm.batch`) carry both; all three import them from here.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

# set by the client itself; a sampling key with one of these names would silently override it
RESERVED_KEYS = frozenset(
    {"model", "prompt", "messages", "stream", "response_format"}
    | {"extra_headers", "extra_query", "extra_body", "timeout"}
)


def sampling(**params: Any) -> tuple[tuple[str, Any], ...]:
    """Sampling settings in the canonical form ``LLMRequest.sampling`` wants: sorted pairs, None dropped."""
    return tuple(sorted((k, _freeze(v)) for k, v in params.items() if v is not None))


def _freeze(value: Any) -> Any:
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


@dataclass(frozen=True)
class LLMRequest:
    """One LLM call, identified by a deterministic hash of everything that shapes its answer."""

    key: str
    prompt_version: str
    model: str
    kind: Literal["chat", "completion"]
    prompt: str | None = None
    messages: tuple[dict, ...] | None = None
    sampling: tuple[tuple[str, Any], ...] = ()
    json_schema: str | None = None
    # The prompt's first characters that many requests share (a template's fixed few-shot part). Not part of the id:
    # it asks nothing different, it lets a server evaluate that part once (ecoagent.llm.embedded.PinnedPrefixes).
    shared_prefix: int = 0

    def __post_init__(self) -> None:
        if self.kind == "completion":
            if self.prompt is None or self.messages is not None:
                raise ValueError(f"{self.key}: a completion request needs prompt= and no messages=")
            if not 0 <= self.shared_prefix <= len(self.prompt):
                raise ValueError(f"{self.key}: shared_prefix={self.shared_prefix} is outside the prompt")
        elif self.kind == "chat":
            if not self.messages or self.prompt is not None:
                raise ValueError(f"{self.key}: a chat request needs messages= and no prompt=")
            if self.shared_prefix:
                raise ValueError(f"{self.key}: shared_prefix is for completion prompts")
            if not isinstance(self.messages, tuple):
                object.__setattr__(self, "messages", tuple(self.messages))
        else:
            raise ValueError(f"{self.key}: kind must be 'chat' or 'completion', not {self.kind!r}")
        pairs = tuple(sorted((str(k), _freeze(v)) for k, v in self.sampling))
        names = [k for k, _ in pairs]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.key}: duplicate sampling keys in {names}")
        if clash := RESERVED_KEYS.intersection(names):
            raise ValueError(f"{self.key}: sampling may not set {sorted(clash)} (the client sets them)")
        # sorted here so two requests that differ only in key order get one id
        object.__setattr__(self, "sampling", pairs)
        if self.json_schema is not None:
            json.loads(self.json_schema)  # fail at construction, not after a queue of requests

    @cached_property
    def request_id(self) -> str:
        payload = {
            "key": self.key,
            "prompt_version": self.prompt_version,
            "model": self.model,
            "kind": self.kind,
            "prompt": self.prompt,
            "messages": self.messages,
            "sampling": self.sampling,
            # parsed and re-dumped: whitespace or key order in the schema text must not change the id
            "json_schema": None if self.json_schema is None else json.loads(self.json_schema),
        }
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    @property
    def endpoint(self) -> str:
        return "/v1/chat/completions" if self.kind == "chat" else "/v1/completions"

    def body(self) -> dict[str, Any]:
        """The JSON body as the server receives it (also the ``body`` of a batch request line)."""
        body: dict[str, Any] = {"model": self.model}
        if self.kind == "chat":
            body["messages"] = [dict(m) for m in self.messages or ()]
        else:
            body["prompt"] = self.prompt
        for name, value in self.sampling:
            body[name] = list(value) if isinstance(value, tuple) else value
        if self.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "out", "schema": json.loads(self.json_schema), "strict": True},
            }
        return body


@dataclass
class LLMResponse:
    """The outcome of one request: text on success, a sanitized ``error`` otherwise."""

    request_id: str
    text: str | None
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    model: str
    error: str | None
    attempts: int
    cached: bool
    seconds: float

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None
