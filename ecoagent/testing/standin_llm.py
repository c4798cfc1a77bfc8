"""A stand-in for an OpenAI-compatible LLM server on 127.0.0.1: instant, deterministic answers, scripted failures.

One real HTTP server (``http.server``, one thread per connection, keep-alive) that answers ``POST /v1/completions``
and ``POST /v1/chat/completions`` as vLLM does, so the pipeline's client reaches it through ``llm.base_url`` like
any other server. A test double: the pipeline itself never starts or imports it. Used by the tests (scripted
misbehaviour per prompt) and by the benchmark scripts (``benchmarks/paper_scale.py``: a paper-scale refresh with
:class:`PaperScaleResponder` answering every request at once; ``benchmarks/celery_deployment.py``). Importing it
takes the standard library only (polars and the tokenizer are imported where they are used).

- What a successful answer says: ``respond(body, content) -> text`` (default :func:`default_text`, an echo).
- Misbehaviour per prompt (``plans[content] = ["429", "slow:2", "ok"]``, one action per successive request) or for
  a share of all requests (``failure_share``: the first attempt of a request whose body hashes below the share is
  answered 429 or 503, so each retried request succeeds on its next attempt). Actions: ``ok``, an HTTP status,
  ``slow:S`` / ``hang:S`` (answer after S seconds), ``drop`` (close the connection), ``malformed`` (a truncated
  body), ``echo_auth`` (an error that leaks the caller's Authorization header, as bad proxies do).
- Server-side counts (:meth:`StandInOpenAI.stats`, also ``GET /stats``): requests, 200 answers, scripted failures by
  status, the most requests in flight at once, and the bodies answered 200 more than once, so a benchmark checks
  that no request was lost or answered twice.
- ``usage``: token counts of the prompt and the answer, with the Gemma 3 tokenizer when one is given (``tokens``,
  applied to the prompt as Gemma's chat template lays it out), else words.

Run on its own (``python -m ecoagent.testing.standin_llm --catalog tools_scored.parquet``) it prints its base URL
and serves until killed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self

CHAT_TURN = "<start_of_turn>{role}\n{content}<end_of_turn>\n"


def default_text(body: dict, content: str) -> str:
    return '{"score": 0.5}' if "response_format" in body else f"echo:{content}"


def prompt_text(body: dict) -> str:
    """The prompt as the model sees it: a completion prompt, or the chat laid out in Gemma's turn format (a system
    message joins the first user turn, as Gemma's template does)."""
    if "prompt" in body:
        return str(body["prompt"])
    messages = list(body.get("messages") or [])
    system = ""
    if messages and messages[0].get("role") == "system":
        system = str(messages.pop(0).get("content", "")) + "\n\n"
    turns = []
    for i, message in enumerate(messages):
        role = "model" if message.get("role") == "assistant" else message.get("role", "user")
        turns.append(CHAT_TURN.format(role=role, content=(system if i == 0 else "") + str(message.get("content", ""))))
    return "<bos>" + "".join(turns) + "<start_of_turn>model\n"


def body_digest(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ServedInThread:
    """An HTTP server served by a daemon thread while the ``with`` block runs (the stand-in, the tests' servers)."""

    def __init__(self, httpd: ThreadingHTTPServer) -> None:
        self.httpd = httpd
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


class StandInOpenAI(ServedInThread):
    """An OpenAI-compatible server on 127.0.0.1 in a background thread (a context manager)."""

    def __init__(
        self,
        respond: Callable[[dict, str], str] | None = None,
        *,
        failure_share: float = 0.0,
        tokens: Callable[[str], int] | None = None,
        keep_bodies: bool = True,
    ) -> None:
        self.respond = respond or default_text
        self.failure_share = failure_share
        self.tokens = tokens or (lambda text: len(text.split()))
        self.keep_bodies = keep_bodies
        self.lock = threading.Lock()
        self.plans: dict[str, list[str]] = {}  # prompt -> actions for its successive requests
        self.default = "ok"
        self.counts: Counter[str] = Counter()  # requests per prompt (the last message's content)
        self.bodies: list[dict] = []
        self.auth: list[str | None] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests = 0
        self.answered: Counter[str] = Counter()  # body digest -> 200 answers
        self.failed_once: set[str] = set()  # body digests that got their scripted failure
        self.statuses: Counter[int] = Counter()
        # per kind of request ("structured": with a response_format, as verification asks; "text": generation):
        # 200 answers, prompt tokens, completion tokens
        self.by_kind: dict[str, Counter[str]] = {"structured": Counter(), "text": Counter()}
        super().__init__(_HTTPServer(("127.0.0.1", 0), _Handler))
        self.httpd.standin = self
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def admit(self, body: dict, content: str, digest: str, authorization: str | None) -> str:
        """Count a request and choose what to do with it: its prompt's next planned action, else the default, a
        scripted first-attempt failure taking the place of ``ok``."""
        with self.lock:
            self.requests += 1
            self.counts[content] += 1
            if self.keep_bodies:
                self.bodies.append(body)
                self.auth.append(authorization)
            plan = self.plans.get(content)
            action = plan.pop(0) if plan else self.default
            if action == "ok" and digest not in self.failed_once and self._scripted_failure(digest):
                self.failed_once.add(digest)
                action = "429" if int(digest[8:16], 16) % 2 else "503"
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        return action

    def answer(self, body: dict, content: str, digest: str) -> tuple[str, tuple[int, int]]:
        """A successful answer's text and token usage, counted."""
        text = self.respond(body, content)
        usage = (self.tokens(prompt_text(body)), self.tokens(text))
        kind = self.by_kind["structured" if "response_format" in body else "text"]
        with self.lock:
            self.answered[digest] += 1
            self.statuses[200] += 1
            kind.update(answers=1, prompt_tokens=usage[0], completion_tokens=usage[1])
        return text, usage

    def _scripted_failure(self, digest: str) -> bool:
        return self.failure_share > 0 and int(digest[:8], 16) / 0xFFFFFFFF < self.failure_share

    def stats(self) -> dict:
        with self.lock:
            return {
                "requests": self.requests,
                "answered_200": sum(self.answered.values()),
                "distinct_bodies_answered": len(self.answered),
                "bodies_answered_more_than_once": sum(1 for n in self.answered.values() if n > 1),
                "scripted_failures": len(self.failed_once),
                "failed_never_answered": len(self.failed_once - set(self.answered)),
                "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
                "max_in_flight": self.max_in_flight,
                "by_kind": {k: dict(v) for k, v in self.by_kind.items()},
            }



class _HTTPServer(ThreadingHTTPServer):
    request_queue_size = 128  # 32+ clients connecting at once must not meet a full backlog
    standin: StandInOpenAI


class _Handler(BaseHTTPRequestHandler):
    """One connection to the stand-in: the request counted and acted on as :meth:`StandInOpenAI.admit` decides."""

    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/stats":
            self._json(200, self.server.standin.stats())
        else:
            self._json(200, {"object": "list", "data": [{"id": "stand-in", "object": "model"}]})

    def do_POST(self) -> None:
        standin = self.server.standin
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = body["prompt"] if "prompt" in body else body["messages"][-1]["content"]
        digest = body_digest(body)
        action = standin.admit(body, content, digest, self.headers.get("Authorization"))
        try:
            self._act(action, body, content, digest)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): expected
        finally:
            with standin.lock:
                standin.in_flight -= 1

    def _act(self, action: str, body: dict, content: str, digest: str) -> None:
        name, _, arg = action.partition(":")
        if name in ("slow", "hang"):
            time.sleep(float(arg))
            name = "ok"
        if name == "ok":
            text, usage = self.server.standin.answer(body, content, digest)
            self._json(200, _answer(body, text, usage))
        elif name == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif name == "malformed":
            self._raw(200, b'{"choices": [{"text": "trunc')
        elif name == "echo_auth":
            self._json(400, {"error": {"message": f"bad request from {self.headers.get('Authorization')}"}})
        else:
            status = int(name)
            with self.server.standin.lock:
                self.server.standin.statuses[status] += 1
            self._json(
                status,
                {"error": {"message": f"scripted {status}", "type": "stand-in"}},
                {"Retry-After": "0"} if status == 429 else None,
            )

    def _json(self, status: int, obj: dict, headers: dict | None = None) -> None:
        self._raw(status, json.dumps(obj).encode(), headers)

    def _raw(self, status: int, data: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


def _answer(body: dict, text: str, usage: tuple[int, int]) -> dict:
    counts = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": usage[0] + usage[1]}
    if "messages" in body:
        choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        kind = "chat.completion"
    else:
        choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
        kind = "text_completion"
    return {"id": "x", "object": kind, "created": 0, "model": body["model"], "choices": [choice], "usage": counts}


# --------------------------------------------------------------------------- paper-scale answers

_STOP = frozenset(
    {
        "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "from", "by", "at", "as", "is", "are",
        "be", "this", "that", "it", "its", "your", "you", "can", "will", "into", "via", "using", "use", "used", "uses",
        "given", "based", "when", "which", "who", "what", "how", "if", "not", "all", "any", "each", "one", "more",
        "other", "such", "than", "then", "there", "these", "those", "their", "them", "they", "was", "were", "has",
        "have", "had", "do", "does", "also", "only", "may", "should", "would", "could", "about", "after", "before",
        "over", "under", "between", "within", "without", "per", "new", "get", "set",
    }
)  # fmt: skip
_TOOL_DATA = re.compile(r"tool_name: (.*)\ntool_description: (.*)\n</tool_data>\nnum_queries: (\d+)")
_FEWSHOT = re.compile(r"Tool: (.*)\nDescription: (.*)\nRequests:\n-\s*$")
_VERIFY = re.compile(r"<query>(.*)</query>\s*<tool>(.*)</tool>", re.DOTALL)

_OPENERS = (
    "Please", "Can you", "Could you", "I need to", "Help me", "I'd like to", "Quickly", "Go ahead and", "Would you",
    "Let's", "I want you to", "Time to", "We should", "Remind me to", "Try to", "Make sure to",
)
_HOW_TO = (
    "How do I", "What's the best way to", "How can I", "Is there a way to", "What steps do I need to",
    "Can you explain how to", "How would I", "What is the easiest way to", "Show me how to",
)
_TROUBLE = (
    "Why does it fail when I try to", "I keep getting an error when I", "Something breaks whenever I",
    "It says access denied when I", "Nothing happens when I", "I get a timeout every time I",
    "The request is rejected when I", "Why can't I",
)
_TROUBLE_TAILS = (
    "?", ", what am I doing wrong?", ", any idea why?", "; the logs show nothing useful.", ". How do I fix this?",
    " even though it worked yesterday.", ", is the token expired?",
)
_CLOSERS = (
    "", "", ", thanks", " please", " asap", " if possible", " before lunch", ", it's urgent",
    " and tell me when it's done", " and send me a short summary", " for me",
)
_CONTEXTS = (
    "for the weekly team sync", "before tomorrow's client meeting", "in our staging account", "for the Q3 report",
    "as part of the onboarding checklist", "for the marketing campaign", "on the production workspace",
    "for my side project", "so the support team can follow up", "for the audit next week", "every Monday morning",
    "for the new hires", "in the shared team folder", "for the Berlin office", "after the nightly import",
    "for the board deck", "while I'm travelling", "for our biggest customer", "before the end of the sprint",
    "for the data migration", "during the incident review", "for the mobile app launch", "on my personal account",
    "for the finance team", "right after the deploy", "for the hackathon demo", "in the EU region",
    "for last month's invoices", "for the research paper", "without bothering the admins",
)  # fmt: skip
_SYNONYMS = {
    "get": ("get", "fetch", "look up", "pull", "retrieve"), "create": ("create", "add", "make", "set up"),
    "delete": ("delete", "remove", "get rid of"), "update": ("update", "change", "modify", "edit"),
    "list": ("list", "show all", "give me all"), "send": ("send", "post", "push"), "search": ("search", "find"),
}  # fmt: skip
_VALUES = {
    "email": ("anna.lopez@example.com", "ops-team@example.org", "ben@example.net"),
    "url": ("https://example.com/report", "https://docs.example.org/start", "https://shop.example.net/item/42"),
    "date": ("next Friday", "2026-03-14", "the first of the month", "yesterday"),
    "id": ("48213", "A-1093", "7f3c2e", "proj_5521"),
    "name": ("Quarterly Review", "Mia Chen", "backend-service", "Project Falcon"),
    "city": ("Lisbon", "Nairobi", "Osaka", "Toronto"),
    "number": ("5", "25", "100", "3"),
    "path": ("/data/exports/march.csv", "reports/summary.md", "~/notes/todo.txt"),
    "text": ("the release notes draft", "a short status update", "the customer complaint summary"),
}
_NOT_ENGLISH = (
    "¿Puedes ayudarme a usar esta herramienta con los datos de la semana pasada, por favor?",
    "Kannst du mir bitte zeigen, wie ich dieses Werkzeug für unseren Bericht verwende?",
    "Peux-tu utiliser cet outil pour préparer le rapport de la réunion de demain?",
)


def _words(text: str) -> list[str]:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return [w for w in re.split(r"[^A-Za-z0-9]+", text) if w]


def _value_for(param: str, kind: str, rng: random.Random, keywords: list[str]) -> str:
    lower = param.lower()
    for key in ("email", "url", "date", "city", "path", "name"):
        if key in lower:
            return rng.choice(_VALUES[key])
    if lower.endswith("id") or lower.endswith("_id") or lower == "id":
        return rng.choice(_VALUES["id"])
    if kind in ("integer", "number"):
        return rng.choice(_VALUES["number"])
    if kind == "boolean":
        return rng.choice(("enabled", "turned off"))
    if keywords and rng.random() < 0.5:
        return " ".join(rng.sample(keywords, min(2, len(keywords))))
    return rng.choice(_VALUES["text"])


class PaperScaleResponder:
    """Plausible, varied answers built from the tool the prompt names, its description and its parameters.

    Synth prompts (``tool_name`` / ``tool_description`` / ``num_queries``, or the few-shot completion block) get
    ``num_queries`` lines in the three intent types (direct action, how-to, troubleshooting) from templates filled
    with the tool's action words, description keywords and parameter names with example values; about one line in
    ten is a near-duplicate of the previous one (a word swapped) and about one in twelve is junk a filter must drop
    (too short, a copy of the description, the prompt's own words, another language), and some answers carry a chat
    preamble, numbering or bullets the parser strips. Verification prompts get ``{"score": s}`` from the word
    overlap of query and tool, and a few invalid or out-of-range replies. Everything is a function of the request
    body, so a rerun or a batch file gets the same answers.

    ``catalog``: a ``tools_scored.parquet`` (or ``tools.parquet``) to look tools' parameters up by name; read when
    the first synth request arrives (the score stage has written it by then). Without it, no parameters.
    """

    def __init__(self, catalog: Path | None = None) -> None:
        self.catalog = catalog
        self._params: dict[str, list[tuple[str, str]]] | None = None
        self._lock = threading.Lock()

    def __call__(self, body: dict, content: str) -> str:
        rng = random.Random(body_digest(body))
        if "response_format" in body:
            return self.verify_reply(content, rng)
        match = _TOOL_DATA.search(content) or _FEWSHOT.search(content)
        if match is None:
            return "I can help with that."
        name, description = match.group(1).strip(), match.group(2).strip()
        n = int(match.group(3)) if match.re is _TOOL_DATA else 10
        text = self.synth_reply(name, description, n, rng)
        return text if match.re is _TOOL_DATA else text.replace("\n", "\n- ")

    # ----------------------------------------------------------------- synth

    def parameters(self, name: str) -> list[tuple[str, str]]:
        with self._lock:
            if self._params is None:
                self._params = self._load_parameters()
        return self._params.get(name, [])

    def _load_parameters(self) -> dict[str, list[tuple[str, str]]]:
        if self.catalog is None or not Path(self.catalog).exists():
            return {}
        import polars as pl

        frame = pl.read_parquet(self.catalog, columns=["name", "parameters"])
        out: dict[str, list[tuple[str, str]]] = {}
        for name, parameters in frame.iter_rows():
            try:
                props = (json.loads(parameters or "{}") or {}).get("properties") or {}
            except (ValueError, AttributeError):
                props = {}
            found = [(str(k), str((v or {}).get("type", "string")) if isinstance(v, dict) else "string")
                     for k, v in props.items()]  # fmt: skip
            out.setdefault(name, found)
        return out

    def synth_reply(self, name: str, description: str, n: int, rng: random.Random) -> str:
        service, _, operation = name.partition(": ") if ": " in name else ("", "", name)
        action = " ".join(w.lower() for w in _words(operation)) or "run this tool"
        target = service or (rng.choice(("my workspace", "our account", "the team space")))
        keywords = list(dict.fromkeys(w.lower() for w in _words(description) if len(w) > 3 and w.lower() not in _STOP))
        rng.shuffle(keywords)
        keywords = keywords[:8] or ["data"]
        params = self.parameters(name)
        lines: list[str] = []
        for i in range(n):
            roll = rng.random()
            if lines and roll < 0.10:  # a near-duplicate of the previous line: one word swapped
                words = lines[-1].split()
                words[rng.randrange(len(words))] = rng.choice(("kindly", "now", "today", "again"))
                lines.append(" ".join(words))
                continue
            if roll < 0.13:
                lines.append(f"{action} now")  # too short
            elif roll < 0.15 and len(description.split()) >= 8:
                lines.append(description.split(". ")[0])  # a copy of the description
            elif roll < 0.165:
                lines.append("[Requirements] (1) Each query should be 5-120 words.")  # the prompt's own words
            elif roll < 0.18:
                lines.append(rng.choice(_NOT_ENGLISH))
            else:
                lines.append(self._query(i, action, target, keywords, params, rng))
        style = rng.random()
        if style < 0.2:
            lines = [f"{i + 1}. {line}" for i, line in enumerate(lines)]
        elif style < 0.3:
            lines = [f"- {line}" for line in lines]
        if rng.random() < 0.15:
            lines.insert(0, f"Here are {n} queries for this tool:")
        return "\n".join(lines)

    def _query(self, i: int, action: str, target: str, keywords: list[str], params: list, rng: random.Random) -> str:
        verb, _, rest = action.partition(" ")
        if verb in _SYNONYMS:
            action = f"{rng.choice(_SYNONYMS[verb])} {rest}".strip()
        kw = rng.sample(keywords, min(2, len(keywords)))
        param, kind = rng.choice(params) if params else (rng.choice(keywords), "string")
        pwords = " ".join(w.lower() for w in _words(param)) or param
        value = _value_for(param, kind, rng, keywords)
        obj = rng.choice(
            ("", f"the {' '.join(kw)}", f"with the {' and '.join(kw)}", f"about {kw[0]}", f"in {target}",
             f"on {target} for {kw[-1]}")
        )  # fmt: skip
        param_clause = rng.choice(
            ("", f"with {pwords} set to {value}", f"using {value} as the {pwords}", f"where the {pwords} is {value}",
             f"for {value}", f"given {pwords} {value}")
        )  # fmt: skip
        intent = i % 3 if rng.random() < 0.8 else rng.randrange(3)
        if intent == 0:
            parts = (rng.choice(_OPENERS), action, obj, param_clause, rng.choice(_CONTEXTS))
            end = rng.choice(_CLOSERS)
        elif intent == 1:
            parts = (rng.choice(_HOW_TO), action, obj, param_clause, rng.choice(_CONTEXTS))
            end = "?"
        else:
            parts = (rng.choice(_TROUBLE), action, obj, param_clause)
            end = rng.choice(_TROUBLE_TAILS)
        return " ".join(p for p in parts if p) + end

    # ----------------------------------------------------------------- verification

    @staticmethod
    def verify_reply(content: str, rng: random.Random) -> str:
        roll = rng.random()
        if roll < 0.01:
            return "I think this tool fits."  # not JSON: dropped with a counted reason
        if roll < 0.015:
            return '{"score": 1.5}'  # out of range
        match = _VERIFY.search(content)
        query, tool = (match.group(1), match.group(2)) if match else (content, "")
        q = {w.lower() for w in _words(query) if w.lower() not in _STOP}
        t = {w.lower() for w in _words(tool) if w.lower() not in _STOP}
        overlap = len(q & t) / max(1, min(len(q), 8))
        # BFCL queries share few words with their tools (median overlap 0 over retrieved candidates), so the score
        # leans on the overlap but spreads widely: about a quarter of candidate pairs reach the 0.85 threshold
        score = min(1.0, 0.55 + 2.0 * overlap + rng.uniform(-0.25, 0.35))
        return json.dumps({"score": round(max(0.0, score), 2)})


def gemma_token_counter() -> Callable[[str], int]:
    """Token counts with the Gemma 3 tokenizer the score stage uses (the packaged GGUF's; Gemma 3 1B shares it)."""
    from ecoagent.config import load_config
    from ecoagent.text.tokenizer import load_tokenizer

    config = load_config()
    tokenizer = load_tokenizer(config.score.tokenizer, config.resolve_path(config.score.tokenizer_cache))
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


def answer_batch_file(requests_path: Path, output_path: Path, respond: Callable[[dict, str], str],
                      tokens: Callable[[str], int] | None = None) -> int:  # fmt: skip
    """Write ``vllm run-batch``'s output for a batch request file, one line per request, answered by ``respond``."""
    count_tokens = tokens or (lambda text: len(text.split()))
    lines = 0
    with Path(requests_path).open(encoding="utf-8") as src, Path(output_path).open("w", encoding="utf-8") as out:
        for raw in src:
            if not raw.strip():
                continue
            request = json.loads(raw)
            body = request["body"]
            content = body["prompt"] if "prompt" in body else body["messages"][-1]["content"]
            text = respond(body, content)
            answer = _answer(body, text, (count_tokens(prompt_text(body)), count_tokens(text)))
            record = {
                "id": f"batch-{lines}",
                "custom_id": request["custom_id"],
                "response": {"status_code": 200, "request_id": f"req-{lines}", "body": answer},
                "error": None,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            lines += 1
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the paper-scale stand-in until killed; prints its base URL.")
    parser.add_argument("--catalog", type=Path, help="tools_scored.parquet to look parameters up in")
    parser.add_argument("--failure-share", type=float, default=0.0, help="share of requests failed once (429/503)")
    parser.add_argument("--gemma-tokens", action="store_true", help="usage in Gemma 3 tokens (else words)")
    args = parser.parse_args()
    tokens = gemma_token_counter() if args.gemma_tokens else None
    server = StandInOpenAI(PaperScaleResponder(args.catalog), failure_share=args.failure_share, tokens=tokens,
                           keep_bodies=False)  # fmt: skip
    with server:
        print(server.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
