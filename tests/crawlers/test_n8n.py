"""Offline tests for the n8n extractor (fixture nodes.json / credentials.json shaped like n8n's build output)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawlers import n8n
from crawlers.base import PackageFiles
from crawlers.n8n.auth import credential_kind
from crawlers.n8n.catalog import NODES_JSON
from ecoagent.packages.archive import read_archive
from tests.package_builders import build_npm_tgz, package_files

PKG = "n8n-nodes-base"

DOCS = "https://docs.n8n.io/integrations/builtin/app-nodes/n8n-nodes-base.chatly/"
CRED_DOCS = "https://docs.n8n.io/integrations/builtin/credentials/chatly/"

# Version 1 of a versioned node: only its own entry knows the old operation.
CHATLY_V1 = {
    "displayName": "Chatly",
    "name": "chatly",
    "group": ["output"],
    "version": 1,
    "defaultVersion": 2.1,
    "description": "Consume Chatly API",
    "inputs": ["main"],
    "outputs": ["main"],
    "credentials": [{"name": "chatlyApi", "required": True}],
    "properties": [
        {"displayName": "Resource", "name": "resource", "type": "options",
         "options": [{"name": "Message", "value": "message"}], "default": "message"},
        {"displayName": "Operation", "name": "operation", "type": "options",
         "displayOptions": {"show": {"resource": ["message"]}},
         "options": [{"name": "Post Old", "value": "postOld", "action": "Post the old way"}], "default": "postOld"},
    ],
}  # fmt: skip

CHATLY_V2 = {
    "displayName": "Chatly",
    "name": "chatly",
    "group": ["output"],
    "version": [2, 2.1],
    "defaultVersion": 2.1,
    "description": "Consume Chatly API",
    "inputs": ["main"],
    "outputs": ["main"],
    "usableAsTool": True,
    "requestDefaults": {"baseURL": "https://api.chatly.example/v2"},
    "credentials": [
        {"name": "chatlyApi", "required": True, "displayOptions": {"show": {"authentication": ["accessToken"]}}},
        {"name": "chatlyOAuth2Api", "required": True, "displayOptions": {"show": {"authentication": ["oAuth2"]}}},
        {"name": "chatlyWebhookApi", "required": True, "displayOptions": {"show": {"authentication": ["webhook"]}}},
    ],
    "codex": {
        "categories": ["Communication", "HITL"],
        "subcategories": {"HITL": ["Human in the Loop"]},
        "resources": {"primaryDocumentation": [{"url": DOCS}], "credentialDocumentation": [{"url": CRED_DOCS}]},
    },
    "properties": [
        {"displayName": "<strong>New version</strong> available", "name": "oldVersionNotice", "type": "notice",
         "default": ""},
        {"displayName": "Authentication", "name": "authentication", "type": "options",
         "options": [{"name": "Access Token", "value": "accessToken"}, {"name": "OAuth2", "value": "oAuth2"},
                     {"name": "Webhook", "value": "webhook"}],
         "default": "accessToken"},
        {"displayName": "Resource", "name": "resource", "type": "options", "noDataExpression": True,
         "displayOptions": {"hide": {"authentication": ["webhook"]}},
         "options": [{"name": "Message", "value": "message"}, {"name": "Channel", "value": "channel"},
                     {"name": "Audit Log", "value": "auditLog"}],
         "default": "message"},
        {"displayName": "Operation", "name": "operation", "type": "options", "noDataExpression": True,
         "displayOptions": {"show": {"resource": ["message"]}},
         "options": [
             {"name": "Send", "value": "post", "description": "Posts a message to a channel",
              "action": "Send a message",
              "routing": {"request": {"method": "POST", "url": "https://hooks.chatly.example/post"}}},
             {"name": "Update", "value": "update", "description": "Edit a posted message"},
         ],
         "default": "post"},
        {"displayName": "Operation", "name": "operation", "type": "options", "noDataExpression": True,
         "displayOptions": {"show": {"resource": ["channel"]}},
         "options": [{"name": "Archive", "value": "archive", "description": "Archives a conversation",
                      "action": "Archive a channel", "routing": {"request": {"url": "/channels.archive"}}}],
         "default": "archive"},
        {"displayName": "Operation", "name": "operation", "type": "options", "noDataExpression": True,
         "displayOptions": {"show": {"authentication": ["webhook"]}},
         "options": [{"name": "Send a Message", "value": "sendLegacy", "action": "Send a message",
                      "description": "Send a message using the webhook"}],
         "default": "sendLegacy"},
        {"displayName": "Channel", "name": "channelId", "type": "resourceLocator", "required": True,
         "default": {"mode": "list", "value": ""}, "description": "The <b>channel</b> to send to",
         "displayOptions": {"show": {"resource": ["message", "channel"]}}},
        {"displayName": "Text", "name": "text", "type": "string", "required": True, "default": "",
         "description": "The message text",
         "displayOptions": {"show": {"resource": ["message"], "operation": ["post", "update"]}}},
        {"displayName": "Thread", "name": "threadTs", "type": "string", "default": "",
         "displayOptions": {"show": {"operation": ["post"], "@version": [{"_cnd": {"gte": 2.1}}]}}},
        {"displayName": "Old Field", "name": "oldField", "type": "string", "default": "",
         "displayOptions": {"show": {"operation": ["post"], "@version": [{"_cnd": {"lt": 2.1}}]}}},
        {"displayName": "Not For Update", "name": "postOnly", "type": "boolean", "default": False,
         "displayOptions": {"show": {"resource": ["message"]}, "hide": {"operation": ["update"]}}},
        {"displayName": "Priority", "name": "priority", "type": "options", "default": "normal",
         "options": [{"name": "Low", "value": "low"}, {"name": "Normal", "value": "normal"}],
         "displayOptions": {"show": {"operation": ["post"]}}},
        {"displayName": "Count", "name": "count", "type": "number", "default": 5,
         "displayOptions": {"show": {"operation": ["post"]}}},
        {"displayName": "Tags", "name": "tags", "type": "multiOptions", "default": ["a"],
         "options": [{"name": "A", "value": "a"}, {"name": "B", "value": "b"}],
         "displayOptions": {"show": {"operation": ["post"]}}},
        {"displayName": "Payload", "name": "payload", "type": "json", "default": "={{ $json }}",
         "displayOptions": {"show": {"operation": ["post"]}}},
        {"displayName": "Options", "name": "options", "type": "collection", "default": {},
         "displayOptions": {"show": {"operation": ["post"]}},
         "options": [{"displayName": "Unfurl", "name": "unfurl", "type": "boolean", "default": True}]},
        {"displayName": "Headers", "name": "headers", "type": "fixedCollection", "default": {},
         "typeOptions": {"multipleValues": True},
         "displayOptions": {"show": {"operation": ["post"]}},
         "options": [{"name": "header", "displayName": "Header",
                      "values": [{"displayName": "Name", "name": "name", "type": "string", "default": ""}]}]},
        {"displayName": "Channel Name", "name": "dynamicChannel", "type": "options", "default": "",
         "typeOptions": {"loadOptionsMethod": "getChannels"},
         "displayOptions": {"show": {"operation": ["archive"]}}},
    ],
}  # fmt: skip

FORMATTER = {
    "displayName": "Formatter",
    "name": "formatter",
    "group": ["transform"],
    "version": 1,
    "description": "Format text values",
    "inputs": ["main"],
    "outputs": ["main"],
    "codex": {"categories": ["Core Nodes"]},
    "properties": [
        {"displayName": "Value", "name": "value", "type": "string", "default": "", "required": True},
    ],
}

CHATLY_TRIGGER = {
    "displayName": "Chatly Trigger",
    "name": "chatlyTrigger",
    "group": ["trigger"],
    "version": 1,
    "description": "Starts the workflow on Chatly events",
    "inputs": [],
    "outputs": ["main"],
    "properties": [],
}

POLLER = {  # a trigger recognisable only by its name
    "displayName": "Poller",
    "name": "pollerTrigger",
    "group": ["input"],
    "version": 1,
    "description": "Polls",
    "inputs": [],
    "outputs": ["main"],
    "properties": [],
}

OLD_READER = {
    "displayName": "Old Reader",
    "name": "oldReader",
    "hidden": True,
    "group": ["input"],
    "version": 1,
    "description": "Reads files the old way",
    "inputs": ["main"],
    "outputs": ["main"],
    "properties": [
        {"displayName": "Operation", "name": "operation", "type": "options",
         "options": [{"name": "Read", "value": "read", "action": "Read a file"}], "default": "read"},
    ],
}  # fmt: skip

GHOSTLY = {
    "displayName": "Ghostly",
    "name": "ghostly",
    "group": ["output"],
    "version": 1,
    "description": "Consume Ghostly API.",
    "inputs": ["main"],
    "outputs": ["main"],
    "credentials": [
        {"name": "ghostlyAdminApi", "required": True, "displayOptions": {"show": {"source": ["adminApi"]}}},
        {"name": "ghostlyContentApi", "required": True, "displayOptions": {"show": {"source": ["contentApi"]}}},
    ],
    "properties": [
        {"displayName": "Source", "name": "source", "type": "options", "default": "contentApi",
         "options": [{"name": "Admin", "value": "adminApi"}, {"name": "Content", "value": "contentApi"}]},
        {"displayName": "Resource", "name": "resource", "type": "options",
         "options": [{"name": "Post", "value": "post"}], "default": "post"},
        {"displayName": "Operation", "name": "operation", "type": "options",
         "displayOptions": {"show": {"source": ["contentApi"], "resource": ["post"]}},
         "options": [{"name": "Get", "value": "get", "action": "Get a post"}], "default": "get"},
        {"displayName": "Operation", "name": "operation", "type": "options",
         "displayOptions": {"show": {"source": ["adminApi"], "resource": ["post"]}},
         "options": [{"name": "Get", "value": "get", "action": "Get a post (admin)"},
                     {"name": "Create", "value": "create", "action": "Create a post"}], "default": "get"},
        {"displayName": "Post ID", "name": "postId", "type": "string", "default": "",
         "displayOptions": {"show": {"source": ["contentApi"], "operation": ["get"]}}},
        {"displayName": "Include Drafts", "name": "drafts", "type": "boolean", "default": False,
         "displayOptions": {"show": {"source": ["adminApi"], "operation": ["get"]}}},
    ],
}  # fmt: skip

STICKY = {
    "displayName": "Sticky Note",
    "name": "stickyNote",
    "group": ["input"],
    "version": 1,
    "description": "Make your workflow easier to understand",
    "inputs": [],
    "outputs": [],
    "properties": [{"displayName": "Content", "name": "content", "type": "string", "default": ""}],
}

BASIC_NODE = {
    "displayName": "Intranet",
    "name": "intranet",
    "group": ["output"],
    "version": 1,
    "description": "Query the intranet",
    "inputs": ["main"],
    "outputs": ["main"],
    "credentials": [{"name": "intranetBasic", "required": True}],
    "properties": [],
}

BASE_NODES = [CHATLY_V1, CHATLY_V2, FORMATTER, CHATLY_TRIGGER, POLLER, OLD_READER, GHOSTLY, STICKY, BASIC_NODE]

CREDENTIALS = [
    {"name": "chatlyApi", "displayName": "Chatly API", "documentationUrl": "chatly",
     "properties": [{"displayName": "Access Token", "name": "accessToken", "type": "string",
                     "typeOptions": {"password": True}, "default": ""}],
     "authenticate": {"type": "generic",
                      "properties": {"headers": {"Authorization": "=Bearer {{$credentials.accessToken}}"}}},
     "test": {"request": {"baseURL": "https://chatly.example", "url": "/api/auth.test"}}},
    {"name": "chatlyOAuth2Api", "extends": ["oAuth2Api"], "displayName": "Chatly OAuth2 API",
     "documentationUrl": "https://docs.chatly.example/oauth",
     "properties": [{"displayName": "Authorization URL", "name": "authUrl", "type": "hidden",
                     "default": "https://chatly.example/oauth/authorize"}]},
    {"name": "chatlyWebhookApi", "displayName": "Chatly Webhook", "documentationUrl": "chatly",
     "properties": [{"displayName": "Webhook URL", "name": "webhookUri", "type": "string", "default": ""}],
     "test": {"request": {"baseURL": "={{ $credentials.webhookUri }}"}}},
    {"name": "ghostlyAdminApi", "displayName": "Ghostly Admin", "properties": [
        {"displayName": "API Key", "name": "apiKey", "type": "string", "typeOptions": {"password": True}}]},
    {"name": "ghostlyContentApi", "displayName": "Ghostly Content", "properties": [
        {"displayName": "API Key", "name": "apiKey", "type": "string", "typeOptions": {"password": True}}]},
    {"name": "intranetBasic", "displayName": "Intranet", "properties": [
        {"displayName": "User", "name": "user", "type": "string", "default": ""},
        {"displayName": "Password", "name": "password", "type": "string", "typeOptions": {"password": True}}],
     "httpRequestNode": {"apiBaseUrl": "https://intranet.example/api"}},
]  # fmt: skip

KNOWN_NODES = {
    "chatly": {"className": "Chatly", "sourcePath": "dist/nodes/Chatly/Chatly.node.js"},
    "formatter": {"className": "Formatter", "sourcePath": "dist/nodes/Formatter/Formatter.node.js"},
}

# Shapes from @n8n/n8n-nodes-langchain.
LC_NODES = [
    {"displayName": "Wikipedia", "name": "toolWikipedia", "group": ["transform"], "version": 1,
     "description": "Search in Wikipedia", "inputs": [], "outputs": ["ai_tool"],
     "codex": {"categories": ["AI"], "subcategories": {"AI": ["Tools"], "Tools": ["Other Tools"]}},
     "properties": [{"displayName": "Connect to an agent", "name": "notice", "type": "notice", "default": ""}]},
    {"displayName": "MCP Client Tool", "name": "mcpClientTool", "group": ["output"], "version": [1, 1.1],
     "defaultVersion": 1.1, "description": "Connect tools from an MCP Server", "inputs": [],
     "outputs": [{"type": "ai_tool", "displayName": "Tools"}],
     "credentials": [{"name": "httpBearerAuth", "required": True}],
     "codex": {"categories": ["AI"], "subcategories": {"AI": ["Model Context Protocol"]}},
     "properties": [{"displayName": "Endpoint", "name": "endpointUrl", "type": "string", "default": ""}]},
    {"displayName": "OpenAI Chat Model", "name": "lmChatOpenAi", "group": ["transform"], "version": 1,
     "description": "For advanced usage with an AI chain", "inputs": [], "outputs": ["ai_languageModel"],
     "codex": {"categories": ["AI"], "subcategories": {"AI": ["Language Models", "Root Nodes"]}},
     "properties": []},
    {"displayName": "Basic LLM Chain", "name": "chainLlm", "group": ["transform"], "version": 1,
     "description": "A simple chain", "inputs": "={{ ((p) => ['main'])($parameter) }}", "outputs": ["main"],
     "codex": {"categories": ["AI"], "subcategories": {"AI": ["Chains", "Root Nodes"]}}, "properties": []},
    {"displayName": "Pinecone Vector Store", "name": "vectorStorePinecone", "group": ["transform"],
     "version": [1, 1.1], "description": "Work with your data in Pinecone Vector Store",
     "inputs": "={{ [] }}", "outputs": "={{ [] }}",
     "credentials": [{"name": "pineconeApi", "required": True}],
     "codex": {"categories": ["AI"],
               "subcategories": {"AI": ["Vector Stores", "Tools", "Root Nodes"], "Tools": ["Other Tools"]}},
     "properties": [
         {"displayName": "Operation Mode", "name": "mode", "type": "options", "default": "retrieve",
          "options": [
              {"name": "Get Many", "value": "load", "action": "Get ranked documents from vector store"},
              {"name": "Insert Documents", "value": "insert", "action": "Add documents to vector store"},
              {"name": "Retrieve Documents (As Tool for AI Agent)", "value": "retrieve-as-tool",
               "description": "Retrieve documents from vector store to be used as tool with AI nodes",
               "action": "Retrieve documents for AI Agent as Tool"}]},
         {"displayName": "Description", "name": "toolDescription", "type": "string", "default": "",
          "required": True, "displayOptions": {"show": {"mode": ["retrieve-as-tool"]}}},
         {"displayName": "Batch Size", "name": "batchSize", "type": "number", "default": 200,
          "displayOptions": {"show": {"mode": ["insert"]}}},
     ]},
    {"displayName": "Anthropic", "name": "anthropic", "group": ["transform"], "version": 1,
     "description": "Message Claude", "inputs": ["main"], "outputs": ["main"], "usableAsTool": True,
     "credentials": [{"name": "anthropicApi", "required": True}],
     "codex": {"categories": ["AI"], "subcategories": {"AI": ["Agents", "Miscellaneous", "Root Nodes"]}},
     "properties": [
         {"displayName": "Resource", "name": "resource", "type": "options", "default": "text",
          "options": [{"name": "Text", "value": "text"}]},
         {"displayName": "Operation", "name": "operation", "type": "options", "default": "message",
          "displayOptions": {"show": {"resource": ["text"]}},
          "options": [{"name": "Message a Model", "value": "message", "action": "Message a model"}]}]},
    {"displayName": "Chat Memory Manager", "name": "memoryManager", "group": ["transform"], "version": 1,
     "description": "Manage chat messages memory", "inputs": ["main"], "outputs": ["main"],
     "codex": {"categories": ["AI"], "subcategories": {"AI": ["Miscellaneous", "Root Nodes"]}},
     "properties": [{"displayName": "Mode", "name": "mode", "type": "options", "default": "load",
                     "options": [{"name": "Get", "value": "load"}]}]},
]  # fmt: skip

LC_CREDENTIALS = [
    {"name": "anthropicApi", "displayName": "Anthropic", "properties": [
        {"displayName": "API Key", "name": "apiKey", "type": "string", "typeOptions": {"password": True}}],
     "test": {"request": {"baseURL": "https://api.anthropic.com", "url": "/v1/models"}}},
    {"name": "pineconeApi", "displayName": "Pinecone", "properties": [
        {"displayName": "API Key", "name": "apiKey", "type": "string", "typeOptions": {"password": True}}]},
]  # fmt: skip


def base_package(nodes: list | None = None, **extra: str | bytes) -> PackageFiles:
    files: dict[str, str | bytes] = {
        "package.json": json.dumps({"name": PKG, "version": "2.0.0", "n8n": {"nodes": ["dist/nodes/X.node.js"]}}),
        "dist/types/nodes.json": json.dumps(BASE_NODES if nodes is None else nodes),
        "dist/types/credentials.json": json.dumps(CREDENTIALS),
        "dist/known/nodes.json": json.dumps(KNOWN_NODES),
    }
    files.update(extra)
    return package_files(PKG, "2.0.0", "npm", files)


def lc_package() -> PackageFiles:
    return package_files(
        "@n8n/n8n-nodes-langchain",
        "2.0.0",
        "npm",
        {
            "package.json": json.dumps({"name": "@n8n/n8n-nodes-langchain", "version": "2.0.0"}),
            "dist/types/nodes.json": json.dumps(LC_NODES),
            "dist/types/credentials.json": json.dumps(LC_CREDENTIALS),
        },
    )


@pytest.fixture(scope="module")
def base():
    extraction = n8n.extract(base_package())
    assert extraction.errors == []
    return extraction, {t.local_id: t for t in extraction.tools}


def test_want_reads_only_the_json_catalogs():
    for path in (
        "package.json",
        "dist/types/nodes.json",
        "dist/types/credentials.json",
        "dist/known/nodes.json",
        "dist/known/credentials.json",
    ):
        assert n8n.want(path)
    for path in ("dist/nodes/Slack/Slack.node.js", "dist/nodes/Slack/Slack.node.json", "README.md", "nodes.json"):
        assert not n8n.want(path)


def test_counting_rule_is_explicit_and_in_the_docstring():
    assert "default version" in n8n.COUNTING_RULE
    assert "trigger" in n8n.COUNTING_RULE and "Hidden" in n8n.COUNTING_RULE
    assert n8n.COUNTING_RULE in (n8n.__doc__ or "")


def test_one_tool_per_node_resource_operation_at_default_version(base):
    extraction, by_id = base
    assert list(by_id) == [
        "chatly:-:sendLegacy",
        "chatly:message:post",
        "chatly:message:update",
        "chatly:channel:archive",
        "chatly:auditLog:-",
        "formatter:-:-",
        "oldReader:-:read",
        "ghostly:post:get",
        "ghostly:post:create",
        "intranet:-:-",
    ]
    assert len(extraction.tools) == len({t.local_id for t in extraction.tools})
    # version 1's operation belongs to a non-default entry
    assert not any("postOld" in t.local_id for t in extraction.tools)
    assert extraction.skipped == {
        "trigger": 2,
        "other_version_entry": 1,
        "duplicate_operation": 1,
        "ui_only": 1,
    }


def test_version_gating_and_show_hide(base):
    _, by_id = base
    post = by_id["chatly:message:post"].parameters["properties"]
    assert "threadTs" in post  # @version gte 2.1 at default 2.1
    assert "oldField" not in post  # @version lt 2.1
    assert {"resource", "operation", "oldVersionNotice"}.isdisjoint(post)
    assert "postOnly" in post
    assert "postOnly" not in by_id["chatly:message:update"].parameters["properties"]  # hide.operation
    assert "threadTs" not in by_id["chatly:channel:archive"].parameters["properties"]
    # the resourceless webhook operation gets none of the per-resource properties
    legacy = by_id["chatly:-:sendLegacy"].parameters["properties"]
    assert "channelId" not in legacy and "text" not in legacy and "authentication" in legacy


def test_names_and_descriptions(base):
    _, by_id = base
    post = by_id["chatly:message:post"]
    assert post.name == "Chatly: Send a message"
    assert post.display_name == "Chatly"
    assert post.description == "Consume Chatly API. Send a message. Posts a message to a channel."
    update = by_id["chatly:message:update"]  # no action: label + resource
    assert update.name == "Chatly: Update Message"
    assert update.description == "Consume Chatly API. Update Message. Edit a posted message."
    assert by_id["formatter:-:-"].name == "Formatter"
    assert by_id["formatter:-:-"].description == "Format text values."
    assert by_id["ghostly:post:get"].description == "Consume Ghostly API. Get a post."
    assert all(t.service for t in by_id.values())
    assert by_id["chatly:message:post"].service == "chatly"


def test_parameter_schema(base):
    _, by_id = base
    params = by_id["chatly:message:post"].parameters
    props = params["properties"]
    assert params["type"] == "object"
    assert params["required"] == ["channelId", "text"]
    assert props["channelId"]["type"] == "string"
    assert props["channelId"]["description"] == "The channel to send to"  # HTML stripped
    assert props["priority"] == {
        "type": "string",
        "enum": ["low", "normal"],
        "title": "Priority",
        "default": "normal",
        "x-n8n-type": "options",
    }
    assert props["count"]["type"] == "number" and props["count"]["default"] == 5
    assert props["tags"]["type"] == "array" and props["tags"]["items"]["enum"] == ["a", "b"]
    assert props["payload"]["type"] == "string" and "default" not in props["payload"]  # expression default
    assert props["options"]["type"] == "object"
    assert props["options"]["properties"]["unfurl"]["type"] == "boolean"
    assert props["headers"]["type"] == "array"
    assert props["headers"]["items"]["properties"]["header"]["properties"]["name"]["type"] == "string"
    assert "default" not in props["text"]  # empty string is no real default
    dynamic = by_id["chatly:channel:archive"].parameters["properties"]["dynamicChannel"]
    assert dynamic["type"] == "string" and "enum" not in dynamic


def test_parameters_are_valid_json_schema(base):
    jsonschema = pytest.importorskip("jsonschema")
    _, by_id = base
    for tool in by_id.values():
        jsonschema.Draft202012Validator.check_schema(tool.parameters)


def test_auth_credentials_and_kinds(base):
    _, by_id = base
    post = by_id["chatly:message:post"]
    # the credential of the default authentication choice comes first and sets the kind
    assert post.auth_credentials == ["chatlyApi", "chatlyOAuth2Api", "chatlyWebhookApi"]
    assert post.auth_type == "api_key"
    assert by_id["formatter:-:-"].auth_type == "none"
    assert by_id["formatter:-:-"].auth_credentials == []
    assert by_id["intranet:-:-"].auth_type == "basic"
    ghost = by_id["ghostly:post:get"]
    assert ghost.auth_credentials == ["ghostlyContentApi", "ghostlyAdminApi"]  # source defaults to contentApi
    assert ghost.auth_type == "api_key"


def test_credential_kind_walks_extends():
    creds = {c["name"]: c for c in CREDENTIALS}
    assert credential_kind("chatlyOAuth2Api", creds, set()) == "oauth2"
    assert credential_kind("chatlyApi", creds, set()) == "api_key"
    assert credential_kind("intranetBasic", creds, set()) == "basic"
    assert credential_kind("chatlyWebhookApi", creds, set()) == "other"
    creds["myGoogle"] = {"name": "myGoogle", "extends": ["googleOAuth2Api"], "properties": []}
    creds["googleOAuth2Api"] = {"name": "googleOAuth2Api", "extends": ["oAuth2Api"], "properties": []}
    assert credential_kind("myGoogle", creds, set()) == "oauth2"
    # not in this package (the langchain package reuses base credentials): judged by its name
    assert credential_kind("openAiApi", {}, set()) == "api_key"
    assert credential_kind("httpBasicAuth", {}, set()) == "basic"


def test_endpoints_docs_categories_source(base):
    _, by_id = base
    post = by_id["chatly:message:post"]
    assert post.endpoints == [
        "https://api.chatly.example/v2",
        "https://hooks.chatly.example/post",
        "https://chatly.example",
        "={{ $credentials.webhookUri }}",  # templated: kept as is, classified later
    ]
    archive = by_id["chatly:channel:archive"]
    assert "/channels.archive" not in archive.endpoints  # relative routing URL
    assert by_id["intranet:-:-"].endpoints == ["https://intranet.example/api"]
    assert post.doc_urls == [DOCS, CRED_DOCS, "https://docs.chatly.example/oauth"]
    assert post.categories == ["Communication", "HITL", "Human in the Loop"]
    assert post.source_path == "dist/nodes/Chatly/Chatly.node.js"
    assert by_id["ghostly:post:get"].source_path == NODES_JSON  # no known entry, no matching JS path
    assert post.usable_as_tool is True
    assert by_id["formatter:-:-"].usable_as_tool is False


def test_flags_hidden_legacy_and_duplicates(base):
    _, by_id = base
    assert "node_level" in by_id["formatter:-:-"].flags
    old = by_id["oldReader:-:read"]
    assert old.deprecated and "hidden" in old.flags
    legacy = by_id["chatly:-:sendLegacy"]
    assert legacy.deprecated and "legacy_operation" in legacy.flags
    assert not by_id["chatly:message:post"].deprecated
    ghost = by_id["ghostly:post:get"]
    assert ghost.name == "Ghostly: Get a post"  # first definition wins
    assert "merged_duplicate_operation" in ghost.flags
    assert {"postId", "drafts"} <= set(ghost.parameters["properties"])  # union of both definitions
    audit = by_id["chatly:auditLog:-"]
    assert "resource_only" in audit.flags and audit.name == "Chatly: Audit Log operations"


def test_langchain_package_keeps_agent_tools_only():
    extraction = n8n.extract(lc_package())
    assert extraction.errors == []
    by_id = {t.local_id: t for t in extraction.tools}
    assert list(by_id) == [
        "toolWikipedia:-:-",
        "mcpClientTool:-:-",
        "vectorStorePinecone:-:retrieve-as-tool",
        "anthropic:text:message",
    ]
    assert extraction.skipped == {
        "ai_language_model": 1,
        "ai_chain": 1,
        "ai_other": 1,
        "non_tool_mode": 2,
    }
    wiki = by_id["toolWikipedia:-:-"]
    assert wiki.usable_as_tool is True and "native_ai_tool" in wiki.flags
    assert wiki.service == "wikipedia" and wiki.parameters["properties"] == {}
    mcp = by_id["mcpClientTool:-:-"]
    assert mcp.auth_credentials == ["httpBearerAuth"] and "external_credentials" in mcp.flags
    store = by_id["vectorStorePinecone:-:retrieve-as-tool"]
    assert store.name == "Pinecone Vector Store: Retrieve documents for AI Agent as Tool"
    assert set(store.parameters["properties"]) == {"toolDescription"}
    assert store.auth_type == "api_key" and store.service == "pinecone"
    assert by_id["anthropic:text:message"].endpoints == ["https://api.anthropic.com"]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"[{", "invalid JSON"),
        (b'{"nodes": []}', "expected a JSON list"),
        (b"\xff\xfe", "invalid JSON"),
    ],
)
def test_malformed_nodes_json_is_an_error_not_an_exception(content, needle):
    pkg = base_package(**{"dist/types/nodes.json": content})
    extraction = n8n.extract(pkg)
    assert extraction.tools == []
    assert [p for p, _ in extraction.errors] == ["dist/types/nodes.json"]
    assert needle in extraction.errors[0][1]


def test_one_malformed_node_does_not_cost_the_rest():
    broken = {**FORMATTER, "name": "broken", "properties": [{"name": "x", "displayOptions": {"show": []}}]}
    nodes = [{"displayName": "nameless"}, "junk", broken, {**FORMATTER, "version": "one"}, CHATLY_V2]
    extraction = n8n.extract(base_package(nodes))
    ids = [t.local_id for t in extraction.tools]
    assert "chatly:message:post" in ids
    assert sum(1 for p, _ in extraction.errors if p == NODES_JSON) == 2  # the two nameless entries


def test_missing_catalogs():
    pkg = package_files(PKG, "1.0.0", "npm", {"package.json": json.dumps({"name": "n8n-nodes-foo", "n8n": {}})})
    extraction = n8n.extract(pkg)
    assert extraction.tools == []
    assert "no *.node.js: not an n8n node package" in extraction.errors[0][1]
    # credentials.json and known/ are optional: the tools still come out
    files = {"dist/types/nodes.json": json.dumps([FORMATTER])}
    extraction = n8n.extract(package_files(PKG, "1.0.0", "npm", files))
    assert [t.local_id for t in extraction.tools] == ["formatter:-:-"] and extraction.errors == []


def test_community_prefixed_names_and_source_path_from_package_json():
    node = {**FORMATTER, "name": "n8n-nodes-foo.fooFormatter"}
    files = {
        "package.json": json.dumps({"n8n": {"nodes": ["dist/nodes/Foo/FooFormatter.node.js"]}}),
        "dist/types/nodes.json": json.dumps([node]),
    }
    (tool,) = n8n.extract(package_files("n8n-nodes-foo", "0.1.0", "npm", files)).tools
    assert tool.local_id == "fooFormatter:-:-"
    assert tool.service == "fooformatter"
    assert tool.source_path == "dist/nodes/Foo/FooFormatter.node.js"


def test_deterministic(base):
    _, by_id = base
    again = {t.local_id: t for t in n8n.extract(base_package()).tools}
    assert again == by_id


def test_real_tarball_round_trip(tmp_path: Path):
    path = build_npm_tgz(
        tmp_path,
        PKG,
        "2.0.0",
        {
            "dist/types/nodes.json": json.dumps(BASE_NODES),
            "dist/types/credentials.json": json.dumps(CREDENTIALS),
            "dist/known/nodes.json": json.dumps(KNOWN_NODES),
            "dist/nodes/Chatly/Chatly.node.js": "module.exports = {};",
        },
        package_json={"n8n": {"nodes": ["dist/nodes/Chatly/Chatly.node.js"]}},
    )
    contents = read_archive(path, n8n.want)
    assert "dist/nodes/Chatly/Chatly.node.js" not in contents.files
    extraction = n8n.extract(PackageFiles(name=PKG, version="2.0.0", registry="npm", files=contents.files))
    assert extraction.errors == []
    assert len(extraction.tools) == 10


def test_hidden_resource_and_operation_properties_give_their_single_value():
    database = {
        **FORMATTER,
        "name": "database",
        "displayName": "Database",
        "properties": [
            {"displayName": "Resource", "name": "resource", "type": "hidden", "default": "database"},
            {"displayName": "Operation", "name": "operation", "type": "options", "default": "insert",
             "displayOptions": {"show": {"resource": ["database"]}},
             "options": [{"name": "Insert", "value": "insert", "action": "Insert rows in a table"}]},
        ],
    }  # fmt: skip
    runner = {
        **FORMATTER,
        "name": "runner",
        "displayName": "Runner",
        "properties": [{"displayName": "Operation", "name": "operation", "type": "hidden", "default": "call"}],
    }
    tools = n8n.extract(base_package([database, runner])).tools
    assert [(t.local_id, t.name) for t in tools] == [
        ("database:database:insert", "Database: Insert rows in a table"),
        ("runner:-:call", "Runner"),
    ]


ROUTED = {
    "displayName": "Routed", "name": "n8n-nodes-base.routed", "group": ["transform"], "version": 1,
    "description": "Declarative node", "inputs": ["main"], "outputs": ["main"],
    "requestDefaults": {"baseURL": "https://api.routed.example", "method": "PUT"},
    "properties": [
        {"displayName": "Resource", "name": "resource", "type": "options", "default": "item",
         "options": [{"name": "Item", "value": "item"},
                     {"name": "Job", "value": "job", "routing": {"request": {"method": "post", "url": "/jobs"}}}]},
        {"displayName": "Operation", "name": "operation", "type": "options", "default": "get",
         "displayOptions": {"show": {"resource": ["item"]}},
         "options": [
             {"name": "Get", "value": "get", "routing": {"request": {"method": "GET", "url": "=/items/{{$value}}"}}},
             {"name": "Delete", "value": "delete",
              "routing": {"request": {"method": "DELETE", "url": "=/items/{{$value}}"}}},
             {"name": "Activate", "value": "activate"},
             {"name": "Touch", "value": "touch", "routing": {"request": {"url": "/touch"}}},
             {"name": "Local", "value": "local"},
         ]},
        {"displayName": "Operation", "name": "operation", "type": "options", "default": "run",
         "displayOptions": {"show": {"resource": ["job"]}},
         "options": [{"name": "Run", "value": "run"}]},
        # a parameter carries the request of one operation (n8n node's workflowId: POST .../activate)
        {"displayName": "ID", "name": "id", "type": "string", "default": "",
         "displayOptions": {"show": {"operation": ["activate"]}},
         "routing": {"request": {"method": "PATCH", "url": "=/items/{{$value}}/activate"}}},
        {"displayName": "Query", "name": "q", "type": "string", "default": "",
         "displayOptions": {"show": {"operation": ["local"]}}, "routing": {"send": {"type": "query", "property": "q"}}},
    ],
}  # fmt: skip


def test_http_methods_from_declarative_routing():
    plain = {**ROUTED, "name": "n8n-nodes-base.plain", "requestDefaults": {"baseURL": "https://plain.example"}}
    by_id = {t.local_id: t for t in n8n.extract(base_package([ROUTED, plain])).tools}
    assert by_id["routed:item:get"].http_methods == ["GET"]
    assert by_id["routed:item:delete"].http_methods == ["DELETE"]
    assert by_id["routed:item:activate"].http_methods == ["PATCH"]  # from the displayed parameter
    assert by_id["routed:job:run"].http_methods == ["POST"]  # the selected resource option, upper-cased
    # a routing request without a method: requestDefaults' method, else n8n's default GET (flagged)
    assert by_id["routed:item:touch"].http_methods == ["PUT"]
    touch = by_id["plain:item:touch"]
    assert touch.http_methods == ["GET"] and "http_method_default" in touch.flags
    assert "http_method_default" not in by_id["routed:item:get"].flags
    # no routing request for the action (only routing.send, or none): nothing known
    assert by_id["routed:item:local"].http_methods == [] and by_id["plain:item:local"].http_methods == []
    # no env vars on n8n
    assert all(not t.env_vars_declared and not t.env_vars_read for t in by_id.values())


def test_http_methods_on_fixture_catalog(base):
    _, by_id = base
    assert by_id["chatly:message:post"].http_methods == ["POST"]
    assert by_id["chatly:channel:archive"].http_methods == ["GET"]  # url, no method: n8n's default
    assert by_id["chatly:message:update"].http_methods == []  # no routing: programmatic
