"""Secrets of every format the project redacts, and packages that carry them in every field a crawl reads.

Every value is a made-up key in a real provider's shape, assembled from parts so that no secret scanner mistakes
this file for a leak. ``SAMPLES`` feeds the per-format tests of :mod:`ecoagent.text.redaction`;
``build_planted_packages``
writes an n8n node, a LangChain tool and an MCP server that carry all of them (prose fields get ``TEXT``, every
format at once; URL fields get ``URL``, every key-shaped format as a query value, plus a password in the URL).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.package_builders import build_npm_tgz, build_wheel

_AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYq3ZkLp9TQe"  # 40 characters
_PEM_BODY = "MIIEowIBAAKCAQEA7xQk3Zb" + "9wV1qJb4eK2fNmXc8TtR0aPuYd6LsHgE5oWnVjZ"

# (format name, text as it appears in the field, the secret part that must be gone after redaction)
SAMPLES: list[tuple[str, str, str]] = [
    ("openai_key", "sk-" + "proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789", "Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789"),
    ("openai_key", "sk-" + "live-4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("anthropic_key", "sk-ant-" + "api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0AbCdEf", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0AbCdEf"),
    ("stripe_key", "sk_" + "live_51HxQ2Ab3Cd4Ef5Gh6Ij7Kl8", "51HxQ2Ab3Cd4Ef5Gh6Ij7Kl8"),
    ("stripe_key", "sk_" + "test_26PHem9AhJZvU623DfE1x4sd", "26PHem9AhJZvU623DfE1x4sd"),
    ("stripe_key", "rk_" + "live_51NbRestrictedKeyQ9w8E7r6T", "51NbRestrictedKeyQ9w8E7r6T"),
    ("aws_access_key_id", "AKIA" + "Q3EGRTH5WZXYJ2PL", "Q3EGRTH5WZXYJ2PL"),
    ("aws_secret_access_key", "aws_secret_access_key=" + _AWS_SECRET, _AWS_SECRET),
    ("aws_secret_access_key", "zQ8/vN3+" + "kLmP0aB7cD2eF5gH9iJ4kL6mN1oP3qR5", "kLmP0aB7cD2eF5gH9iJ4kL6mN1oP3qR5"),
    ("github_token", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ("github_token", "github_" + "pat_11ABCDEFG0123456789_abcdefghijKLMNOP", "11ABCDEFG0123456789_abcdefghijKLMNOP"),
    ("slack_token", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp", "1234567890123-AbCdEfGhIjKlMnOp"),
    ("slack_webhook", "https://hooks.slack.com/services/" + "T0A1B2C3D/B4E5F6G7H/abcdefGHIJKL0123456789",
     "abcdefGHIJKL0123456789"),
    ("google_api_key", "AIza" + "SyD-1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6", "SyD-1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6"),
    ("google_oauth", "ya29." + "a0AfH6SMBx3Lk9PqRsT2uVwXyZ01234567", "a0AfH6SMBx3Lk9PqRsT2uVwXyZ01234567"),
    ("huggingface_token", "hf_" + "kXqPzLmNoRsTuVwXyZaBcDeFgHiJkLmNo1", "kXqPzLmNoRsTuVwXyZaBcDeFgHiJkLmNo1"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("bearer_token", "Authorization: Bearer " + "8f3b2c9d1e0a7f6b5c4d3e2f1a0b9c8d", "8f3b2c9d1e0a7f6b5c4d3e2f1a0b9c8d"),
    ("url_query_secret", "https://api.planted.example/v1/items?n=5&api_key=" + "zq81Lm2Pp0Wx9Ty", "zq81Lm2Pp0Wx9Ty"),
    ("url_query_secret", "https://api.planted.example/v1/feed?token=" + "Tk7rWq2Zp9Lm4Xn", "Tk7rWq2Zp9Lm4Xn"),
    ("url_query_secret", "https://api.planted.example/v1/hook?secret=" + "Sc3tV8bN1mQ6wE", "Sc3tV8bN1mQ6wE"),
    ("url_query_secret", "https://maps.planted.example/geo?key=" + "Ky5uI0oP7aS2dF", "Ky5uI0oP7aS2dF"),
    ("url_credentials", "https://deploy:" + "S3cr3tPassw0rd9" + "@registry.planted.example/v2/", "S3cr3tPassw0rd9"),
    ("private_key_block", "-----BEGIN RSA PRIVATE KEY-----\n" + _PEM_BODY + "\n-----END RSA PRIVATE KEY-----",
     _PEM_BODY),
    ("assigned_secret", 'client_secret="' + "9f8e7d6c5b4a3f2e1d0c" + '"', "9f8e7d6c5b4a3f2e1d0c"),
]

SECRET_PARTS = sorted({part for _, _, part in SAMPLES})
TEXT = "Use it with " + " and ".join(text for _, text, _ in SAMPLES) + "."
# Every key-shaped value as a query parameter of one URL, behind a password: what a URL field can carry.
_KEY_SHAPED = [text for name, text, _ in SAMPLES if "=" not in text and " " not in text and "://" not in text]
URL = (
    "https://deploy:" + "S3cr3tPassw0rd9" + "@api.planted.example/v1/items?"
    + "&".join(f"key{i}={value}" for i, value in enumerate(_KEY_SHAPED))
    + "&api_key=" + "zq81Lm2Pp0Wx9Ty" + "&token=" + "Tk7rWq2Zp9Lm4Xn" + "&secret=" + "Sc3tV8bN1mQ6wE"
)  # fmt: skip
WEBHOOK = next(text for name, text, _ in SAMPLES if name == "slack_webhook")
N8N_PACKAGE, LANGCHAIN_PACKAGE = "n8n-nodes-planted", "langchain-planted"
MCP_PACKAGE = "@modelcontextprotocol/server-planted"
GITHUB_TOKEN = next(text for name, text, _ in SAMPLES if name == "github_token")

_N8N_NODES = [
    {
        "displayName": f"Planted {TEXT}",
        "name": f"{N8N_PACKAGE}.plantedNode",
        "group": ["output"],
        "version": 1,
        "description": f"Send things. {TEXT}",
        "documentationUrl": URL,
        "usableAsTool": True,
        "credentials": [{"name": GITHUB_TOKEN, "required": True}],
        "requestDefaults": {"baseURL": URL},
        "codex": {"categories": [TEXT], "resources": {"primaryDocumentation": [{"url": WEBHOOK}]}},
        "properties": [
            {"displayName": "Operation", "name": "operation", "type": "options", "noDataExpression": True,
             "options": [{"name": f"Send {TEXT}", "value": "send", "action": f"Send a message {TEXT}",
                          "description": TEXT, "routing": {"request": {"method": "POST", "url": URL}}}],
             "default": "send"},
            {"displayName": f"Token {TEXT}", "name": "token", "type": "string", "required": True, "default": TEXT,
             "placeholder": TEXT, "description": TEXT},
            {"displayName": "Mode", "name": "mode", "type": "options", "default": "a",
             "options": [{"name": TEXT, "value": "a"}, {"name": "Other", "value": GITHUB_TOKEN}]},
        ],
    },
    {   # a node whose own name is a secret: it ends up in the tool id
        "displayName": "Named", "name": f"{N8N_PACKAGE}.{GITHUB_TOKEN}", "group": ["output"], "version": 1,
        "description": "A node named after a token.", "properties": [],
    },
]  # fmt: skip

_LANGCHAIN_TOOL = f'''
from typing import Type

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

SECRET_TEXT = {TEXT!r}


class PlantedInput(BaseModel):
    query: str = Field(default={TEXT!r}, description={TEXT!r})


class PlantedTool(BaseTool):
    """{TEXT.replace('"', "'")}"""

    name: str = "planted_search"
    description: str = SECRET_TEXT
    args_schema: Type[BaseModel] = PlantedInput
    base_url: str = {URL!r}

    def _run(self, query: str) -> str:
        return query
'''

_MCP_INDEX = f"""#!/usr/bin/env node
import {{ Server }} from "@modelcontextprotocol/sdk/server/index.js";
const PLANTED_TOOL = {{
    name: "planted_lookup",
    description: {json.dumps(TEXT)},
    inputSchema: {{
        type: "object",
        properties: {{ q: {{ type: "string", description: {json.dumps(TEXT)}, default: {json.dumps(URL)} }} }},
        required: ["q"],
    }},
}};
server.setRequestHandler(ListToolsRequestSchema, async () => ({{ tools: [PLANTED_TOOL] }}));
"""


def build_planted_packages(mirror: Path) -> None:
    """Write the three planted packages into ``mirror`` and add them to its ``sources.yaml``."""
    build_npm_tgz(mirror, N8N_PACKAGE, "1.0.0", {"dist/types/nodes.json": json.dumps(_N8N_NODES),
                                                 "dist/types/credentials.json": "[]"})  # fmt: skip
    build_wheel(mirror, LANGCHAIN_PACKAGE, "0.1.0", {
        "langchain_planted/__init__.py": "",
        "langchain_planted/tools/planted/tool.py": _LANGCHAIN_TOOL,
    }, metadata_extra=f"Summary: {TEXT.splitlines()[0]}\nProject-URL: Documentation, {URL}\n")  # fmt: skip
    build_npm_tgz(mirror, MCP_PACKAGE, "0.1.0", {"dist/index.js": _MCP_INDEX})
    sources = mirror / "sources.yaml"
    entries = [("n8n", "npm", N8N_PACKAGE, "1.0.0", "community"), ("langchain", "pypi", LANGCHAIN_PACKAGE, "0.1.0",
               "platform"), ("mcp", "npm", MCP_PACKAGE, "0.1.0", "official")]  # fmt: skip
    sources.write_text(sources.read_text() + "".join(
        f'  - {{platform: {p}, registry: {r}, name: "{n}", version: "{v}", listing: {listing}}}\n'
        for p, r, n, v, listing in entries
    ))  # fmt: skip
