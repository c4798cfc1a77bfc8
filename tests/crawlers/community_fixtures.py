"""n8n community packages in their shipped shapes, made on the spot: a package with only compiled node classes
(tsc's CommonJS, the n8n-nodes-starter layout) and an n8n-mcp tarball whose ``data/nodes.db`` lists community nodes.

The JS package (``n8n-nodes-acme``) has the shapes the extractor must read: a declarative node whose properties
are spread from description modules re-exported through an index (``__exportStar``, ``Object.defineProperty``
getters, ``__importDefault``, a module's own ``exports.X``) with option names taken from an exported object's
members and connection types from n8n-workflow's ``NodeConnectionType``; a trigger written as an ES2022 class field;
a versioned node (``VersionedNodeType``); a node whose properties an OpenAPI builder makes at run time; a declared
node file the archive lacks; and a credential class injecting an API key header.
"""

from __future__ import annotations

import base64
import gzip
import json
import sqlite3
import tempfile
from pathlib import Path

from tests.package_builders import build_npm_tgz

ACME, ACME_VERSION = "n8n-nodes-acme", "1.2.0"
LISTING_PACKAGE, LISTING_VERSION = "n8n-mcp", "0.0.1"

_ACME_NODE = """"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Acme = void 0;
const n8n_workflow_1 = require("n8n-workflow");
const descriptions_1 = require("./descriptions");
const extra_1 = __importDefault(require("./extra"));
class Acme {
    constructor() {
        this.description = {
            displayName: 'Acme',
            name: 'acme',
            group: ['transform'],
            version: 1,
            description: 'Work with Acme invoices and contacts',
            defaults: { name: 'Acme' },
            inputs: [n8n_workflow_1.NodeConnectionType.Main],
            outputs: [n8n_workflow_1.NodeConnectionType.Main],
            usableAsTool: true,
            credentials: [{ name: 'acmeApi', required: true }],
            requestDefaults: { baseURL: 'https://api.acme.test/v1' },
            properties: [
                {
                    displayName: 'Resource',
                    name: 'resource',
                    type: 'options',
                    noDataExpression: true,
                    options: [
                        { name: descriptions_1.invoiceResource.displayName,
                          value: descriptions_1.invoiceResource.value },
                        { name: 'Contact', value: 'contact' },
                    ],
                    default: 'invoice',
                },
                ...descriptions_1.invoiceOperations,
                ...descriptions_1.contactOperations,
                ...extra_1.default,
            ],
        };
    }
    async execute() {
        throw new Error('never run');
    }
}
exports.Acme = Acme;
"""

_DESCRIPTIONS_INDEX = """"use strict";
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) exports[p] = m[p];
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.invoiceResource = exports.contactOperations = void 0;
__exportStar(require("./InvoiceDescription"), exports);
var ContactDescription_1 = require("./ContactDescription");
Object.defineProperty(exports, "contactOperations", { enumerable: true,
    get: function () { return ContactDescription_1.contactOperations; } });
exports.invoiceResource = { displayName: 'Invoice', value: 'invoice' };
"""

_INVOICE = """"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.invoiceFields = exports.invoiceOperations = void 0;
exports.invoiceOperations = [
    {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        displayOptions: { show: { resource: ['invoice'] } },
        options: [
            { name: 'Create', value: 'create', action: 'Create an invoice',
              routing: { request: { method: 'POST', url: '/invoices' } } },
            { name: 'Get', value: 'get', action: 'Get an invoice',
              routing: { request: { method: 'GET', url: '=/invoices/{{$parameter.invoiceId}}' } } },
        ],
        default: 'create',
    },
    {
        displayName: 'Invoice ID',
        name: 'invoiceId',
        type: 'string',
        required: true,
        displayOptions: { show: { resource: ['invoice'], operation: ['get'] } },
        default: '',
    },
];
"""

_CONTACT = """"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.contactOperations = exports.contactOperation = void 0;
exports.contactOperation = {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['contact'] } },
    options: [{ name: 'List', value: 'list', action: 'List contacts' }],
    default: 'list',
};
exports.contactOperations = [exports.contactOperation];
"""

_EXTRA = """"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.default = [
    { displayName: 'Notes', name: 'notes', type: 'string', default: '',
      displayOptions: { show: { resource: ['contact'] } } },
];
"""

_TRIGGER = """export class AcmeTrigger {
    description = {
        displayName: 'Acme Trigger', name: 'acmeTrigger', group: ['trigger'], version: 1,
        description: 'Starts on Acme events', inputs: [], outputs: ['main'], properties: [],
    };
}
"""

_VERSIONED = """"use strict";
const n8n_workflow_1 = require("n8n-workflow");
class Legacy extends n8n_workflow_1.VersionedNodeType {
    constructor() {
        const baseDescription = { displayName: 'Legacy', name: 'legacy', defaultVersion: 2 };
        super({ 1: null, 2: null }, baseDescription);
    }
}
exports.Legacy = Legacy;
"""

_BUILDER = """"use strict";
const builder_1 = require("@acme/openapi-node");
const properties = new builder_1.Builder(require("./openapi.json")).build();
class Builder {
    constructor() {
        this.description = { displayName: 'Builder', name: 'builder', version: 1, inputs: ['main'],
                             outputs: ['main'], properties: properties };
    }
}
exports.Builder = Builder;
"""

_CREDENTIAL = """"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.AcmeApi = void 0;
class AcmeApi {
    constructor() {
        this.name = 'acmeApi';
        this.displayName = 'Acme API';
        this.documentationUrl = 'https://docs.acme.test/auth';
        this.properties = [
            { displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
        ];
        this.authenticate = {
            type: 'generic',
            properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
        };
    }
}
exports.AcmeApi = AcmeApi;
"""

ACME_NODE_PATHS = ["dist/nodes/Acme/Acme.node.js", "dist/nodes/AcmeTrigger/AcmeTrigger.node.js",
                   "dist/nodes/Legacy/Legacy.node.js", "dist/nodes/Builder/Builder.node.js",
                   "dist/nodes/Gone/Gone.node.js"]  # fmt: skip
ACME_FILES = {
    "dist/nodes/Acme/Acme.node.js": _ACME_NODE,
    "dist/nodes/Acme/descriptions/index.js": _DESCRIPTIONS_INDEX,
    "dist/nodes/Acme/descriptions/InvoiceDescription.js": _INVOICE,
    "dist/nodes/Acme/descriptions/ContactDescription.js": _CONTACT,
    "dist/nodes/Acme/extra.js": _EXTRA,
    "dist/nodes/AcmeTrigger/AcmeTrigger.node.js": _TRIGGER,
    "dist/nodes/Legacy/Legacy.node.js": _VERSIONED,
    "dist/nodes/Builder/Builder.node.js": _BUILDER,
    "dist/credentials/AcmeApi.credentials.js": _CREDENTIAL,
    "dist/nodes/Acme/Acme.node.js.map": "{}",
}
ACME_PACKAGE_JSON = {"n8n": {"n8nNodesApiVersion": 1, "nodes": [f"./{p}" for p in ACME_NODE_PATHS],
                             "credentials": ["dist/credentials/AcmeApi.credentials.js"]}}  # fmt: skip
ACME_TOOLS = {"acme:invoice:create", "acme:invoice:get", "acme:contact:list"}


def build_acme(mirror: Path) -> Path:
    return build_npm_tgz(mirror, ACME, ACME_VERSION, ACME_FILES, package_json=ACME_PACKAGE_JSON)


def compressed(value: object) -> str:
    """A listing column as n8n-mcp stores large ones: base64 of gzip of the JSON."""
    return base64.b64encode(gzip.compress(json.dumps(value).encode())).decode()


_WEATHER_PROPERTIES = [
    {"displayName": "Resource", "name": "resource", "type": "options", "noDataExpression": True, "default": "forecast",
     "options": [{"name": "Forecast", "value": "forecast"}]},
    {"displayName": "Operation", "name": "operation", "type": "options", "noDataExpression": True, "default": "get",
     "displayOptions": {"show": {"resource": ["forecast"]}},
     "options": [{"name": "Get", "value": "get", "action": "Get a forecast"},
                 {"name": "Alerts", "value": "alerts", "action": "Get weather alerts"}]},
    {"displayName": "City", "name": "city", "type": "string", "default": "", "required": True,
     "displayOptions": {"show": {"resource": ["forecast"]}}},
]  # fmt: skip

_BUILDER_PROPERTIES = [{"displayName": "Operation", "name": "operation", "type": "options", "default": "run",
                        "options": [{"name": "Run", "value": "run", "action": "Run a build"}]}]  # fmt: skip
BUILDER = "n8n-nodes-builder"


def build_builder(mirror: Path) -> Path:
    """A package whose only node's properties are made at run time: no tool from its archive, one from the listing."""
    return build_npm_tgz(mirror, BUILDER, "1.0.0", {"dist/nodes/Builder/Builder.node.js": _BUILDER},
                         package_json={"n8n": {"nodes": ["dist/nodes/Builder/Builder.node.js"]}})  # fmt: skip


# (package, npm_version, is_verified, node_type, properties column, is_trigger): what the listing holds
LISTING_ROWS = [
    (ACME, ACME_VERSION, 1, f"{ACME}.acme", "[]", 0),  # read from its archive: the listing's copy is not used
    ("n8n-nodes-weather", "0.9.0", 1, "n8n-nodes-weather.weather", "[]", 0),  # older listing row of the same node
    ("n8n-nodes-weather", "0.10.0", 1, "n8n-nodes-weather.weather", compressed(_WEATHER_PROPERTIES), 0),
    ("n8n-nodes-weather", "0.10.0", 0, "n8n-nodes-weather.weatherTrigger", "[]", 1),
    ("@someone/n8n-nodes-empty", "2.0.0", 0, "@someone/n8n-nodes-empty.empty", "[]", 0),
    (BUILDER, "1.0.0", 1, f"{BUILDER}.builder", json.dumps(_BUILDER_PROPERTIES), 0),
]  # fmt: skip


def listing_db(rows=LISTING_ROWS, signals: bool = True) -> bytes:
    """An SQLite file with n8n-mcp's ``nodes`` table: one official row and the community ``rows``; with ``signals``,
    the listing's own columns of a package too (npm downloads, author, when it was read), as recent versions of the
    table have them."""
    extra = ", npm_downloads INTEGER, author_name TEXT, community_fetched_at DATETIME" if signals else ""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nodes.db"
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE nodes (node_type TEXT PRIMARY KEY, package_name TEXT, display_name TEXT, "
                    "description TEXT, version TEXT, properties_schema TEXT, credentials_required TEXT, outputs TEXT, "
                    f"is_trigger INTEGER, is_ai_tool INTEGER, is_community INTEGER, is_verified INTEGER, "
                    f"npm_package_name TEXT, npm_version TEXT{extra})")  # fmt: skip
        con.execute("INSERT INTO nodes (node_type, package_name, display_name, description, version, "
                    "properties_schema, credentials_required, outputs, is_trigger, is_ai_tool, is_community, "
                    "is_verified) VALUES ('n8n-nodes-base.slack', 'n8n-nodes-base', 'Slack', 'Slack', '2', '[]', "
                    "'[]', NULL, 0, 1, 0, 0)")  # fmt: skip
        for i, (package, version, verified, node_type, properties, trigger) in enumerate(rows):
            short = node_type.rsplit(".", 1)[-1]
            con.execute("INSERT INTO nodes (node_type, package_name, display_name, description, version, "
                        "properties_schema, credentials_required, outputs, is_trigger, is_ai_tool, is_community, "
                        "is_verified, npm_package_name, npm_version) "
                        "VALUES (?, ?, ?, ?, '1', ?, '[]', '[\"main\"]', ?, 1, 1, ?, ?, ?)",
                        (node_type if i != 1 else node_type + "-old", package, short.title(), f"The {short} node",
                         properties, trigger, verified, package, version))  # fmt: skip
            if signals:
                con.execute("UPDATE nodes SET npm_downloads = ?, author_name = ?, community_fetched_at = ? "
                            "WHERE node_type = ?", (100 * (i + 1), f"{short.title()} Author",
                                                    f"2026-11-0{i + 1} 10:00:00", node_type))  # fmt: skip
        con.commit()
        con.close()
        return path.read_bytes()


def build_listing(mirror: Path, rows=LISTING_ROWS, signals: bool = True) -> Path:
    return build_npm_tgz(mirror, LISTING_PACKAGE, LISTING_VERSION, {"data/nodes.db": listing_db(rows, signals)})


def listing_overrides() -> list[str]:
    return ["crawl.community_listing.enabled=true", f"label.workflows.package={LISTING_PACKAGE}@{LISTING_VERSION}",
            "label.workflows.package_sha256=null"]  # fmt: skip
