"""The JSON Schema files checked in beside the models, one per record type."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from schemas.scored_tool import ScoredToolRecord
from schemas.tool_event import ToolEvent
from schemas.tool_record import ToolRecord

HERE = Path(__file__).parent
JSON_SCHEMA_FILES: dict[type[BaseModel], Path] = {
    ToolRecord: HERE / "tool_record.schema.json",
    ScoredToolRecord: HERE / "scored_tool.schema.json",
    ToolEvent: HERE / "tool_event.schema.json",
}


def write_json_schemas() -> None:
    for model, path in JSON_SCHEMA_FILES.items():
        path.write_text(json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n")
