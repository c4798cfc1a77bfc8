"""Tool selection as agents use it: permission filter, hybrid ranking, token budget, authorization.

See :mod:`selector.select` for the pipeline, :mod:`selector.authorize` for execution-time checks,
:mod:`selector.encoders` for the dense encoders, :mod:`selector.service` for the HTTP service
(``python -m selector serve --release FOLDER``) and :mod:`selector.mcp_server` for the MCP server
(``python -m selector mcp --release FOLDER``). docs/selector.md tells the whole story.
"""

from selector.authorize import Authorizer, Decision, Policy
from selector.meta_tool import SEARCH_TOOLS_DEFINITION, SearchTools
from selector.registry import Tool, ToolRegistry, UnknownTenant, UnknownTool
from selector.scopes import UnknownScope
from selector.select import EmptyQuery, Selection, SelectorConfig, TaskState, ToolSelector
from selector.selection_log import SelectionLog

__all__ = [
    "SEARCH_TOOLS_DEFINITION", "Authorizer", "Decision", "EmptyQuery", "Policy", "SearchTools", "Selection",
    "SelectionLog", "SelectorConfig", "TaskState", "Tool", "ToolRegistry", "ToolSelector", "UnknownScope",
    "UnknownTenant", "UnknownTool",
]
