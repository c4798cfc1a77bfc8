"""Word and service-name handling shared by the stages (the language rule is tested with the Syn filters)."""

from __future__ import annotations

from ecoagent.text import normalize_service, service_key


def test_service_key_joins_one_service_written_three_ways() -> None:
    assert service_key("Google Sheets") == service_key("google_sheets") == "googlesheets"
    assert service_key(None) == ""


def test_normalize_service_is_a_scope_identifier() -> None:
    assert normalize_service("Google-Maps") == "google_maps"
    assert normalize_service("@modelcontextprotocol/server-memory") == "modelcontextprotocol_server_memory"
    assert normalize_service(None) == normalize_service("--") == ""
