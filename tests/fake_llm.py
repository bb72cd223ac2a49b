"""A scripted OpenAI-compatible chat-completions server for tests (stdlib ``http.server`` in a thread).

It listens on 127.0.0.1 on a free port and answers ``POST .../chat/completions`` with the replies a
test scripted, in order, recording every request. Nothing is mocked inside ctxtool: the real client
talks HTTP to it.

Use it as a pytest fixture (``tests/conftest.py`` imports ``fake_llm``; the fixture also sets
``CTXTOOL_LLM_BASE_URL``, ``CTXTOOL_LLM_MODEL=fake-model`` and ``CTXTOOL_LLM_API_KEY=sk-fake-secret``
so code that reads the environment, like ``ctxtool draft --llm``, finds it)::

    from tests.fake_llm import error, reply, stream, tool_call

    def test_something(fake_llm):
        fake_llm.script(
            error(429, "slow down", headers={"Retry-After": "0"}),
            reply(tool_calls=[tool_call("run_sql", {"sql": "SELECT 1"})]),
            reply("The answer is 1."),
            stream("Hello there", usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}),
        )
        client = ChatClient(fake_llm.base_url, "fake-model", timeout=5, sleep=lambda s: None)
        ...
        assert fake_llm.requests[0].body["messages"][0]["role"] == "user"

For replies that depend on the request, script a function (``respond(fn)``) or set
``fake_llm.default = fn``; ``fn(request)`` gets a :class:`FakeRequest` and returns a reply (or a plain
string, taken as the content). When nothing is scripted and there is no default, the server answers
500 with "no scripted reply left" so a test that sends too many requests fails loudly.

Reply builders: :func:`reply` (a JSON completion), :func:`error` (an HTTP error; ``as_array=True`` for
the server that sends errors as a JSON array), :func:`stream` (server-sent events with comment lines,
content split in pieces, tool-call fragments by index, usage in a last chunk without choices, an
optional mid-stream error, ``[DONE]``), :func:`raw` (any bytes), :func:`delay` (wait, then reply).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

FAKE_MODEL = "fake-model"
FAKE_KEY = "sk-fake-secret"


@dataclass
class FakeRequest:
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", []) if isinstance(self.body, dict) else []

    @property
    def last_user(self) -> str:
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return m.get("content") or ""
        return ""


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunks: list[bytes] | None = None  # streamed pieces, flushed one by one
    delay: float = 0.0
    func: Callable[[FakeRequest], Any] | None = None


def tool_call(name: str, arguments: Any, id: str | None = None) -> dict[str, Any]:
    """A tool call in wire form (arguments JSON-encoded unless already a string)."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": id or f"call_{name}", "type": "function", "function": {"name": name, "arguments": args}}


def reply(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    model: str = FAKE_MODEL,
    headers: dict[str, str] | None = None,
) -> Reply:
    """A complete (non-streamed) chat completion."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    data = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop"),
            }
        ],
        "usage": usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    return Reply(200, {"Content-Type": "application/json", **(headers or {})}, json.dumps(data).encode())


def error(
    status: int,
    message: str,
    *,
    code: Any = None,
    metadata: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    as_array: bool = False,
) -> Reply:
    """An HTTP error with an OpenAI-style body (or a JSON array of one, as one server sends)."""
    err: dict[str, Any] = {"code": code if code is not None else status, "message": message}
    if metadata:
        err["metadata"] = metadata
    data: Any = [{"error": err}] if as_array else {"error": err}
    return Reply(status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(data).encode())


def raw(body: bytes | str, *, status: int = 200, content_type: str = "application/json") -> Reply:
    return Reply(status, {"Content-Type": content_type}, body.encode() if isinstance(body, str) else body)


def delay(seconds: float, then: Reply) -> Reply:
    then.delay = seconds
    return then


def respond(func: Callable[[FakeRequest], Any]) -> Reply:
    """A reply computed from the request: ``func(request)`` returns a Reply, a dict (sent as JSON) or
    a string (the content of a normal completion)."""
    return Reply(func=func)


def stream(
    content: str = "",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: dict[str, Any] | None = None,
    finish_reason: str | None = None,
    piece: int = 4,
    comments: bool = True,
    error_after: int | None = None,
    error_message: str = "provider disconnected",
    done: bool = True,
    tool_index: bool = True,
) -> Reply:
    """A streamed completion as server-sent events.

    ``content`` is sent in pieces of ``piece`` characters; each tool call's arguments are split into
    3 fragments (sent with their ``index`` unless ``tool_index=False``); ``usage`` comes in a last
    chunk with ``choices: []``; ``error_after=N`` sends an error chunk (``finish_reason: "error"``)
    after N content pieces; ``comments`` adds keep-alive comment lines.
    """
    events: list[bytes] = []

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> None:
        data = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "model": FAKE_MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        events.append(f"data: {json.dumps(data)}\n\n".encode())

    if comments:
        events.append(b": OPENROUTER PROCESSING\n\n")
    chunk({"role": "assistant", "content": ""})
    pieces = [content[i : i + piece] for i in range(0, len(content), piece)]
    for n, p in enumerate(pieces):
        if error_after is not None and n == error_after:
            chunk({"content": ""}, "error", error={"code": 502, "message": error_message})
            return Reply(200, {"Content-Type": "text/event-stream"}, chunks=events)
        chunk({"content": p})
        if comments and n == 0:
            events.append(b": keep-alive\n\n")
    if error_after is not None and error_after >= len(pieces):
        chunk({"content": ""}, "error", error={"code": 502, "message": error_message})
        return Reply(200, {"Content-Type": "text/event-stream"}, chunks=events)
    for i, tc in enumerate(tool_calls or []):
        args = tc["function"]["arguments"]
        third = max(1, len(args) // 3)
        parts = [args[:third], args[third : 2 * third], args[2 * third :]]
        for k, part in enumerate(parts):
            frag: dict[str, Any] = {"function": {"arguments": part}}
            if tool_index:
                frag["index"] = i
            if k == 0:
                frag.update({"id": tc["id"], "type": "function"})
                frag["function"]["name"] = tc["function"]["name"]
            chunk({"tool_calls": [frag]})
    chunk({}, finish_reason or ("tool_calls" if tool_calls else "stop"))
    if usage:
        data = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "model": FAKE_MODEL,
            "choices": [],
            "usage": usage,
        }
        events.append(f"data: {json.dumps(data)}\n\n".encode())
    if done:
        events.append(b"data: [DONE]\n\n")
    return Reply(200, {"Content-Type": "text/event-stream"}, chunks=events)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw_body = self.rfile.read(length)
        try:
            body: Any = json.loads(raw_body)
        except ValueError:
            body = raw_body.decode("utf-8", "replace")
        request = FakeRequest(self.path, {k: v for k, v in self.headers.items()}, body)
        fake = self.server.fake
        fake.requests.append(request)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(error(404, f"no route {self.path}"), request)
            return
        self._send(fake.next_reply(request), request)

    def _send(self, r: Reply, request: FakeRequest) -> None:
        if r.func is not None:
            r = _coerce(r.func(request))
        if r.delay:
            time.sleep(r.delay)
        try:
            self.send_response(r.status)
            for k, v in r.headers.items():
                self.send_header(k, v)
            if r.chunks is not None:
                self.send_header("Connection", "close")
                self.end_headers()
                for c in r.chunks:
                    self.wfile.write(c)
                    self.wfile.flush()
                self.close_connection = True
                return
            self.send_header("Content-Length", str(len(r.body)))
            self.end_headers()
            self.wfile.write(r.body)
        except (BrokenPipeError, ConnectionResetError):
            pass


def _coerce(value: Any) -> Reply:
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return reply(value)
    if isinstance(value, (dict, list)):
        return Reply(200, {"Content-Type": "application/json"}, json.dumps(value).encode())
    raise TypeError(f"fake LLM responder returned {type(value).__name__}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeLLM


class FakeLLM:
    """The scripted server. ``script(*replies)`` queues replies; ``requests`` records what came in."""

    def __init__(self) -> None:
        self.requests: list[FakeRequest] = []
        self.default: Callable[[FakeRequest], Any] | None = None
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def script(self, *replies: Reply) -> FakeLLM:
        with self._lock:
            self._replies.extend(replies)
        return self

    @property
    def pending(self) -> int:
        return len(self._replies)

    def next_reply(self, request: FakeRequest) -> Reply:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        if self.default is not None:
            return _coerce(self.default(request))
        return error(500, "fake LLM: no scripted reply left")

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the fake server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeLLM:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch):
    """A running :class:`FakeLLM`, with the ``CTXTOOL_LLM_*`` environment pointing at it."""
    with FakeLLM() as server:
        monkeypatch.setenv("CTXTOOL_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("CTXTOOL_LLM_MODEL", FAKE_MODEL)
        monkeypatch.setenv("CTXTOOL_LLM_API_KEY", FAKE_KEY)
        yield server
