"""`ctxtool mcp` answers `initialize` before it imports the MCP SDK (ctxtool.mcp.handshake): the early
answer must be the SDK's own, byte for byte, and the session after it must be the one the SDK would
have had. Each case runs the same requests through `ctxtool mcp` and through the same server with the
SDK answering `initialize` itself (`serve_stdio(answer_early=False)`), and compares every line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ctxtool.mcp import handshake
from tests.mcp_client import REPO

SDK_ANSWERS = (
    "from ctxtool.mcp.server import registry\n"
    "from ctxtool.mcp.stdio import serve_stdio\n"
    "from ctxtool.mcp.tools import Defaults\n"
    "serve_stdio(registry(), Defaults(), answer_early=False)\n"
)


def _initialize(version: str, rid: int | str = 1, **params: object) -> dict:
    body = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": {**body, **params}}


AFTER = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
# a tool call too, in one case (the session the SDK keeps after the early answer serves it)
CALL = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "validate", "arguments": {"paths": [str(REPO / "samples" / "postgres")]}},
}


def _transcript(cmd: list[str], messages: list[dict]) -> dict:
    """Every response line by id (a list: an id answered twice shows), over a pipe as hosts use."""
    text = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "answered early" not in done.stderr, done.stderr
    lines: dict = {}
    for line in done.stdout.splitlines():
        lines.setdefault(json.loads(line).get("id"), []).append(line)
    return lines


CASES = {
    "current": _initialize("2025-06-18"),
    "oldest": _initialize("2024-11-05", rid="first"),
    "newest handshake": _initialize(
        "2025-11-25",
        capabilities={
            "roots": {"listChanged": True},
            "sampling": {},
            "elicitation": {},
            "experimental": {"x": {}},
        },
        clientInfo={"name": "gemini-cli-mcp-client", "version": "0.61.0", "title": "Gemini CLI"},
    ),
    "unknown version": _initialize("2099-01-01", rid=7),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_early_answer_is_the_sdks(case):
    """The first line of `ctxtool mcp` is answered by ctxtool.mcp.handshake; every response of the
    session (initialize's, the tool list, a tool call) equals the SDK-only server's, and initialize
    is answered once."""
    messages = [CASES[case], *AFTER, *([CALL] if case == "current" else [])]
    assert handshake.reply(json.dumps(CASES[case])) is not None  # this case takes the early path
    ours = _transcript([sys.executable, "-m", "ctxtool", "mcp"], messages)
    sdk = _transcript([sys.executable, "-c", SDK_ANSWERS], messages)
    assert ours == sdk
    rid = CASES[case]["id"]
    assert len(ours[rid]) == 1 and json.loads(ours[rid][0])["result"]["serverInfo"]["name"] == "ctxtool"
    assert json.loads(ours[2][0])["result"]["tools"]
    if case == "current":
        assert json.loads(ours[3][0])["result"]["structuredContent"]["summary"]["files"] == 3


OTHER_FIRST_LINES = [
    "not json",
    {"jsonrpc": "2.0", "id": 1, "method": "ping"},
    _initialize("2025-06-18", rid=5, clientInfo={"name": "no version"}),  # the SDK refuses it
]


def test_other_first_lines_are_left_to_the_sdk():
    """A first line that is not an initialize the SDK accepts gets no early answer, and the responses
    are the SDK-only server's (a parse error; a ping answered; an error for the bad initialize; then
    a good initialize and the tool list)."""
    lines = [m if isinstance(m, str) else json.dumps(m) for m in OTHER_FIRST_LINES]
    assert all(handshake.reply(line) is None for line in lines)
    session = [*lines, *(json.dumps(m) for m in [_initialize("2025-06-18", rid=10), *AFTER])]
    text = "".join(line + "\n" for line in session)
    runs = []
    for cmd in ([sys.executable, "-m", "ctxtool", "mcp"], [sys.executable, "-c", SDK_ANSWERS]):
        done = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=120, cwd=REPO)
        assert done.returncode == 0, done.stderr
        runs.append(sorted(done.stdout.splitlines()))
    assert runs[0] == runs[1]
    answers = {json.loads(line).get("id"): json.loads(line) for line in runs[0]}
    assert answers[None]["error"]["code"] == -32700 and "result" in answers[1] and "error" in answers[5]
    assert answers[10]["result"]["serverInfo"]["name"] == "ctxtool"


def test_the_early_answer_needs_no_sdk():
    """Building the answer imports neither the MCP SDK nor pydantic (what made it slow)."""
    code = (
        "import sys, json\n"
        "from ctxtool.mcp import handshake, stdio\n"
        "assert handshake.reply(sys.argv[1])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'pydantic'))\n"
        "print(json.dumps(heavy))\n"
    )
    line = json.dumps(CASES["current"])
    done = subprocess.run(
        [sys.executable, "-c", code, line], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_versions_are_the_sdks():
    """The handshake's protocol versions are the SDK's (a new SDK release must update them)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    assert handshake.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    assert handshake.negotiate("1999-01-01") == LATEST_HANDSHAKE_VERSION
