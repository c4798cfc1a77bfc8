"""Data contracts shared by every stage."""

from schemas.tool_record import (
    Link,
    ToolRecord,
    records_to_frame,
    tool_record_json_schema,
    tool_record_polars_schema,
)

__all__ = ["Link", "ToolRecord", "records_to_frame", "tool_record_json_schema", "tool_record_polars_schema"]
