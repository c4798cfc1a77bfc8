"""map_gold: LiveMCPBench's annotated tool names onto catalog tools, every case of the rule, none guessed."""

from __future__ import annotations

from ecoagent.packages.livemcpbench import ServerRow
from labeling.gold import GoldTask, map_gold, precision_recall

ROWS = [
    ServerRow("filesystem", "npx", "npm", "@modelcontextprotocol/server-filesystem"),
    ServerRow("desktop-commander", "npx", "npm", "@wonderwhy-er/desktop-commander"),
    ServerRow("word-document-server", "uvx", "pypi", "office-word-mcp-server"),
    ServerRow("ppt", "uvx", "pypi", "office-powerpoint-mcp-server"),
    ServerRow("news", "npx", "npm", "news-mcp", reason="the registry answers E404"),
    ServerRow("yahoo-finance", "uvx", "pypi", "yfmcp"),
    ServerRow("time", "uvx", "pypi", "mcp-server-time"),
]
DUMPED = [
    {"server": "filesystem", "name": "write_file"},
    {"server": "desktop-commander", "name": "write_file"},
    {"server": "word-document-server", "name": "add_table"},
    {"server": "ppt", "name": "add_table"},
    {"server": "news", "name": "get-bbc-news"},
    {"server": "yahoo-finance", "name": "get_news"},  # dumped, but the static crawl did not find it
]
CATALOG = [
    ("@modelcontextprotocol/server-filesystem", "write_file", "mcp:fs:write_file"),
    ("@wonderwhy-er/desktop-commander", "write_file", "mcp:dc:write_file"),
    ("office-word-mcp-server", "add_table", "mcp:word:add_table"),
    ("office-powerpoint-mcp-server", "add_table", "mcp:ppt:add_table"),
    ("mcp-server-time", "get_current_time", "mcp:time:get_current_time"),  # a newer pin: not in the dump
    ("langchain-community", "write_file", "langchain:lc:WriteFileTool"),  # same name, not a LiveMCPBench server
]


def task(qid: str, tools: tuple[str, ...], steps: str = "", text: str = "Do it.") -> GoldTask:
    return GoldTask(f"livemcpbench:{qid}", text, "work", tools, steps)


def test_every_case_of_the_mapping_rule():
    tasks = [
        task("a", ("write_file",), steps="1. write the report"),  # two servers, none named: ambiguous
        task("b", ("add_table",), steps="1. create a word document\n2. add a table"),  # the steps name word
        task("c", ("get-bbc-news", "get_current_time")),  # server not crawled; a crawled tool not in the dump
        task("d", ("get_news", "trial_references")),  # not found by the crawl; no server has it
        task("e", ("Get_Current-Time",)),  # only a match ignoring case and punctuation
    ]
    gold = map_gold(tasks, ROWS, DUMPED, CATALOG, {"package": "livemcpbench==0.1.1"})
    qrels = {(q, t): r for q, t, r in gold.qrels.select("query_id", "tool_id", "resolution").iter_rows()}
    assert qrels == {
        ("livemcpbench:a", "mcp:dc:write_file"): "ambiguous",
        ("livemcpbench:a", "mcp:fs:write_file"): "ambiguous",
        ("livemcpbench:b", "mcp:word:add_table"): "named_in_task",
        ("livemcpbench:c", "mcp:time:get_current_time"): "unique",
        ("livemcpbench:e", "mcp:time:get_current_time"): "unique",
    }
    assert "langchain:lc:WriteFileTool" not in set(gold.qrels["tool_id"])  # never another platform's namesake
    queries = {q["query_id"]: q for q in gold.queries.to_dicts()}
    assert set(queries) == {"livemcpbench:a", "livemcpbench:b", "livemcpbench:c", "livemcpbench:e"}
    assert queries["livemcpbench:a"]["ambiguous"] and not queries["livemcpbench:b"]["ambiguous"]
    assert queries["livemcpbench:b"]["complete"] and not queries["livemcpbench:c"]["complete"]

    report = gold.report
    assert report["tasks"] == 5 and report["gold_queries"] == 4 and report["gold_qrels"] == 5
    assert report["annotated"] == {"pairs": 7, "names": 7}
    assert report["mapped"]["pairs"] == 4 and report["mapped_normalized"]["pairs"] == 1
    assert report["mapped_by_resolution"] == {"ambiguous": 1, "named_in_task": 1, "unique": 2}
    assert report["ambiguous"]["names"] == ["write_file"]
    reasons = report["unmapped"]["by_reason"]
    assert {r: v["names"] for r, v in reasons.items()} == {
        "not_in_catalog": {"get_news": 1},
        "server_not_crawled": {"get-bbc-news": 1},
        "unknown_tool": {"trial_references": 1},
    }
    assert report["tasks_without_gold"] == ["livemcpbench:d"]
    not_crawled = next(p for p in report["pairs"] if p["annotated_tool"] == "get-bbc-news")
    assert not_crawled["server_reasons"] == ["the registry answers E404"]  # the table's reason travels along
    assert report["source"]["license"] == "Apache-2.0" and report["source"]["package"] == "livemcpbench==0.1.1"


def test_precision_recall_and_f1_count_pairs_over_the_gold_queries():
    gold = {"q1": {"a", "b"}, "q2": {"c"}}
    predicted = {"q1": {"a", "x"}, "q2": set(), "q3": {"z"}}  # q3 has no gold: not counted
    row = precision_recall(predicted, gold)
    assert (row["precision"], row["recall"], row["f1"]) == (0.5, 0.3333, 0.4)
    assert (row["verified_pairs"], row["correct_pairs"], row["gold_pairs"]) == (2, 1, 3)
    assert precision_recall({}, gold)["precision"] is None
