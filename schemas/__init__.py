"""Data contracts shared by every stage.

Regenerate the checked-in JSON Schema files with ``python -m schemas``.
"""

from schemas.scored_tool import Flaw, ScoredToolRecord
from schemas.tool_event import ToolEvent
from schemas.tool_record import (
    Link,
    ToolRecord,
    polars_schema,
    records_to_frame,
    tool_record_json_schema,
    tool_record_polars_schema,
)

__all__ = [
    "Flaw",
    "Link",
    "ScoredToolRecord",
    "ToolEvent",
    "ToolRecord",
    "polars_schema",
    "records_to_frame",
    "tool_record_json_schema",
    "tool_record_polars_schema",
]
