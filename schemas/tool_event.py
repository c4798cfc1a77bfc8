"""The ToolEvent contract: one row of the history step's ``tool_events.parquet`` and of the release's
``tool-events`` config, and the ``status`` the release gives each catalog tool from them.

Written by the history step (``history/events.py``), read by the release build: both stages use this contract,
so neither imports the other.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.tool_record import Platform

Event = Literal["removed", "renamed", "restored", "deprecated", "package_deprecated", "description_changed"]
EVENTS: tuple[str, ...] = Event.__args__
GONE_EVENTS = ("removed", "renamed")  # the tool id left the catalog
RESTORED = "restored"  # a gone tool id is back
# a catalog tool's status (the release's tools.status): active, deprecated, or removed since <YYYY-MM>
ACTIVE, DEPRECATED, REMOVED_SINCE = "active", "deprecated", "removed since"
STATUS_PATTERN = r"^(?:active|deprecated|removed since \d{4}-(?:0[1-9]|1[0-2]))$"


class ToolEvent(BaseModel):
    """One thing that happened to one tool between two months of the catalog's history."""

    model_config = ConfigDict(extra="forbid")

    tool_id: str
    platform: Platform
    package: str
    event: Event
    month: str = Field(description="YYYY-MM: the first month whose catalog shows the change")
    last_seen: str | None = Field(None, description="removed, renamed: the last month whose catalog held the tool id")
    evidence: str = Field(description="package@version and the flag, message or match that shows the event")
    new_tool_id: str | None = Field(None, description="renamed: the tool id that took its place")
