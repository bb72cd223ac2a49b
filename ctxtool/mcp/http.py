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
import json
import sys
from collections.abc import AsyncIterator, Iterable
from typing import Any

from ctxtool.errors import CtxtoolError
from ctxtool.limits import MAX_JSON_BYTES, RejectedMessage, TooLarge, loads_request
from ctxtool.mcp.tools import Defaults, Tool
from ctxtool.server.guard import AllowedHosts, Guard, bearer_matches, json_error


class McpApp:
    """The ASGI app: the request checks of :mod:`ctxtool.server.guard` (standalone; a host
    application applies its own), the bearer token, a bounded JSON body, then the SDK's streamable
    HTTP session manager."""

    def __init__(self, manager: Any, token: str | None, hosts: AllowedHosts | None = None) -> None:
        self.manager = manager
        self._token = token  # None: the host application checks the token (``ctxtool serve`` does)
        self._running = False
        self._http: Any = Guard(self._handle, hosts) if hosts is not None else self._handle

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
        await self._http(scope, receive, send)

    async def _handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if self._token is not None:
            got = dict(scope.get("headers") or []).get(b"authorization")
            if not bearer_matches(got, self._token):
                await json_error(401, "missing or wrong bearer token", [(b"www-authenticate", b"Bearer")])(
                    scope, receive, send
                )
                return
        if not self._running:
            await json_error(503, "the MCP endpoint is not started")(scope, receive, send)
            return
        if scope.get("method") == "POST":
            receive = await _checked_body(scope, receive, send)
            if receive is None:
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


async def _checked_body(scope: dict[str, Any], receive: Any, send: Any) -> Any:
    """Read the POST body and check it as :func:`ctxtool.limits.loads_request` does (size, UTF-8,
    depth, numbers, surrogates): a refused body gets its JSON-RPC error here and None is returned;
    else a ``receive`` that gives the SDK the same body again."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return None  # the client went away
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        more = message.get("more_body", False)
        if size > MAX_JSON_BYTES:
            break
    raw = b"".join(chunks)
    try:
        loads_request(raw, what="the message")
    except CtxtoolError as exc:
        data = getattr(exc, "data", None)
        request_id = data.get("id") if isinstance(data, dict) else None
        code = -32600 if isinstance(exc, RejectedMessage) else -32700
        status = 413 if isinstance(exc, TooLarge) else 400
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": str(exc)}})
        await _send_json_text(send, status, body.encode())
        return None
    replayed = False

    async def replay() -> dict[str, Any]:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": raw, "more_body": False}
        return await receive()

    return replay


async def _send_json_text(send: Any, status: int, data: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def asgi_app(
    *,
    token: str | None,
    defaults: Defaults | None = None,
    tools: dict[str, Tool] | None = None,
    host: str | None = "127.0.0.1",
    checked_by_host: bool = False,
    allowed_hosts: Iterable[str] = (),
) -> McpApp:
    """The MCP endpoint as an ASGI app requiring ``Authorization: Bearer <token>``. ``tools``: default
    every authoring and runtime tool; ``host``: the address it binds (with ``allowed_hosts``, what
    ``Host`` may name: :class:`ctxtool.server.guard.AllowedHosts`); ``checked_by_host``: the
    application it is mounted in checks the token and the request itself (``token`` may then be None)."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from ctxtool.errors import InputError
    from ctxtool.mcp.server import build_server, registry

    if not token and not checked_by_host:
        raise InputError("MCP over HTTP needs a bearer token: pass --token or set $CTXTOOL_SERVE_TOKEN")
    server = build_server(tools or registry(), defaults or Defaults(), serialize=False)
    # the Host / Origin / Content-Type checks are ctxtool's own (ctxtool.server.guard), as for the
    # JSON API: the SDK's copy of them stays off
    manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True)
    hosts = None if checked_by_host else AllowedHosts(host, allowed_hosts)
    return McpApp(manager, None if checked_by_host else token, hosts)


def serve_http(app: McpApp, host: str, port: int) -> None:
    """Serve ``app`` with uvicorn until interrupted."""
    import uvicorn

    sys.stderr.write(
        f"ctxtool MCP server on http://{host}:{port}/ (streamable HTTP, bearer token); Ctrl-C stops\n"
    )
    sys.stderr.flush()
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
