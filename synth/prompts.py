"""Versioned prompt templates (``synth/prompts/<name>_v<N>.yaml``), chosen per model kind.

A template declares its ``kind`` (``chat`` or ``completion``), the model kinds it is meant for
(``instruct`` or ``base``), stop sequences and extra sampling settings. Tool text is inserted as
data: flattened to one line, trimmed, and stripped of anything that could close the data block or
start a new few-shot entry (:func:`ecoagent.llm.prompt_data.as_data`, shared with the verifier's prompt), so a
description cannot turn itself into instructions.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ecoagent.llm.prompt_data import as_data

PROMPT_DIR = Path(__file__).parent / "prompts"
DEFAULT_BY_MODEL_KIND = {"base": "fewshot_completion_v1", "instruct": "paper_instruction_v1"}
MAX_DESCRIPTION_CHARS = 600



@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: int
    kind: str
    model_kinds: tuple[str, ...]
    stop: tuple[str, ...] = ()
    sampling: dict[str, Any] = field(default_factory=dict)
    system: str | None = None
    user: str | None = None
    prompt: str | None = None

    @property
    def prompt_version(self) -> str:
        return f"{self.name}_v{self.version}"

    def render(self, tool_name: str, tool_description: str, num_queries: int) -> dict:
        """``{"prompt": str, "shared_prefix": int}`` for completion templates (the prompt's leading characters that
        every tool's prompt shares), ``{"messages": (...)}`` for chat ones."""
        values = {
            "tool_name": as_data(tool_name, 120),
            "tool_description": as_data(tool_description, MAX_DESCRIPTION_CHARS),
            "num_queries": num_queries,
        }
        if self.kind == "completion":
            prompt = self.prompt.format(**values).rstrip("\n") + " "
            return {"prompt": prompt, "shared_prefix": self.shared_prefix_chars(prompt)}
        messages = []
        if self.system:
            messages.append({"role": "system", "content": self.system.strip()})
        messages.append({"role": "user", "content": self.user.format(**values).strip()})
        return {"messages": tuple(messages)}

    def shared_prefix_chars(self, prompt: str) -> int:
        """How many leading characters of a rendered ``prompt`` are the template's own text, cut after its last line
        break before the first placeholder (the few-shot part, the same for every tool); 0 when there is none."""
        fixed = next(string.Formatter().parse(self.prompt or ""), ("", None, None, None))[0]
        fixed = fixed[: fixed.rfind("\n") + 1]
        return len(fixed) if fixed and prompt.startswith(fixed) else 0


def load_template(name: str) -> PromptTemplate:
    path = PROMPT_DIR / f"{name}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in PROMPT_DIR.glob("*.yaml"))
        raise ValueError(f"unknown prompt template {name!r} (setting synth.prompt); known: {known}")
    doc = yaml.safe_load(path.read_text())
    template = PromptTemplate(
        name=doc["name"],
        version=int(doc["version"]),
        kind=doc["kind"],
        model_kinds=tuple(doc["model_kinds"]),
        stop=tuple(doc.get("stop") or ()),
        sampling=dict(doc.get("sampling") or {}),
        system=doc.get("system"),
        user=doc.get("user"),
        prompt=doc.get("prompt"),
    )
    if template.prompt_version != name:
        raise ValueError(f"{path}: name/version {template.prompt_version!r} do not match the file name")
    return template


def template_for(model_kind: str, override: str | None = None) -> PromptTemplate:
    if override:
        return load_template(override)
    if model_kind not in DEFAULT_BY_MODEL_KIND:
        raise ValueError(f"llm.model_kind must be one of {sorted(DEFAULT_BY_MODEL_KIND)}, got {model_kind!r}")
    return load_template(DEFAULT_BY_MODEL_KIND[model_kind])
