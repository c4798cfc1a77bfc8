"""A tiny mirror with one package per platform, in the real packages' shapes.

``build_fixture_mirror(folder)`` writes the archives and a ``sources.yaml`` naming them; a crawl
pointed at it (``pip_extra_args=--no-index --find-links``, ``npm_mirror_dir``) runs the real pip
and npm clients without the network. Used by the crawl tests and, later, the fixture DAG profile.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.package_builders import build_npm_tgz, build_wheel

LANGCHAIN_TOOL = '''
import os
from typing import Optional, Type

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from langchain_fixture.prompt import WEATHER_PROMPT


class WeatherInput(BaseModel):
    city: str = Field(description="Name of the city")
    units: Optional[str] = Field(default="metric", description="metric or imperial")


class WeatherTool(BaseTool):
    """Look up the weather."""

    name: str = "weather_lookup"
    description: str = WEATHER_PROMPT
    args_schema: Type[BaseModel] = WeatherInput

    def _run(self, city: str, units: str = "metric", run_manager=None) -> str:
        key = os.environ["WEATHER_API_KEY"]
        return f"https://api.weather-fixture.io/v1/current?q={city}&key={key}"
'''

LANGCHAIN_PROMPT = """WEATHER_PROMPT = (
    "Look up the current weather for a city. "
    "Input is the city name."
)
"""

CREWAI_TOOL = """
from typing import Type

from crewai.tools import BaseTool, EnvVar
from pydantic import BaseModel, Field


class SerperFixtureSchema(BaseModel):
    search_query: str = Field(..., description="Mandatory search query you want to use to search the internet")


class SerperFixtureTool(BaseTool):
    name: str = "Search the internet with Serper fixture"
    description: str = "A tool that can be used to search the internet with a search_query."
    args_schema: Type[BaseModel] = SerperFixtureSchema
    base_url: str = "https://google.serper.dev"
    package_dependencies: list[str] = ["requests"]
    env_vars: list[EnvVar] = [
        EnvVar(name="SERPER_API_KEY", description="API key for Serper", required=True),
    ]

    def _run(self, search_query: str) -> str:
        return search_query
"""

LLAMAINDEX_SPEC = '''
from llama_index.core.tools.tool_spec.base import BaseToolSpec


class NotesToolSpec(BaseToolSpec):
    """Notes tool spec."""

    spec_functions = ["search_notes", ("create_note", "acreate_note")]

    def __init__(self, api_token: str) -> None:
        self.api_token = api_token

    def search_notes(self, query: str, limit: int = 10) -> list:
        """Search the user's notes for a keyword.

        Args:
            query (str): The keyword to search for.
            limit (int): How many notes to return at most.
        """
        return []

    def create_note(self, title: str, body: str) -> str:
        """Create a new note with a title and a body.

        Args:
            title (str): The title of the note.
            body (str): The text of the note.
        """
        return title

    async def acreate_note(self, title: str, body: str) -> str:
        return title
'''

N8N_NODES = [
    {
        "displayName": "Fixture Chat",
        "name": "n8n-nodes-fixture.fixtureChat",
        "group": ["output"],
        "version": [1, 2],
        "defaultVersion": 2,
        "description": "Consume the Fixture Chat API",
        "usableAsTool": True,
        "credentials": [{"name": "fixtureChatApi", "required": True}],
        "codex": {
            "categories": ["Communication"],
            "resources": {"primaryDocumentation": [{"url": "https://docs.fixture-chat.io/node/"}]},
        },
        "properties": [
            {
                "displayName": "Resource",
                "name": "resource",
                "type": "options",
                "noDataExpression": True,
                "options": [{"name": "Message", "value": "message"}, {"name": "Channel", "value": "channel"}],
                "default": "message",
            },
            {
                "displayName": "Operation",
                "name": "operation",
                "type": "options",
                "noDataExpression": True,
                "displayOptions": {"show": {"resource": ["message"]}},
                "options": [
                    {"name": "Send", "value": "post", "action": "Send a message"},
                    {"name": "Delete", "value": "delete", "action": "Delete a message"},
                ],
                "default": "post",
            },
            {
                "displayName": "Operation",
                "name": "operation",
                "type": "options",
                "noDataExpression": True,
                "displayOptions": {"show": {"resource": ["channel"]}},
                "options": [{"name": "Archive", "value": "archive", "action": "Archive a channel"}],
                "default": "archive",
            },
            {
                "displayName": "Channel",
                "name": "channelId",
                "type": "string",
                "required": True,
                "default": "",
                "description": "The channel to send to",
                "displayOptions": {"show": {"resource": ["message"], "operation": ["post"]}},
            },
            {
                "displayName": "Text",
                "name": "text",
                "type": "string",
                "required": True,
                "default": "",
                "displayOptions": {"show": {"resource": ["message"], "operation": ["post"]}},
            },
        ],
    },
    {
        "displayName": "Fixture Chat Trigger",
        "name": "n8n-nodes-fixture.fixtureChatTrigger",
        "group": ["trigger"],
        "version": 1,
        "description": "Starts the workflow on new messages",
        "properties": [],
    },
]

N8N_CREDENTIALS = [
    {"name": "fixtureChatApi", "displayName": "Fixture Chat API", "documentationUrl": "fixturechat",
     "properties": [{"displayName": "Access Token", "name": "accessToken", "type": "string",
                     "typeOptions": {"password": True}, "default": ""}],
     "test": {"request": {"baseURL": "https://api.fixture-chat.io"}}},
]  # fmt: skip

MCP_INDEX = """#!/usr/bin/env node
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
const NOTES_TOOL = {
    name: "fixture_search_notes",
    description: "Search the notes store. " +
        "Returns matching notes.",
    inputSchema: {
        type: "object",
        properties: { query: { type: "string", description: "Search terms" } },
        required: ["query"],
    },
};
const token = process.env.FIXTURE_NOTES_TOKEN;
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [NOTES_TOOL] }));
"""


def build_fixture_mirror(folder: Path) -> Path:
    """Write one fixture package per platform into ``folder``; return the sources.yaml path."""
    folder.mkdir(parents=True, exist_ok=True)
    build_wheel(folder, "langchain-fixture", "0.1.0", {
        "langchain_fixture/__init__.py": "",
        "langchain_fixture/prompt.py": LANGCHAIN_PROMPT,
        "langchain_fixture/tools/weather/tool.py": LANGCHAIN_TOOL,
    })  # fmt: skip
    build_wheel(folder, "crewai-tools-fixture", "0.1.0", {
        "crewai_tools/__init__.py": "",
        "crewai_tools/tools/serper_fixture_tool/serper_fixture_tool.py": CREWAI_TOOL,
        "crewai_tools/tools/serper_fixture_tool/README.md": "# Serper\nSearch with Serper.\n",
    })  # fmt: skip
    build_wheel(folder, "llama-index-tools-notes", "0.1.0", {
        "llama_index/tools/notes/__init__.py": "from llama_index.tools.notes.base import NotesToolSpec\n",
        "llama_index/tools/notes/base.py": LLAMAINDEX_SPEC,
    })  # fmt: skip
    build_npm_tgz(folder, "n8n-nodes-fixture", "1.0.0", {
        "dist/types/nodes.json": json.dumps(N8N_NODES),
        "dist/types/credentials.json": json.dumps(N8N_CREDENTIALS),
        "dist/known/nodes.json": json.dumps({"fixtureChat": {"className": "FixtureChat",
                                              "sourcePath": "dist/nodes/FixtureChat/FixtureChat.node.js"}}),
    }, package_json={"n8n": {"nodes": ["dist/nodes/FixtureChat/FixtureChat.node.js"]}})  # fmt: skip
    build_npm_tgz(folder, "@modelcontextprotocol/server-fixture", "0.1.0", {"dist/index.js": MCP_INDEX})
    sources = folder / "sources.yaml"
    sources.write_text(
        "sources:\n"
        '  - {platform: langchain, registry: pypi, name: "langchain-fixture", version: "0.1.0", listing: platform}\n'
        '  - {platform: crewai, registry: pypi, name: "crewai-tools-fixture", version: "0.1.0", listing: platform}\n'
        '  - {platform: llamaindex, registry: pypi, name: "llama-index-tools-notes", version: "0.1.0", '
        "listing: platform}\n"
        '  - {platform: n8n, registry: npm, name: "n8n-nodes-fixture", version: "1.0.0", listing: community}\n'
        '  - {platform: mcp, registry: npm, name: "@modelcontextprotocol/server-fixture", version: "0.1.0", '
        "listing: official}\n"
    )
    return sources


def fixture_overrides(mirror: Path, cache: Path) -> list[str]:
    """Config overrides that point a crawl at the fixture mirror instead of the registries."""
    return [
        f"crawl.pip_extra_args=['--no-index', '--find-links', '{mirror}']",
        f"crawl.npm_mirror_dir={mirror}",
        f"crawl.cache_dir={cache}",
        "crawl.workers=1",
        "crawl.max_package_error_share=1.0",
    ]
