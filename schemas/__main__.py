"""Regenerate the checked-in JSON Schema files: ``python -m schemas``."""

from schemas.json_files import write_json_schemas

write_json_schemas()
