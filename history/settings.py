"""The history step's settings: the ``history`` section of the config."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ecoagent.config import Section

Month = Annotated[str, Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")]  # YYYY-MM


class HistoryConfig(Section):
    since: Month = "2025-02"  # the first month: the paper's Figure 1 starts in February 2025
    until: Month | None = None  # the last month; null: the newest complete month
    fresh: bool = False  # crawl and score every month again, even one whose versions its folder already holds
    # does r_static predict failure (history.failure): an event within this many months of a month labels its tools
    failure_months_ahead: int = Field(6, ge=1)
    failure_resamples: int = Field(1000, ge=1)  # bootstrap resamples (of tools) per AUC and AP interval
