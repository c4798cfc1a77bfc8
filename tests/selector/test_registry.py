import numpy as np
import pytest

from selector.registry import ToolRegistry, UnknownTenant, UnknownTool
from selector.scopes import UnknownScope
from tests.selector.conftest import CORE, TOOLS, tools_frame


def test_registry_keeps_the_given_order_and_core_tools(registry):
    assert registry.ids == [t[0] for t in TOOLS]
    assert [registry.ids[r] for r in registry.core_rows] == list(CORE)
    reordered = list(reversed(registry.ids))
    assert ToolRegistry.from_frame(tools_frame(), order=reordered).ids == reordered


def test_unknown_core_tool_or_tenant_tool_is_an_error():
    with pytest.raises(UnknownTool):
        ToolRegistry.from_frame(tools_frame(), core_tools=["nope:tool"])
    with pytest.raises(UnknownTool):
        ToolRegistry.from_frame(tools_frame(), tenants={"t": ["nope:tool"]})


def _allowed_ids(registry, scopes, tenant=None):
    return {registry.ids[r] for r in np.flatnonzero(registry.allowed(scopes, tenant))}


def test_scope_patterns(registry):
    public = {"core:search_help", "core:ask_user"}
    assert _allowed_ids(registry, []) == public
    assert _allowed_ids(registry, ["slack.write"]) == public | {"slack:post_message"}
    assert _allowed_ids(registry, ["slack.*"]) == public | {t[0] for t in TOOLS if t[0].startswith("slack:")}
    assert _allowed_ids(registry, ["*.delete"]) == public | {"slack:delete_message", "files:delete_file"}
    assert _allowed_ids(registry, ["google.calendar.*"]) == public | {"calendar:create_event", "calendar:list_events"}
    assert _allowed_ids(registry, ["*"]) == set(registry.ids)


def test_unknown_scopes_raise_and_name_the_culprits(registry):
    for bad in (["slack.writ"], ["nosuch.*"], ["*.frobnicate"], ["slack"], [""]):
        with pytest.raises(UnknownScope) as info:
            registry.allowed(["slack.write", *bad])
        assert info.value.scopes == bad


def test_tenants_restrict_the_allowed_tools(registry):
    assert not any(t.startswith("github:") for t in _allowed_ids(registry, ["*"], "acme"))
    globex = {t[0] for t in TOOLS if t[0].startswith(("core:", "github:", "slack:"))}
    assert _allowed_ids(registry, ["*"], "globex") == globex
    with pytest.raises(UnknownTenant):
        registry.allowed(["*"], "initech")


def test_definition_is_an_openai_function(registry):
    definition = registry.tool("slack:post_message").definition()
    assert definition["function"]["name"] == "slack_post_message"
    assert definition["function"]["parameters"]["type"] == "object"
    assert definition["x-tool_id"] == "slack:post_message"
