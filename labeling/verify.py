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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from ecoagent.llm.prompt_data import as_data

if TYPE_CHECKING:
    from ecoagent.config import Config
    from ecoagent.llm.ask import LLMAnswers

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


# ----------------------------------------------------------------- the stage's verdicts

VERIFIERS = ("embedding", "llm", "both")


def pairs_for_llm(config: Config, pairs: list[dict]) -> list[dict]:
    """The pairs the LLM verifier is asked about: all of them when it decides alone, those the agreement
    passes when both must pass, none when the agreement decides alone (the LLM's score would decide nothing)."""
    cfg = config.label
    if cfg.verifier == "llm":
        return pairs
    if cfg.verifier == "both":
        return [p for p in pairs if p["agreement_score"] >= cfg.min_agreement_score]
    return []


def verify_requests(config: Config, pairs: list[dict]) -> list:
    """One LLM verification request per pair, in pair order."""
    prompt = load_verify_prompt(config.label.verify_prompt)
    return build_verify_requests(pairs, prompt, config.llm.model, config.label.max_tokens, config.seed)


def deciding_scores(config: Config) -> list[dict]:
    """Which score decides a label, from which model, at which threshold (the card's verifier line)."""
    cfg = config.label
    agreement = {"verifier": "embedding", "score": "agreement_score", "model": cfg.agreement_embedder,
                 "min_score": cfg.min_agreement_score}  # fmt: skip
    llm = {"verifier": "llm", "score": "llm_score", "model": config.llm.model, "min_score": cfg.min_verifier_score,
           "prompt": cfg.verify_prompt}  # fmt: skip
    return {"embedding": [agreement], "llm": [llm], "both": [agreement, llm]}[cfg.verifier]


def verified(config: Config, agreement: float | None, llm: float | None, verifier: str | None = None) -> bool:
    """Whether a pair with these scores is labelled 1 by ``verifier`` (default: ``label.verifier``)."""
    cfg = config.label
    verifier = verifier or cfg.verifier
    agree_ok = agreement is not None and agreement >= cfg.min_agreement_score
    llm_ok = llm is not None and llm >= cfg.min_verifier_score
    return {"embedding": agree_ok, "llm": llm_ok, "both": agree_ok and llm_ok}[verifier]


@dataclass
class Verdicts:
    """Each candidate pair's LLM score and drop reason (None where the LLM was not asked), and its label."""

    llm_scores: list
    llm_reasons: list
    labels: list[int]
    by_key: dict  # (query_id, tool_id) of every asked pair, Real, gold and workflows -> (score, reason)
    llm_stats: dict

    def llm_scores_of(self, pairs: list[dict]) -> list:
        """The LLM's score of each pair (None where it was not asked)."""
        return [self.by_key.get((p["query_id"], p["tool_id"]), (None, None))[0] for p in pairs]


def verdicts(config: Config, pairs: list[dict], asked: list[dict], answers: LLMAnswers, drops: Counter) -> Verdicts:
    """The verdict on each of ``pairs`` from the answers to the ``asked`` pairs; the LLM's drop reasons counted
    into ``drops``."""
    scores, reasons, llm_stats = read_verdicts(config, answers)
    by_key = {(p["query_id"], p["tool_id"]): (sc, r) for p, sc, r in zip(asked, scores, reasons, strict=True)}
    not_asked = "not_sent_agreement_failed" if config.label.verifier == "both" else None
    llm_scores = [by_key.get((p["query_id"], p["tool_id"]), (None, None))[0] for p in pairs]
    llm_reasons = [by_key.get((p["query_id"], p["tool_id"]), (None, not_asked))[1] for p in pairs]
    labels = [int(verified(config, p["agreement_score"], s)) for p, s in zip(pairs, llm_scores, strict=True)]
    drops.update(r for r in llm_reasons if r and r.startswith("verifier_"))
    return Verdicts(llm_scores, llm_reasons, labels, by_key, llm_stats)


def read_verdicts(config: Config, answers: LLMAnswers) -> tuple[list, list, dict]:
    """The LLM verifier's score (or None) and drop reason of each answered pair, with the run's stats."""
    if not answers.responses:
        return [], [], {"requests": 0}
    prompt = load_verify_prompt(config.label.verify_prompt)
    scores, reasons = [], []
    for response in answers.responses:
        score, reason = (None, "verifier_error") if response.error else parse_score(response.text, prompt)
        scores.append(score)
        reasons.append(reason)
    stats = {
        "requests": len(answers.responses),
        "cached": answers.cached,
        "failed": answers.failed,
        "seconds": round(answers.seconds, 2),
        "pairs_per_second": round(answers.sent / answers.seconds, 3) if answers.sent and answers.seconds > 0 else None,
        "prompt_version": prompt.prompt_version,
    }
    return scores, reasons, stats


def score_with_llm(config: Config, pairs: list[dict], phase: str | None = None) -> tuple[list, list, dict]:
    """Ask the LLM verifier about ``pairs`` (cached answers reused): each pair's score and drop reason, the stats."""
    from ecoagent.llm.ask import ask

    return read_verdicts(config, ask(config, verify_requests(config, pairs), phase=phase))
