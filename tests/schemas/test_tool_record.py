import json

import polars as pl

from schemas.json_files import JSON_SCHEMA_FILES
from schemas.tool_record import (
    Link,
    ToolRecord,
    records_to_frame,
    tool_record_json_schema,
    tool_record_polars_schema,
)


def _record(**overrides) -> ToolRecord:
    fields = dict(
        tool_id="mcp:@modelcontextprotocol/server-slack:slack_post_message",
        platform="mcp", listing="official", package="@modelcontextprotocol/server-slack",
        package_version="1.0.0", source_path="dist/index.js", source_symbol="slack_post_message",
        service="slack", name="slack_post_message", display_name="Post message", description="Post a message",
        parameters='{"properties": {}, "type": "object"}', required_parameters=[], auth_type="api_key",
        auth_env_vars=["SLACK_BOT_TOKEN"], auth_env_vars_declared=[], auth_env_vars_read=["SLACK_BOT_TOKEN"],
        auth_credentials=[], endpoints=["https://slack.com/api"], http_methods=["POST"],
        doc_urls=[], links=[Link(url="https://slack.com/api", kind="endpoint")], categories=[],
        package_dependencies=[], deprecated=False, replacement=None, runtime_only=False, usable_as_tool=None,
        flags=[], duplicate_group=None, content_hash="0" * 64,
    )  # fmt: skip
    fields.update(overrides)
    return ToolRecord(**fields)


def test_checked_in_json_schemas_match_the_models():
    # regenerate with: python -m schemas
    for model, path in JSON_SCHEMA_FILES.items():
        assert json.loads(path.read_text()) == model.model_json_schema(), path.name
    assert json.loads(JSON_SCHEMA_FILES[ToolRecord].read_text()) == tool_record_json_schema()


def test_polars_schema_has_every_model_field_in_order():
    schema = tool_record_polars_schema()
    assert list(schema) == list(ToolRecord.model_fields)
    assert schema["auth_env_vars"] == pl.List(pl.String)
    assert schema["deprecated"] == pl.Boolean
    assert schema["links"] == pl.List(
        pl.Struct({"url": pl.String, "kind": pl.String, "link_status": pl.String, "reason": pl.String})
    )


def test_frame_round_trips_to_records():
    rec = _record()
    frame = records_to_frame([rec])
    assert frame.schema == tool_record_polars_schema()
    back = ToolRecord(**frame.row(0, named=True))
    assert back == rec


def test_enums_are_enforced():
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        _record(platform="zapier")
    with pytest.raises(ValidationError):
        _record(auth_type="magic")


def test_unknown_fields_are_counted_and_a_missing_field_passed_off_as_known_is_found():
    from schemas.unknown_fields import unknown_counts_text, unknown_field_counts, unknown_passed_as_known

    copy = {"auth_type": None, "auth_credentials": [], "parameters": '{"properties": {}, "type": "object"}',
            "flags": ["description_from_listing"], "unknown_fields": ["auth_type", "parameters"]}  # fmt: skip
    rows = [
        copy,  # unknown, said so
        {**copy, "auth_type": "none", "unknown_fields": ["parameters"]},  # "no auth" where the copy cannot tell
        {**copy, "unknown_fields": ["auth_type"]},  # an empty schema from the copy, presented as known
        {**copy, "flags": [], "unknown_fields": []},  # a null auth with no account of it
        {**copy, "auth_type": "api_key", "flags": []},  # a value where the field is named unknown
        {**copy, "auth_type": "none", "flags": [], "unknown_fields": []},  # an archive's tool: "none" is known
    ]
    assert unknown_passed_as_known(pl.DataFrame(rows)) == 4
    assert unknown_passed_as_known(pl.DataFrame(rows).drop("auth_type")) == 1  # only the schema row is judged
    counts = unknown_field_counts(row["unknown_fields"] for row in rows)
    assert counts == {"tools_with_any": 4, "auth_type": 3, "parameters": 3, "doc_urls": 0, "endpoints": 0,
                      "http_methods": 0, "categories": 0}  # fmt: skip
    assert unknown_counts_text(counts) == "4 (auth_type=3, parameters=3)" and unknown_counts_text({}) == "-"
    record = _record(auth_type=None, unknown_fields=["auth_type"], listing_npm_downloads=12)
    assert ToolRecord(**records_to_frame([record]).row(0, named=True)) == record  # null auth round-trips
