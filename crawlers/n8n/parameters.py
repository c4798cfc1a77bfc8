"""Node properties turned into the JSON Schema of a tool's parameters."""

from __future__ import annotations

from typing import Any

from crawlers.n8n.catalog import clean_text, is_named_dict
from crawlers.n8n.display import admits

# Property types that are UI decoration, fixed internal values or credential pickers: never a call input.
_UI_ONLY_PARAM_TYPES = {
    "notice",
    "callout",
    "button",
    "curlImport",
    "hidden",
    "icon",
    "credentials",
    "credentialsSelect",
}


def parameters_schema(props: list[dict], selector: dict[str, Any], exclude: set[str]) -> dict[str, Any]:
    """JSON Schema object of the properties shown for ``selector``, less ``exclude`` and UI-only ones."""
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    required: list[str] = []
    for prop in props:
        name = prop["name"]
        if name in exclude or prop.get("type") in _UI_ONLY_PARAM_TYPES or name in schema["properties"]:
            continue
        if not admits(prop.get("displayOptions"), selector):
            continue
        schema["properties"][name] = _property_schema(prop, depth=0)
        if prop.get("required") is True:
            required.append(name)
    if required:
        schema["required"] = required
    return schema


def is_literal(value: Any) -> bool:
    """A fixed value, not an n8n expression (``=...``) or an empty string."""
    if isinstance(value, str):
        return bool(value) and not value.startswith("=")
    return isinstance(value, bool | int | float)


def _property_schema(prop: dict, depth: int) -> dict[str, Any]:
    kind = prop.get("type")
    schema: dict[str, Any] = {}
    if kind in ("string", "color", "resourceLocator", "workflowSelector"):
        schema["type"] = "string"
    elif kind == "number":
        schema["type"] = "number"
    elif kind == "boolean":
        schema["type"] = "boolean"
    elif kind == "dateTime":
        schema.update(type="string", format="date-time")
    elif kind == "json":
        schema.update(type="string", contentMediaType="application/json")
    elif kind == "options":
        schema.update(_enum_schema(prop))
    elif kind == "multiOptions":
        schema.update(type="array", items=_enum_schema(prop))
    elif kind == "collection":
        children = [p for p in prop.get("options") or [] if is_named_dict(p)]
        schema.update(type="object", properties=_children(children, depth))
    elif kind == "fixedCollection":
        groups: dict[str, Any] = {}
        for group in prop.get("options") or []:
            if not is_named_dict(group):
                continue
            values = [p for p in group.get("values") or [] if is_named_dict(p)]
            group_schema: dict[str, Any] = {"type": "object", "properties": _children(values, depth)}
            if clean_text(group.get("displayName")):
                group_schema["title"] = clean_text(group.get("displayName"))
            groups[group["name"]] = group_schema
        schema.update(type="object", properties=groups)
    elif kind in ("resourceMapper", "assignmentCollection", "filter"):
        schema["type"] = "object"
    type_options = prop.get("typeOptions") if isinstance(prop.get("typeOptions"), dict) else {}
    if type_options.get("multipleValues") and kind not in ("multiOptions",):
        schema = {"type": "array", "items": schema}
    if clean_text(prop.get("displayName")):
        schema["title"] = clean_text(prop.get("displayName"))
    if clean_text(prop.get("description")):
        schema["description"] = clean_text(prop.get("description"))
    default = prop.get("default")
    if is_literal(default) or (isinstance(default, list) and default and all(is_literal(v) for v in default)):
        schema["default"] = default
    schema["x-n8n-type"] = kind
    return schema


def _children(children: list[dict], depth: int) -> dict[str, Any]:
    if depth >= 4:  # deep fixedCollections are rare; the top levels carry what retrieval needs
        return {}
    out: dict[str, Any] = {}
    for child in children:
        if child.get("type") in _UI_ONLY_PARAM_TYPES or child["name"] in out:
            continue
        out[child["name"]] = _property_schema(child, depth + 1)
    return out


def _enum_schema(prop: dict) -> dict[str, Any]:
    values = [o["value"] for o in prop.get("options") or [] if isinstance(o, dict) and "value" in o]
    values = [v for v in values if isinstance(v, str | int | float | bool)]
    type_options = prop.get("typeOptions") if isinstance(prop.get("typeOptions"), dict) else {}
    if not values or type_options.get("loadOptionsMethod") or type_options.get("loadOptions"):
        # Choices loaded from the service at run time: only the type is known statically.
        return {"type": "string"}
    if all(isinstance(v, bool) for v in values):
        kind = "boolean"
    elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        kind = "number"
    elif all(isinstance(v, str) for v in values):
        kind = "string"
    else:
        return {"enum": values}
    return {"type": kind, "enum": values}
