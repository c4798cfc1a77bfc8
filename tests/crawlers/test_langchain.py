"""LangChain extractor on a tiny package shaped like langchain-community."""

from __future__ import annotations

from crawlers import langchain
from crawlers.base import PackageFiles
from ecoagent.packages.archive import read_archive
from tests.package_builders import build_wheel, package_files

FILES = {
    "lc_pkg/__init__.py": "",
    "lc_pkg/utilities/__init__.py": "",
    "lc_pkg/utilities/brave.py": """
from langchain_core.utils import secret_from_env
from pydantic import BaseModel, Field, SecretStr
class BraveWrapper(BaseModel):
    api_key: SecretStr = Field(default_factory=secret_from_env(["BRAVE_SEARCH_API_KEY"]))
    base_url: str = "https://api.search.brave.com/res/v1/web/search"
""",
    "lc_pkg/tools/__init__.py": "",
    "lc_pkg/tools/brave/__init__.py": "",
    "lc_pkg/tools/brave/prompt.py": 'BRAVE_PROMPT = (\n    "a search engine. "\n    "input should be a query."\n)\n',
    "lc_pkg/tools/brave/tool.py": '''
from typing import Optional
from langchain_core.tools import BaseTool
from pydantic import Field
from ...utilities.brave import BraveWrapper
from .prompt import BRAVE_PROMPT
class BraveSearch(BaseTool):
    """Tool that queries Brave."""
    name: str = "brave_search"
    description: str = BRAVE_PROMPT
    search_wrapper: BraveWrapper = Field(default_factory=BraveWrapper)
    def _run(self, query: str, run_manager: Optional[object] = None) -> str:
        """Use the tool.

        Args:
            query: what to search for
        """
''',
    "lc_pkg/tools/gmail/__init__.py": "",
    "lc_pkg/tools/gmail/base.py": '''
from langchain_core.tools import BaseTool
class GmailBaseTool(BaseTool):
    """Base class for Gmail tools."""
    scopes: list = ["https://mail.google.com/"]
''',
    "lc_pkg/tools/gmail/send.py": """
from typing import List, Optional, Type, Union
from pydantic import BaseModel, Field
from langchain_core._api import deprecated
from lc_pkg.tools.gmail.base import GmailBaseTool
class SendSchema(BaseModel):
    message: str = Field(..., description="The message to send.")
    to: Union[str, List[str]] = Field(description="Recipients.")
    cc: Optional[str] = Field(None, description="CC.")
@deprecated(since="0.1", alternative_import="lc_google.GmailSendMessage")
class GmailSendMessage(GmailBaseTool):
    name: str = "send_gmail_message"
    description: str = "Use this tool to send email messages."
    args_schema: Type[SendSchema] = SendSchema
""",
    "lc_pkg/tools/shell.py": """
import platform
from langchain_core.tools import BaseTool
class ShellTool(BaseTool):
    name: str = "terminal"
    description: str = f"Run shell commands on this {platform.system()} machine."
    def _run(self, commands: str) -> str:
        return ""
""",
    "lc_pkg/tools/zapier.py": '''
from langchain_core.tools import BaseTool
class ZapierNLARunAction(BaseTool):
    """Runs a Zapier action."""
    name: str = ""
    description: str = ""
    def __init__(self, **kw):
        super().__init__(**kw)
        self.description = kw["base_prompt"].format(x=1)
''',
    "lc_pkg/tools/github/__init__.py": "",
    "lc_pkg/tools/github/prompt.py": (
        'CREATE_PR_PROMPT = "This tool creates a pull request."\nGET_ISSUE_PROMPT = "Gets an issue."\n'
    ),
    "lc_pkg/tools/github/tool.py": '''
from langchain_core.tools import BaseTool
class GitHubAction(BaseTool):
    """Tool for interacting with the GitHub API."""
    mode: str
    name: str = ""
    description: str = ""
    def _run(self, instructions: str = "") -> str:
        return ""
''',
    "lc_pkg/agent_toolkits/__init__.py": "",
    "lc_pkg/agent_toolkits/github/toolkit.py": """
from typing import Dict, List
from pydantic import BaseModel, Field
from lc_pkg.tools.github.prompt import CREATE_PR_PROMPT, GET_ISSUE_PROMPT
from lc_pkg.tools.github.tool import GitHubAction
class GetIssue(BaseModel):
    issue_number: int = Field(0, description="Issue number")
class GitHubToolkit:
    @classmethod
    def from_wrapper(cls, wrapper):
        operations: List[Dict] = [
            {"mode": "get_issue", "name": "Get Issue", "description": GET_ISSUE_PROMPT, "args_schema": GetIssue},
            {"mode": "create_pull_request", "name": "Create Pull Request", "description": CREATE_PR_PROMPT},
        ]
        tools = [GitHubAction(name=a["name"], description=a["description"], mode=a["mode"]) for a in operations]
        return cls(tools=tools)
""",
    "lc_pkg/agent_toolkits/load_tools.py": '''
from langchain_core.tools import StructuredTool, Tool
def _calc(llm):
    return Tool(name="Calculator", description="Useful for math.", func=llm.run)
def _from_hf(hf_tool):
    return Tool.from_function(hf_tool.__call__, name=hf_tool.name, description=hf_tool.description)
class Kit:
    def tools(self):
        return [StructuredTool.from_function(name="execute_code", func=self._execute, description="""Run code.""")]
    def _execute(self, code: str, language: str = "python") -> str:
        """Execute.

        Args:
            code: source to run
        """
''',
    "lc_pkg/tools/broken.py": "class Broken(:\n",
}


def _extract():
    return langchain.extract(package_files("lc-pkg", "0.1.0", "pypi", FILES))


def _by_id(ex):
    return {t.local_id: t for t in ex.tools}


def test_class_tool_with_prompt_constant_wrapper_auth_and_run_signature() -> None:
    tool = _by_id(_extract())["BraveSearch"]
    assert tool.name == "brave_search"
    assert tool.description == "a search engine. input should be a query."
    assert "constant_ref" in tool.flags
    assert tool.parameters == {
        "type": "object",
        "required": ["query"],
        "properties": {"query": {"type": "string", "x-python-type": "str", "description": "what to search for"}},
    }
    assert tool.auth_env_vars == ["BRAVE_SEARCH_API_KEY"] and tool.auth_type == "api_key"
    assert "api_key" in tool.auth_credentials
    assert tool.endpoints == ["https://api.search.brave.com/res/v1/web/search"]
    assert tool.service == "brave" and tool.source_path == "lc_pkg/tools/brave/tool.py"


def test_inherited_base_args_schema_deprecation_and_abstract_base_skipped() -> None:
    ex = _extract()
    tools = _by_id(ex)
    assert "GmailBaseTool" not in tools
    send = tools["GmailSendMessage"]
    assert send.parameters["required"] == ["message", "to"]
    assert send.parameters["properties"]["cc"]["description"] == "CC."
    assert send.auth_type == "oauth2" and send.service == "gmail"
    assert send.deprecated and send.replacement == "lc_google.GmailSendMessage"
    assert ex.skipped["abstract_base"] == 1


def test_fstring_and_runtime_only_tools() -> None:
    ex = _extract()
    tools = _by_id(ex)
    assert tools["ShellTool"].description == "Run shell commands on this {platform.system()} machine."
    assert "fstring" in tools["ShellTool"].flags
    assert "ZapierNLARunAction" not in tools
    assert ex.skipped["runtime_only_no_name"] == 1


def test_toolkit_modes_become_one_tool_each() -> None:
    ex = _extract()
    tools = _by_id(ex)
    assert "GitHubAction" not in tools and ex.skipped["mode_template"] == 1
    issue = tools["GitHubAction:get_issue"]
    assert (issue.name, issue.description) == ("Get Issue", "Gets an issue.")
    assert issue.parameters["properties"]["issue_number"]["default"] == 0
    pr = tools["GitHubAction:create_pull_request"]
    assert pr.display_name == "Create Pull Request"
    assert list(pr.parameters["properties"]) == ["instructions"]  # falls back to the class's _run
    assert pr.source_path == "lc_pkg/agent_toolkits/github/toolkit.py"


def test_factory_calls_with_literal_names() -> None:
    ex = _extract()
    tools = _by_id(ex)
    assert tools["Calculator"].description == "Useful for math." and "factory" in tools["Calculator"].flags
    code = tools["execute_code"]
    assert code.parameters["required"] == ["code"]
    assert code.parameters["properties"]["code"]["description"] == "source to run"
    assert ex.skipped["factory_dynamic_name"] == 1


def test_syntax_error_recorded_while_other_modules_yield_tools() -> None:
    ex = _extract()
    assert [path for path, _ in ex.errors] == ["lc_pkg/tools/broken.py"]
    assert len(ex.tools) == 7


def test_reads_a_real_wheel_through_want(tmp_path) -> None:
    wheel = build_wheel(
        tmp_path, "lc-pkg", "0.1.0", FILES, metadata_extra="Project-URL: Documentation, https://docs.example.org/lc\n"
    )
    contents = read_archive(wheel, langchain.want)
    assert "lc_pkg-0.1.0.dist-info/METADATA" in contents.files
    ex = langchain.extract(PackageFiles("lc-pkg", "0.1.0", "pypi", contents.files))
    assert _by_id(ex)["BraveSearch"].doc_urls == ["https://docs.example.org/lc"]


PROVENANCE_FILES = {
    "lc_pkg/__init__.py": "",
    "lc_pkg/utilities/__init__.py": "",
    "lc_pkg/utilities/acme.py": """
from langchain_core.utils import get_from_dict_or_env
from pydantic import BaseModel, model_validator
class AcmeWrapper(BaseModel):
    acme_api_key: str | None = None
    @model_validator(mode="before")
    @classmethod
    def validate_environment(cls, values):
        values["acme_api_key"] = get_from_dict_or_env(values, "acme_api_key", "ACME_API_KEY")
        return values
""",
    "lc_pkg/tools/__init__.py": "",
    "lc_pkg/tools/acme/__init__.py": "",
    "lc_pkg/tools/acme/utils.py": """
import os
def login():
    return os.environ["ACME_CLIENT_SECRET"], os.getenv("ACME_REGION")
""",
    "lc_pkg/tools/acme/tool.py": """
from langchain_core.tools import BaseTool
from pydantic import Field
from lc_pkg.utilities.acme import AcmeWrapper
from lc_pkg.tools.acme.utils import login
class AcmeSearch(BaseTool):
    name: str = "acme_search"
    description: str = "Search Acme."
    api_wrapper: AcmeWrapper = Field(default_factory=AcmeWrapper)
    session: object = Field(default_factory=login)
    def _run(self, query: str) -> str:
        return ""
class Unrelated(BaseTool):
    name: str = "unrelated"
    description: str = "No credentials."
    def _run(self, query: str) -> str:
        return ""
""",
}


def test_env_var_provenance_field_helpers_declare_os_reads_read() -> None:
    ex = langchain.extract(package_files("lc-pkg", "0.1.0", "pypi", PROVENANCE_FILES))
    tools = _by_id(ex)
    acme = tools["AcmeSearch"]
    assert acme.env_vars_declared == ["ACME_API_KEY"]  # wrapper reached through the typed field
    assert set(acme.env_vars_read) == {"ACME_CLIENT_SECRET", "ACME_REGION"}  # helper function it references
    assert set(acme.auth_env_vars) == {"ACME_API_KEY", "ACME_CLIENT_SECRET", "ACME_REGION"}
    assert tools["Unrelated"].env_vars_declared == [] and tools["Unrelated"].env_vars_read == []
    brave = _by_id(_extract())["BraveSearch"]  # secret_from_env in the wrapper: declared, not read
    assert brave.env_vars_declared == ["BRAVE_SEARCH_API_KEY"] and brave.env_vars_read == []
