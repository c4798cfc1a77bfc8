"""Workflow templates as a Real source: the crawl's n8n action table, the template database read from a tarball,
each node resolved at its own version, the non-gold rule, the grades, the description cleaning, every unmapped
reason, clone families in one split, and the measurement with intervals. Fixture packages are made on the spot
(tests/labeling/workflow_fixtures.py); the real crawl extracts the node package."""

from __future__ import annotations

from collections import Counter

import numpy as np
import polars as pl
import pytest

from crawlers import n8n
from crawlers.base import PackageFiles
from ecoagent.config import load_config
from ecoagent.layout import CRAWL_FILES
from ecoagent.packages.archive import read_archive
from ecoagent.text.personal_data import find_personal_data
from labeling.workflows import cleaning, grades
from labeling.workflows.build import WORKFLOW_QREL_SCHEMA, WORKFLOW_QUERY_SCHEMA, build_workflows
from labeling.workflows.groups import clone_pairs, temporal_splits, workflow_groups
from labeling.workflows.mapping import ActionTable
from labeling.workflows.measure import measure, measure_by_tools
from labeling.workflows.reader import read_templates
from tests.labeling import workflow_fixtures as wf


def _action_frame(tmp_path) -> pl.DataFrame:
    """The n8n action table of the fixture package, as the crawl writes it (tool ids of the catalog)."""
    tarball = wf.build_node_package(tmp_path / "mirror")
    files = read_archive(tarball, n8n.want).files
    extraction = n8n.extract(PackageFiles(wf.BASE, wf.BASE_VERSION, "npm", files))
    rows = []
    for row in extraction.tables[CRAWL_FILES.n8n_actions]:
        local_id = row.pop("local_id")
        rows.append({**row, "tool_id": f"n8n:{wf.BASE}:{local_id}" if local_id else None})
    return pl.DataFrame(rows, infer_schema_length=None)


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> ActionTable:
    return ActionTable(_action_frame(tmp_path_factory.mktemp("actions")), {wf.GENERIC})


def _map(table: ActionTable, node: dict, stripped: bool = False):
    from labeling.workflows.reader import _nodes

    return table.map_node(_nodes({"nodes": [node]})[0], stripped)


def tool(local_id: str) -> str:
    return f"n8n:{wf.BASE}:{local_id}"


def test_the_crawl_writes_every_version_with_its_defaults(tmp_path):
    frame = _action_frame(tmp_path)
    tabula = frame.filter(pl.col("node") == "tabula")
    defaults = tabula.filter(pl.col("default_operation") & (pl.col("resource") == "sheet"))
    assert dict(defaults.select("version", "operation").iter_rows()) == {1.0: "read", 2.0: "read", 3.0: "read",
                                                                         4.0: "append"}  # fmt: skip
    assert set(tabula["default_resource"]) == {"sheet"} and set(tabula["default_version"]) == {4.0}
    legacy = tabula.filter(pl.col("operation") == "legacyRead")
    assert set(legacy["reason"]) == {"absent_from_default_version"} and legacy["tool_id"].null_count() == len(legacy)
    renamed = frame.filter((pl.col("node") == "parla") & (pl.col("version") == 1.0)).row(0, named=True)
    assert renamed["tool_id"] == tool("parla:text:response") and renamed["match"] == "same_name"
    status = dict(frame.select("node", "status").unique().iter_rows())
    assert status["tabulaTrigger"] == "trigger" and status["stickyNote"] == "ui_only"
    assert status["lmChatFixture"] == "ai_language_model" and status["tabula"] == "tool"


def test_an_absent_operation_is_the_default_of_the_nodes_own_version(table):
    assert _map(table, wf.n("tabula", 3)).tool_id == tool("tabula:sheet:read")
    assert _map(table, wf.n("tabula", 4)).tool_id == tool("tabula:sheet:append")
    assert _map(table, wf.n("tabula", 4)).resolution == "default"
    read = _map(table, wf.n("tabula", 4, resource="sheet", operation="read"))
    assert (read.tool_id, read.resolution) == (tool("tabula:sheet:read"), "read")
    assert _map(table, wf.n("parla", 1, operation="message")).tool_id == tool("parla:text:response")


def test_a_tool_variant_is_the_node_it_wraps(table):
    mapping = _map(table, wf.n("postinoTool", 1, resource="message", operation="get"))
    assert mapping.base_type == f"{wf.BASE}.postino" and mapping.tool_id == tool("postino:message:get")


def test_the_non_gold_rule_sets_nodes_apart_by_reason(table):
    reasons = {node: _map(table, wf.n(node)).non_gold for node in ("stickyNote", "tabulaTrigger", "lmChatFixture",
                                                                   "set", "thinker")}  # fmt: skip
    assert reasons == {"stickyNote": "ui_only", "tabulaTrigger": "trigger", "lmChatFixture": "ai_sub_node",
                       "set": "core_node", "thinker": "generic_tool"}  # fmt: skip
    assert _map(table, wf.n("n8n-nodes-community.fooTrigger")).non_gold == "trigger"


def test_every_unmapped_node_has_its_reason(table):
    cases = {
        "package_not_in_catalog": wf.n("n8n-nodes-community.foo"),
        "unknown_node_type": wf.n(f"{wf.BASE}.gone"),
        "unknown_version": wf.n("tabula", 9),
        "unknown_resource": wf.n("tabula", 4, resource="bogus"),
        "unknown_operation": wf.n("tabula", 4, operation="bogus"),
        "expression_value": wf.n("tabula", 4, operation="={{ $json.op }}"),
        "absent_from_default_version": wf.n("tabula", 1, operation="legacyRead"),
    }
    assert {reason: _map(table, node).unmapped for reason, node in cases.items()} == {r: r for r in cases}


def test_a_stripped_node_is_never_read_as_its_default(table):
    single = _map(table, wf.n("nimbus", name="Weather"), stripped=True)
    assert (single.tool_id, single.resolution) == (tool("nimbus:-:-"), "stripped_single_tool")
    named = _map(table, wf.n("tabula", 4, name="Append row in sheet1"), stripped=True)
    assert (named.tool_id, named.resolution) == (tool("tabula:sheet:append"), "stripped_node_name")
    unknown = _map(table, wf.n("postino", name="Postino"), stripped=True)
    assert unknown.tool_id is None and unknown.unmapped == "stripped_parameters"
    assert set(unknown.alternatives) == {tool("postino:message:send"), tool("postino:message:get")}
    # the same node read as stored, not stripped: the version's default
    assert _map(table, wf.n("postino", name="Postino")).tool_id == tool("postino:message:send")


def test_the_description_keeps_what_the_workflow_does():
    description = wf.TEMPLATES[4][2]
    cleaned = cleaning.clean_description(description, {"nimbus", "tabulaTrigger"})
    assert cleaned == ("Creates a contact in Clientele and emails a summary with Postino. "
                       "The lines above run every Monday.")
    marketing = "Overview\nSends the report to Slack.\nNeed help? Want access to paid workflows?\nFollow me on YouTube."
    assert cleaning.clean_description(marketing) == "Sends the report to Slack."
    node_line = "Reads rows.\nUses the googleSheets node."
    assert cleaning.clean_description(node_line, {"googleSheets"}) == "Reads rows."
    long = " ".join(f"Sentence number {i} says what happens." for i in range(200))
    cut = cleaning.clean_description(long, max_chars=300)
    assert len(cut) <= 300 and cut.endswith(".")
    assert cleaning.task_text("Post to Slack", "Sends it.") == "Post to Slack. Sends it."


def test_sample_data_rows_never_reach_the_task_text(tmp_path):
    # an author's test rows under the description, as n8n.io templates have them (made-up values)
    description = (
        "## How it works\nEach new order is written to a sheet and the buyer gets a confirmation.\n\n"
        "| Name | Phone | Email | Status |\n|------|-------|-------|--------|\n"
        "| Jane Roe | +1 (555) 010-4477 | jane.roe@example.com | sent |\n"
        "| Mary Ann Poe | 8801000000001 | unverified | not sent |\n"
    )
    nodes = [wf.TRIGGER, wf.n("postino", resource="message", operation="send")]
    template = (201, "Confirm new orders with Postino", description, "judy", "2025-05-01T10:00:00.000Z", nodes)
    read = read_templates(wf.build_workflows_package(tmp_path, [template]), "data/nodes.db")
    stored = read.templates[0]
    text = cleaning.task_text(stored.title, cleaning.clean_description(stored.description))
    kept = "Each new order is written to a sheet and the buyer gets a confirmation."
    assert text == f"Confirm new orders with Postino. {kept}"
    assert not any(value in text for value in ("Roe", "555", "jane.roe@example.com", "Mary", "8801000000001"))
    assert find_personal_data(text) == Counter()


def test_grades_follow_what_the_text_names():
    sheets = grades.service_names("Google Sheets", "googlesheets")
    openai = grades.service_names("OpenAI", "openai")
    title, text = grades.tokens("Summarise leads with GPT-4o"), grades.tokens("Rows land in a Google Sheet.")
    assert grades.grade(title, text, openai) == 2  # an alias in the title
    assert grades.grade(title, text, sheets) == 1  # singular and plural read alike
    assert grades.grade(title, grades.tokens("Nothing else."), sheets) == 0
    assert ("drive",) not in grades.service_names("Google Drive", "googledrive")  # a generic word names nothing


def test_measure_counts_alternatives_neither_way_and_gives_intervals():
    required = {"a": {"t1", "t2"}, "b": {"t3"}, "c": set()}
    acceptable = {"c": {"t9"}}
    predicted = {"a": {"t1", "x"}, "b": {"t3"}, "c": {"t9", "y"}}
    out = measure(predicted, required, acceptable, queries=["a", "b", "c"], seed=0, resamples=200)
    assert (out["correct_pairs"], out["verified_pairs"], out["required_pairs"]) == (2, 4, 3)
    assert out["precision"] == 0.5 and out["recall"] == round(2 / 3, 4)
    low, high = out["precision_ci95"]
    assert low <= out["precision"] <= high
    by = measure_by_tools(predicted, required, acceptable, ["a", "b", "c"], seed=0, resamples=50)["by_tools"]
    assert set(by) == {"0", "1", "2"} and by["0"]["recall"] is None and by["1"]["f1"] == 1.0


def test_a_clone_family_lands_in_one_split():
    texts = ["Append leads to a sheet and notify the team.", "Leads from the form land in a sheet for sales.",
             "Read the planning rows every morning.", "Answer questions with a model."]  # fmt: skip
    titles = ["Append new leads to Tabula and notify the team with Postino",
              "Append new leads to Tabula and notify your team with Postino v2",
              "Read rows from Tabula every morning", "Answer customer questions with Parla"]  # fmt: skip
    authors = ["alice", "alice", "bob", "grace"]
    tools = [frozenset({"t1"}), frozenset({"t1", "t2"}), frozenset({"t3"}), frozenset({"t4"})]
    groups = workflow_groups(texts, titles, authors, tools, dedup_threshold=0.7, title_similarity=0.6)
    assert groups[0] == groups[1] and len(set(groups)) == 3
    created = ["2025-05-10", "2026-03-01", "2025-06-01", "2026-02-01"]
    splits = temporal_splits(groups, created, (0.25, 0.25))
    assert splits[0] == splits[1] == "test"  # the newest member decides: the old clone follows it into test
    assert splits[3] == "validation" and splits[2] == "train"
    # another author's near-identical title with another tool set is no clone (the titles are still one group:
    # the title view is a query, and these two are one template apart)
    assert clone_pairs(titles, ["alice", "zoe", "bob", "grace"], tools, 0.6) == []
    assert clone_pairs(titles, ["alice", "zoe", "bob", "grace"], [tools[0]] * 2 + tools[2:], 0.6) == [(0, 1)]


def test_the_template_database_is_read_from_the_tarball_read_only(tmp_path):
    tarball = wf.build_workflows_package(tmp_path)
    broken = [*wf.TEMPLATES, (999, "Broken", "", "zed", "2025-05-01T00:00:00.000Z", [])]
    read = read_templates(tarball, "data/nodes.db")
    assert [t.template_id for t in read.templates] == [t[0] for t in wf.TEMPLATES] and not read.drops
    first = read.templates[0]
    assert (first.author_username, first.url, first.views) == ("alice", "https://n8n.io/workflows/101", 1010)
    assert [t.stripped for t in read.templates] == [t[0] == 103 for t in wf.TEMPLATES]
    db = wf.template_db(broken, stored={999: "not base64 at all!!"})
    from tests.package_builders import build_npm_tgz

    bad = build_npm_tgz(tmp_path / "bad", "n8n-mcp", "0.0.2", {"data/nodes.db": db})
    assert read_templates(bad, "data/nodes.db").drops == Counter({"malformed_workflow": 1})
    assert read_templates(bad, "data/missing.db").drops == Counter({"missing_file": 1})


def test_the_set_is_built_with_statuses_grades_splits_and_the_report(tmp_path):
    mirror = tmp_path / "mirror"
    wf.build_workflows_package(mirror)
    frame = _action_frame(tmp_path)
    (tmp_path / "crawl").mkdir()
    frame.write_parquet(tmp_path / "crawl" / CRAWL_FILES.n8n_actions)
    catalog = frame.filter(pl.col("tool_id").is_not_null()).select("tool_id").unique().with_columns(
        pl.col("tool_id").str.split(":").list.get(2).str.to_titlecase().alias("display_name"),
        pl.col("tool_id").str.split(":").list.get(2).alias("service"))  # fmt: skip
    config = load_config("fixture", [f"crawl.npm_mirror_dir={mirror}", f"crawl.cache_dir={tmp_path / 'cache'}",
                                     f"label.workflows.package={wf.WORKFLOWS_PACKAGE}@{wf.WORKFLOWS_VERSION}",
                                     "label.workflows.package_sha256=null",
                                     f"label.workflows.generic_nodes=[{wf.GENERIC}]",
                                     "label.workflows.split_shares=[0.2, 0.2]"], environ={})  # fmt: skip

    def encode(texts):  # the off-topic check's embedder: a title shares nothing with an unrelated description
        return np.array([[1.0, 0.0] if "veterinary" in t or "Parla" not in t else [0.0, 1.0] for t in texts])

    ws = build_workflows(config, catalog, str(tmp_path / "crawl"), encode)
    assert dict(ws.queries.schema) == WORKFLOW_QUERY_SCHEMA and dict(ws.qrels.schema) == WORKFLOW_QREL_SCHEMA
    status = dict(ws.queries.select("template_id", "status").iter_rows())
    assert status[106] == "all_operations" and status[107] == "off_topic_description"
    assert 109 not in status and ws.report["templates_by_status"]["no_app_node"] == 1
    columns = ws.qrels.select("query_id", "tool_id", "grade", "alternative")
    qrels = {(q, t): (g, a) for q, t, g, a in columns.iter_rows()}
    assert qrels[("workflows:101", tool("tabula:sheet:append"))] == (2, False)
    assert qrels[("workflows:105", tool("clientele:contact:create"))] == (1, False)  # the description names it
    assert ("workflows:105", tool("nimbus:-:-")) not in qrels  # named only in the setup section: unsupported
    assert qrels[("workflows:103", tool("postino:message:get"))] == (2, True)  # stripped: an alternative
    assert ("workflows:102", tool("tabula:sheet:read")) in qrels and ("workflows:102", tool("tabula:sheet:append")) \
        not in qrels  # version 3's default
    split = dict(ws.queries.select("template_id", "split").iter_rows())
    assert split[101] == split[104] == "test"  # one clone family
    months = ws.report["split_months"]
    assert max(months["train"]["period"]) < min(months["validation"]["period"]) <= max(months["validation"]["period"]) \
        < min(months["test"]["period"])  # the test period is newer than anything trained on
    assert "2025-05" in months["test"]["templates"]  # the old clone followed its family
    by_type = {row["node_type"]: row for row in ws.report["by_node_type"]}
    assert by_type[f"{wf.BASE}.tabula"]["unmapped"] == {"absent_from_default_version": 1, "expression_value": 1,
                                                        "unknown_operation": 1, "unknown_resource": 1,
                                                        "unknown_version": 1}  # fmt: skip
    assert by_type["n8n-nodes-community.foo"]["unmapped"] == {"package_not_in_catalog": 1}
    assert by_type[f"{wf.BASE}.postinoTool"]["variant_of"] == f"{wf.BASE}.postino"
    assert by_type[f"{wf.BASE}.nimbus"]["unsupported"] == 1
    assert ws.report["totals"]["non_gold"] == {"ai_sub_node": 1, "core_node": 2, "generic_tool": 1, "trigger": 9,
                                               "ui_only": 2}  # fmt: skip
    row = ws.queries.filter(pl.col("template_id") == 101).row(0, named=True)
    assert (row["author_name"], row["url"], row["created_at"]) == ("Alice", "https://n8n.io/workflows/101",
                                                                   "2025-05-10T10:00:00.000Z")  # fmt: skip


def test_a_changed_package_is_refused_by_its_pin(tmp_path):
    from ecoagent.packages.fetch import fetch_data_package

    mirror = tmp_path / "mirror"
    wf.build_workflows_package(mirror)
    config = load_config("fixture", [f"crawl.npm_mirror_dir={mirror}", f"crawl.cache_dir={tmp_path / 'cache'}"],
                         environ={})  # fmt: skip
    with pytest.raises(RuntimeError, match=r"label\.workflows\.package_sha256"):
        fetch_data_package(config, "n8n-mcp@0.0.1", "npm", sha256="0" * 64, setting="label.workflows.package")


def test_a_crawl_without_the_action_table_is_refused_by_name(tmp_path):
    from ecoagent.errors import MissingInput

    mirror = tmp_path / "mirror"
    wf.build_workflows_package(mirror)
    (tmp_path / "crawl").mkdir()
    config = load_config("fixture", [f"crawl.npm_mirror_dir={mirror}", f"crawl.cache_dir={tmp_path / 'cache'}",
                                     f"label.workflows.package={wf.WORKFLOWS_PACKAGE}@{wf.WORKFLOWS_VERSION}",
                                     "label.workflows.package_sha256=null"], environ={})  # fmt: skip
    catalog = pl.DataFrame(schema={"tool_id": pl.String, "display_name": pl.String, "service": pl.String})
    with pytest.raises(MissingInput, match=r"n8n_actions\.parquet.*label\.workflows\.crawl_dir"):
        build_workflows(config, catalog, str(tmp_path / "crawl"), lambda texts: np.zeros((len(texts), 2)))


def _http(url: str, **extra) -> dict:
    return wf.n("httpRequest", 4.2, name="HTTP Request", url=url, method="POST", **extra)


# a workflow calling a service through a generic node (labeling/workflows/completion.py)
COMPLETION_TEMPLATES = [
    (111, "Send the Nimbus forecast to Telegram", "Each morning the forecast goes to a Telegram channel.",
     "judy", "2025-06-10T10:00:00.000Z",
     [wf.TRIGGER, wf.n("nimbus"), _http("=https://api.telegram.org/bot{{ $json.token }}/sendMessage"),
      _http("https://api.clientele.com/v1/contacts")]),  # Clientele: no text names it
    (112, "Share the Nimbus forecast with the team", "The forecast is posted to the team's own endpoint.",
     "kim", "2025-06-11T10:00:00.000Z",
     [wf.TRIGGER, wf.n("nimbus"), _http("={{ $json.webhookUrl }}"), _http("http://localhost:5678/webhook/telegram"),
      _http("https://webhook.site/0c9d-telegram"), _http("https://10.0.0.7/telegram/send")]),
    (113, "Log new Clientele contacts in Tabula", "New contacts are appended to a sheet and mailed with Postino.",
     "leo", "2025-06-12T10:00:00.000Z",
     [wf.TRIGGER, wf.n("tabula", 4, operation="append"),
      _http("https://crm.example.com/contacts", authentication="predefinedCredentialType",
            nodeCredentialType="clienteleApi"),
      {**wf.n("httpRequestTool", 4.2, url="https://mail.example.org/send"),
       "credentials": {"postinoApi": {"id": "1", "name": "Postino account"}, "httpHeaderAuth": {"id": "2"}}}]),
    (114, "Message the team with Postino and Telegram", "Each note goes out with Postino.",
     "mia", "2025-06-13T10:00:00.000Z",
     [wf.TRIGGER, wf.n("postino", resource="message", operation="send"), _http("https://api.postino.io/v1/send")]),
]  # fmt: skip
TELEGRAM = ("n8n:n8n-nodes-base:telegram:message:sendMessage", "n8n:n8n-nodes-base:telegram:chat:get")


def _completion_set(tmp_path, complete: bool):
    mirror = tmp_path / "mirror"
    wf.build_workflows_package(mirror, [*wf.TEMPLATES, *COMPLETION_TEMPLATES])
    frame = _action_frame(tmp_path)
    (tmp_path / "crawl").mkdir(exist_ok=True)
    frame.write_parquet(tmp_path / "crawl" / CRAWL_FILES.n8n_actions)
    fixture = frame.filter(pl.col("tool_id").is_not_null()).select("tool_id").unique().with_columns(
        pl.col("tool_id").str.split(":").list.get(2).str.to_titlecase().alias("display_name"),
        pl.col("tool_id").str.split(":").list.get(2).alias("service"))  # fmt: skip
    declared = pl.when(pl.col("service") == "clientele").then(pl.lit(["clienteleApi"]))
    fixture = fixture.with_columns(declared.otherwise(pl.lit([], dtype=pl.List(pl.String))).alias("auth_credentials"))
    telegram = pl.DataFrame({"tool_id": TELEGRAM, "display_name": ["Telegram"] * 2, "service": ["telegram"] * 2,
                             "auth_credentials": [["telegramApi"]] * 2})  # fmt: skip
    catalog = pl.concat([fixture, telegram])
    config = load_config("fixture", [f"crawl.npm_mirror_dir={mirror}", f"crawl.cache_dir={tmp_path / 'cache'}",
                                     f"label.workflows.package={wf.WORKFLOWS_PACKAGE}@{wf.WORKFLOWS_VERSION}",
                                     "label.workflows.package_sha256=null",
                                     f"label.workflows.generic_nodes=[{wf.GENERIC}]",
                                     f"label.workflows.complete_generic_nodes={str(complete).lower()}"],
                         environ={})  # fmt: skip
    return build_workflows(config, catalog, str(tmp_path / "crawl"), lambda texts: np.ones((len(texts), 2)))


def test_a_generic_node_completes_the_labels_with_the_service_it_calls(tmp_path):
    ws = _completion_set(tmp_path / "on", complete=True)
    rows = {(q, t): r for q, t, *r in ws.qrels.select("query_id", "tool_id", "grade", "alternative",
                                                      "resolution").iter_rows()}  # fmt: skip
    for tool_id in TELEGRAM:  # api.telegram.org: Telegram's tools, acceptable, graded by the title
        assert rows[("workflows:111", tool_id)] == [2, True, "completed_http_url"]
    assert not [k for k in rows if k[0] == "workflows:111" and "clientele" in k[1]]  # no text names Clientele
    assert not [k for k in rows if k[0] == "workflows:112" and rows[k][2].startswith("completed")]  # no service
    assert rows[("workflows:113", tool("clientele:contact:create"))] == [2, True, "completed_credential"]
    assert rows[("workflows:113", tool("postino:message:send"))] == [1, True, "completed_credential"]
    assert rows[("workflows:114", tool("postino:message:send"))][1:] == [False, "read"]  # the native label stays
    assert not [k for k in rows if k[0] == "workflows:114" and rows[k][2].startswith("completed")]
    query = ws.queries.filter(pl.col("template_id") == 111).row(0, named=True)
    assert query["gold_tools"] == [tool("nimbus:-:-")] and query["alternative_nodes"] == []
    done = ws.report["completion"]
    assert done["labels_by_resolution"] == {"completed_credential": 6, "completed_http_url": 2}
    assert (done["queries"], done["skipped"]) == (2, {"already_labelled": 1, "unsupported": 1})
    assert list(done["services_by_queries"]) == ["clientele", "postino", "telegram"]
    off = _completion_set(tmp_path / "off", complete=False)
    assert not off.qrels.filter(pl.col("resolution").str.starts_with("completed")).height
    assert off.queries.equals(ws.queries)  # the same queries, groups and splits: only acceptable labels added
