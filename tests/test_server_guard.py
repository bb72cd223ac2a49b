"""`ctxtool serve` and MCP over HTTP refuse what a browser page could make them do (issue 24): a
``Host`` that is not theirs (DNS rebinding: 421), a foreign ``Origin`` (403), a POST whose body is not
sent as JSON (text/plain, form-encoded, multipart: 415), with or without a token; the bearer scheme
is case-insensitive; /health says whether the database answers. A refused question is not run: its
conversation stores no prompt, while the ordinary request beside it stores one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from ctxtool.conversations.store import open_store
from ctxtool.server.guard import AllowedHosts, bearer_matches
from ctxtool.server.http import create_app
from ctxtool.server.service import Service
from ctxtool.server.workers import build_service, close_service
from tests.mcp_client import REPO
from tests.raw_http import post_json, send
from tests.rt_support import RUNTIME_SET
from tests.serve_support import FAST_QUESTION, running, serve_config
from tests.tcp_proxy import TcpProxy
from tests.test_mcp_http import _free_port, _wait_for

FOREIGN = [
    ({"Host": "evil.example"}, 421),
    ({"Host": "evil.example:8765"}, 421),
    ({"Host": "127.0.0.1.evil.example"}, 421),
    ({"Origin": "http://evil.example"}, 403),
    ({"Origin": "null"}, 403),
    ({"Content-Type": "text/plain"}, 415),
    ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
    ({"Content-Type": "multipart/form-data; boundary=x"}, 415),
    ({"Content-Type": None}, 415),
]


def test_allowed_hosts():
    loop = AllowedHosts("127.0.0.1")
    assert all(h in loop for h in ("127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:8765"))
    assert "evil.example" not in loop and "10.0.0.1" not in loop and "" not in loop
    one = AllowedHosts("10.1.2.3", ["api.internal"])
    assert "10.1.2.3:80" in one and "api.internal:8765" in one and "localhost" not in one
    every = AllowedHosts("0.0.0.0")
    assert "192.168.7.7:8765" in every and "[fe80::1]:1" in every and "evil.example" not in every
    assert "evil.example" in AllowedHosts("127.0.0.1", ["*"])
    assert loop.origin_allowed("http://localhost:3000", "127.0.0.1:8765")
    assert not loop.origin_allowed("http://evil.example", "127.0.0.1:8765")
    assert not loop.origin_allowed("null", "127.0.0.1:8765")
    assert bearer_matches(b"bearer s3cret", "s3cret") and bearer_matches("BEARER  s3cret ", "s3cret")
    assert not bearer_matches(b"Bearer s3cre", "s3cret") and not bearer_matches(b"Basic s3cret", "s3cret")
    assert not bearer_matches(None, "s3cret") and not bearer_matches(b"Bearers3cret", "s3cret")


@pytest.fixture
def served(financial_runtime, tmp_path):
    """A server with a conversation store; yields (url_for(token), conversation id, prompts())."""
    store = open_store(str(tmp_path / "conversations.sqlite"))
    cid = store.create_conversation("guard").conversation_id
    service = Service(financial_runtime, conversation_store=store)
    yield service, cid, lambda: len(store.list_prompts(cid))
    store.close()


@pytest.mark.postgres
@pytest.mark.parametrize("token", [None, "s3cret"], ids=["no-token", "token"])
def test_browser_requests_are_refused_and_not_run(served, token):
    service, cid, prompts = served
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    with running(create_app(service, token=token)) as url:
        body = {"question": FAST_QUESTION, "conversation_id": cid}
        for headers, status in FOREIGN:
            got, err = post_json(url, "/ask", body, {**auth, **headers})
            assert got == status, (headers, err)
            assert isinstance(err, dict) and err["error"]["code"] == status
        assert prompts() == 0  # no question was run
        for headers, status in FOREIGN[:3]:  # GET routes too: a rebinding page reads /schema
            assert send(url, "/schema", headers={**auth, **headers})[0] == status
        got, ans = post_json(url, "/ask", body, auth)  # control: the ordinary request
        assert got == 200 and ans["status"] == "answered" and prompts() == 1
        port = url.rsplit(":", 1)[1]
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", "[::1]"):
            assert send(url, "/templates", headers={**auth, "Host": host})[0] == 200
        same = {
            **auth,
            "Origin": f"http://127.0.0.1:{port}",
            "Content-Type": "application/json; charset=utf-8",
        }
        assert post_json(url, "/ask", body, same)[0] == 200 and prompts() == 2


@pytest.mark.postgres
def test_bearer_scheme_in_any_case(financial_runtime):
    with running(create_app(Service(financial_runtime), token="s3cret")) as url:
        for scheme in ("Bearer", "bearer", "BEARER"):
            got, ans = post_json(
                url, "/ask", {"question": FAST_QUESTION}, {"Authorization": f"{scheme} s3cret"}
            )
            assert got == 200 and ans["status"] == "answered"
        for value in ("bearer wrong", "Basic s3cret", "s3cret", "bearer"):
            got, err = post_json(url, "/ask", {"question": FAST_QUESTION}, {"Authorization": value})
            assert got == 401 and "bearer token" in err["error"]["message"]


@pytest.mark.postgres
def test_health_says_whether_the_database_answers(financial_dsn):
    host, port = re.search(r"@([\d.]+):(\d+)/", financial_dsn).groups()
    proxy = TcpProxy((host, int(port))).start()
    via_proxy = financial_dsn.replace(f"{host}:{port}", f"127.0.0.1:{proxy.port}")
    service = build_service(serve_config(via_proxy, pool_size=2, pool_timeout=1.0))
    try:
        with running(create_app(service)) as url:
            status, health = send(url, "/health")
            assert status == 200 and health["database"] is True and "database_error" not in health
            proxy.stop()  # the database goes away
            status, health = send(url, "/health")
            assert status == 200 and health["status"] == "ok"  # alive ...
            assert health["database"] is False and health["database_error"]  # ... and says so
            proxy.start()
            deadline = time.monotonic() + 20  # the pool reconnects in the background, with a backoff
            while not send(url, "/health")[1]["database"] and time.monotonic() < deadline:
                time.sleep(0.3)
            assert send(url, "/health")[1]["database"] is True
            assert post_json(url, "/ask", {"question": FAST_QUESTION})[1]["status"] == "answered"
    finally:
        proxy.stop()
        close_service(service)


@pytest.mark.postgres
def test_serve_allowed_host_flag(financial_dsn):
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxtool", "serve", "--port", "0", "--context", RUNTIME_SET, "--dsn",
         financial_dsn, "--no-llm", "--quiet", "--allowed-host", "api.example"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = ""
        while "serving " not in line:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "the server did not start"
        url = "http://127.0.0.1:" + re.search(r":(\d+) with", line).group(1)
        body = {"question": FAST_QUESTION}
        assert post_json(url, "/ask", body, {"Host": "api.example:443"})[1]["status"] == "answered"
        assert post_json(url, "/ask", body, {"Host": "evil.example"})[0] == 421
        assert post_json(url, "/ask", body)[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.postgres
def test_mcp_http_uses_the_same_checks(financial_dsn):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxtool", "mcp", "--http", f"127.0.0.1:{port}", "--dsn", financial_dsn],
        cwd=REPO, env={**os.environ, "CTXTOOL_SERVE_TOKEN": "t0k"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    auth = {"Authorization": "bearer t0k", "Accept": "application/json, text/event-stream"}
    try:
        _wait_for(port, proc)
        for headers, status in FOREIGN:
            assert post_json(url, "/", ping, {**auth, **headers})[0] == status, headers
        got, pong = post_json(url, "/", ping, auth)  # lower-case scheme accepted
        assert got == 200 and pong["result"] == {}
        assert post_json(url, "/", ping, {**auth, "Authorization": "bearer nope"})[0] == 401
    finally:
        proc.terminate()
        proc.wait(timeout=20)
