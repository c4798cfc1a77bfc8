"""The scored catalog: a ToolRecord plus reliability, flaws, side-effect tier, permission and cost.

One row of ``tools_scored.parquet``, written by the score stage (``scoring/``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.tool_record import ToolRecord

SideEffect = Literal["read_only", "reversible", "compensable", "irreversible", "external_side_effect", "unknown"]
SIDE_EFFECTS: tuple[str, ...] = SideEffect.__args__


class Flaw(BaseModel):
    """A structural problem of a tool's metadata (the paper's "broken links, missing authentication")."""

    model_config = ConfigDict(extra="forbid")

    flaw: str = Field(description="stable code, e.g. missing_description, undeclared_env_var")
    severity: Literal["critical", "warning"]
    reason: str = Field(description="what was found, for a person to check")


class ScoredToolRecord(ToolRecord):
    doc_summary: str | None = Field(None, description="title and first paragraph of the doc page, when fetched")
    r_cons: float = Field(description="cosine of the name and description embeddings, clipped to [0, 1]")
    w_src: float = Field(description="source credibility weight of the listing / platform")
    r_qual: float = Field(description="logistic(0.6 z_desc + 0.4 z_tag)")
    r_static: float = Field(description="l1 r_cons + l2 w_src + l3 r_qual (the paper's eq. 5)")
    reliable: bool = Field(description="r_static >= the configured threshold (0.8)")
    flaws: list[Flaw]
    critical_flaw: bool
    side_effect: SideEffect
    side_effect_rule: str = Field(description="the rule that decided side_effect")
    inverse_tool_id: str | None = Field(None, description="a tool of the same node/toolkit that undoes this one")
    permission_scope: str = Field(description="scope a caller must hold, e.g. slack.write")
    prompt_tokens: int = Field(description="tokens of the tool definition in a prompt, by a real tokenizer")
