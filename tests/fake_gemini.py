"""A scripted Gemini API server for driving the real Gemini CLI in tests (stdlib ``http.server``).

The CLI reaches it through ``GOOGLE_GEMINI_BASE_URL``. Requests that carry the chat's function
declarations are the main conversation: each gets the next scripted turn (function calls, or text
that ends the session), as server-sent events for ``:streamGenerateContent`` or one JSON object for
``:generateContent``. Other requests (the CLI's own side questions: next speaker, routing, loop
checks, token counts) get a short neutral answer. Every request is recorded, and the function
responses the CLI sent back (what the tools returned, as the model sees it) are collected in
:attr:`FakeGemini.responses`.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Turn = list[dict[str, Any]]  # the parts of one model turn


def call(name: str, **args: Any) -> dict[str, Any]:
    """A function-call part for the MCP tool ``name`` of the ctxtool server, named as the CLI declares it."""
    return {"functionCall": {"name": f"mcp_ctxtool_{name}", "args": args}}


def text(words: str) -> dict[str, Any]:
    return {"text": words}


class FakeGemini:
    def __init__(self, turns: list[Turn | Callable[[FakeGemini], Turn]]) -> None:
        self.turns = list(turns)
        self.requests: list[dict[str, Any]] = []
        self.responses: list[dict[str, Any]] = []  # functionResponse parts, in the order received
        self.declared: list[str] = []  # function names the CLI declared to the model
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> FakeGemini:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # model listings and the like
                self._json({"models": [{"name": "models/gemini-2.5-pro"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                fake._record(self.path, body)
                if ":countTokens" in self.path:
                    self._json({"totalTokens": 100})
                    return
                if ":embedContent" in self.path or ":batchEmbedContents" in self.path:
                    self._json({"embeddings": [{"values": [0.0] * 8}]})
                    return
                parts = fake._answer(body)
                response = {
                    "candidates": [
                        {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
                    ],
                    "usageMetadata": {
                        "promptTokenCount": 100,
                        "candidatesTokenCount": 10,
                        "totalTokenCount": 110,
                    },
                    "modelVersion": "gemini-2.5-pro",
                }
                if "alt=sse" in self.path or ":streamGenerateContent" in self.path:
                    data = f"data: {json.dumps(response)}\r\n\r\n".encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                else:
                    self._json(response)

            def _json(self, data: Any) -> None:
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeGemini:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the model says --------------------------------------------------------------------
    def _record(self, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append({"path": path, "body": body})

    def _answer(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        declarations = [
            d.get("name")
            for tool in body.get("tools") or []
            for d in tool.get("functionDeclarations") or tool.get("function_declarations") or []
        ]
        if not any(str(n).startswith("mcp_ctxtool_") for n in declarations):
            return self._side_answer(body)
        with self._lock:
            if not self.declared:
                self.declared = declarations
            contents = body.get("contents") or []
            last = contents[-1] if contents else {}
            for part in last.get("parts") or []:
                if "functionResponse" in part:
                    self.responses.append(part["functionResponse"])
            if not self.turns:
                return [text("Done.")]
            turn = self.turns.pop(0)
        if not callable(turn):
            return turn
        try:
            return turn(self)
        except Exception as exc:  # noqa: BLE001 - the test reports it; the CLI gets a last word
            self.errors.append(f"scripted turn failed: {type(exc).__name__}: {exc}")
            return [text("Stopping: the script failed.")]

    def _side_answer(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The CLI's own questions about the chat (which model, who speaks next, is it looping)."""
        prompt = json.dumps(body)
        if "next_speaker" in prompt:
            return [text(json.dumps({"reasoning": "the task is done", "next_speaker": "user"}))]
        if re.search(r"\"model_choice\"|routing|complexity", prompt, re.I):
            return [text(json.dumps({"reasoning": "simple", "model_choice": "flash"}))]
        return [text(json.dumps({"reasoning": "fine", "is_stuck": False, "confidence": 0.0}))]


def response_data(response: dict[str, Any]) -> Any:
    """The tool result inside a functionResponse as the model sees it: the JSON the MCP tool returned
    (the CLI wraps text blocks in <untrusted_context>), or the error text."""
    blob = json.dumps(response.get("response", response))
    found = re.search(r"\{\\\"|\{\"", blob)
    outputs = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            outputs.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(response.get("response", {}))
    for out in outputs:
        inner = re.sub(r"^\s*<untrusted_context>\s*|\s*</untrusted_context>\s*$", "", out)
        try:
            return json.loads(inner)
        except ValueError:
            continue
    return outputs[0] if outputs else (blob if found is None else blob)
