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

Every request is first checked the way real servers check it (:func:`request_problems`: llama.cpp's
server and ``llama-cpp-python``'s render each message into the model's chat template, OpenAI and vLLM
validate the body): a request they would reject gets the error they send (400, or ``reject_status``)
and the scripted reply stays queued, so a client that sends ``"content": null`` or an unanswered tool
call fails its test as it would fail against a real server. ``FakeLLM(validate=False)`` turns this
off for tests of the client's own handling of odd replies.

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


_ROLES = ("system", "developer", "user", "assistant", "tool")


def _tool_call_problems(calls: Any, where: str) -> list[str]:
    if not isinstance(calls, list) or not calls:
        return [f"{where}.tool_calls must be a non-empty array"]
    out = []
    for j, call in enumerate(calls):
        at = f"{where}.tool_calls[{j}]"
        if not isinstance(call, dict):
            out.append(f"{at} must be an object")
            continue
        if not isinstance(call.get("id"), str) or not call["id"]:
            out.append(f"{at}.id must be a non-empty string")
        if call.get("type") != "function":
            out.append(f"{at}.type must be 'function'")
        fn = call.get("function")
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
            out.append(f"{at}.function.name must be a non-empty string")
        elif not isinstance(fn.get("arguments"), str):
            out.append(f"{at}.function.arguments must be a string of JSON")
        else:
            try:
                json.loads(fn["arguments"])
            except ValueError:
                out.append(f"{at}.function.arguments is not valid JSON")
    return out


def request_problems(body: Any) -> list[str]:
    """Why a real OpenAI-compatible server would reject this chat-completions body (empty: none).

    The rules are those every server enforces, so that a client passing them works everywhere:
    ``messages`` a non-empty array; each role one of system/developer/user/assistant/tool; ``content``
    a string (a user message may send content parts) -- an assistant message may leave it out only
    when it calls tools, and never sends ``null`` (llama.cpp's templates concatenate it: HTTP 500,
    "can only concatenate str (not NoneType)"); ``tool_calls`` of the wire shape, arguments a JSON
    string; a ``tool`` message carries ``tool_call_id`` naming a call of the assistant message just
    before it, and every call is answered before the next user or assistant message; the first
    message that is not a system message is the user's, and the conversation ends with a user or
    tool message (the model answers it); ``temperature`` in [0, 2], ``max_tokens`` a positive
    integer, ``tools`` functions with a name and an object ``parameters``.
    """
    if not isinstance(body, dict):
        return ["the body must be a JSON object"]
    problems: list[str] = []
    if not isinstance(body.get("model"), str) or not body["model"]:
        problems.append("model must be a non-empty string")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return problems + ["messages must be a non-empty array"]
    open_calls: set[str] = set()
    seen_non_system = False
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(m, dict):
            problems.append(f"{where} must be an object")
            continue
        role = m.get("role")
        if role not in _ROLES:
            problems.append(f"{where}.role {role!r} is not one of {', '.join(_ROLES)}")
            continue
        content = m.get("content", ...)
        if content is None:
            problems.append(
                f"{where}.content is null: send a string (can only concatenate str, not NoneType)"
            )
        elif content is ... and not (role == "assistant" and m.get("tool_calls")):
            problems.append(f"{where}.content is missing")
        elif content is not ... and not isinstance(content, str):
            if not (role == "user" and isinstance(content, list)):
                problems.append(f"{where}.content must be a string")
        if role != "tool" and open_calls:
            problems.append(f"{where}: tool calls {sorted(open_calls)} have no tool message answering them")
            open_calls = set()
        if role in ("system", "developer"):
            continue
        if not seen_non_system and role != "user":
            problems.append(
                f"{where}: the first message after the system prompt must be the user's, not {role}"
            )
        seen_non_system = True
        if role == "assistant" and "tool_calls" in m:
            found = _tool_call_problems(m["tool_calls"], where)
            problems.extend(found)
            if not found:
                open_calls = {c["id"] for c in m["tool_calls"]}
        elif role == "tool":
            call_id = m.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                problems.append(f"{where}: a tool message needs tool_call_id")
            elif call_id not in open_calls:
                problems.append(
                    f"{where}.tool_call_id {call_id!r} answers no tool call of the message before it"
                )
            else:
                open_calls.discard(call_id)
    last = messages[-1]
    if isinstance(last, dict) and last.get("role") not in ("user", "tool"):
        problems.append(
            f"the last message is {last.get('role')!r}: end with the user's message or a tool result"
        )
    if open_calls:
        problems.append(f"tool calls {sorted(open_calls)} have no tool message answering them")
    temperature = body.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool)
        or not isinstance(temperature, (int, float))
        or not 0 <= temperature <= 2
    ):
        problems.append(f"temperature {temperature!r} must be a number from 0 to 2")
    max_tokens = body.get("max_tokens")
    if max_tokens is not None and (
        isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
    ):
        problems.append(f"max_tokens {max_tokens!r} must be a positive integer")
    for j, tool in enumerate(body.get("tools") or []):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(fn, dict) or not fn.get("name") or not isinstance(fn.get("parameters", {}), dict):
            problems.append(f"tools[{j}] must be {{type: function, function: {{name, parameters}}}}")
    return problems


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
        problems = request_problems(body) if fake.validate else []
        if problems:
            fake.rejected.append((request, problems))
            self._send(error(fake.reject_status, "invalid request: " + "; ".join(problems)), request)
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

    def __init__(self, *, validate: bool = True, reject_status: int = 400) -> None:
        self.validate = validate
        self.reject_status = reject_status
        self.rejected: list[tuple[FakeRequest, list[str]]] = []  # what a real server would refuse
        self.allow_rejected = False
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
        # ctxtool turns some model failures into warnings: a request a real server refuses must
        # still fail the test (set ``allow_rejected`` in a test that sends one on purpose)
        assert server.allow_rejected or not server.rejected, (
            "requests a real server would reject: " + " | ".join("; ".join(p) for _, p in server.rejected)
        )
