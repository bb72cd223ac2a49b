"""MCP over streamable HTTP with a bearer token: `ctxtool mcp --http` driven by the MCP Python SDK's
HTTP client (right token works; a wrong or missing one is a 401), and the ASGI app mounted at /mcp in
another application, the way a team server mounts it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from tests.mcp_client import REPO, http
from tests.rt_support import RUNTIME_SET

TOKEN = "s3cret-token"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(port: int, proc: subprocess.Popen | None = None, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the server exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port}")


@pytest.fixture(scope="module")
def server(financial_dsn):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxtool", "mcp", "--http", f"127.0.0.1:{port}", "--dsn", financial_dsn],
        cwd=REPO,
        env={**os.environ, "CTXTOOL_SERVE_TOKEN": TOKEN},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(port, proc)
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _post(url: str, token: str | None) -> int:
    import httpx2

    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    return httpx2.post(url, json=body, headers=headers, timeout=10).status_code


@pytest.mark.postgres
def test_right_token_serves_every_tool(server):
    with http(server, TOKEN) as client:
        assert {"validate", "mutate_set", "ask", "eval"} <= set(client.tools())
        checked = client.ok("validate", {"paths": [str(REPO / RUNTIME_SET)]})
        assert checked["ok"] and checked["summary"]["files"] == 1
        answer = client.ok(
            "ask", {"question": "How many gold cards were issued?", "context": str(REPO / RUNTIME_SET)}
        )
        assert answer["status"] == "answered" and answer["params"] == ["gold"]
        assert "no such file" in client.ok("validate", {"paths": ["nowhere.json"]})["unreadable"][0]
        assert "unknown tool" in client.error("nope")
        golden = REPO / "tests" / "data" / "golden_financial.json"
        steps: list = []  # a client asking for progress still gets its answer over stateless HTTP
        report = client.ok("eval", {"golden": str(golden), "context": str(REPO / RUNTIME_SET)}, steps)
        assert report["summary"]["overall"]["questions"] == 80


@pytest.mark.postgres
def test_wrong_or_missing_token_is_401(server):
    assert _post(server, None) == 401
    assert _post(server, "wrong") == 401
    assert _post(server, TOKEN) == 200
    with pytest.raises(BaseException):  # noqa: B017 - the SDK raises its transport error in a group
        with http(server, "wrong") as client:
            client.tools()


def test_http_needs_a_token():
    done = subprocess.run(
        [sys.executable, "-m", "ctxtool", "mcp", "--http", "127.0.0.1:0"],
        cwd=REPO,
        env={k: v for k, v in os.environ.items() if k != "CTXTOOL_SERVE_TOKEN"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "bearer token" in done.stderr and "Traceback" not in done.stderr


def test_asgi_app_mounts_at_mcp_in_another_application():
    """The recipe of ctxtool.mcp.http: a route at /mcp and the app's lifespan in the host's."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from ctxtool.mcp.http import asgi_app

    mcp_app = asgi_app(token=TOKEN)
    app = Starlette(
        routes=[
            Route("/health", lambda request: JSONResponse({"status": "ok"})),
            Route("/mcp", endpoint=mcp_app),
        ],
        lifespan=lambda _app: mcp_app.lifespan(),
    )
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        _wait_for(port)
        url = f"http://127.0.0.1:{port}/mcp"
        assert _post(url, None) == 401
        with http(url, TOKEN) as client:
            found = client.ok(
                "validate", {"paths": [str(REPO / "samples" / "invalid" / "CTX201-sql-syntax.json")]}
            )
            assert not found["ok"] and found["findings"][0]["code"] == "CTX201"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
