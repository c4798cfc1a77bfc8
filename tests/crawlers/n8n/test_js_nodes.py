"""Community n8n packages without nodes.json: node and credential classes read from the compiled JS, never run."""

import json
from pathlib import Path

from crawlers import n8n
from crawlers.extract import extract_package
from crawlers.n8n.js_nodes import connection_type
from ecoagent.packages.archive import ArchiveLimits
from ecoagent.packages.source import Source
from tests.crawlers.community_fixtures import ACME, ACME_FILES, ACME_PACKAGE_JSON, ACME_TOOLS, ACME_VERSION, build_acme
from tests.package_builders import package_files


def _acme_extraction():
    files = {**ACME_FILES, "package.json": json.dumps({"name": ACME, **ACME_PACKAGE_JSON})}
    return n8n.extract(package_files(ACME, ACME_VERSION, "npm", files, listing="community"))


def test_node_descriptions_are_read_from_the_compiled_classes():
    extraction = _acme_extraction()
    tools = {t.local_id: t for t in extraction.tools}
    assert set(tools) == ACME_TOOLS
    create, get = tools["acme:invoice:create"], tools["acme:invoice:get"]
    # option names from an exported object's members, operations spread from modules re-exported through an index
    assert create.name == "Acme: Create an invoice" and create.http_methods == ["POST"]
    assert "invoiceId" in get.parameters["properties"] and "invoiceId" not in create.parameters["properties"]
    assert set(tools["acme:contact:list"].parameters["properties"]) == {"notes"}  # __importDefault(...).default
    # the credential class: an API key header, its documentation link
    assert create.auth_type == "api_key" and create.auth_credentials == ["acmeApi"]
    assert "https://docs.acme.test/auth" in create.doc_urls
    assert create.usable_as_tool and "read_from_js" in create.flags
    assert create.source_path == "./dist/nodes/Acme/Acme.node.js"


def test_what_cannot_be_read_statically_is_counted_by_reason():
    extraction = _acme_extraction()
    assert extraction.skipped["trigger"] == 1  # the ES2022 class-field description was read: it is a trigger
    assert extraction.skipped["js_versioned_node"] == 1
    assert extraction.skipped["js_properties_not_static"] == 1
    assert extraction.skipped["js_declared_file_missing"] == 1
    assert extraction.errors == []


def test_a_package_with_no_readable_node_says_why():
    files = {"package.json": json.dumps({"n8n": {"nodes": ["dist/nodes/Legacy/Legacy.node.js"]}}),
             "dist/nodes/Legacy/Legacy.node.js": ACME_FILES["dist/nodes/Legacy/Legacy.node.js"]}  # fmt: skip
    extraction = n8n.extract(package_files("n8n-nodes-legacy", "1.0.0", "npm", files))
    assert extraction.tools == []
    assert extraction.errors == [("package.json", "no node description could be read statically from the JS "
                                                  "(js_versioned_node=1)")]  # fmt: skip


def test_the_archive_reader_takes_the_js_only_when_there_is_no_nodes_json(tmp_path: Path):
    archive = build_acme(tmp_path)
    result = extract_package(Source("n8n", "npm", ACME, ACME_VERSION, "community"), archive, ArchiveLimits())
    assert {r.tool_id.removeprefix(f"n8n:{ACME}:") for r in result.records} == ACME_TOOLS
    assert n8n.want_more({"dist/types/nodes.json": b"[]"}) is None  # n8n's own packages: the JS is never opened
    wanted = n8n.want_more({"package.json": json.dumps(ACME_PACKAGE_JSON).encode()})
    assert wanted("dist/nodes/Acme/descriptions/index.js") and not wanted("dist/nodes/Acme/Acme.node.js.map")
    assert not wanted("node_modules/x/index.js") and not wanted("dist/__tests__/a.test.js")


def test_connection_types_named_by_n8n_workflow():
    assert connection_type("n8n_workflow_1.NodeConnectionType.Main") == "main"
    assert connection_type("NodeConnectionTypes.AiTool") == "ai_tool"
    assert connection_type("NodeConnectionType.AiLanguageModel") == "ai_languageModel"
    assert connection_type("somethingElse.Main") is None
