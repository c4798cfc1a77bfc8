"""map_gold: LiveMCPBench's annotated tool names onto catalog tools, every case of the rule, none guessed."""

from __future__ import annotations

import polars as pl

from ecoagent.packages.livemcpbench import ServerRow
from labeling.gold import (
    GOLD_QREL_SCHEMA,
    GoldTask,
    differs_by_affix,
    gold_truth,
    map_gold,
    name_words,
    precision_recall,
    proper_names,
)

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
        task("a", ("write_file",), steps="1. write the report"),  # two servers, none named: alternatives only
        task("b", ("add_table",), steps="1. create a word document\n2. add a table"),  # the steps name word
        task("c", ("get-bbc-news", "get_current_time")),  # server not crawled; a crawled tool not in the dump
        task("d", ("get_news", "open_document")),  # not found by the crawl; no server has it
        task("e", ("Get_Current-Time",)),  # only a match ignoring case and punctuation
    ]
    gold = map_gold(tasks, ROWS, DUMPED, CATALOG, {"package": "livemcpbench==0.1.1"})
    qrels = {(q, t): (r, a) for q, t, r, a in gold.qrels.select("query_id", "tool_id", "resolution",
                                                                 "alternative").iter_rows()}  # fmt: skip
    assert qrels == {
        ("livemcpbench:a", "mcp:dc:write_file"): ("ambiguous", True),
        ("livemcpbench:a", "mcp:fs:write_file"): ("ambiguous", True),
        ("livemcpbench:b", "mcp:word:add_table"): ("named_in_task", False),
        ("livemcpbench:b", "mcp:ppt:add_table"): ("named_in_task", True),  # the other server's: an alternative
        ("livemcpbench:c", "mcp:time:get_current_time"): ("unique", False),
        ("livemcpbench:e", "mcp:time:get_current_time"): ("unique", False),
    }
    assert "langchain:lc:WriteFileTool" not in set(gold.qrels["tool_id"])  # never another platform's namesake
    queries = {q["query_id"]: q for q in gold.queries.to_dicts()}
    assert set(queries) == {"livemcpbench:a", "livemcpbench:b", "livemcpbench:c", "livemcpbench:e"}
    assert queries["livemcpbench:a"]["ambiguous"] and not queries["livemcpbench:b"]["ambiguous"]
    assert queries["livemcpbench:b"]["complete"] and not queries["livemcpbench:c"]["complete"]

    report = gold.report
    assert report["tasks"] == 5 and report["gold_queries"] == 4 and report["gold_qrels"] == 6
    assert report["gold_qrels_alternative"] == 3 and report["gold_queries_alternatives_only"] == ["livemcpbench:a"]
    assert report["annotated"] == {"pairs": 7, "names": 7}
    assert report["mapped"]["pairs"] == 4 and report["mapped_normalized"]["pairs"] == 1
    assert report["mapped_by_resolution"] == {"ambiguous": 1, "named_in_task": 1, "unique": 2}
    assert report["ambiguous"]["names"] == ["write_file"]
    assert "acceptable, not required" in report["scoring"]
    pair_b = next(p for p in report["pairs"] if p["query_id"] == "livemcpbench:b")
    assert (pair_b["tool_ids"], pair_b["alternatives"]) == (["mcp:word:add_table"], ["mcp:ppt:add_table"])
    reasons = report["unmapped"]["by_reason"]
    assert {r: v["names"] for r, v in reasons.items()} == {
        "not_in_catalog": {"get_news": 1},
        "server_not_crawled": {"get-bbc-news": 1},
        "unknown_tool": {"open_document": 1},
    }
    assert report["tasks_without_gold"] == ["livemcpbench:d"]
    not_crawled = next(p for p in report["pairs"] if p["annotated_tool"] == "get-bbc-news")
    assert not_crawled["server_reasons"] == ["the registry answers E404"]  # the table's reason travels along
    assert report["source"]["license"] == "Apache-2.0" and report["source"]["package"] == "livemcpbench==0.1.1"


AFFIX_ROWS = [
    ServerRow("biomcp", "uv", "pypi", "biomcp-python"),
    ServerRow("yahoo-finance", "uvx", "pypi", "yfmcp"),
    ServerRow("hackernews", "npx", "npm", "hn-server"),
]
AFFIX_DUMPED = [{"server": "yahoo-finance", "name": "get_news"}]  # listed, but the crawl found a prefixed name
AFFIX_CATALOG = [
    ("biomcp-python", "trial_references_getter", "mcp:bio:trial_references_getter"),
    ("biomcp-python", "search", "mcp:bio:search"),
    ("biomcp-python", "fetch", "mcp:bio:fetch"),
    ("yfmcp", "yfinance_get_news", "mcp:yf:yfinance_get_news"),
    ("hn-server", "search", "mcp:hn:search"),
    ("hn-server", "getStories", "mcp:hn:getStories"),
    ("hn-server", "getStoriesByUser", "mcp:hn:getStoriesByUser"),
    ("hn-server", "story_list_top", "mcp:hn:story_list_top"),
    ("hn-server", "story_list_new", "mcp:hn:story_list_new"),
]


def test_a_name_up_to_a_server_prefix_or_suffix_is_mapped_only_when_the_match_is_unique():
    tasks = [
        task("a", ("trial_references",)),  # no server lists it: the catalog name adds a suffix, on one server
        task("b", ("get_news",)),  # yahoo-finance lists it; its crawled tool carries a prefix
        task("c", ("biomcp_fetch",)),  # the annotation carries the server's own name
        task("d", ("ddg-search", "story_list")),  # `ddg` names no server; two tools extend `story_list`
        task("e", ("get_stories_by",)),  # `getStoriesByUser` only, but...
        task("f", ("stories",)),  # one word: never extended by arbitrary words
    ]
    gold = map_gold(tasks, AFFIX_ROWS, AFFIX_DUMPED, AFFIX_CATALOG)
    mapped = {q: (t, m, r, a) for q, t, m, r, a in gold.qrels.select("query_id", "tool_id", "match", "resolution",
                                                                      "alternative").iter_rows()}  # fmt: skip
    assert mapped == {
        "livemcpbench:a": ("mcp:bio:trial_references_getter", "affix", "affix_match", False),
        "livemcpbench:b": ("mcp:yf:yfinance_get_news", "affix", "affix_match", False),
        "livemcpbench:c": ("mcp:bio:fetch", "affix", "affix_match", False),
        "livemcpbench:e": ("mcp:hn:getStoriesByUser", "affix", "affix_match", False),
    }
    report = gold.report
    assert report["mapped_affix"] == {"pairs": 4, "names": ["biomcp_fetch", "get_news", "get_stories_by",
                                                            "trial_references"]}
    assert report["mapped_by_resolution"] == {"affix_match": 4}
    unmapped = {p["annotated_tool"]: p for p in report["pairs"] if p["unmapped"]}
    assert unmapped["ddg-search"]["unmapped"] == "unknown_tool" and "affix_matches" not in unmapped["ddg-search"]
    assert unmapped["story_list"]["affix_matches"] == ["mcp:hn:story_list_new", "mcp:hn:story_list_top"]
    assert report["tasks_without_gold"] == ["livemcpbench:d", "livemcpbench:f"]


def test_affix_words_are_whole_words_at_one_end_and_names_are_capitalized_inside_a_sentence():
    assert proper_names("Fetch it from Wikipedia. Then arXiv, at a good time.\nWord") == {"wikipedia", "arxiv"}
    assert name_words("getStoryWithComments") == ("get", "story", "with", "comments")
    assert name_words("get-36kr-trending") == ("get", "36", "kr", "trending")
    assert differs_by_affix(name_words("trial_references"), name_words("trial_references_getter"), set())
    assert not differs_by_affix(name_words("trial_ref"), name_words("trial_references_getter"), set())  # no word
    assert not differs_by_affix(name_words("references_trial"), name_words("trial_references_getter"), set())
    # a longer annotated name only when the extra words are the server's own name
    assert not differs_by_affix(name_words("get_weather_by_city"), name_words("get_weather"), set())
    assert differs_by_affix(name_words("weather_get_forecast"), name_words("get_forecast"), {"weather"})


def test_a_task_that_names_a_server_none_of_its_annotated_tools_is_on_is_counted():
    rows = [*ROWS, ServerRow("wikipedia", "uvx", "pypi", "wikipedia-mcp"),
            ServerRow("arxiv-mcp-server", "uvx", "pypi", "arxiv-mcp-server"),
            ServerRow("mcp-simple-arxiv", "uvx", "pypi", "mcp-simple-arxiv")]  # fmt: skip
    catalog = [*CATALOG, ("wikipedia-mcp", "search_wikipedia", "mcp:wiki:search_wikipedia"),
               ("arxiv-mcp-server", "search_papers", "mcp:ax:search_papers"),
               ("mcp-simple-arxiv", "get_paper_data", "mcp:sax:get_paper_data")]  # fmt: skip
    tasks = [
        task("a", ("write_file",), text="Look up Ada Lovelace on Wikipedia and save it."),  # wikipedia unannotated
        task("b", ("search_wikipedia",), text="Search Wikipedia for Ada Lovelace."),  # annotated
        task("c", ("write_file",), text="Is it a good time to buy? Time will tell."),  # `time`: no name here
        task("d", ("get_paper_data",), text="Introduce the paper on arXiv 2203.12277."),  # another arxiv server
        task("e", ("get-bbc-news",), text="Summarize Wikipedia's article on the BBC."),  # no mapped tool: counted
    ]
    gold = map_gold(tasks, rows, DUMPED, catalog)
    seen = gold.report["unannotated_server"]
    assert seen["tasks"] == 2 and seen["by_task"] == {"livemcpbench:a": ["wikipedia"], "livemcpbench:e": ["wikipedia"]}


def test_alternatives_are_neither_right_nor_wrong_in_the_gold_evaluation():
    rows = [("q1", "fs", "write_file", "filesystem", "exact", "named_in_task", False),
            ("q1", "dc", "write_file", "desktop-commander", "exact", "named_in_task", True),
            ("q2", "a1", "read_file", "filesystem", "exact", "ambiguous", True),
            ("q2", "a2", "read_file", "desktop-commander", "exact", "ambiguous", True)]  # fmt: skip
    truth = gold_truth(pl.DataFrame(rows, schema=GOLD_QREL_SCHEMA, orient="row"))
    assert truth.required == {"q1": {"fs"}} and truth.acceptable == {"q1": {"dc"}, "q2": {"a1", "a2"}}
    # verified: the required tool, an alternative of q1, an alternative of q2 and one wrong tool of q2
    row = precision_recall({"q1": {"fs", "dc"}, "q2": {"a1", "x"}}, truth, resamples=50)
    assert (row["correct_pairs"], row["verified_pairs"], row["required_pairs"]) == (1, 2, 1)
    assert (row["precision"], row["recall"]) == (0.5, 1.0)  # alternatives: not counted, not punished
    only_alternatives = precision_recall({"q2": {"a1"}}, truth, resamples=50)
    assert only_alternatives["verified_pairs"] == 0 and only_alternatives["recall"] == 0.0
    assert "precision_ci95" in row and row["queries"] == 2


def test_precision_recall_and_f1_count_pairs_over_the_gold_queries():
    rows = [("q1", "a", "a", "s", "exact", "unique", False), ("q1", "b", "b", "s", "exact", "unique", False),
            ("q2", "c", "c", "s", "exact", "unique", False)]  # fmt: skip
    truth = gold_truth(pl.DataFrame(rows, schema=GOLD_QREL_SCHEMA, orient="row"))
    predicted = {"q1": {"a", "x"}, "q2": set(), "q3": {"z"}}  # q3 has no gold: not counted
    row = precision_recall(predicted, truth, resamples=0)
    assert (row["precision"], row["recall"], row["f1"]) == (0.5, 0.3333, 0.4)
    assert (row["verified_pairs"], row["correct_pairs"], row["required_pairs"]) == (2, 1, 3)
    assert precision_recall({}, truth, resamples=0)["precision"] is None
