"""An orchestrated LLM stage's tasks meet through the store: the plan written once, each shard's answers written as
they arrive and as one file at the end, the assembly reading them; a retried shard sends only what it lacks."""

from __future__ import annotations

import dataclasses
import json

import pytest

from ecoagent.config import make_config
from ecoagent.layout import LLM_FILES
from ecoagent.llm.exchange import (
    answer_shard,
    read_answers,
    read_plan,
    request_from_record,
    request_record,
    shard_name,
    write_plan,
)
from ecoagent.llm.request import LLMRequest, sampling
from ecoagent.store import ArtifactStore
from ecoagent.testing.standin_llm import StandInOpenAI


@dataclasses.dataclass
class Plan:
    tools: list[str]
    requests: list


def _requests(n: int) -> list[LLMRequest]:
    return [LLMRequest(key=f"tool-{i}", prompt_version="v1", model="fake", kind="completion", prompt=f"tool {i}",
                       sampling=sampling(max_tokens=8, stop=["\n\n"], seed=i)) for i in range(n)]  # fmt: skip


def _config(tmp_path, base_url: str, worker: str = "a"):
    return make_config(llm={"backend": "server", "base_url": base_url, "model": "fake", "concurrency": 2,
                            "backoff_s": 0.01, "cache_path": str(tmp_path / worker / "responses.sqlite")})  # fmt: skip


def test_a_request_reads_back_to_the_same_request() -> None:
    schema = json.dumps({"type": "object", "properties": {"score": {"type": "number"}}})
    chat = LLMRequest(key="q|t", prompt_version="verify_v1", model="m", kind="chat", json_schema=schema,
                      messages=({"role": "system", "content": "s"}, {"role": "user", "content": "u"}),
                      sampling=sampling(temperature=0.0, max_tokens=12, stop=["a", "b"]))  # fmt: skip
    for request in [chat, *_requests(2)]:
        back = request_from_record(json.loads(json.dumps(request_record(request))))
        assert back == request and back.request_id == request.request_id


def test_shards_meet_through_the_store_and_each_request_is_sent_once(tmp_path) -> None:
    folder = str(tmp_path / "store" / "synth_llm")
    plan = Plan(tools=["a", "b"], requests=_requests(7))
    assert write_plan(plan, folder)["requests"] == 7
    with StandInOpenAI() as server:
        # two workers: each its own SQLite cache, nothing shared but the store
        counts = [answer_shard(_config(tmp_path, server.base_url, w), folder, i, 2) for i, w in enumerate("ab")]
        assert [c["sent"] for c in counts] == [4, 3] and server.requests == 7
        again = answer_shard(_config(tmp_path, server.base_url, "b"), folder, 0, 2)  # a rerun of a finished shard
        assert again["sent"] == 0 and server.requests == 7
        back = read_plan(folder)
        assert back == plan  # the plan as planned, its requests read back from requests.jsonl
        answers = read_answers(_config(tmp_path, server.base_url, "c"), folder, back.requests)
        assert server.requests == 7  # the assembly (on a third worker) asks nothing
    assert [r.text for r in answers.responses] == [f"echo:tool {i}" for i in range(7)]
    store = ArtifactStore(folder)
    assert store.files() == sorted([LLM_FILES.plan, LLM_FILES.requests, f"answers/{shard_name(0, 2)}.jsonl",
                                    f"answers/{shard_name(1, 2)}.jsonl"])  # fmt: skip


def test_a_retried_shard_sends_only_what_its_journal_lacks(tmp_path) -> None:
    folder = str(tmp_path / "label_llm")
    write_plan(Plan(tools=[], requests=_requests(6)), folder)
    with StandInOpenAI() as server:
        # a first try on worker a that died after three answers: they are in the store's journal, not in the file
        part = _requests(6)[0::1][:3]
        first = _config(tmp_path, server.base_url, "a")
        from ecoagent.llm.backends import open_llm
        from ecoagent.llm.cache import ResponseCache
        from ecoagent.llm.exchange import _Journaled

        journal = ArtifactStore(f"{folder}/answers/{shard_name(0, 1)}.parts")
        with open_llm(first) as client:
            client.cache = _Journaled(ResponseCache(tmp_path / "a.sqlite"), journal, {})
            client.generate(part)
        assert server.requests == 3 and len(journal.files()) == 3
        # the retry runs on worker b, whose cache is empty: only the three unanswered requests are sent
        retry = answer_shard(_config(tmp_path, server.base_url, "b"), folder, 0, 1)
        assert retry["sent"] == 3 and retry["journal"] == 3 and server.requests == 6
        assert server.stats()["bodies_answered_more_than_once"] == 0
    assert not journal.exists()  # folded into the shard's answers file


def test_a_shard_out_of_range_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"shard 2 is not in \[0, 2\)"):
        answer_shard(make_config(), str(tmp_path), 2, 2)
