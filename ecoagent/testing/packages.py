"""Fixture package contents the tests and the benchmark scripts share."""

# one LangChain tool: the smallest module the crawler's static reader finds a tool in
ECHO_TOOL_MODULE = (
    "from langchain_core.tools import BaseTool\n\n"
    "class EchoTool(BaseTool):\n"
    '    name: str = "echo"\n'
    '    description: str = "Echo the input text back to the caller."\n\n'
    "    def _run(self, text: str) -> str:\n"
    "        return text\n"
)
