"""Offline tests for the MCP reference-server extractor (fixture JS modules, no node, no network)."""

from __future__ import annotations

import json
from pathlib import Path

from crawlers import mcp
from crawlers.base import PackageFiles
from crawlers.mcp.metadata import readme_env_declared
from ecoagent.packages.archive import read_archive
from tests.package_builders import build_npm_tgz, package_files

PKG = "@modelcontextprotocol/server-brave-search"

# Shape (a): object literals returned by a ListTools handler, one bound to a constant.
LIST_TOOLS_JS = r"""#!/usr/bin/env node
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const WEB_SEARCH_TOOL = {
    name: "brave_web_search",
    description: "Performs a web search using the Brave Search API. " +
        "Supports pagination.\n" +
        `Maximum 20 results.`,
    inputSchema: {
        type: "object",
        properties: {
            query: { type: "string", description: "Search query (max 400 chars)" },
            count: { type: "number", description: "Number of results", default: 10, minimum: -1 },
        },
        required: ["query"],
    },
};
const BRAVE_API_KEY = process.env.BRAVE_API_KEY;
const DEBUG = process.env["BRAVE_DEBUG"];
const server = new Server({ name: "example-servers/brave-search", version: "0.1.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
        WEB_SEARCH_TOOL,
        {
            name: "brave_local_search",
            description: 'Searches local businesses \u2013 "near me".',
            inputSchema: { type: "object", properties: {} },
        },
    ],
}));
async function search(query) {
    const url = new URL("https://api.search.brave.com/res/v1/web/search");
    const other = `https://api.search.brave.com/res/v1/local/pois?ids=${query}`;
    return fetch("http://localhost:8080/debug");
}
"""

# Shape (b): registerTool through variables, a zod schema imported from a sibling module.
SCHEMAS_JS = """import { z } from "zod";
export const EchoSchema = z.object({
    message: z.string().describe("Message to echo"),
    times: z.number().int().min(1).optional().describe("How often"),
    mode: z.enum(["loud", "quiet"]).default("quiet"),
    tags: z.array(z.string()).nullable(),
});
const Base = z.object({ project_id: z.string().describe("Project ID") });
export const ForkSchema = Base.extend({ namespace: z.string().optional() });
"""

ECHO_JS = """import { z } from "zod";
import { EchoSchema } from "../schemas.js";
const name = "echo";
const config = {
    title: "Echo Tool",
    description: "Echoes back " + "the input string",
    inputSchema: EchoSchema,
};
export const registerEchoTool = (server) => {
    server.registerTool(name, config, async (args) => ({ content: [] }));
};
"""

INDEX_JS = """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";
import * as schemas from "./schemas.js";
const server = new McpServer({ name: "everything", version: "1.0.0" });
server.registerTool("read_text_file", {
    title: "Read Text File",
    description: `Read a file as text.`,
    inputSchema: {
        path: z.string(),
        head: z.number().optional().describe("First N lines"),
    },
}, async () => ({ content: [] }));
server.registerTool("read_file", {
    title: "Read File (Deprecated)",
    description: "Read a file. DEPRECATED: Use read_text_file instead.",
    inputSchema: schemas.EchoSchema.shape,
}, async () => ({ content: [] }));
const LISTED = {
    name: "fork_repository", description: "Fork a project", inputSchema: zodToJsonSchema(schemas.ForkSchema),
};
const MYSTERY = { name: "mystery", description: "Schema built at run time", inputSchema: buildSchema() };
server.tool("legacy_add", "Add two numbers", { a: z.number(), b: z.number() }, async () => ({}));
server.tool("legacy_ping", async () => ({}));
const token = process.env.EVERYTHING_TOKEN;
const { CONFIG_PATH } = process.env;
"""


def _brave(**extra_files: str) -> PackageFiles:
    files = {
        "package.json": json.dumps(
            {
                "name": PKG,
                "version": "0.6.2",
                "homepage": "https://modelcontextprotocol.io",
                "repository": {"type": "git", "url": "git+https://github.com/modelcontextprotocol/servers.git"},
                "keywords": ["mcp", "search"],
                "dependencies": {"@modelcontextprotocol/sdk": "1.0.1"},
            }
        ),
        "README.md": "# Brave Search MCP Server\n\nAn MCP server for the Brave Search API.\n",
        "dist/index.js": LIST_TOOLS_JS,
        **extra_files,
    }
    return package_files(PKG, "0.6.2", "npm", files, listing="official")


def _everything(**extra_files: str) -> PackageFiles:
    name = "@modelcontextprotocol/server-everything"
    files = {
        "package.json": json.dumps({"name": name, "version": "2026.8.31"}),
        "dist/index.js": INDEX_JS,
        "dist/schemas.js": SCHEMAS_JS,
        "dist/tools/echo.js": ECHO_JS,
        # modules are read in path order: this second "echo" comes after dist/tools/echo.js
        "dist/tools/echo_again.js": 'server.tool("echo", "A second echo", {}, async () => ({}));',
        **extra_files,
    }
    return package_files(name, "2026.8.31", "npm", files, listing="official")


def _by_name(package: PackageFiles) -> dict:
    return {t.name: t for t in mcp.extract(package).tools}


def test_want_selects_manifest_readme_and_dist_js_only() -> None:
    assert mcp.want("package.json")
    assert mcp.want("README.md")
    assert mcp.want("dist/index.js")
    assert mcp.want("dist/operations/files.js")
    assert not mcp.want("dist/index.js.map")
    assert not mcp.want("dist/index.d.ts")
    assert not mcp.want("dist/node_modules/zod/index.js")
    assert not mcp.want("src/index.js")
    assert not mcp.want("dist/__tests__/tools.test.js")
    assert not mcp.want("dist/.tsbuildinfo")


def test_object_literal_tools_with_concatenated_description_and_inline_schema() -> None:
    tools = _by_name(_brave())
    assert set(tools) == {"brave_web_search", "brave_local_search"}
    web = tools["brave_web_search"]
    assert web.local_id == "brave_web_search"
    assert web.display_name == "brave_web_search"
    assert web.service == "brave-search"
    assert web.source_path == "dist/index.js"
    assert web.description == (
        "Performs a web search using the Brave Search API. Supports pagination.\nMaximum 20 results."
    )
    assert "concatenated" in web.flags
    assert web.parameters["required"] == ["query"]
    assert web.parameters["properties"]["count"] == {
        "type": "number",
        "description": "Number of results",
        "default": 10,
        "minimum": -1,
    }
    # escapes decoded, quotes inside single-quoted strings kept
    assert tools["brave_local_search"].description == 'Searches local businesses \u2013 "near me".'


def test_auth_endpoints_and_package_metadata() -> None:
    web = _by_name(_brave())["brave_web_search"]
    assert web.auth_type == "api_key"
    assert web.auth_env_vars == ["BRAVE_API_KEY"]  # BRAVE_DEBUG is config, not a credential
    assert web.auth_credentials == ["BRAVE_API_KEY"]
    assert web.endpoints == [
        "https://api.search.brave.com/res/v1/local/pois?ids={query}",
        "https://api.search.brave.com/res/v1/web/search",
    ]
    assert web.doc_urls == ["https://modelcontextprotocol.io", "https://github.com/modelcontextprotocol/servers"]
    assert web.categories == ["mcp", "search"]
    assert web.package_dependencies == ["@modelcontextprotocol/sdk"]
    assert web.deprecated is False


def test_register_tool_through_variables_and_imported_zod_schema() -> None:
    echo = _by_name(_everything())["echo"]
    assert echo.source_path == "dist/tools/echo.js"
    assert echo.display_name == "Echo Tool"
    assert echo.description == "Echoes back the input string"
    assert {"variable_ref", "cross_module", "zod_schema", "concatenated"} <= set(echo.flags)
    assert echo.parameters == {
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "Message to echo"},
            "times": {"type": "integer", "minimum": 1, "description": "How often"},
            "mode": {"type": "string", "enum": ["loud", "quiet"], "default": "quiet"},
            "tags": {"type": ["array", "null"], "items": {"type": "string"}},
        },
        "required": ["message", "tags"],
    }


def test_zod_raw_shape_shape_access_extend_and_zod_to_json_schema() -> None:
    tools = _by_name(_everything())
    text = tools["read_text_file"]
    assert text.description == "Read a file as text."
    assert text.parameters["properties"]["head"] == {"type": "number", "description": "First N lines"}
    assert text.parameters["required"] == ["path"]
    assert tools["read_file"].parameters["required"] == ["message", "tags"]  # EchoSchema.shape
    fork = tools["fork_repository"]
    assert fork.parameters["properties"] == {
        "project_id": {"type": "string", "description": "Project ID"},
        "namespace": {"type": "string"},
    }
    assert fork.parameters["required"] == ["project_id"]
    assert "zod_schema" in fork.flags


def test_unresolved_schema_is_flagged_not_dropped() -> None:
    mystery = _by_name(_everything())["mystery"]
    assert mystery.parameters == {"type": "object", "properties": {}}
    assert "unresolved_input_schema" in mystery.flags


def test_legacy_server_tool_signature() -> None:
    tools = _by_name(_everything())
    add = tools["legacy_add"]
    assert add.description == "Add two numbers"
    assert add.parameters["required"] == ["a", "b"]
    ping = tools["legacy_ping"]
    assert ping.description == ""
    assert "no_description" in ping.flags


def test_duplicate_names_keep_the_first_and_count_a_skip() -> None:
    result = mcp.extract(_everything())
    names = [t.name for t in result.tools]
    assert len(names) == len(set(names))
    echo = next(t for t in result.tools if t.name == "echo")
    assert echo.description == "Echoes back the input string"
    assert result.skipped["duplicate_name"] == 1


def test_per_tool_deprecation_from_description() -> None:
    read_file = _by_name(_everything())["read_file"]
    assert read_file.deprecated is True
    assert read_file.replacement == "read_text_file"
    assert "description_deprecated" in read_file.flags


def test_env_auth_in_any_module_and_destructuring() -> None:
    echo = _by_name(_everything())["echo"]
    assert echo.auth_env_vars == ["EVERYTHING_TOKEN"]
    assert echo.auth_type == "api_key"


def test_syntax_error_becomes_an_error_entry_and_the_rest_still_counts() -> None:
    broken = "export const x = {name: 'broken', inputSchema: {type: 'object'}, ;;; ]] function("
    result = mcp.extract(_brave(**{"dist/broken.js": broken}))
    assert [p for p, _ in result.errors] == ["dist/broken.js"]
    assert "js_syntax_error" in result.errors[0][1]
    assert {t.name for t in result.tools} == {"brave_web_search", "brave_local_search"}


def test_bad_package_json_and_binary_js_do_not_raise() -> None:
    package = package_files(
        PKG, "0.6.2", "npm", {"package.json": "{not json", "dist/index.js": b"\xff\xfe\x00\x01 garbage ((("}
    )
    result = mcp.extract(package)
    assert result.tools == []
    assert {p for p, _ in result.errors} == {"package.json", "dist/index.js"}


def test_test_modules_are_ignored() -> None:
    mock = 'server.registerTool("mock_tool", {description: "from a jest test"}, () => {});'
    tools = _by_name(_brave(**{"dist/__tests__/tools.test.js": mock}))
    assert "mock_tool" not in tools


def test_readme_deprecation_notice() -> None:
    readme = (
        "# GitHub MCP Server\n\n**Deprecation Notice:** Development for this project has been moved to GitHub in "
        "the http://github.com/github/github-mcp-server repo.\n"
    )
    tool = _by_name(_brave(**{"README.md": readme}))["brave_web_search"]
    assert tool.deprecated is True
    assert tool.replacement == "http://github.com/github/github-mcp-server"
    assert "readme_deprecated" in tool.flags


def test_registry_deprecated_field_wins() -> None:
    package = _brave()
    pj = json.loads(package.files["package.json"])
    pj["deprecated"] = "Package no longer supported. Use @brave/brave-search-mcp-server instead."
    files = {**package.files, "package.json": json.dumps(pj).encode()}
    tool = _by_name(PackageFiles(PKG, "0.6.2", "npm", files))["brave_web_search"]
    assert tool.deprecated is True
    assert tool.replacement == "@brave/brave-search-mcp-server"
    assert "readme_deprecated" not in tool.flags
    assert "registry_deprecated" in tool.flags  # package-level: the history's package_deprecated event reads it


def test_oauth_flow_is_oauth2() -> None:
    js = """import { authenticate } from "@google-cloud/local-auth";
const credentialsPath = process.env.GDRIVE_CREDENTIALS_PATH || "creds.json";
async function auth() {
  return authenticate({
    keyfilePath: process.env.GDRIVE_OAUTH_PATH, scopes: ["https://www.googleapis.com/auth/drive.readonly"],
  });
}
const tools = [{ name: "search", description: "Search for files in Google Drive",
  inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } }];
"""
    name = "@modelcontextprotocol/server-gdrive"
    tool = _by_name(package_files(name, "1", "npm", {"dist/index.js": js}))["search"]
    assert tool.service == "gdrive"
    assert tool.auth_type == "oauth2"
    assert tool.auth_env_vars == ["GDRIVE_CREDENTIALS_PATH", "GDRIVE_OAUTH_PATH"]
    assert tool.endpoints == []  # an OAuth scope is not an endpoint


def test_no_env_means_no_auth() -> None:
    js = 'server.registerTool("query", {description: "Run a read-only SQL query", inputSchema: {}}, async () => {});'
    tool = _by_name(package_files("@modelcontextprotocol/server-postgres", "1", "npm", {"dist/index.js": js}))["query"]
    assert tool.auth_type == "none"
    assert tool.auth_env_vars == []
    assert tool.parameters == {"type": "object", "properties": {}}


def test_unresolved_tool_name_is_skipped() -> None:
    js = "export function reg(server, toolName) { server.registerTool(toolName, {description: 'x'}, () => {}); }"
    result = mcp.extract(package_files("@modelcontextprotocol/server-x", "1", "npm", {"dist/index.js": js}))
    assert result.tools == []
    assert result.skipped["unresolved_name"] == 1


def test_through_a_real_npm_tarball(tmp_path: Path) -> None:
    path = build_npm_tgz(
        tmp_path,
        PKG,
        "0.6.2",
        {"dist/index.js": LIST_TOOLS_JS, "dist/index.js.map": "{}", "dist/index.d.ts": "export {};"},
    )
    contents = read_archive(path, mcp.want)
    assert set(contents.files) == {"package.json", "dist/index.js"}
    package = PackageFiles(PKG, "0.6.2", "npm", contents.files, listing="official")
    assert {t.name for t in mcp.extract(package).tools} == {"brave_web_search", "brave_local_search"}


def test_intact_tools_in_a_partly_broken_module_are_kept_and_flagged() -> None:
    js = """const OK = { name: "ok_tool", description: "Fine", inputSchema: { type: "object", properties: {} } };
class Weird { accessor broken = 1; }
"""
    result = mcp.extract(package_files("@modelcontextprotocol/server-x", "1", "npm", {"dist/index.js": js}))
    assert [p for p, _ in result.errors] == ["dist/index.js"]
    assert [t.name for t in result.tools] == ["ok_tool"]
    assert "partial_parse" in result.tools[0].flags


def test_commonjs_require_and_exports() -> None:
    schemas = """"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const zod_1 = require("zod");
exports.QuerySchema = zod_1.z.object({ sql: zod_1.z.string().describe("SQL") });
"""
    index = """"use strict";
const schemas_1 = require("./schemas.js");
const zod_to_json_schema_1 = require("zod-to-json-schema");
const tools = [{ name: "query", description: "Run SQL",
  inputSchema: (0, zod_to_json_schema_1.zodToJsonSchema)(schemas_1.QuerySchema) }];
"""
    files = {"dist/index.js": index, "dist/schemas.js": schemas}
    tool = _by_name(package_files("@modelcontextprotocol/server-x", "1", "npm", files))["query"]
    assert tool.parameters == {
        "type": "object",
        "properties": {"sql": {"type": "string", "description": "SQL"}},
        "required": ["sql"],
    }


README_WITH_ENV = """# GitHub MCP Server

```bash
export GITHUB_APP_SECRET=...
docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN -e GITHUB_HOST=github.com mcp/github
```

```json
{
  "mcpServers": {
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_DOCKER_TOKEN", "mcp/github"],
      "env": {
        // JSONC comment lines are allowed
        "GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>",
        "GITHUB_API_URL": "https://api.github.com", // optional
        "MEMORY_FILE_PATH": "${input:memory_path}"
      }
    }
  }
}
```
"""


def test_readme_env_declarations_are_parsed_in_order() -> None:
    assert readme_env_declared(README_WITH_ENV) == [
        "GITHUB_PERSONAL_ACCESS_TOKEN",
        "GITHUB_API_URL",
        "MEMORY_FILE_PATH",
        "GITHUB_APP_SECRET",
        "GITHUB_HOST",
        "GITHUB_DOCKER_TOKEN",
    ]


def test_env_provenance_declared_in_readme_read_in_code() -> None:
    # code reads EVERYTHING_TOKEN (credential) and CONFIG_PATH (config, left out on both sides)
    tool = _by_name(_everything(**{"README.md": README_WITH_ENV}))["echo"]
    assert tool.env_vars_read == ["EVERYTHING_TOKEN"] == tool.auth_env_vars
    assert tool.env_vars_declared == ["GITHUB_PERSONAL_ACCESS_TOKEN", "GITHUB_APP_SECRET", "GITHUB_DOCKER_TOKEN"]
    plain = _by_name(_brave())["brave_web_search"]  # README without env instructions
    assert plain.env_vars_declared == []


# Community servers on npm: compiled output under build/, tool-definition objects mapped to the SDK shape later.
DEFINITIONS_JS = """import { z } from "zod";
const ReadPdfArgsSchema = z.object({ path: z.string().describe("PDF path or URL") });
export const readPdfToolDefinition = {
    name: "read_pdf",
    description: "Reads text from a PDF.",
    schema: ReadPdfArgsSchema,
    handler: async (args) => ({ content: [] }),
};
const notATool = { name: "config", schema: ReadPdfArgsSchema };
"""

DEFINITIONS_INDEX_JS = """import { readPdfToolDefinition } from "./handlers/readPdf.js";
const allToolDefinitions = [readPdfToolDefinition];
const availableTools = allToolDefinitions.map((def) => ({
    name: def.name, description: def.description, inputSchema: generateInputSchema(def.schema),
}));
"""


def test_community_build_folder_and_tool_definition_objects() -> None:
    assert mcp.want("build/index.js") and mcp.want("lib/tools.cjs") and mcp.want("bin/server.mjs")
    assert not mcp.want("src/index.js")
    package = package_files(
        "@someone/pdf-reader-mcp",
        "0.3.0",
        "npm",
        {"build/handlers/readPdf.js": DEFINITIONS_JS, "build/index.js": DEFINITIONS_INDEX_JS},
        listing="community",
    )
    result = mcp.extract(package)
    tools = {t.name: t for t in result.tools}
    assert set(tools) == {"read_pdf"}  # {name, schema} without description and handler is not a tool
    assert tools["read_pdf"].parameters["properties"]["path"]["description"] == "PDF path or URL"
    assert tools["read_pdf"].service == "pdf-reader"
    assert result.skipped["unresolved_name"] == 1  # the .map((def) => ({name: def.name, ...})) literal


LOOP_JS = """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const server = new McpServer({ name: "ui", version: "1.0.0" });
const componentCategories = { Buttons: ["rainbow-button", "shiny-button"], Backgrounds: ["grid", "dots"] };
async function registerCategoryTools() {
    for (const [category, categoryComponents] of Object.entries(componentCategories)) {
        const names = categoryComponents.join(", ");
        server.tool(`get${category}`, `Implementation details for ${names} components.`, {}, async () => ({}));
    }
    for (const kind of ["Icons", "Fonts"]) {
        server.registerTool(`list${kind}`, { description: "List " + kind }, async () => ({}));
    }
    for (const item of await fetchItems()) {
        server.tool(`get${item}`, "names known only at run time", {}, async () => ({}));
    }
}
"""


def test_tools_registered_in_a_loop_over_a_literal_are_expanded() -> None:
    package = package_files("@someone/ui-mcp", "1.0.6", "npm", {"dist/server.js": LOOP_JS}, listing="community")
    tools = {t.name: t for t in mcp.extract(package).tools}
    assert set(tools) == {"getButtons", "getBackgrounds", "listIcons", "listFonts"}  # not the run-time loop
    assert tools["getButtons"].description == "Implementation details for {names} components."
    assert tools["listFonts"].description == "List Fonts"
    assert "loop_expanded" in tools["listIcons"].flags
