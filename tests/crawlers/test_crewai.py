"""CrewAI extractor on a tiny package shaped like crewai-tools."""

from __future__ import annotations

from crawlers import crewai
from tests.package_builders import package_files

FILES = {
    "crewai_tools/__init__.py": "",
    "crewai_tools/tools/__init__.py": "",
    "crewai_tools/tools/serper_dev_tool/serper_dev_tool.py": '''
from crewai.tools import BaseTool, EnvVar
from pydantic import BaseModel, Field
class SerperDevToolSchema(BaseModel):
    """Input for SerperDevTool."""
    search_query: str = Field(..., description="Mandatory search query")
class SerperDevTool(BaseTool):
    name: str = "Search the internet with Serper"
    description: str = (
        "A tool that can be used to search the internet. "
        "Supports 'search' and 'news'"
    )
    args_schema: type[BaseModel] = SerperDevToolSchema
    base_url: str = "https://google.serper.dev"
    package_dependencies: list[str] = Field(default_factory=lambda: ["requests"])
    env_vars: list[EnvVar] = Field(
        default_factory=lambda: [
            EnvVar(name="SERPER_API_KEY", description="API key for Serper", required=True),
        ]
    )
''',
    "crewai_tools/tools/serper_dev_tool/README.md": "# SerperDevTool\nSee https://serper.dev/docs\n",
    "crewai_tools/tools/oxylabs_base_tool/base.py": """
from crewai.tools import BaseTool, EnvVar
from pydantic import Field
class OxylabsBaseTool(BaseTool):
    env_vars: list[EnvVar] = Field(default_factory=lambda: [
        EnvVar(name="OXYLABS_USERNAME", description="user", required=True),
        EnvVar(name="OXYLABS_PASSWORD", description="password", required=True),
    ])
""",
    "crewai_tools/tools/oxylabs_google/tool.py": """
from crewai_tools.tools.oxylabs_base_tool.base import OxylabsBaseTool
class OxylabsGoogleSearchScraperTool(OxylabsBaseTool):
    name: str = "Oxylabs Google Search Scraper tool"
    description: str = "Scrape Google Search results with Oxylabs"
    def _run(self, query: str, **kwargs) -> str:
        return ""
""",
    "crewai_tools/tools/exa_tools/exa_search_tool.py": """
from typing import ClassVar
from crewai.tools import BaseTool
class ExaSearchTool(BaseTool):
    name: str = "EXASearchTool"
    description: str = "Search the internet using Exa"
    api_key: str | None = None
    def _run(self, search_query: str, start_published_date: str | None = None) -> str:
        return ""
class EXASearchTool(ExaSearchTool):
    is_deprecated_alias: ClassVar[bool] = True
""",
    "crewai_tools/tools/apify_actors_tool/apify_actors_tool.py": """
from crewai.tools import BaseTool
class ApifyActorsTool(BaseTool):
    def __init__(self, actor_name: str, **kwargs):
        super().__init__(**kwargs)
        self.name = actor_name
        self.description = "fetched at run time"
""",
    "crewai_tools/tools/broken_tool/broken.py": "def x(:\n",
}


def _tools():
    ex = crewai.extract(package_files("crewai-tools", "1.0.0", "pypi", FILES))
    return ex, {t.local_id: t for t in ex.tools}


def test_want_reads_readmes_and_modules() -> None:
    assert crewai.want("crewai_tools/tools/x/README.md")
    assert crewai.want("crewai_tools/tools/x/x.py")
    assert crewai.want("crewai_tools-1.0.dist-info/METADATA")
    assert not crewai.want("crewai_tools/tools/x/logo.png")


def test_serper_shape() -> None:
    _, tools = _tools()
    tool = tools["SerperDevTool"]
    assert tool.name == "Search the internet with Serper" and tool.display_name == "SerperDevTool"
    assert tool.description == "A tool that can be used to search the internet. Supports 'search' and 'news'"
    assert tool.parameters["required"] == ["search_query"]
    assert tool.auth_env_vars == ["SERPER_API_KEY"] and tool.auth_type == "api_key"
    assert tool.package_dependencies == ["requests"]
    assert tool.endpoints == ["https://google.serper.dev"]
    assert tool.doc_urls[0] == "crewai_tools/tools/serper_dev_tool/README.md"
    assert "https://serper.dev/docs" in tool.doc_urls
    assert tool.service == "serper_dev"


def test_env_vars_inherited_from_base_and_base_skipped() -> None:
    ex, tools = _tools()
    assert "OxylabsBaseTool" not in tools and ex.skipped["abstract_base"] == 1
    tool = tools["OxylabsGoogleSearchScraperTool"]
    assert tool.auth_env_vars == ["OXYLABS_USERNAME", "OXYLABS_PASSWORD"]
    assert tool.auth_type == "basic"
    assert tool.parameters == {
        "type": "object",
        "properties": {"query": {"type": "string", "x-python-type": "str"}},
        "required": ["query"],
    }


def test_deprecated_alias_and_runtime_tool() -> None:
    ex, tools = _tools()
    alias = tools["EXASearchTool"]
    assert alias.deprecated and alias.replacement == "ExaSearchTool" and "inherited" in alias.flags
    assert tools["ExaSearchTool"].auth_credentials == ["api_key"]
    assert tools["ExaSearchTool"].parameters["required"] == ["search_query"]
    assert "ApifyActorsTool" not in tools and ex.skipped["runtime_only_no_name"] == 1


def test_syntax_error_is_an_entry() -> None:
    ex, tools = _tools()
    assert ex.errors[0][0] == "crewai_tools/tools/broken_tool/broken.py"
    assert len(tools) == 4


PROVENANCE_FILES = {
    "crewai_tools/__init__.py": "",
    "crewai_tools/tools/__init__.py": "",
    "crewai_tools/tools/vector/config.py": """
import os
from pydantic import BaseModel
class VectorConfig(BaseModel):
    def connect(self):
        return os.getenv("MONGODB_URI")
""",
    "crewai_tools/tools/vector/vector_search.py": """
import os
from crewai.tools import BaseTool, EnvVar
from pydantic import Field
from crewai_tools.tools.vector.config import VectorConfig
def _client():
    return os.environ.get("AZURE_OPENAI_ENDPOINT")
class VectorSearchTool(BaseTool):
    name: str = "VectorSearchTool"
    description: str = "Search vectors"
    config: VectorConfig
    client: object = Field(default_factory=_client)
    env_vars: list[EnvVar] = Field(default_factory=lambda: [
        EnvVar(name="BROWSERBASE_API_KEY", description="copied from another tool", required=False),
        EnvVar(name="OPENAI_API_KEY", description="embeddings", required=True),
    ])
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        if "OPENAI_API_KEY" not in os.environ:
            raise ValueError("OPENAI_API_KEY is required")
class OtherTool(BaseTool):
    name: str = "OtherTool"
    description: str = "Another tool in the same module"
    def _run(self) -> str:
        return os.environ["OTHER_TOKEN"]
""",
}


def test_env_var_provenance_declared_vs_read() -> None:
    ex = crewai.extract(package_files("crewai-tools", "1.0.0", "pypi", PROVENANCE_FILES))
    tools = {t.local_id: t for t in ex.tools}
    tool = tools["VectorSearchTool"]
    assert tool.env_vars_declared == ["BROWSERBASE_API_KEY", "OPENAI_API_KEY"]
    # own body (membership test), a typed-field wrapper class in another module, a module helper
    assert set(tool.env_vars_read) == {"OPENAI_API_KEY", "MONGODB_URI", "AZURE_OPENAI_ENDPOINT"}
    assert set(tool.env_vars_declared) - set(tool.env_vars_read) == {"BROWSERBASE_API_KEY"}
    assert set(tool.env_vars_read) - set(tool.env_vars_declared) == {"MONGODB_URI", "AZURE_OPENAI_ENDPOINT"}
    # auth_env_vars as before: membership tests are not in it, EnvVar names are
    assert set(tool.auth_env_vars) == {"BROWSERBASE_API_KEY", "OPENAI_API_KEY", "MONGODB_URI", "AZURE_OPENAI_ENDPOINT"}
    other = tools["OtherTool"]  # the other class's reads stay with it
    assert other.env_vars_read == ["OTHER_TOKEN"] and other.env_vars_declared == []


def test_fixture_tools_provenance() -> None:
    _, tools = _tools()
    assert tools["SerperDevTool"].env_vars_declared == ["SERPER_API_KEY"]
    assert tools["SerperDevTool"].env_vars_read == []
    assert tools["OxylabsGoogleSearchScraperTool"].env_vars_declared == ["OXYLABS_USERNAME", "OXYLABS_PASSWORD"]
