import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from selector.registry import ToolRegistry
from selector.selection_log import SelectionLog
from selector.service import create_app
from tests.selector.conftest import CORE, TENANTS, make_selector, tools_frame


def _app(tmp_path_factory=None):
    selector = make_selector(ToolRegistry.from_frame(tools_frame(), core_tools=CORE, tenants=TENANTS))
    if tmp_path_factory is not None:  # exercise the logging path too: it must not turn odd text into a 500
        selector.log = SelectionLog(tmp_path_factory.mktemp("log") / "selections.jsonl")
    return create_app(selector)


APP = _app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return TestClient(_app(tmp_path_factory))


def test_select_and_authorize_round_trip(client):
    body = {"query": "yes, do it", "task_state": {"goal": "post the notes to the slack channel"},
            "caller_scopes": ["slack.*"], "token_budget": 1000}
    selected = client.post("/select", json=body).json()
    assert selected["tool_ids"][:2] == list(CORE) and "slack:post_message" in selected["tool_ids"]
    assert selected["tokens"] <= 1000 and selected["selection_id"]
    decision = client.post("/authorize", json={"tool_id": "slack:delete_message", "caller_scopes": ["slack.*"],
                                               "policy": "escalate", "selection_id": selected["selection_id"]})
    assert decision.status_code == 200 and decision.json()["needs_consent"] is True
    found = client.post("/search_tools", json={"query": "weather forecast", "caller_scopes": ["*"]}).json()
    assert found["tools"][0]["x-tool_id"] == "weather:forecast" and len(found["tools"]) <= 5
    assert client.get("/health").json()["tools"] == 22
    assert client.get("/search_tools/definition").json()["function"]["name"] == "search_tools"


@pytest.mark.parametrize(
    ("path", "body", "status", "says"),
    [
        ("/select", {"query": "order", "caller_scopes": ["orders.raed"]}, 422, "orders.raed"),
        ("/select", {"query": "order", "caller_scopes": ["*"], "tenant": "initech"}, 422, "initech"),
        ("/select", {"query": "", "caller_scopes": ["*"]}, 422, "query"),
        ("/select", {"query": "   ", "caller_scopes": ["*"]}, 422, "query"),
        ("/select", {"query": "order", "caller_scopes": ["*"], "token_budget": 0}, 422, "token_budget"),
        ("/select", {"query": "order", "caller_scopes": ["*"], "token_budget": -5}, 422, "token_budget"),
        ("/select", {"query": "x" * 1_000_000, "caller_scopes": ["*"]}, 413, "bytes"),
        ("/select", {"query": "x" * 9_000, "caller_scopes": ["*"]}, 422, "query"),
        ("/authorize", {"tool_id": "nope:tool", "caller_scopes": ["*"]}, 404, "nope:tool"),
        ("/authorize", {"tool_id": "weather:forecast", "caller_scopes": ["*"], "policy": "maybe"}, 422, "policy"),
        ("/search_tools", {"query": "order", "limit": 0}, 422, "limit"),
    ],
)
def test_bad_input_is_a_clear_4xx(client, path, body, status, says):
    response = client.post(path, json=body)
    assert response.status_code == status
    assert says in response.text


def test_a_1mb_body_without_content_length_is_still_4xx(client):
    # chunked upload: no Content-Length to refuse early, so pydantic's max_length answers
    def chunks():
        yield b'{"query": "' + b"x" * 1_000_000 + b'", "caller_scopes": ["*"]}'

    response = client.post("/select", content=chunks(), headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500


@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_server_error(case):
    case.call_and_validate(checks=[not_a_server_error])


def test_serve_on_a_folder_that_is_not_a_release_exits_2_naming_it(tmp_path, capsys) -> None:
    from selector.__main__ import main

    assert main(["serve", "--release", str(tmp_path)]) == 2
    assert f"{tmp_path}: no manifest.json" in capsys.readouterr().err


def test_serve_refuses_a_tampered_release_naming_the_file(tiny_release, tmp_path, capsys) -> None:
    import shutil

    from selector.__main__ import main
    from tests.release.tampering import TOOLS_FILE, make_first_tool_harmless

    folder = tmp_path / "1.0.0"
    shutil.copytree(tiny_release, folder)
    make_first_tool_harmless(folder)  # the edit: an admin tool made read_only, its scope emptied
    assert main(["serve", "--release", str(folder), "--rankers", "bm25"]) == 1
    err = capsys.readouterr().err
    assert TOOLS_FILE in err and "does not match its manifest" in err and len(err.strip().splitlines()) == 1
