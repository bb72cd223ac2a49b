"""An MCP server over stdio (JSON-RPC 2.0, one message per line) so agent tools such as the Gemini
CLI can use a local set: ``initialize``, ``tools/list``, ``tools/call`` with the tools ``ask``,
``query_data``, ``list_templates`` and ``describe_schema``; ``ask`` and ``query_data`` take
``conversation_id`` / ``session`` to answer within a conversation. Only JSON-RPC goes to stdout;
messages for people go to stderr. The tools are the runtime tools of :mod:`ctxtool.mcp` (the same
definitions ``ctxtool mcp`` offers), without set and database arguments: the set is the one served.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from ctxtool import __version__
from ctxtool.mcp import runtime_tools
from ctxtool.mcp.tools import Defaults, ToolError, call
from ctxtool.server.service import Service

PROTOCOL_VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05")


class McpServer:
    def __init__(self, service: Service) -> None:
        self.service = service
        self.tools = {t.name: t for t in runtime_tools.tools(preconfigured=True)}
        self.defaults = Defaults(service=service)

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The response to one JSON-RPC message (None for notifications)."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "method" not in message:
            return _error(message.get("id") if isinstance(message, dict) else None, -32600, "invalid request")
        mid = message.get("id")
        method = message["method"]
        params = message.get("params") or {}
        is_notification = "id" not in message
        try:
            if method == "initialize":
                requested = params.get("protocolVersion")
                version = requested if requested in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
                result: Any = {
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": "ctxtool", "version": __version__},
                    "instructions": f"Answers questions from the context set {self.service.runtime.ref}.",
                }
            elif method == "ping":
                result = {}
            elif method.startswith("notifications/"):
                return None
            elif method == "tools/list":
                result = {"tools": [t.spec() for t in self.tools.values()]}
            elif method == "tools/call":
                result = self._call(params.get("name"), params.get("arguments") or {})
            else:
                return None if is_notification else _error(mid, -32601, f"method not found: {method}")
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            return None if is_notification else _error(mid, -32603, f"{type(exc).__name__}: {exc}")
        return None if is_notification else {"jsonrpc": "2.0", "id": mid, "result": result}

    def _call(self, name: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            data = call(self.tools, name, arguments, self.defaults)
        except ToolError as exc:
            return {"content": [{"type": "text", "text": str(exc)}], "isError": True}
        text = json.dumps(data, ensure_ascii=False, default=str)
        is_error = isinstance(data, dict) and data.get("status") == "error"
        return {
            "content": [{"type": "text", "text": text}],
            "structuredContent": json.loads(text),
            "isError": is_error,
        }


def _error(mid: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": message}}


def serve_mcp(service: Service, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Read JSON-RPC messages line by line until end of input."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    server = McpServer(service)
    sys.stderr.write(f"ctxtool MCP server for {service.runtime.ref} on stdio\n")
    sys.stderr.flush()
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            response: Any = _error(None, -32700, "parse error")
        else:
            if isinstance(message, list):  # a batch
                response = [r for r in (server.handle(m) for m in message) if r is not None] or None
            else:
                response = server.handle(message)
        if response is not None:
            stdout.write(json.dumps(response, ensure_ascii=False, default=str) + "\n")
            stdout.flush()
