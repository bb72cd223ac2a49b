"""MCP over the streamable HTTP transport, behind a bearer token, so one team server backs many agents.

`asgi_app` returns an ASGI application answering MCP at whatever path it is routed to: run it alone
(:func:`serve_http`, uvicorn) or mount it in another ASGI server, e.g. at ``/mcp``::

    mcp_app = asgi_app(token=token)
    app = Starlette(routes=[Route("/mcp", endpoint=mcp_app)], lifespan=lambda app: mcp_app.lifespan())

(a mounted app gets no lifespan events of its own: the host enters ``mcp_app.lifespan()``, which runs
the SDK's session manager; a host that is not Starlette routes ``/mcp`` to ``mcp_app`` the same way).

The transport is stateless (every POST carries a whole exchange, JSON responses): any worker behind a
load balancer can answer any request. A request without ``Authorization: Bearer TOKEN`` gets 401.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from ctxtool.mcp.tools import Defaults, Tool

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class McpApp:
    """The ASGI app: bearer check, then the SDK's streamable HTTP session manager."""

    def __init__(self, manager: Any, token: str | None) -> None:
        self.manager = manager
        # None: the host application checks the token (``ctxtool serve`` mounts it so)
        self._expected = f"Bearer {token}".encode() if token else None
        self._running = False

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Enter in the host application's lifespan (a mounted app gets no lifespan events)."""
        async with self.manager.run():
            self._running = True
            try:
                yield
            finally:
                self._running = False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan_events(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers") or [])
        if self._expected is not None and not hmac.compare_digest(
            headers.get(b"authorization", b""), self._expected
        ):
            await _send_json(send, 401, {"error": {"code": 401, "message": "missing or wrong bearer token"}})
            return
        if not self._running:
            await _send_json(
                send, 503, {"error": {"code": 503, "message": "the MCP endpoint is not started"}}
            )
            return
        scope = {**scope, "path": scope.get("path") or "/"}
        await self.manager.handle_request(scope, receive, send)

    async def _lifespan_events(self, receive: Any, send: Any) -> None:
        async with contextlib.AsyncExitStack() as stack:
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await stack.enter_async_context(self.lifespan())
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return


async def _send_json(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def asgi_app(
    *,
    token: str | None,
    defaults: Defaults | None = None,
    tools: dict[str, Tool] | None = None,
    host: str | None = "127.0.0.1",
    checked_by_host: bool = False,
) -> McpApp:
    """The MCP endpoint as an ASGI app requiring ``Authorization: Bearer <token>``. ``tools``: default
    every authoring and runtime tool; ``host``: the address it is reached at (loopback addresses turn
    on the SDK's DNS-rebinding protection); ``checked_by_host``: the application it is mounted in
    checks the token itself (``token`` may then be None)."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    from ctxtool.errors import InputError
    from ctxtool.mcp.server import build_server, registry

    if not token and not checked_by_host:
        raise InputError("MCP over HTTP needs a bearer token: pass --token or set $CTXTOOL_SERVE_TOKEN")
    server = build_server(tools or registry(), defaults or Defaults(), serialize=False)
    security = None
    if host in LOOPBACK:
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    manager = StreamableHTTPSessionManager(
        app=server, json_response=True, stateless=True, security_settings=security
    )
    return McpApp(manager, token)


def serve_http(app: McpApp, host: str, port: int) -> None:
    """Serve ``app`` with uvicorn until interrupted."""
    import uvicorn

    sys.stderr.write(
        f"ctxtool MCP server on http://{host}:{port}/ (streamable HTTP, bearer token); Ctrl-C stops\n"
    )
    sys.stderr.flush()
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
