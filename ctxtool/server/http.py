"""`ctxtool serve`: the HTTP JSON API on the standard library's ThreadingHTTPServer.

Routes: ``GET /health``, ``POST /ask``, ``POST /query``, ``GET /templates``, ``GET /schema``,
``GET /openapi.json``. ``/ask`` and ``/query`` take ``conversation_id`` and/or ``session`` to answer
within a conversation (an unknown conversation is a 404). Binds to 127.0.0.1 by default; ``token``
requires ``Authorization: Bearer``.
"""

from __future__ import annotations

import hmac
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ctxtool.conversations.model import ConversationNotFound
from ctxtool.errors import CtxtoolError
from ctxtool.server.openapi import document
from ctxtool.server.service import Service

MAX_BODY = 1 << 20


def _handler(service: Service, token: str | None, quiet: bool) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "ctxtool"
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: Any) -> None:  # access log on stderr unless quiet
            if not quiet:
                sys.stderr.write(f"{self.address_string()} - {fmt % args}\n")

        def _send(self, status: int, data: Any) -> None:
            body = json.dumps(data, ensure_ascii=False, default=str).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _error(self, status: int, message: str) -> None:
            self._send(status, {"error": {"code": status, "message": message}})

        def _authorized(self) -> bool:
            if not token or self.path.split("?")[0] in ("/health", "/openapi.json"):
                return True
            got = self.headers.get("Authorization", "")
            if hmac.compare_digest(got.encode(), f"Bearer {token}".encode()):
                return True
            self._error(401, "missing or wrong bearer token")
            return False

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                raise CtxtoolError(f"request body over {MAX_BODY} bytes")
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw or b"{}")
            except ValueError as exc:
                raise CtxtoolError(f"the body is not JSON: {exc}") from None

        def do_GET(self) -> None:  # noqa: N802 - http.server API
            if not self._authorized():
                return
            path = self.path.split("?")[0].rstrip("/") or "/"
            try:
                if path in ("/", "/health"):
                    self._send(200, service.health())
                elif path == "/openapi.json":
                    self._send(200, document())
                elif path == "/templates":
                    self._send(200, service.templates())
                elif path == "/schema":
                    self._send(200, service.schema())
                else:
                    self._error(404, f"no route GET {path}; see /openapi.json")
            except CtxtoolError as exc:
                self._error(400, str(exc))

        def do_POST(self) -> None:  # noqa: N802 - http.server API
            if not self._authorized():
                return
            path = self.path.split("?")[0].rstrip("/")
            try:
                body = self._body()
                client_ip = self.client_address[0] if self.client_address else None
                if path == "/ask":
                    self._send(200, service.ask(body, client_ip=client_ip))
                elif path == "/query":
                    self._send(200, service.query(body, client_ip=client_ip))
                else:
                    self._error(404, f"no route POST {path}; see /openapi.json")
            except ConversationNotFound as exc:
                self._error(404, str(exc))
            except CtxtoolError as exc:
                self._error(400, str(exc))
            except Exception as exc:  # noqa: BLE001 - a server answers, it does not crash
                self._error(500, f"internal error: {type(exc).__name__}: {exc}")

    return Handler


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default backlog of 5 refuses bursts of concurrent clients


def make_server(
    service: Service,
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    token: str | None = None,
    quiet: bool = False,
) -> ThreadingHTTPServer:
    """A bound, not yet serving, HTTP server (port 0 picks a free port: see ``server.server_address``)."""
    server = _Server((host, port), _handler(service, token, quiet))
    server.daemon_threads = True
    return server


def serve_http(
    service: Service, host: str = "127.0.0.1", port: int = 8765, *, token: str | None = None
) -> None:
    server = make_server(service, host, port, token=token)
    h, p = server.server_address[:2]
    sys.stderr.write(
        f"serving {service.runtime.ref} on http://{h}:{p} (OpenAPI at /openapi.json); Ctrl-C stops\n"
    )
    sys.stderr.flush()
    try:
        server.serve_forever()
    finally:
        server.server_close()
