"""Labels the workflow itself completes: the service a generic node calls, named by its URL or its credential.

A workflow often reaches a service (Telegram, Slack, OpenAI, ...) through a generic node instead of the service's
own node. The non-gold rule sets those nodes apart (:data:`labeling.workflows.mapping.NON_GOLD_RULE`), so the
service would be no label, and a retriever that ranks its dedicated node first would be scored wrong. The
**completion rule** (``label.workflows.complete_generic_nodes``):

1. **Which nodes.** The nodes of :data:`GENERIC_CALLERS` only, the nodes whose job is to call a URL: HTTP Request
   (``n8n-nodes-base.httpRequest``), its AI-agent tool variants (``n8n-nodes-base.httpRequestTool``,
   ``@n8n/n8n-nodes-langchain.toolHttpRequest``) and GraphQL (``n8n-nodes-base.graphql``, its ``endpoint``). No
   other node is read: a webhook or a trigger receives calls, a Code node's text is not parsed.
2. **Which service: the credential** (resolution ``completed_credential``). Each credential type the node holds
   (the node's ``credentials``, and ``nodeCredentialType`` when ``authentication`` is
   ``predefinedCredentialType``) names a service when the catalog's n8n tools of exactly one service declare it
   (``auth_credentials``: ``telegramApi`` -> Telegram), else when the type without its credential suffix
   (``Api``, ``OAuth2Api``, ``ApiToken``, ...) is a service's name or alias (``mistralCloudApi`` -> Mistral AI).
   Generic types (``httpHeaderAuth`` and the other ``http...`` types, ``oAuth1Api``, ``oAuth2Api``) and types two
   services share (``aws``, ``microsoftOAuth2Api``) name none.
3. **Which service: the URL** (resolution ``completed_http_url``), when the URL is a literal ``http(s)://`` URL
   (an n8n expression after the host is fine: ``https://api.telegram.org/bot{{ $json.token }}/sendMessage``). In
   order: the routes of ``service_hosts.yaml`` (hosts whose name is not the service's, and the shared hosts told
   apart by the path: ``www.googleapis.com/drive/...`` -> Google Drive, ``graph.microsoft.com/.../workbook`` ->
   Excel); a host the catalog's n8n tools of one service give as their endpoint (``api.hubapi.com`` ->
   HubSpot); the host's own name (the label before its public suffix: ``api.telegram.org`` -> ``telegram``) when
   it is a catalog service's name or a one-word alias of ``service_aliases.yaml`` (``api.mistral.ai`` ->
   ``mistral`` -> Mistral AI) and no generic word. A host names no service when it is generic
   (``generic_hosts`` of ``service_hosts.yaml``: localhost, the user's own n8n, webhook.site, tunnels,
   placeholders), an IP address, a name without a dot, or an expression (``{{ $json.url }}``).
4. **Which tools, and how they count.** Every catalog tool of the service's n8n nodes (the HTTP call's operation
   is not read: a URL path is no reliable operation), each an **acceptable** label (``alternative = true``, as a
   stripped node's tools: not required, taken out of the ranking before scoring): a retriever that ranks the
   service first is not penalised, and nothing the workflow may not need becomes required. Its grade is the text's
   (:mod:`labeling.workflows.grades`: 2 when the title names the service, 1 when only the description does); a
   service no text names is no label (counted, ``unsupported``), as for the native labels.
5. **What it never does.** It adds nothing for a service the query already has a native label of (exact or
   alternative), and it never makes a template a query: only templates with a native label are completed, so the
   query set, its groups and its splits are those of the native labels.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import polars as pl
import yaml

from labeling.workflows import grades
from labeling.workflows.mapping import node_of
from labeling.workflows.reader import WorkflowNode

HOSTS_FILE = Path(__file__).with_name("service_hosts.yaml")
# the generic nodes read, each with the parameter that holds the URL it calls
GENERIC_CALLERS = {
    "n8n-nodes-base.httpRequest": "url",
    "n8n-nodes-base.httpRequestTool": "url",
    "@n8n/n8n-nodes-langchain.toolHttpRequest": "url",
    "n8n-nodes-base.graphql": "endpoint",
}
COMPLETION_RULE = (
    "A generic caller (HTTP Request, its tool variants, GraphQL) names the service it calls by a credential type "
    "that the catalog's n8n tools of one service declare (or whose name less its suffix is a service's name or "
    "alias; completed_credential), or by a literal URL whose host is routed in service_hosts.yaml, is one "
    "service's catalog endpoint, or is named after a catalog service (completed_http_url); generic hosts "
    "(localhost, the user's n8n, request catchers, tunnels, IPs, expressions) name none. Every catalog tool of "
    "that service's n8n nodes becomes an acceptable label (alternative: not required, out of the ranking), graded "
    "by the text like any label (a service no text names adds nothing), unless the query already has a native "
    "label of the service; only queries with a native label are completed."
)
CREDENTIAL = "completed_credential"
URL = "completed_http_url"
RESOLUTIONS = (CREDENTIAL, URL)
_GENERIC_CREDENTIAL = re.compile(r"^(http[A-Z]\w*|oAuth[12]Api)$")
_CREDENTIAL_SUFFIX = re.compile(r"(OAuth[12]Api|OAuth[12]|AccessTokenApi|ApiToken|TokenApi|CloudApi|Api|Token)$")
_URL = re.compile(r"^\s*=?\s*https?://([^/?#\s]+)([^?#\s]*)", re.IGNORECASE)
_HOST_NAME = re.compile(r"^[a-z0-9-]+$")
_TOP_LEVEL = re.compile(r"^[a-z]{2,24}$")
# public suffixes of two labels under which the service's name is the third label from the right
_SUFFIX_TEXT = (
    "co.uk org.uk ac.uk gov.uk com.au net.au co.jp co.in co.nz co.za com.br com.mx com.cn com.tr com.sg co.kr "
    "com.ar com.co co.id com.my com.ph com.vn"
)
_TWO_LABEL_SUFFIXES = frozenset(_SUFFIX_TEXT.split())
# host names that are words of the web, not services, even where a catalog node has the name
_NOT_A_SERVICE = frozenset({"n8n", "code", "html", "xml", "form", "wait", "flow", "webhook", "json", "files"})
_MIN_NAME = 4  # "ada.im" is no Ada, "line.me" is LINE


@dataclass(frozen=True)
class Route:
    host: str
    path: re.Pattern | None
    service: str | None  # None: the host names no service (a shared host whose path said nothing)


@cache
def host_rules() -> tuple[tuple[Route, ...], frozenset[str]]:
    """The routes and generic hosts of ``service_hosts.yaml``."""
    data = yaml.safe_load(HOSTS_FILE.read_text()) or {}
    routes = tuple(Route(host.lower(), re.compile(path, re.IGNORECASE) if path else None, service)
                   for host, path, service in data.get("routes", []))  # fmt: skip
    return routes, frozenset(h.lower() for h in data.get("generic_hosts", []))


def _under(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


def site_name(host: str) -> str | None:
    """The host's own name: the label before its public suffix (``api.telegram.org`` -> ``telegram``), None when
    the host has no dot, is an IP address, or that label is an expression or a placeholder."""
    labels = host.split(".")
    if len(labels) < 2 or not _TOP_LEVEL.match(labels[-1]):
        return None
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    at = -3 if len(labels) >= 3 and ".".join(labels[-2:]) in _TWO_LABEL_SUFFIXES else -2
    name = labels[at]
    return name if _HOST_NAME.match(name) and not name.startswith("your") else None


def split_url(value: object) -> tuple[str, str] | None:
    """(host, path) of a literal http(s) URL, lowercase, the port dropped; None for an expression or no URL."""
    if not isinstance(value, str):
        return None
    match = _URL.match(value)
    if match is None:
        return None
    host = match.group(1).rsplit("@", 1)[-1].split(":", 1)[0].lower().rstrip(".")
    return host, match.group(2).lower()


@dataclass
class ServiceIndex:
    """The catalog's n8n services: their tools, and what names each (module docstring, steps 2 and 3)."""

    tools: dict[str, tuple[str, ...]]  # service -> its n8n tool ids
    by_credential: dict[str, str]  # credential type -> the one service whose tools declare it
    by_endpoint_host: dict[str, str]  # endpoint host -> the one service whose tools give it
    by_name: dict[str, str]  # a service's name or one-word alias -> the service
    service_of: dict[str, str] = field(default_factory=dict)  # tool id -> its service

    def __post_init__(self) -> None:
        self.service_of = {tool: service for service, tools in self.tools.items() for tool in tools}

    @classmethod
    def from_catalog(cls, catalog: pl.DataFrame) -> ServiceIndex:
        """The index of the n8n tools of ``catalog`` (``tool_id``, ``service``; ``auth_credentials`` and
        ``endpoints`` when the catalog has them)."""
        n8n = catalog.filter(pl.col("tool_id").str.starts_with("n8n:") & pl.col("service").is_not_null())
        tools: dict[str, list[str]] = defaultdict(list)
        credentials: dict[str, set[str]] = defaultdict(set)
        hosts: dict[str, set[str]] = defaultdict(set)
        for row in n8n.iter_rows(named=True):
            service = row["service"]
            tools[service].append(row["tool_id"])
            for credential in row.get("auth_credentials") or ():
                credentials[credential].add(service)
            for endpoint in row.get("endpoints") or ():
                if (parts := split_url(endpoint)) is not None and "{" not in parts[0]:
                    hosts[parts[0]].add(service)
        by_name = {service: service for service in tools}
        for service, names in grades.aliases().items():
            for alias in names:
                words = grades.tokens(alias)
                if service in tools and len(words) == 1:
                    by_name.setdefault(words[0], service)
        return cls({s: tuple(sorted(set(t))) for s, t in tools.items()}, _unique(credentials), _unique(hosts),
                   by_name)  # fmt: skip

    def named(self, name: str | None) -> str | None:
        """The service a bare name is (a service's name or alias), never a generic word or a short one."""
        if not name:
            return None
        name = name.lower().replace("-", "")
        if len(name) < _MIN_NAME or name in grades.GENERIC or name in _NOT_A_SERVICE:
            return None
        return self.by_name.get(name)

    def of_credential(self, credential: str) -> str | None:
        """The service a credential type names (step 2), or None."""
        if not credential or _GENERIC_CREDENTIAL.match(credential):
            return None
        if credential in self.by_credential:
            return self.by_credential[credential]
        return self.named(_CREDENTIAL_SUFFIX.sub("", credential))

    def of_url(self, value: object) -> str | None:
        """The service a URL names (step 3), or None."""
        parts = split_url(value)
        if parts is None:
            return None
        host, path = parts
        if "{" in host or "$" in host:
            return None
        routes, generic = host_rules()
        if any(_under(host, g) for g in generic):
            return None
        for route in routes:
            if _under(host, route.host) and (route.path is None or route.path.search(path)):
                return route.service if route.service in self.tools else None
        if host in self.by_endpoint_host:
            return self.by_endpoint_host[host]
        return self.named(site_name(host))


def _unique(found: dict[str, set[str]]) -> dict[str, str]:
    return {key: next(iter(services)) for key, services in found.items() if len(services) == 1}


def node_credentials(node: WorkflowNode) -> list[str]:
    """The credential types a node holds: its ``credentials`` and a predefined ``nodeCredentialType``."""
    found = list(node.credentials)
    predefined = node.parameters.get("nodeCredentialType")
    if node.parameters.get("authentication") == "predefinedCredentialType" and isinstance(predefined, str):
        found.append(predefined)
    return found


def services_called(node: WorkflowNode, index: ServiceIndex) -> dict[str, str]:
    """service -> resolution for a generic caller (module docstring, steps 1-3); the credential wins a tie."""
    parameter = GENERIC_CALLERS.get(node.type)
    if parameter is None:
        return {}
    found: dict[str, str] = {}
    for credential in node_credentials(node):
        if (service := index.of_credential(credential)) is not None:
            found.setdefault(service, CREDENTIAL)
    if (service := index.of_url(node.parameters.get(parameter))) is not None:
        found.setdefault(service, URL)
    return found


@dataclass
class Completion:
    """The completed labels of one template (tool_id -> qrel fields) and what was set aside, counted."""

    labels: dict[str, dict] = field(default_factory=dict)
    services: dict[str, str] = field(default_factory=dict)  # completed service -> resolution
    skipped: Counter = field(default_factory=Counter)  # already_labelled | unsupported


def complete(nodes: Iterable[WorkflowNode], index: ServiceIndex, labelled_services: set[str],
             title_tokens: tuple[str, ...], text_tokens: tuple[str, ...],
             names_of: dict[str, frozenset]) -> Completion:  # fmt: skip
    """The acceptable labels the template's generic callers add (module docstring, steps 4 and 5).
    ``labelled_services``: the services of the query's native labels; ``names_of``: tool -> its service names."""
    out = Completion()
    for node in nodes:
        for service, resolution in services_called(node, index).items():
            if service in labelled_services:
                out.skipped["already_labelled"] += 1
                continue
            tools = [t for t in index.tools.get(service, ()) if t in names_of]
            graded = [(t, grades.grade(title_tokens, text_tokens, names_of[t])) for t in tools]
            if not any(g for _, g in graded):
                out.skipped["unsupported"] += 1
                continue
            out.services.setdefault(service, resolution)
            for tool_id, grade in graded:
                if grade == 0:  # a tool no text names is no label (a service's nodes may be named apart)
                    continue
                row = out.labels.setdefault(tool_id, {"grade": grade, "alternative": True, "node_types": [],
                                                      "resolution": out.services[service],
                                                      "node": node_of(tool_id)})  # fmt: skip
                if node.type not in row["node_types"]:
                    row["node_types"].append(node.type)
    return out
