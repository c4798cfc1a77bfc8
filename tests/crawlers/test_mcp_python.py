"""Offline tests for the MCP reader of PyPI server wheels (tiny wheels built here; nothing is imported)."""

from __future__ import annotations

from pathlib import Path

from crawlers import mcp
from ecoagent.packages.archive import read_archive
from tests.package_builders import build_wheel, package_files

# FastMCP: decorated module-level functions, name= / description= / docstring, a Context parameter
FASTMCP_SERVER = '''
from typing import Annotated, Literal
from mcp.server.fastmcp import Context, FastMCP
from pydantic import Field

mcp = FastMCP("notes")
DESCRIPTION = "Delete a note " + "by its id."

@mcp.tool()
def search_notes(query: str, limit: int = 10, ctx: Context = None) -> list:
    """Search the notes store.

    Args:
        query: Words to look for.
        limit: At most this many notes.
    """
    return []

@mcp.tool(name="remove_note", description=DESCRIPTION)
async def delete(note_id: Annotated[str, Field(description="The note's id")]) -> str:
    return note_id

@mcp.tool
def set_mode(mode: Literal["fast", "slow"]) -> str:
    """Switch the mode."""
    return mode

@mcp.tool()
def search_notes(query: str) -> list:
    """A second registration of the same name: the first one counts."""
    return []

@server.list_tools()
async def not_a_tool() -> list:
    return []
'''

# the SDK's low-level server: Tool objects named by a str enum, schemas as literals or pydantic models
LOWLEVEL_SERVER = '''
import os
from enum import Enum
from mcp.types import Tool
from pydantic import BaseModel, Field
from mcp import types

API_KEY = os.environ.get("WEATHER_API_KEY")
BASE_URL = "https://api.weather.example.org/v1"

class ToolName(str, Enum):
    FORECAST = "get_forecast"
    ALERTS = "get_alerts"

class AlertsInput(BaseModel):
    region: str = Field(description="Region code")
    severe_only: bool = False

def serve():
    @server.list_tools()
    async def list_tools() -> list[Tool]:
        return [
            Tool(
                name=ToolName.FORECAST.value,
                description="Forecast for a city.",
                inputSchema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            ),
            types.Tool(
                name=ToolName.ALERTS, description="Weather alerts.", inputSchema=AlertsInput.model_json_schema()
            ),
            Tool(name=some_runtime_name(), description="built at run time", inputSchema={}),
        ]
'''

# a tool class whose Tool(...) reads the class's own attributes
CLASS_TOOL = '''
from mcp.types import Tool

class EditHandler:
    name = "edit_text_file"
    description = "Edit a text file by line ranges."

    def get_tool_description(self) -> Tool:
        return Tool(name=self.name, description=self.description,
                    inputSchema={"type": "object", "properties": {"path": {"type": "string"}}})
'''

# a package's own registering decorator (wikipedia-mcp's shape) in a 3.12-only module (PEP 695 alias)
REGISTRAR_SERVER = '''
type Limit = int

def create_server(server):
    def register_tool(name, output_schema):
        def decorator(func):
            server.tool(func, name=name, output_schema=output_schema)
            return func
        return decorator

    @register_tool("search_wikipedia", {})
    def search_wikipedia(query: str, limit: Limit = 10):
        """Search Wikipedia for articles."""
        return []
'''

TEST_MODULE = '''
@mcp.tool()
def mock_tool() -> str:
    """Registered by a test: not the server's."""
'''

METADATA = (
    "Summary: Notes and weather over MCP\n"
    "Keywords: mcp,notes\n"
    "Project-URL: Documentation, https://docs.notes-mcp.example.net/\n"
    "Requires-Dist: mcp>=1.9\n"
    "Requires-Dist: pytest; extra == 'test'\n"
    "\n"
    'Configure: {"env": {"NOTES_TOKEN": "..."}}\n'
)


def _wheel(files: dict[str, str], name: str = "notes-mcp-server", metadata: str = METADATA):
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n{metadata}"
    return package_files(name, "0.1.0", "pypi", {**files, "notes_mcp/x.dist-info/METADATA": meta})


def _tools(files: dict[str, str], **kwargs) -> dict:
    return {t.name: t for t in mcp.extract(_wheel(files, **kwargs)).tools}


def test_fastmcp_decorated_functions() -> None:
    result = mcp.extract(_wheel({"notes_mcp/server.py": FASTMCP_SERVER}))
    tools = {t.name: t for t in result.tools}
    assert set(tools) == {"search_notes", "remove_note", "set_mode"}
    search = tools["search_notes"]
    assert search.description.startswith("Search the notes store.")
    assert search.parameters["required"] == ["query"]
    assert set(search.parameters["properties"]) == {"query", "limit"}  # ctx: Context is the framework's
    assert search.parameters["properties"]["limit"]["default"] == 10
    assert search.parameters["properties"]["query"]["description"] == "Words to look for."
    assert tools["remove_note"].description == "Delete a note by its id."
    assert tools["remove_note"].parameters["properties"]["note_id"]["description"] == "The note's id"
    assert tools["set_mode"].parameters["properties"]["mode"]["enum"] == ["fast", "slow"]
    assert result.skipped["duplicate_name"] == 1
    assert search.source_path == "notes_mcp/server.py"
    assert search.service == "notes"  # "notes-mcp-server" without the MCP affixes
    assert search.categories == ["mcp", "notes"]
    assert search.doc_urls == ["https://docs.notes-mcp.example.net/"]
    assert search.package_dependencies == ["mcp"]
    assert search.env_vars_declared == ["NOTES_TOKEN"]


def test_low_level_tool_objects_with_enum_names_and_model_schemas() -> None:
    result = mcp.extract(_wheel({"notes_mcp/server.py": LOWLEVEL_SERVER}))
    tools = {t.name: t for t in result.tools}
    assert set(tools) == {"get_forecast", "get_alerts"}
    assert result.skipped["unresolved_name"] == 1
    assert tools["get_forecast"].parameters["required"] == ["city"]
    alerts = tools["get_alerts"].parameters
    assert alerts["required"] == ["region"] and alerts["properties"]["region"]["description"] == "Region code"
    assert "enum_member" in tools["get_alerts"].flags
    # package-wide: the credential the code reads, the URL-named constant
    assert tools["get_forecast"].env_vars_read == ["WEATHER_API_KEY"]
    assert tools["get_forecast"].auth_type == "api_key"
    assert tools["get_alerts"].endpoints == ["https://api.weather.example.org/v1"]


def test_tool_built_from_class_attributes() -> None:
    tools = _tools({"notes_mcp/handlers.py": CLASS_TOOL})
    assert set(tools) == {"edit_text_file"}
    assert tools["edit_text_file"].description == "Edit a text file by line ranges."
    assert "class_attribute" in tools["edit_text_file"].flags


def test_own_registering_decorator_in_a_python_312_module() -> None:
    tools = _tools({"notes_mcp/server.py": REGISTRAR_SERVER})
    assert set(tools) == {"search_wikipedia"}
    assert tools["search_wikipedia"].description == "Search Wikipedia for articles."
    assert tools["search_wikipedia"].parameters["properties"]["limit"]["default"] == 10


def test_test_modules_and_dot_slash_members() -> None:
    tools = _tools({"tests/test_server.py": TEST_MODULE, "./notes_mcp/server.py": FASTMCP_SERVER})
    assert "mock_tool" not in tools
    assert "search_notes" in tools  # "./notes_mcp/server.py" is read like "notes_mcp/server.py"


def test_an_unparsable_module_is_an_error_only_where_tools_may_be() -> None:
    broken_tools = "@mcp.tool()\ndef broken(:\n    pass\n"
    result = mcp.extract(
        _wheel({"notes_mcp/server.py": FASTMCP_SERVER, "notes_mcp/a.py": broken_tools, "notes_mcp/b.py": "x = ("})
    )
    assert [p for p, _ in result.errors] == ["notes_mcp/a.py"]
    assert result.skipped["unparsable_module_without_tools"] == 1
    assert "search_notes" in {t.name for t in result.tools}


def test_inactive_wheel_is_deprecated() -> None:
    meta = "Summary: DEPRECATED, use notes-mcp-v2 instead\nClassifier: Development Status :: 7 - Inactive\n"
    tools = _tools({"notes_mcp/server.py": FASTMCP_SERVER}, metadata=meta)
    assert all(t.deprecated and "registry_deprecated" in t.flags for t in tools.values())
    assert tools["search_notes"].replacement == "notes-mcp-v2"


def test_the_archive_kind_picks_the_reader(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path, "notes-mcp-server", "0.1.0", {"notes_mcp/server.py": FASTMCP_SERVER})
    contents = read_archive(wheel, mcp.want)
    assert "notes_mcp/server.py" in contents.files
    package = package_files("notes-mcp-server", "0.1.0", "pypi", contents.files)
    assert {t.name for t in mcp.extract(package).tools} == {"search_notes", "remove_note", "set_mode"}
    # the same Python bytes in an npm tarball are not read as a server: npm packages are JavaScript
    assert mcp.extract(package_files("notes", "0.1.0", "npm", contents.files)).tools == []
