"""Servers that cannot be knocked over (issue 24): the HTTP API, MCP over stdio and MCP over HTTP
answer a body nested 100,000 deep, a lone surrogate, invalid UTF-8, an integer of 4,301 digits, a
body over 1 MiB and a question over the maximum length with a JSON error (4xx or a tool error), log
no traceback, and answer the ordinary request that follows."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ctxtool.errors import InputError
from ctxtool.limits import (
    DEFAULT_MAX_QUESTION_CHARS,
    checked_question,
    json_too_deep,
    loads_request,
    max_question_chars,
)
from ctxtool.server.http import create_app
from ctxtool.server.service import Service
from tests.mcp_client import REPO, stdio
from tests.raw_http import post_json, send
from tests.raw_mcp import RawMcp
from tests.rt_support import RUNTIME_SET
from tests.serve_support import FAST_QUESTION, running
from tests.test_mcp_http import _free_port, _wait_for

SET = str(REPO / RUNTIME_SET)
DEEP = b"[" * 100_000 + b"]" * 100_000
SURROGATE = b'{"question": "How many clients live in \\ud800 Kladno?"}'
NOT_UTF8 = b'{"question": "How many clients live in \xff Kladno?"}'
BIG_INT = b'{"question": "How many clients?", "n": ' + b"9" * 4301 + b"}"
LONG = "How many clients live in the district Kladno? " * 50  # 2,350 characters


def test_the_limits_themselves():
    assert not json_too_deep("[" * 64 + "]" * 64) and json_too_deep("[" * 65 + "]" * 65)
    assert not json_too_deep('["' + "[" * 1000 + '"]')  # brackets in a string do not count
    assert not json_too_deep('{"a": "\\"[[[[", "b": [1]}', 2)
    with pytest.raises(InputError, match="deeper than 64"):
        loads_request(DEEP)
    with pytest.raises(InputError, match="4,300 digits"):
        loads_request(BIG_INT)
    with pytest.raises(InputError, match="lone surrogate"):
        loads_request(SURROGATE)
    assert loads_request('{"q": "\\ud83d\\ude00"}') == {"q": "\U0001f600"}  # a pair is a character
    with pytest.raises(InputError, match="not UTF-8"):
        loads_request(NOT_UTF8)
    with pytest.raises(InputError, match="at most 1,048,576"):
        loads_request(b" " * (1 << 20) + b"{}")
    assert checked_question("  x  ") == "x"
    assert checked_question("y" * 2000) == "y" * 2000
    with pytest.raises(InputError, match="2,001 characters long; at most 2,000"):
        checked_question("y" * 2001)
    with pytest.raises(InputError, match="not UTF-8 text \\(byte 0xff at character 3\\)"):
        checked_question("ab\udcffc")  # how Python decodes the byte 0xff of a command-line argument
    with pytest.raises(InputError, match="lone surrogate \\(U\\+D800"):
        checked_question("a\ud800")


def test_the_question_limit_is_configurable(monkeypatch):
    assert max_question_chars() == DEFAULT_MAX_QUESTION_CHARS
    monkeypatch.setenv("CTXTOOL_MAX_QUESTION_CHARS", "50")
    assert max_question_chars() == 50 and max_question_chars(10) == 10
    with pytest.raises(InputError, match="at most 50"):
        checked_question("z" * 51)
    monkeypatch.setenv("CTXTOOL_MAX_QUESTION_CHARS", "lots")
    with pytest.raises(InputError, match="positive number"):
        max_question_chars()


@pytest.fixture(scope="module")
def api(financial_runtime):
    with running(create_app(Service(financial_runtime))) as url:
        yield url


def _ordinary(url: str) -> None:
    status, ans = post_json(url, "/ask", {"question": FAST_QUESTION})
    assert status == 200 and ans["status"] == "answered", ans


@pytest.mark.postgres
@pytest.mark.parametrize(
    "body, status, words",
    [
        (DEEP, 400, "deeper than 64 levels"),
        (SURROGATE, 400, "lone surrogate"),
        (NOT_UTF8, 400, "not UTF-8"),
        (BIG_INT, 400, "4,300 digits"),
        (b'{"question": "' + b"x" * (1 << 20) + b'"}', 413, "at most 1,048,576"),
        (json.dumps({"question": LONG}).encode(), 400, "at most 2,000 are read"),
        (b'{"question": "truncated', 400, "not JSON"),
    ],
    ids=["deep", "surrogate", "not-utf8", "big-int", "over-1MiB", "long-question", "truncated"],
)
def test_http_api_answers_bad_bodies_with_a_json_error(api, capfd, body, status, words):
    got, err = send(api, "/ask", body)
    assert got == status and words in err["error"]["message"], err
    _ordinary(api)  # and goes on serving
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.postgres
def test_a_question_of_the_maximum_length_is_read(financial_dsn):
    """The limit refuses nothing shorter, and a shorter limit comes from the runtime's option."""
    from ctxtool.runtime import Runtime

    with Runtime(RUNTIME_SET, dsn=financial_dsn, use_llm=False, max_question=60) as rt:
        with running(create_app(Service(rt))) as url:
            status, ans = post_json(url, "/ask", {"question": FAST_QUESTION + " " * 5 + "x" * 10})
            assert status == 200 and ans["status"] != "error"
            status, err = post_json(url, "/ask", {"question": FAST_QUESTION + " and more" * 3})
            assert status == 400 and "at most 60" in err["error"]["message"]
            _ordinary(url)


@pytest.mark.postgres
def test_mcp_stdio_answers_every_bad_line_and_goes_on(financial_dsn):
    with RawMcp("--dsn", financial_dsn, "--context", SET) as mcp:
        mcp.send(b"[" * 3000)  # killed the server with a RecursionError
        reply = mcp.answer()
        assert reply["id"] is None and reply["error"]["code"] == -32700
        assert "deeper than 64" in reply["error"]["message"]
        # a lone surrogate got no reply at all: the client hung
        mcp.send(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask",'
                 b'"arguments":{"question":"clients in \\ud800 Kladno"}}}')  # fmt: skip
        reply = mcp.answer()
        assert reply["id"] == 7 and "lone surrogate" in reply["error"]["message"]
        mcp.send(b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ask",'
                 b'"arguments":{"question":"clients in \xff Kladno"}}}')  # fmt: skip
        reply = mcp.answer()
        assert reply["id"] == 8 and "not UTF-8" in reply["error"]["message"]
        mcp.send(b'{"jsonrpc":"2.0","id":9,"method":"ping","n":' + b"1" * 5000 + b"}")
        assert "4,300 digits" in mcp.answer()["error"]["message"]
        mcp.send(b'{"jsonrpc":"2.0","id":10,"method":"ping","pad":"' + b"p" * (2 << 20) + b'"}')
        assert "over 1,048,576 bytes" in mcp.answer()["error"]["message"]
        for line, request_id in ((b'{"id": 11, "method": "ping"}', 11), (b"[]", None), (b"null", None)):
            mcp.send(line)  # JSON, but not JSON-RPC 2.0: the SDK dropped these without a word
            reply = mcp.answer()
            assert reply["id"] == request_id and reply["error"]["code"] == -32600, reply
        reply = mcp.call("ask", {"question": LONG})
        assert reply["result"]["isError"] and "at most 2,000" in reply["result"]["content"][0]["text"]
        answer = mcp.call("ask", {"question": FAST_QUESTION})["result"]
        assert not answer["isError"] and answer["structuredContent"]["status"] == "answered"
        log = mcp.close()
    assert mcp.proc.returncode == 0 and "Traceback" not in log


@pytest.mark.postgres
def test_mcp_stdio_question_limit_flag(financial_dsn):
    with stdio("--dsn", financial_dsn, "--context", SET, "--max-question-chars", "40") as client:
        assert "at most 40" in client.error("ask", {"question": "x" * 41})
        assert client.ok("ask", {"question": "How many gold cards were issued?"})["status"] == "answered"


@pytest.mark.postgres
def test_mcp_http_answers_bad_bodies_with_a_json_error(financial_dsn):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxtool", "mcp", "--http", f"127.0.0.1:{port}", "--dsn", financial_dsn,
         "--context", SET],
        cwd=REPO, env={**os.environ, "CTXTOOL_SERVE_TOKEN": "t0k"},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    headers = {"Authorization": "Bearer t0k", "Accept": "application/json, text/event-stream"}
    try:
        _wait_for(port, proc)
        for body, status, words in (
            (DEEP, 400, "deeper than 64"),
            (b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"\\udc00"}}', 400, "lone surrogate"),
            (b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":"\xfe"}}', 400, "not UTF-8"),
            (b'{"jsonrpc":"2.0","id":5,"method":"ping","n":' + b"7" * 4301 + b"}", 400, "4,300 digits"),
            (b"[" + b"1," * (1 << 20) + b"1]", 413, "at most 1,048,576"),
        ):
            got, err = send(url, "/", body, headers)
            assert got == status and words in err["error"]["message"], err
        got, err = send(url, "/", body=json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                        "params": {"name": "ask", "arguments": {"question": LONG}}}).encode(), headers=headers)  # fmt: skip
        assert (
            got == 200 and err["result"]["isError"] and "at most 2,000" in err["result"]["content"][0]["text"]
        )
        got, ok = send(url, "/", json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask", "arguments": {"question": FAST_QUESTION}}}).encode(), headers)  # fmt: skip
        assert got == 200 and ok["result"]["structuredContent"]["status"] == "answered"
    finally:
        proc.terminate()
        _, log = proc.communicate(timeout=20)
    assert "Traceback" not in log.decode()


@pytest.mark.postgres
def test_cli_question_not_utf8_or_too_long_is_one_line(financial_dsn):
    def ask(question: bytes) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable.encode(), b"-m", b"ctxtool", b"ask", question, b"--context", SET.encode(),
             b"--dsn", financial_dsn.encode(), b"--no-llm"],
            cwd=REPO, capture_output=True, timeout=120,
        )  # fmt: skip

    done = ask(b"How many clients live in the district \xffKladno?")
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert (
        done.stderr.decode().strip()
        == "error: the question is not UTF-8 text (byte 0xff at character 39); check the terminal's or the file's encoding"
    )
    done = ask(LONG.encode())
    assert done.returncode == 2 and b"at most 2,000" in done.stderr and b"Traceback" not in done.stderr
    done = ask(FAST_QUESTION.encode())
    assert done.returncode == 0 and b"Traceback" not in done.stderr
