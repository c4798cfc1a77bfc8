"""Pair verification: an LLM functional-match score in [0, 1] (JSON-schema output), and beside it an
embedding-agreement score from a second, independent embedder. The config decides which one labels
the pair (``label.verifier``); both are recorded, with the model that gave them.

A reply that is not valid JSON, has no number, or is outside [0, 1] is not guessed at: the pair is
dropped from the verified set with a counted reason (``verifier_invalid_json``,
``verifier_out_of_range``) and its llm_score stays null.

Prompts are versioned files (``labeling/prompts/<name>.yaml``, setting ``label.verify_prompt``). ``verify_v1`` asks
for a number; ``verify_enum_v1`` asks for one word of an enum (``yes`` / ``partly`` / ``no``), which llama.cpp's
grammar enforces (it does not enforce a number's bounds), mapped to a score by the prompt's ``scores`` table.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import yaml

from ecoagent.llm.prompt_data import as_data

PROMPT_DIR = Path(__file__).parent / "prompts"


@dataclass(frozen=True)
class VerifyPrompt:
    prompt_version: str
    system: str
    user: str
    schema: dict
    field: str = "score"  # the reply's key
    scores: dict | None = None  # an enum reply's word -> score; None: the reply is the score itself


def load_verify_prompt(name: str = "verify_v1") -> VerifyPrompt:
    """The prompt ``labeling/prompts/<name>.yaml``; an unknown name is an error naming ``label.verify_prompt``."""
    from ecoagent.config import ConfigError

    path = PROMPT_DIR / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in PROMPT_DIR.glob("verify*.yaml")))
        raise ConfigError(f"label.verify_prompt {name!r} is not a prompt file (known: {known})")
    doc = yaml.safe_load(path.read_text())
    return VerifyPrompt(f"{doc['name']}_v{doc['version']}", doc["system"].strip(), doc["user"].strip(), doc["schema"],
                        doc.get("field", "score"), doc.get("scores"))  # fmt: skip


def build_verify_requests(pairs: list[dict], prompt: VerifyPrompt, model: str, max_tokens: int, seed: int) -> list:
    """pairs: dicts with query_id, text, tool_id, content_hash, name, description."""
    from ecoagent.llm.client import LLMRequest

    schema = json.dumps(prompt.schema, sort_keys=True)
    requests = []
    for pair in pairs:
        user = prompt.user.format(
            query=as_data(pair["text"], 800),
            tool_name=as_data(pair["name"], 120),
            tool_description=as_data(pair["description"], 600),
        )
        requests.append(
            LLMRequest(
                key=f"{pair['query_id']}|{pair['tool_id']}@{pair['content_hash']}",
                prompt_version=prompt.prompt_version,
                model=model,
                kind="chat",
                messages=({"role": "system", "content": prompt.system}, {"role": "user", "content": user}),
                sampling=tuple(sorted({"temperature": 0.0, "max_tokens": max_tokens, "seed": seed}.items())),
                json_schema=schema,
            )
        )
    return requests


def parse_score(text: str | None, prompt: VerifyPrompt | None = None) -> tuple[float | None, str | None]:
    """(score, None) for a valid reply, else (None, drop reason)."""
    if text is None:
        return None, "verifier_no_reply"
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None, "verifier_invalid_json"
    field = prompt.field if prompt else "score"
    score = value.get(field) if isinstance(value, dict) else value
    if prompt is not None and prompt.scores is not None:
        if not isinstance(score, str) or score.strip().lower() not in prompt.scores:
            return None, "verifier_out_of_range"
        return float(prompt.scores[score.strip().lower()]), None
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        return None, "verifier_invalid_json"
    if not 0.0 <= score <= 1.0:
        return None, "verifier_out_of_range"
    return float(score), None
