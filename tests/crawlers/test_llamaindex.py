"""LlamaIndex extractor on tiny packages shaped like llama-index-tools-*."""

from __future__ import annotations

from crawlers import llamaindex
from tests.package_builders import package_files

SLACK = {
    "llama_index/tools/slack/__init__.py": "from llama_index.tools.slack.base import SlackToolSpec\n",
    "llama_index/tools/slack/base.py": '''
from typing import List, Optional
from llama_index.core.tools.tool_spec.base import BaseToolSpec
class SlackToolSpec(BaseToolSpec):
    """Slack tool spec."""
    spec_functions = ["send_message", ("fetch_channels", "afetch_channels")]
    def __init__(self, slack_token: Optional[str] = None) -> None:
        self.token = slack_token
    def send_message(self, channel_id: str, message: str) -> None:
        """Send a message to a channel given the channel ID.

        Args:
            channel_id (str): The channel.
            message (str): Text to send.
        """
    def fetch_channels(self) -> List[str]:
        """Fetch a list of relevant channels."""
''',
    "llama_index_tools_slack-0.6.0.dist-info/METADATA": (
        "Metadata-Version: 2.1\nName: llama-index-tools-slack\nVersion: 0.6.0\n\n"
        "Set the `SLACK_BOT_TOKEN` environment variable and your OPENAI_API_KEY.\n"
    ),
}

TWITTR = {
    "llama_index/tools/twittr/base.py": '''
import os
from typing import Annotated, List, Optional
from llama_index.core.tools.tool_spec.base import BaseToolSpec
from ._descriptions import GET_USER
BASE_URL = "https://api.twittr.example.net/v1"
Count = Annotated[Optional[int], "How many items per page."]
TOOL_NAMES: List[str] = ["get_user", "get_trends"]
_TOOLS = (("search", "asearch"),)
class TwittrToolSpec(BaseToolSpec):
    spec_functions = [(name, f"a{name}") for name in TOOL_NAMES]
    def __init__(self, api_key: Optional[str] = None):
        self.api_key = api_key or os.environ["TWITTR_API_KEY"]
    def get_user(self, username: str, count: Count = None) -> str:
        pass
    def get_trends(self) -> str:
        """Trending topics."""
class StarSpec(BaseToolSpec):
    spec_functions: list = [*_TOOLS]
    def search(self, query: str) -> str:
        pass
def _localize(text):
    return text.replace("x_", "")
_DOCS = {"search": "Search things.\\n\\nArgs:\\n    query (str): What to look for.\\n"}
for _sync, _async in _TOOLS:
    _doc = _localize(_DOCS[_sync])
    getattr(StarSpec, _sync).__doc__ = _doc
TwittrToolSpec.get_user.__doc__ = GET_USER
''',
    "llama_index/tools/twittr/_descriptions.py": 'GET_USER = "Look up a user by handle."\n',
    "llama_index/tools/twittr/broken.py": "class Broken(:\n",
    "llama_index/tools/twittr/dynamic.py": """
from llama_index.core.tools.tool_spec.base import BaseToolSpec
class ZapierToolSpec(BaseToolSpec):
    spec_functions = []
""",
}

FACTORY = {
    "llama_index/tools/payit/tools.py": '''
import os
from llama_index.core.tools import FunctionTool
def make_pay_tool() -> FunctionTool:
    async def pay(to: str, amount: str) -> dict:
        """Send money."""
        return {"key": os.getenv("PAYIT_KEY")}
    return FunctionTool.from_defaults(async_fn=pay, name="payit_pay", description="Send USDC to an address.")
''',
}


def _extract(files):
    ex = llamaindex.extract(package_files("llama-index-tools-x", "0.1.0", "pypi", files))
    return ex, {t.local_id: t for t in ex.tools}


def test_slack_names_tuples_args_section_and_readme_env() -> None:
    _, tools = _extract(SLACK)
    assert set(tools) == {"SlackToolSpec.send_message", "SlackToolSpec.fetch_channels"}
    send = tools["SlackToolSpec.send_message"]
    assert send.name == "send_message" and send.display_name == "Slack: send_message"
    assert send.description.startswith("Send a message to a channel given the channel ID.")
    assert send.parameters["required"] == ["channel_id", "message"]
    assert send.parameters["properties"]["message"]["description"] == "Text to send."
    assert send.auth_credentials == ["slack_token"]
    assert send.auth_env_vars == ["SLACK_BOT_TOKEN"] and "readme_env" in send.flags
    assert send.service == "slack" and send.source_path == "llama_index/tools/slack/base.py"


def test_comprehension_starred_tuple_assigned_docs_and_errors() -> None:
    ex, tools = _extract(TWITTR)
    assert set(tools) == {"TwittrToolSpec.get_user", "TwittrToolSpec.get_trends", "StarSpec.search"}
    user = tools["TwittrToolSpec.get_user"]
    assert user.description == "Look up a user by handle." and "assigned_doc" in user.flags
    assert user.parameters["properties"]["count"]["description"] == "How many items per page."
    assert user.parameters["required"] == ["username"]
    assert user.auth_env_vars == ["TWITTR_API_KEY"] and user.auth_credentials == ["api_key"]
    assert user.endpoints == ["https://api.twittr.example.net/v1"]
    search = tools["StarSpec.search"]
    assert search.description.startswith("Search things.")
    assert search.parameters["properties"]["query"]["description"] == "What to look for."
    assert "dynamic_description" in search.flags
    assert ex.errors[0][0] == "llama_index/tools/twittr/broken.py"
    assert ex.skipped["runtime_only_empty_spec"] == 1


def test_function_tool_factory() -> None:
    _, tools = _extract(FACTORY)
    tool = tools["payit_pay"]
    assert tool.description == "Send USDC to an address."
    assert tool.parameters["required"] == ["to", "amount"]
    assert tool.auth_env_vars == ["PAYIT_KEY"]


ACME = {
    "llama_index/tools/acme/base.py": '''
import os
from llama_index.core.tools.tool_spec.base import BaseToolSpec
class AcmeToolSpec(BaseToolSpec):
    spec_functions = ["search"]
    def __init__(self, api_key=None):
        self.api_key = api_key or os.getenv("ACME_API_KEY")
        self.base = os.environ.get("ACME_BASE_URL", "https://api.acme.example")
        if "ACME_DEBUG" in os.environ:
            pass
    def search(self, query: str) -> str:
        """Search Acme."""
''',
    "llama_index_tools_acme-0.1.0.dist-info/METADATA": (
        "Metadata-Version: 2.1\nName: llama-index-tools-acme\nVersion: 0.1.0\n\n"
        "```bash\nexport ACME_API_KEY=...\nexport OPENAI_API_KEY=sk-...\nACME_WORKSPACE_ID=ws_1\n```\n"
        'Also set MAGIC_ACME_SECRET_KEY. Pass `api_key="API_KEY"` or `YOUR_ACME_KEY`.\n'
        '```python\nSYSTEM_PROMPT = \'not an env var\'\nos.environ["ACME_REGION"] = "eu"\n```\n'
    ),
}


def test_readme_declares_and_code_reads() -> None:
    _, tools = _extract(ACME)
    tool = tools["AcmeToolSpec.search"]
    # README side: credential-like names (multi-segment too) and names an example sets; not the agent's
    # LLM key, placeholders or a Python constant
    assert tool.env_vars_declared == ["ACME_API_KEY", "ACME_WORKSPACE_ID", "MAGIC_ACME_SECRET_KEY", "ACME_REGION"]
    assert set(tool.env_vars_read) == {"ACME_API_KEY", "ACME_BASE_URL", "ACME_DEBUG"}
    # the README fallback of auth_env_vars did not fire: the code reads env vars
    assert set(tool.auth_env_vars) == {"ACME_API_KEY", "ACME_BASE_URL"} and "readme_env" not in tool.flags


def test_readme_declared_without_reads_and_llm_key_kept_when_read() -> None:
    _, tools = _extract(SLACK)
    send = tools["SlackToolSpec.send_message"]
    assert send.env_vars_declared == ["SLACK_BOT_TOKEN"] and send.env_vars_read == []
    files = dict(SLACK)
    files["llama_index/tools/slack/base.py"] = SLACK["llama_index/tools/slack/base.py"].replace(
        "self.token = slack_token", "import os; self.token = slack_token or os.environ['OPENAI_API_KEY']"
    )
    _, tools = _extract(files)
    send = tools["SlackToolSpec.send_message"]
    assert send.env_vars_declared == ["SLACK_BOT_TOKEN", "OPENAI_API_KEY"]  # the tool's own key this time
    assert send.env_vars_read == ["OPENAI_API_KEY"]


def test_factory_and_spec_reads() -> None:
    _, tools = _extract(FACTORY)
    assert tools["payit_pay"].env_vars_read == ["PAYIT_KEY"] and tools["payit_pay"].env_vars_declared == []
    _, tools = _extract(TWITTR)
    assert tools["TwittrToolSpec.get_user"].env_vars_read == ["TWITTR_API_KEY"]
