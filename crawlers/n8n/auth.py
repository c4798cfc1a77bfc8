"""Credentials, endpoints and HTTP methods of one action (node x resource x operation)."""

from __future__ import annotations

from typing import Any

from crawlers.base import AuthType
from crawlers.n8n.catalog import add_new, is_named_dict
from crawlers.n8n.display import admits
from crawlers.n8n.parameters import is_literal
from crawlers.vocabulary import N8N_KEY_FIELD_WORDS, N8N_LOGIN_FIELD_WORDS

_OAUTH2_BASES = {"oAuth2Api"}


def admitted_credentials(entry: dict, props: list[dict], selector: dict[str, Any]) -> tuple[list[str], bool]:
    """Credential types this action accepts, those used with default settings first.

    The flag says whether any is used with the node's default settings: HTTP Request lists an SSL
    credential behind a toggle that is off by default, and GraphQL's authentication defaults to 'none'.
    """
    admitted: list[tuple[str, dict]] = []
    for cred in entry.get("credentials") or []:
        known = [n for n, _ in admitted]
        if is_named_dict(cred) and cred["name"] not in known and admits(cred.get("displayOptions"), selector):
            admitted.append((cred["name"], cred))
    defaults: dict[str, Any] = {}
    for prop in props:
        name = prop["name"]
        if name in selector or name in defaults or not admits(prop.get("displayOptions"), selector):
            continue
        if is_literal(prop.get("default")):
            defaults[name] = prop["default"]
    with_defaults = {**selector, **defaults}
    active = [n for n, c in admitted if admits(c.get("displayOptions"), with_defaults)]
    ordered = active + [n for n, _ in admitted if n not in active]
    return ordered, bool(active)


def credential_kind(name: str, credentials: dict[str, dict], seen: set[str]) -> AuthType:
    """oauth2 / api_key / basic / other for a credential type, following ``extends`` within the package."""
    if name in _OAUTH2_BASES or "oauth2" in name.lower():
        return "oauth2"
    cred = credentials.get(name)
    if cred is None or name in seen:
        # Credential shipped by another package (the langchain package reuses base credentials): by name only.
        lowered = name.lower()
        if "basic" in lowered:
            return "basic"
        if lowered.endswith("api") and "oauth1" not in lowered:
            return "api_key"
        return "other"
    seen = seen | {name}
    for parent in cred.get("extends") or []:
        if not isinstance(parent, str):
            continue
        if parent == "oAuth1Api":
            return "other"
        if parent in credentials or parent in _OAUTH2_BASES or "oauth2" in parent.lower():
            return credential_kind(parent, credentials, seen)
    authenticate = cred.get("authenticate") if isinstance(cred.get("authenticate"), dict) else {}
    injected = authenticate.get("properties") if isinstance(authenticate.get("properties"), dict) else {}
    if "auth" in injected:  # n8n's request option for HTTP basic auth
        return "basic"
    fields = [p for p in cred.get("properties") or [] if isinstance(p, dict) and isinstance(p.get("name"), str)]
    secret = [
        p["name"].lower() for p in fields if isinstance(p.get("typeOptions"), dict) and p["typeOptions"].get("password")
    ]
    names = [p["name"].lower() for p in fields]
    userish = any(k in n for n in names for k in N8N_LOGIN_FIELD_WORDS)
    if any("password" in s for s in secret) and userish:
        return "basic"
    if any(k in s for s in secret for k in N8N_KEY_FIELD_WORDS):
        return "api_key"
    if any("password" in s for s in secret):
        return "basic"
    if any(k in injected for k in ("headers", "qs", "body")):
        return "api_key"
    if any(k in n for n in names for k in N8N_KEY_FIELD_WORDS):
        return "api_key"
    return "other"


def action_endpoints(entry: dict, option: dict | None, endpoints: list[str]) -> list[str]:
    """Base URLs and absolute request URLs of the node's request defaults and the action's routing."""
    defaults = entry.get("requestDefaults")
    if isinstance(defaults, dict) and isinstance(defaults.get("baseURL"), str):
        add_new(endpoints, defaults["baseURL"])
    routing = option.get("routing") if isinstance(option, dict) else None
    request = routing.get("request") if isinstance(routing, dict) else None
    if isinstance(request, dict):
        if isinstance(request.get("baseURL"), str):
            add_new(endpoints, request["baseURL"])
        url = request.get("url")
        if isinstance(url, str) and url.lstrip("=").strip().startswith(("http://", "https://")):
            add_new(endpoints, url)
    return endpoints


_HTTP_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}


def _routing_request(item: Any) -> dict | None:
    routing = item.get("routing") if isinstance(item, dict) else None
    request = routing.get("request") if isinstance(routing, dict) else None
    return request if isinstance(request, dict) else None


def action_http_methods(
    entry: dict, props: list[dict], selector: dict[str, Any], resource: str | None, option: dict | None
) -> tuple[list[str], bool]:
    """HTTP methods a declarative (routing) action sends, and whether the method is n8n's default.

    n8n's RoutingNode starts from ``requestDefaults`` and merges the ``routing.request`` of every
    displayed property and of the selected option of an options property, a later ``method``
    overriding an earlier one. So the candidates are: the selected operation option, the selected
    resource option, and the top-level properties displayed for this action (the operation property
    itself, or e.g. the n8n node's ``workflowId`` with ``method: POST``), else ``requestDefaults``.
    Properties gated on user input are taken as displayed, so an action can list more than one
    method. When the action has a routing request and a URL (its own or ``requestDefaults.url``) but
    no method anywhere, the request goes out as GET: ``IHttpRequestOptions.method`` is optional and
    core's ``convertN8nRequestToAxios`` passes it through to axios, whose default is GET (core's
    ``removeEmptyBody`` also reads a missing method as GET). Programmatic nodes have no routing:
    no methods.
    """
    requests: list[dict] = []
    if (request := _routing_request(option)) is not None:
        requests.append(request)
    for prop in props:
        if not admits(prop.get("displayOptions"), selector):
            continue
        if (request := _routing_request(prop)) is not None:
            requests.append(request)
        if prop["name"] == "resource" and resource is not None and isinstance(prop.get("options"), list):
            for res in prop["options"]:
                request = _routing_request(res) if isinstance(res, dict) and res.get("value") == resource else None
                if request is not None:
                    requests.append(request)
    methods: list[str] = []
    for request in requests:
        method = request.get("method")
        if isinstance(method, str) and method.upper() in _HTTP_METHODS:
            add_new(methods, method.upper())
    if methods or not requests:
        return methods, False
    defaults = entry.get("requestDefaults") if isinstance(entry.get("requestDefaults"), dict) else {}
    method = defaults.get("method")
    if isinstance(method, str) and method.upper() in _HTTP_METHODS:
        return [method.upper()], False
    if any(isinstance(r.get("url"), str) and r["url"] for r in [*requests, defaults]):
        return ["GET"], True
    return [], False


def add_credential_endpoints(cred: dict | None, endpoints: list[str]) -> None:
    """Add the base URLs a credential type declares (its test request, ``httpRequestNode``)."""
    if not isinstance(cred, dict):
        return
    test = cred.get("test")
    request = test.get("request") if isinstance(test, dict) else None
    if isinstance(request, dict) and isinstance(request.get("baseURL"), str):
        add_new(endpoints, request["baseURL"])
    http_node = cred.get("httpRequestNode")
    if isinstance(http_node, dict) and isinstance(http_node.get("apiBaseUrl"), str):
        add_new(endpoints, http_node["apiBaseUrl"])


def credential_docs(cred: dict | None) -> list[str]:
    # documentationUrl is usually a slug ("slack") whose URL form is a convention, not data: keep absolute ones only.
    """The documentation URL of a credential type, when it is absolute."""
    if isinstance(cred, dict) and isinstance(cred.get("documentationUrl"), str):
        url = cred["documentationUrl"]
        if url.startswith(("http://", "https://")):
            return [url]
    return []
