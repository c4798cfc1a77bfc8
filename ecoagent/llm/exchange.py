"""How the tasks of an orchestrated LLM stage meet: through the store, never through a worker's disk.

An LLM stage in the refresh DAG runs as three kinds of tasks, possibly on different machines that share only the
artifact store (a local folder or object storage):

1. the plan task computes the stage's plan once per run (for Real: the retrieval over the whole catalog) and writes
   it to ``<run>/<stage>_llm/`` (:func:`write_plan`): ``plan.pkl`` (the plan without its requests, for the assembly)
   and ``requests.jsonl`` (one request per line, written last: it commits the folder);
2. each shard task answers its slice of the requests (every ``shards``-th, by position) and writes its answers as
   ``answers/shard-<i>-of-<n>.jsonl`` (:func:`answer_shard`). While it runs, every answer is also written at once
   as its own small file under ``answers/shard-<i>-of-<n>.parts/`` (a journal), so a shard killed half way and
   retried on any worker sends only the requests that had no answer yet (those in flight at the kill);
3. the stage task reads the plan and the shard files and assembles (:func:`read_answers`); a request a shard could
   not answer (an error after its retries) is asked once more there.

The local SQLite response cache (``llm.cache_path``) stays what it is, an accelerator of the worker it is on: a
shard looks there first and fills it, so a rerun on the same worker asks nothing. It is never the channel between
tasks. The plan is a pickle: it is read back by the same code in the same run, from the run's own store.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ecoagent.config import Config
from ecoagent.layout import LLM_FILES
from ecoagent.llm.ask import LLMAnswers, ask
from ecoagent.llm.cache import ResponseCache
from ecoagent.llm.request import LLMRequest, LLMResponse
from ecoagent.store import ArtifactStore, StageFolder

if TYPE_CHECKING:
    from ecoagent.runtime.context import Phase


def request_record(request: LLMRequest) -> dict:
    """A request as one JSON object (its id beside it, to check the round trip)."""
    return {**dataclasses.asdict(request), "request_id": request.request_id}


def request_from_record(record: dict) -> LLMRequest:
    fields = {f.name for f in dataclasses.fields(LLMRequest)}
    values = {k: v for k, v in record.items() if k in fields}
    values["sampling"] = tuple(tuple(pair) for pair in values.get("sampling") or ())
    if values.get("messages") is not None:
        values["messages"] = tuple(values["messages"])
    request = LLMRequest(**values)
    if record.get("request_id") not in (None, request.request_id):
        raise ValueError(f"request {record.get('key')!r} does not read back to the request it was written from")
    return request


def _response_record(response: LLMResponse) -> dict:
    return dataclasses.asdict(response)


def _response_from_record(record: dict) -> LLMResponse:
    return LLMResponse(**record)


def _jsonl(records: Sequence[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)


def _read_jsonl(store: ArtifactStore, *parts: str) -> list[dict]:
    text = store.fs.cat(store.path(*parts)).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# ----------------------------------------------------------------- the plan, once per run


def write_plan(plan: Any, folder: str) -> dict:
    """Write an LLM stage's plan (a dataclass with ``requests``) to ``folder``, replacing what a rerun left there
    (the shards' answers included: they answered the previous plan)."""
    with StageFolder(folder, LLM_FILES.names(), marker=LLM_FILES.requests).replace() as store:
        store.write_bytes(pickle.dumps(dataclasses.replace(plan, requests=[])), LLM_FILES.plan)
        store.write_text(_jsonl([request_record(r) for r in plan.requests]), LLM_FILES.requests)
    return {"folder": folder, "requests": len(plan.requests)}


def read_requests(folder: str) -> list[LLMRequest]:
    store = ArtifactStore(folder)
    store.require(LLM_FILES.requests, "the plan task of this stage")
    return [request_from_record(r) for r in _read_jsonl(store, LLM_FILES.requests)]


def read_plan(folder: str) -> Any:
    """The plan :func:`write_plan` wrote, its requests restored."""
    store = ArtifactStore(folder)
    requests = read_requests(folder)
    with store.fs.open(store.path(LLM_FILES.plan), "rb") as fh:
        plan = pickle.load(fh)  # written by this run's plan task into this run's store
    return dataclasses.replace(plan, requests=requests)


# ----------------------------------------------------------------- one shard


def shard_name(shard: int, shards: int) -> str:
    return f"shard-{shard:05d}-of-{shards:05d}"


class _Journaled:
    """The client's cache: the worker's SQLite cache, every new answer also written to the store at once."""

    def __init__(self, local: ResponseCache, journal: ArtifactStore, found: dict[str, LLMResponse]) -> None:
        self.local, self.journal, self.found = local, journal, found

    def get_many(self, request_ids) -> dict[str, LLMResponse]:
        ids = list(request_ids)
        hits = {i: self.found[i] for i in ids if i in self.found}
        for request_id, response in self.local.get_many(i for i in ids if i not in hits).items():
            self._record(response)  # answered on this worker before: the store gets it too
            hits[request_id] = response
        return hits

    def put(self, response: LLMResponse) -> None:
        self.local.put(response)
        self._record(response)

    def _record(self, response: LLMResponse) -> None:
        self.journal.write_json(_response_record(response), f"{response.request_id}.json")


def answer_shard(config: Config, folder: str, shard: int, shards: int, phase: str | None = None) -> dict:
    """Answer shard ``shard`` of ``shards`` of the requests in ``folder`` into its answers file; the counts.

    Idempotent: a shard whose file is there asks nothing; a retried shard asks only what its journal lacks. With
    ``phase``, the shard's requests are counted under that name in the running step as they are answered.
    """
    from ecoagent.runtime import context

    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is not in [0, {shards})")
    store = ArtifactStore(folder)
    name = shard_name(shard, shards)
    answers = f"{LLM_FILES.answers}/{name}.jsonl"
    part = read_requests(folder)[shard::shards]
    counts = {"shard": shard, "requests": len(part)}
    if store.exists(answers) or config.llm.backend == "batch":  # batch: the stage task exchanges the batch files
        return {**counts, "sent": 0, "failed": 0, "done_before": store.exists(answers)}
    journal = ArtifactStore(store.url(LLM_FILES.answers, f"{name}.parts"))
    found = {r["request_id"]: _response_from_record(r) for r in (journal.read_json(p) for p in journal.files())}
    started = time.perf_counter()
    with context.phase(phase, len(part)) as answering:
        known, missing = _answer_part(config, part, journal, found, answering)
    responses = [known[r.request_id] for r in part]
    store.write_text(_jsonl([_response_record(r) for r in responses]), answers)
    if journal.exists():
        journal.fs.rm(journal.root, recursive=True)
    failed = sum(1 for r in responses if not r.ok)
    return {**counts, "sent": len(missing), "failed": failed, "journal": len(found),
            "seconds": round(time.perf_counter() - started, 2)}  # fmt: skip


def _answer_part(config: Config, part: list[LLMRequest], journal: ArtifactStore, found: dict[str, LLMResponse],
                 answering: Phase) -> tuple[dict[str, LLMResponse], list[LLMRequest]]:  # fmt: skip
    """Each request of a shard's part answered (the journal, the worker's cache, then the backend): the responses by
    request id, and the requests that were sent."""
    from ecoagent.llm.backends import default_cache_path, open_llm

    local = ResponseCache(default_cache_path(config))
    try:
        cache = _Journaled(local, journal, found)
        known = cache.get_many(r.request_id for r in part)
        missing = [r for r in part if r.request_id not in known]
        answering.update(len(part) - len(missing))
        if missing:
            with open_llm(config) as client:
                client.cache = cache
                answered = client.generate(missing, on_done=lambda _response: answering.advance())
                known.update((r.request_id, r) for r in answered)
    finally:
        local.close()
    return known, missing


# ----------------------------------------------------------------- the assembly


def read_answers(config: Config, folder: str, requests: Sequence[LLMRequest], phase: str | None = None) -> LLMAnswers:
    """Every request's response from the shards' answers files, in request order; what no shard answered (an error,
    or a shard file missing) is asked here once more (the worker's cache, then the backend)."""
    started = time.perf_counter()
    store = ArtifactStore(folder)
    found: dict[str, LLMResponse] = {}
    for rel in store.files():
        if rel.startswith(f"{LLM_FILES.answers}/") and rel.endswith(".jsonl"):
            for record in _read_jsonl(store, rel):
                response = _response_from_record(record)
                if response.ok or response.request_id not in found:
                    found[response.request_id] = response
    again = [r for r in requests if r.request_id not in found or not found[r.request_id].ok]
    if again:
        found.update((r.request_id, r) for r in ask(config, again, phase=phase).responses)
    responses = [found[r.request_id] for r in requests]
    cached = sum(1 for r in responses if r.cached)
    return LLMAnswers(responses, cached, time.perf_counter() - started)
