"""`ctxtool serve`: the HTTP JSON API on a free port and the MCP server over a subprocess's stdio."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ctxtool.server.http import make_server
from ctxtool.server.openapi import document
from ctxtool.server.service import Service
from tests.rt_support import RUNTIME_SET
from tests.serve_support import call

pytestmark = pytest.mark.postgres


@pytest.fixture
def http_server(financial_runtime):
    server = make_server(Service(financial_runtime), "127.0.0.1", 0, token="s3cret", quiet=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _call(url: str, body: object | None = None, token: str | None = "s3cret") -> tuple[int, dict]:
    return call(url, body, token, timeout=10)


def test_http_api(http_server):
    status, health = _call(http_server + "/health", token=None)
    assert status == 200 and health["templates"] > 30 and health["database"] is True
    status, ans = _call(http_server + "/ask", {"question": "How many accounts are in Benesow?"})
    assert status == 200 and ans["status"] == "answered" and ans["params"] == ["Benesov"]
    assert ans["linked_values"][0]["column"] == "district.A2" and isinstance(ans["rows"][0][0], int)
    status, ans = _call(http_server + "/ask", {"question": "average salary in Praha", "action": "showsql"})
    assert ans["status"] == "disambiguate" and ans["disambiguation"]
    status, rows = _call(
        http_server + "/query", {"question": "list the districts of the region east Bohemia"}
    )
    assert status == 200 and rows["columns"] == ["A2"] and len(rows["rows"]) > 5
    status, templates = _call(http_server + "/templates")
    assert status == 200 and templates["templates"][0]["slots"][0]["type"] == "district name"
    status, schema = _call(http_server + "/schema")
    assert status == 200 and "district" in {t["name"] for t in schema["tables"]}


def test_http_errors(http_server):
    assert _call(http_server + "/ask", {"question": "x"}, token=None)[0] == 401
    assert _call(http_server + "/ask", {"question": "x"}, token="wrong")[0] == 401
    status, err = _call(http_server + "/ask", {"question": ""})
    assert status == 400 and "question" in err["error"]["message"]
    status, err = _call(http_server + "/ask", {"question": "x", "action": "dance"})
    assert status == 400 and "action" in err["error"]["message"]
    assert _call(http_server + "/nope")[0] == 404


def test_openapi_document_is_served_and_stored(http_server):
    status, doc = _call(http_server + "/openapi.json", token=None)
    assert status == 200 and doc["openapi"].startswith("3.1")
    assert {"/ask", "/query", "/templates", "/schema", "/health", "/ready"} <= set(doc["paths"])
    for route in ("/ask", "/query"):
        post = doc["paths"][route]["post"]
        body = post["requestBody"]["content"]["application/json"]["schema"]["properties"]
        assert {"conversation_id", "session"} <= set(body) and "404" in post["responses"]
    stored = json.loads((Path(__file__).parent.parent / "docs" / "openapi.json").read_text())
    assert stored == document(), (
        "docs/openapi.json is stale: run `ctxtool serve --write-openapi docs/openapi.json`"
    )


def test_mcp_over_stdio(financial_dsn):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ctxtool",
            "serve",
            "--mcp",
            "--context",
            RUNTIME_SET,
            "--dsn",
            financial_dsn,
            "--no-llm",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parent.parent,
    )
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},  # required by the MCP spec
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "ask", "arguments": {"question": "How many gold cards were issued?"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "describe_schema", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "list_templates", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 6,
            "method": "tools/call",
            "params": {"name": "query_data", "arguments": {"question": "What is the capital of France?"}},
        },
        {"jsonrpc": "2.0", "id": 7, "method": "no/such"},
    ]
    out, err = proc.communicate("\n".join(json.dumps(m) for m in messages) + "\nnot json\n", timeout=60)
    assert proc.returncode == 0, err
    responses = [json.loads(line) for line in out.splitlines()]
    by_id = {r.get("id"): r for r in responses}
    assert by_id[1]["result"]["protocolVersion"] == "2025-06-18"
    assert by_id[1]["result"]["capabilities"]["tools"] is not None
    assert {t["name"] for t in by_id[2]["result"]["tools"]} == {
        "ask",
        "query_data",
        "list_templates",
        "describe_schema",
    }
    ask = by_id[3]["result"]
    assert not ask["isError"] and ask["structuredContent"]["params"] == ["gold"]
    assert json.loads(ask["content"][0]["text"])["status"] == "answered"
    assert any(t["name"] == "loan" for t in by_id[4]["result"]["structuredContent"]["tables"])
    assert len(by_id[5]["result"]["structuredContent"]["templates"]) > 30
    assert by_id[6]["result"]["structuredContent"]["status"] == "declined"
    assert by_id[7]["error"]["code"] == -32601
    assert by_id[None]["error"]["code"] == -32700  # the line that was not JSON
    assert len(responses) == 8  # the notification got no response


def test_http_concurrent_requests_take_turns_on_one_session(http_server):
    questions = [f"How many loans were granted in {year}?" for year in (1994, 1995, 1996, 1997, 1998)] * 3
    results: dict[int, dict] = {}

    errors: list[BaseException] = []

    def ask(i: int, q: str) -> None:
        try:
            results[i] = _call(http_server + "/ask", {"question": q})[1]
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(i, q)) for i, q in enumerate(questions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert all(results[i]["status"] == "answered" for i in range(len(questions)))
    by_year: dict[int, object] = {}
    for i, q in enumerate(questions):
        year = results[i]["params"][0]
        assert str(year) in q
        assert by_year.setdefault(year, results[i]["rows"]) == results[i]["rows"]


# ------------------------------------------------------------------------------------- conversations


@pytest.fixture
def conversation_server(financial_runtime, tmp_path):
    from ctxtool.conversations.store import SQLiteStore

    store = SQLiteStore(tmp_path / "conversations.sqlite")
    service = Service(financial_runtime, conversation_store=store)
    server = make_server(service, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", store
    server.shutdown()
    server.server_close()
    store.close()


def _frequency_breakdown(url: str, first: dict, follow: dict) -> None:
    assert first["status"] == "answered" and first["source"] == "template" and first["rows"][0][0] > 0
    assert follow["status"] == "answered" and follow["source"] == "followup", follow
    assert "frequency" in follow["sql"] and "GROUP BY" in follow["sql"].upper()
    assert len(follow["rows"]) == 3  # the three statement frequencies
    assert sum(r[-1] for r in follow["rows"]) == first["rows"][0][0]


def test_http_follow_up_in_a_named_conversation(conversation_server):
    url, store = conversation_server
    cid = store.create_conversation("accounts").conversation_id
    _, first = _call(url + "/ask", {"question": "How many accounts are there?", "conversation_id": cid})
    _, follow = _call(url + "/ask", {"question": "break it down by frequency", "conversation_id": cid})
    _frequency_breakdown(url, first, follow)
    assert follow["conversation"] == {"conversation_id": cid, "session": None, "memory": "named"}
    turns = store.list_prompts(cid)
    assert [t.prompt for t in turns] == ["How many accounts are there?", "break it down by frequency"]
    assert {t.client_identifier for t in turns} == {"ctxtool serve"}
    assert {t.client_ip for t in turns} == {"127.0.0.1"}
    assert turns[1].sql == follow["sql"] and turns[1].profile_name == RUNTIME_SET
    # without the conversation the same words are no follow-up
    _, alone = _call(url + "/ask", {"question": "break it down by frequency"})
    assert alone["source"] != "followup" and "conversation" not in alone


def test_http_sessions_keep_their_own_memory_and_store_nothing(conversation_server):
    url, store = conversation_server
    _, first = _call(url + "/ask", {"question": "How many accounts are there?", "session": "alice"})
    _, other = _call(url + "/ask", {"question": "break it down by frequency", "session": "bob"})
    assert other["source"] != "followup"  # bob's session has not asked anything before
    _, follow = _call(url + "/query", {"question": "break it down by frequency", "session": "alice"})
    _frequency_breakdown(url, first, follow)
    assert follow["conversation"]["memory"] == "session" and follow["conversation"]["session"] == "alice"
    assert store.list_conversations() == []  # session memory is never stored


def test_http_ready_checks_the_database_and_the_conversation_store(conversation_server):
    url, store = conversation_server
    status, ready = _call(url + "/ready", token=None)
    assert status == 200 and ready["status"] == "ready"
    assert ready["checks"]["database"]["ok"] and ready["checks"]["conversation_store"]["ok"]
    status, health = _call(url + "/health", token=None)
    assert health["set"] == RUNTIME_SET and health["version"] is None and health["pid"] > 0


def test_http_unknown_conversation_is_a_404(conversation_server):
    url, store = conversation_server
    status, err = _call(url + "/ask", {"question": "How many accounts are there?", "conversation_id": "nope"})
    assert status == 404 and "nope" in err["error"]["message"] and err["error"]["code"] == 404
    status, err = _call(
        url + "/query", {"question": "How many loans?", "conversation_id": "nope", "session": "s"}
    )
    assert status == 404
    status, err = _call(url + "/ask", {"question": "x", "session": ["not", "text"]})
    assert status == 400 and "session" in err["error"]["message"]
    status, err = _call(
        url + "/ask",
        {"question": "x", "session": "s", "history": [{"role": "user", "content": "earlier"}]},
    )
    assert status == 400 and "history" in err["error"]["message"]


def test_serve_session_memory_option_and_mcp_conversations(financial_dsn, tmp_path):
    """`ctxtool serve --mcp --session-memory`: requests without a session share the profile's session
    memory; a session argument has its own; an unknown conversation is a tool error."""
    store = tmp_path / "conversations.sqlite"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ctxtool",
            "serve",
            "--mcp",
            "--session-memory",
            "--conversation-store",
            str(store),
            "--context",
            RUNTIME_SET,
            "--dsn",
            financial_dsn,
            "--no-llm",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parent.parent,
    )

    def call(i: int, name: str, arguments: dict) -> dict:
        params = {"name": name, "arguments": arguments}
        return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}

    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        call(1, "ask", {"question": "How many accounts are there?"}),
        call(2, "ask", {"question": "break it down by frequency", "session": "s1"}),
        call(3, "query_data", {"question": "break it down by frequency"}),
        call(4, "ask", {"question": "How many accounts are there?", "conversation_id": "missing"}),
    ]
    out, err = proc.communicate("\n".join(json.dumps(m) for m in messages) + "\n", timeout=60)
    assert proc.returncode == 0, err
    by_id = {r["id"]: r["result"] for r in map(json.loads, out.splitlines())}
    assert by_id[1]["structuredContent"]["source"] == "template"
    assert by_id[2]["structuredContent"]["source"] != "followup"  # session s1 is new
    follow = by_id[3]["structuredContent"]
    assert follow["source"] == "followup" and len(follow["rows"]) == 3
    assert by_id[4]["isError"] and "missing" in by_id[4]["content"][0]["text"]
