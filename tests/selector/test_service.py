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


def test_a_1mb_body_without_content_length_is_still_413(client):
    # chunked upload: no Content-Length to refuse early, so the guard counts the bytes as they come
    def chunks():
        yield b'{"query": "' + b"x" * 1_000_000 + b'", "caller_scopes": ["*"]}'

    response = client.post("/select", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


# What Python's json module accepts but JSON does not, and text that is not Unicode: each once made a 500 (the
# 422 body echoed a value that cannot be encoded), and the 500 dropped the connection.
HOSTILE = [
    ("/select", b'{"query": "order", "caller_scopes": ["*"], "token_budget": NaN}', "body.token_budget"),
    ("/select", b'{"query": "order", "caller_scopes": ["*"], "token_budget": Infinity}', "body.token_budget"),
    ("/select", b'{"query": "order", "caller_scopes": ["*"], "token_budget": 1e400}', "body.token_budget"),
    ("/search_tools", b'{"query": "order", "limit": NaN}', "body.limit"),
    ("/select", b'{"query": "\\ud800", "caller_scopes": ["*"]}', "body.query"),
    ("/select", b'{"query": "order", "caller_scopes": ["\\udc00"]}', "body.caller_scopes[0]"),
    ("/select", b'{"query": "order", "\\ud800": 1}', "a key"),
    ("/authorize", b'{"tool_id": "\\ud800", "caller_scopes": ["*"]}', "body.tool_id"),
    ("/select", b'{"query": "order", "caller_scopes": ["*"], "token_budget": ' + b"9" * 5000 + b"}", "digits"),
    ("/select", b"[" * 50_000, "nested"),
    ("/select", b'{"query": "order", "caller_scopes": ["*"]', "not valid JSON"),
    ("/select", '{"query": "café"}'.encode("latin-1"), "not UTF-8"),
]


@pytest.mark.parametrize(("path", "body", "says"), HOSTILE)
def test_hostile_json_is_a_422_that_does_not_echo_it(client, path, body, says):
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert says in response.json()["detail"]
    assert "ud800" not in response.text and "udc00" not in response.text  # never the input back


def test_a_422_does_not_echo_the_input(client):
    secret_looking = "x" * 9000  # over the query limit
    response = client.post("/select", json={"query": secret_looking, "caller_scopes": ["*"]})
    assert response.status_code == 422 and "query" in response.text and secret_looking not in response.text


@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_server_error(case):
    case.call_and_validate(checks=[not_a_server_error])


@pytest.fixture(scope="module")
def served():
    """The app behind a real uvicorn on 127.0.0.1: the streaming and keep-alive behaviour is the server's."""
    import threading

    import uvicorn

    server = uvicorn.Server(uvicorn.Config(_app(), host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.05)
    (port,) = {s.getsockname()[1] for srv in server.servers for s in srv.sockets}
    yield port
    server.should_exit = True
    thread.join(10)


def _read_response(sock) -> tuple[int, dict, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    length = int(headers.get("content-length", 0))
    while len(body) < length:
        body += sock.recv(65536)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def test_a_chunked_60mb_body_gets_413_without_being_read(served):
    import select
    import socket

    chunk = b"x" * 65536
    frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    with socket.create_connection(("127.0.0.1", served), timeout=10) as sock:
        opening = b'{"query": "'
        sock.sendall(b"POST /select HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n%s\r\n" % (len(opening), opening))
        sent = 0
        while sent < 60 * 1024 * 1024:
            readable, writable, _ = select.select([sock], [sock], [], 10)
            if readable:
                break  # the server answered before the body ended
            assert writable, "the server neither read on nor answered"
            sock.sendall(frame)
            sent += len(chunk)
        status, headers, body = _read_response(sock)
    assert status == 413 and b"bytes" in body and headers.get("connection") == "close"
    assert sent < 16 * 1024 * 1024  # the limit is 256 KB; the rest is socket buffers, never read by the service


def test_the_connection_stays_usable_after_a_4xx(served):
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", served, timeout=10)
    first_socket = None
    for path, body, _ in [*HOSTILE[:8], ("/select", b'{"query": "weather in Oslo", "caller_scopes": ["*"]}', "")]:
        connection.request("POST", path, body=body, headers={"content-type": "application/json"})
        response = connection.getresponse()
        response.read()
        first_socket = first_socket or connection.sock
        assert connection.sock is first_socket  # the same connection served every request
        assert response.status == (200 if "Oslo" in body.decode() else 422)
    connection.close()


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
