"""Fuzz test (issue 24): a few hundred generated inputs (truncated, deeply nested, huge, invalid UTF-8,
lone surrogates, huge numbers, wrong types) fed to ``validate`` (files, through the CLI), ``ask``
(the Python API on a small set), the HTTP API and MCP over stdio (one long-lived server). Every one
must be answered (an answer, a finding, a one-line error) with no traceback and within its time
limit; each server answers an ordinary request at the end. Seeded: a failure names its input and
reproduces."""

from __future__ import annotations

import json
import random
import time

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.errors import CtxtoolError
from ctxtool.server.http import create_app
from ctxtool.server.service import Service
from tests.mcp_client import REPO
from tests.raw_http import send
from tests.raw_mcp import RawMcp
from tests.rt_support import RUNTIME_SET, offline_runtime
from tests.serve_support import FAST_QUESTION, running

SEED = 24
BASE_TEXT = (REPO / RUNTIME_SET).read_text()
BASE = json.loads(BASE_TEXT)
SMALL_SET = {"templates": BASE["templates"][:6], "facets": BASE.get("facets", [])[:3]}
WORDS = [w for t in BASE["templates"] for w in t["nl_query"].split()]


def _nested(rng: random.Random) -> bytes:
    depth = rng.choice([65, 200, 1000, 3000, 100_000])
    opener, closer = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
    closed = rng.random() < 0.5
    return opener * depth + (b"1" + closer * depth if closed else b"")


def _with_bad_bytes(rng: random.Random, text: bytes) -> bytes:
    pos = rng.randrange(len(text) + 1)
    return (
        text[:pos]
        + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80", b"\xf8\x88\x80\x80\x80"])
        + text[pos:]
    )


def _with_surrogate(rng: random.Random, text: str) -> str:
    quotes = [i for i, c in enumerate(text) if c == '"']
    pos = rng.choice(quotes) + 1 if quotes else 0
    return text[:pos] + rng.choice(["\\ud800", "\\udfff", "\\udc00x", "\\ud83d"]) + text[pos:]


def _mutated(rng: random.Random) -> str:
    data = json.loads(BASE_TEXT)
    item = rng.choice(data["templates"])
    key = rng.choice([*item.keys(), "parameterized", "templates"])
    item[key] = rng.choice([None, 7, -1e308, [], {}, "x" * 5000, [[[]]], {"a": {"b": None}}, True, "\u0000"])
    if rng.random() < 0.3:
        data[rng.choice(["templates", "facets", "value_searches"])] = rng.choice([None, "x", 1, {}])
    return json.dumps(data)


def documents(rng: random.Random, n: int) -> list[tuple[str, bytes]]:
    """(kind, bytes) of ``n`` generated JSON documents, every kind in turn."""
    small = json.dumps(SMALL_SET)
    makers = {
        "truncated": lambda: BASE_TEXT.encode()[: rng.randrange(1, len(BASE_TEXT))],
        "nested": lambda: _nested(rng),
        "huge-string": lambda: json.dumps({"templates": [{"nl_query": "q" * rng.choice([10**5, 2 * 10**6])}]}).encode(),
        "many-items": lambda: json.dumps({"templates": [{"nl_query": str(i), "sql": "SELECT 1"} for i in range(300)]}).encode(),
        "not-utf8": lambda: _with_bad_bytes(rng, small.encode()),
        "surrogate": lambda: _with_surrogate(rng, small).encode(),
        "big-int": lambda: small.replace('"templates"', '"n": ' + "9" * rng.choice([4301, 5000, 50_000]) + ', "templates"', 1).encode(),
        "big-float": lambda: small.replace('"templates"', '"n": 1e999999, "m": -' + "9" * 400 + ".5e-99999, " + '"templates"', 1).encode(),
        "wrong-types": lambda: _mutated(rng).encode(),
        "garbage": lambda: bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))),
        "empty": lambda: rng.choice([b"", b" ", b"null", b"[]", b'""', b"{}", b"0"]),
    }  # fmt: skip
    kinds = list(makers)
    return [(kinds[i % len(kinds)], makers[kinds[i % len(kinds)]]()) for i in range(n)]


def questions(rng: random.Random, n: int) -> list[str]:
    def words(k: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(k))

    makers = [
        lambda: words(rng.randrange(1, 12)),
        lambda: words(rng.randrange(1, 8)) + " \ud800 " + words(2),  # a lone surrogate
        lambda: (words(5).encode() + b" \xff\xfe ").decode("utf-8", "surrogateescape"),  # argv's bytes
        lambda: words(400)[: rng.choice([1999, 2000, 2001, 5000, 100_000])],
        lambda: "9" * rng.choice([10, 4301, 20_000]),
        lambda: "[" * rng.choice([10, 3000]) + "]" * 10,
        lambda: "".join(chr(rng.randrange(1, 0x2FFFF)) for _ in range(rng.randrange(1, 80))).replace(
            "\ud800", ""
        ),
        lambda: rng.choice(["", " ", "\x00", "'; DROP TABLE district; --", "$1", "%s", "?", "\\", '"']),
        lambda: words(3) + " " + "".join(rng.choice("'\"()[]{};$%?*") for _ in range(40)),
    ]
    return [makers[i % len(makers)]() for i in range(n)]


def test_validate_files(tmp_path):
    rng = random.Random(SEED)
    runner = CliRunner()
    for i, (kind, data) in enumerate(documents(rng, 88)):
        path = tmp_path / f"{i:03d}-{kind}.json"
        path.write_bytes(data)
        t = time.perf_counter()
        result = runner.invoke(cli, ["validate", str(path), "--format", "json"])
        assert isinstance(result.exception, (SystemExit, type(None))), (path.name, result.exception)
        assert result.exit_code in (0, 1, 2), (path.name, result.exit_code, result.output[-500:])
        assert "Traceback" not in result.output, path.name
        assert time.perf_counter() - t < 10, f"{path.name} took {time.perf_counter() - t:.1f} s"


def test_ask_python_api():
    rng = random.Random(SEED + 1)
    rt = offline_runtime(SMALL_SET)
    for question in questions(rng, 90):
        t = time.perf_counter()
        try:
            ans = rt.ask(question, action=rng.choice(["showsql", "explainsql", "runsql"]))
        except CtxtoolError as exc:  # a one-line error is an answer too
            assert "\n" not in str(exc), repr(question[:80])
        else:
            json.dumps(ans.to_dict(), default=str)  # the answer can be written out
        assert time.perf_counter() - t < 5, f"{question[:80]!r} took {time.perf_counter() - t:.1f} s"


@pytest.mark.postgres
def test_http_api(financial_runtime, capfd):
    rng = random.Random(SEED + 2)
    bodies = [data for _, data in documents(rng, 50)]
    bodies += [json.dumps({"question": q}, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
               for q in questions(rng, 30)]  # fmt: skip
    bodies += [json.dumps(b).encode() for b in ([], "x", {"question": 7}, {"question": ["a"]}, {"question": "a",
               "history": "x"}, {"question": "a", "action": None}, {"question": "a", "session": {}})]  # fmt: skip
    with running(create_app(Service(financial_runtime))) as url:
        for body in bodies:
            path = rng.choice(["/ask", "/query"])
            status, reply = send(url, path, body, timeout=15)
            assert status in (200, 400, 404, 413), (status, body[:120])
            assert isinstance(reply, dict) and ("error" in reply or "status" in reply), (status, body[:120])
        status, ans = send(url, "/ask", json.dumps({"question": FAST_QUESTION}).encode())
        assert status == 200 and ans["status"] == "answered"
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.postgres
def test_mcp_stdio(financial_dsn, tmp_path):
    rng = random.Random(SEED + 3)
    set_path = tmp_path / "set.json"
    set_path.write_text(json.dumps(SMALL_SET))
    with RawMcp("--dsn", financial_dsn, "--context", "set.json", cwd=tmp_path) as mcp:
        for kind, data in documents(rng, 40):  # whole lines
            if kind in ("empty",) and not data.strip():
                continue  # a blank line is skipped, as JSON-RPC over stdio says
            mcp.send(data.replace(b"\n", b" "))
            reply = mcp.answer(20)
            assert "error" in reply or "result" in reply, (kind, reply)
        for kind, data in documents(rng, 30):  # as validate's text argument
            if len(data) > 500_000:
                continue  # a message over 1 MiB has no id to answer: the loop above sends those
            text = data.decode("utf-8", "replace")
            reply = mcp.call("validate", {"text": text}, timeout=30)
            assert "result" in reply or "error" in reply, (kind, reply)
        for question in questions(rng, 36):
            line = json.dumps({"jsonrpc": "2.0", "id": 5000, "method": "tools/call", "params": {
                "name": rng.choice(["ask", "query_data"]), "arguments": {"question": question}}})  # fmt: skip
            mcp.send(line.encode("utf-8", "surrogatepass"))
            reply = mcp.answer(30)
            assert reply.get("id") in (5000, None) and ("result" in reply or "error" in reply), reply
        final = mcp.call("ask", {"question": FAST_QUESTION})["result"]
        assert not final["isError"] and final["structuredContent"]["status"] == "answered"
        log = mcp.close()
    assert "Traceback" not in log and mcp.proc.returncode == 0, log[-3000:]
