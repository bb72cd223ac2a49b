"""`ctxtool serve`: the HTTP JSON API as an ASGI application (Starlette), run by uvicorn.

Routes: ``GET /health`` (liveness and the set version served), ``GET /ready`` (the database and the
stores answer: 200, else 503), ``POST /ask``, ``POST /query``, ``GET /templates``, ``GET /schema``,
``GET /openapi.json``. ``/ask`` and ``/query`` take ``conversation_id`` and/or ``session`` to answer
within a conversation (an unknown conversation is a 404). ``token`` requires ``Authorization:
Bearer`` on every route but /health, /ready and /openapi.json, mounted applications included.

The runtime is synchronous (database drivers, CPU-bound matching): every request runs it on a worker
thread, at most ``threads`` at once (the size of the database pool, so a thread never waits for a
session), and the event loop stays free: a 2-second query holds one thread, never the others.
``mounts`` adds ASGI applications under a path (``{"/mcp": app}``, or a callable taking the
:class:`Service`); their lifespans run with the server's.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from ctxtool.conversations.model import ConversationNotFound
from ctxtool.errors import CtxtoolError, DatabaseError
from ctxtool.limits import MAX_JSON_BYTES, TooLarge, loads_request
from ctxtool.server.guard import AllowedHosts, Guard, bearer_matches, json_error
from ctxtool.server.openapi import document
from ctxtool.server.service import Service

MAX_BODY = MAX_JSON_BYTES
DEFAULT_THREADS = 10
PUBLIC_PATHS = frozenset({"/", "/health", "/ready", "/openapi.json"})  # no token needed
DRAIN_TIMEOUT = 30.0  # seconds in-flight requests get to finish on SIGTERM / shutdown

Mount = Any  # an ASGI application, or a callable (Service) -> ASGI application


def _json_bytes(data: Any) -> bytes:
    # a lone surrogate (from a database value, a message quoting the request) goes out as its escape
    return json.dumps(data, ensure_ascii=False, default=str).encode("utf-8", "backslashreplace")


def _response(status: int, data: Any) -> Any:
    from starlette.responses import Response

    return Response(_json_bytes(data), status_code=status, media_type="application/json; charset=utf-8")


def _error(status: int, message: str) -> Any:
    return _response(status, {"error": {"code": status, "message": message}})


class _BearerToken:
    """ASGI middleware: ``Authorization: Bearer TOKEN`` on every HTTP request but the public paths."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and (scope.get("path", "").rstrip("/") or "/") not in PUBLIC_PATHS:
            got = dict(scope.get("headers") or []).get(b"authorization")
            if not bearer_matches(got, self.token):
                await json_error(401, "missing or wrong bearer token", [(b"www-authenticate", b"Bearer")])(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


def default_threads(service: Service) -> int:
    """As many request threads as the database pool has sessions."""
    return int(getattr(service.runtime.connector, "size", 0) or DEFAULT_THREADS)


def create_app(
    service: Service,
    *,
    token: str | None = None,
    mounts: Mapping[str, Mount] | None = None,
    threads: int | None = None,
    on_close: Callable[[], None] | None = None,
    hosts: AllowedHosts | None = None,
) -> Any:
    """The ASGI application of ``service`` (``on_close`` runs when the server has stopped) behind
    the request checks of :class:`ctxtool.server.guard.Guard`: ``hosts`` are the names ``Host`` may
    carry (default: the loopback names)."""
    import anyio
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.routing import Mount as StarletteMount
    from starlette.routing import Route

    limiter = anyio.CapacityLimiter(threads or default_threads(service))
    openapi = document()

    async def blocking(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs), limiter=limiter)

    async def answer(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return _response(200, await blocking(fn, *args, **kwargs))
        except ConversationNotFound as exc:
            return _error(404, str(exc))
        except DatabaseError as exc:  # the database (or a store) does not answer: try again later
            return _error(503, str(exc))
        except CtxtoolError as exc:
            return _error(400, str(exc))
        except Exception as exc:  # noqa: BLE001 - a server answers, it does not crash
            return _error(500, f"internal error: {type(exc).__name__}: {exc}")

    async def body(request: Request) -> Any:
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > MAX_BODY:
            raise TooLarge(f"the body is {int(length):,} bytes; at most {MAX_BODY:,} are read")
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_BODY:
                raise TooLarge(f"the body is over {MAX_BODY:,} bytes; at most {MAX_BODY:,} are read")
        return loads_request(b"".join(chunks) or b"{}", max_bytes=MAX_BODY)

    def post(method: Callable[..., Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Any:
            try:
                data = await body(request)
            except TooLarge as exc:
                return _error(413, str(exc))
            except CtxtoolError as exc:
                return _error(400, str(exc))
            client_ip = request.client.host if request.client else None
            return await answer(method, data, client_ip=client_ip)

        return endpoint

    async def health(request: Request) -> Any:
        # its own thread (not one of the request threads): a busy server still says it is alive
        return _response(200, await anyio.to_thread.run_sync(service.health))

    async def ready(request: Request) -> Any:
        ok, detail = await blocking(service.ready)
        return _response(200 if ok else 503, detail)

    async def openapi_json(request: Request) -> Any:
        return _response(200, openapi)

    async def templates(request: Request) -> Any:
        return await answer(service.templates)

    async def schema(request: Request) -> Any:
        return await answer(service.schema)

    async def not_found(request: Request, exc: Exception) -> Any:
        return _error(404, f"no route {request.method} {request.url.path}; see /openapi.json")

    async def wrong_method(request: Request, exc: Exception) -> Any:
        return _error(405, f"{request.url.path} does not take {request.method}; see /openapi.json")

    mounted = {path: (app(service) if _is_factory(app) else app) for path, app in (mounts or {}).items()}

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for sub in mounted.values():  # Starlette does not run the lifespans of mounted apps
                router = getattr(sub, "router", None)
                if router is not None and hasattr(router, "lifespan_context"):
                    await stack.enter_async_context(router.lifespan_context(sub))
                elif callable(getattr(sub, "lifespan", None)):  # an app with a lifespan of its own (MCP)
                    await stack.enter_async_context(sub.lifespan())
            if service.follower is not None:
                service.follower.start()
            try:
                yield
            finally:
                if on_close is not None:
                    on_close()

    routes = [
        Route("/", health, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/ready", ready, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/templates", templates, methods=["GET"]),
        Route("/schema", schema, methods=["GET"]),
        Route("/ask", post(service.ask), methods=["POST"]),
        Route("/query", post(service.query), methods=["POST"]),
        Route("/feedback", post(service.feedback), methods=["POST"]),
        *(StarletteMount(path, app=sub) for path, sub in mounted.items()),
    ]
    app: Any = Starlette(
        routes=routes, lifespan=lifespan, exception_handlers={404: not_found, 405: wrong_method}
    )
    app.router.redirect_slashes = False
    if mounted:
        app = _MountRoots(app, [p.rstrip("/") for p in mounted])
    if token:
        app = _BearerToken(app, token)
    return Guard(app, hosts if hosts is not None else AllowedHosts("127.0.0.1"))


class _MountRoots:
    """``/mcp`` itself reaches the app mounted at ``/mcp`` (as ``/``): clients POST to the URL they
    were given, and a redirect to ``/mcp/`` would lose the body with some of them."""

    def __init__(self, app: Any, prefixes: list[str]) -> None:
        self.app = app
        self.prefixes = set(prefixes)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] in ("http", "websocket") and scope.get("path") in self.prefixes:
            scope = {**scope, "path": scope["path"] + "/", "raw_path": scope["path"].encode() + b"/"}
        await self.app(scope, receive, send)


def _is_factory(app: Any) -> bool:
    """A callable taking the Service, as opposed to an ASGI app (called with scope, receive, send)."""
    import inspect

    if not callable(app) or hasattr(app, "router"):
        return False
    try:
        return len(inspect.signature(app).parameters) == 1  # an ASGI app takes (scope, receive, send)
    except (TypeError, ValueError):
        return False


def bind_socket(host: str, port: int, *, per_worker: bool = False) -> socket.socket:
    """A listening socket (port 0 picks a free one). ``per_worker``: where the system has
    SO_REUSEPORT, a socket that only reserves the port and travels to each worker as "listen on this
    port yourself", so the kernel spreads connections evenly over the workers (one shared socket
    hands them to whichever worker wakes first, which often leaves one worker with most clients)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    reuse_port = per_worker and hasattr(socket, "SO_REUSEPORT")
    sock = (_PortReservation if reuse_port else socket.socket)(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise CtxtoolError(f"cannot listen on {host}:{port}: {exc.strerror}; pick another --port") from None
    if not reuse_port:
        sock.listen(2048)
        sock.set_inheritable(True)
    return sock


class _PortReservation(socket.socket):
    """A bound, not listening, SO_REUSEPORT socket: a worker process unpickles it as its own listening
    socket on the same address."""

    def __reduce__(self) -> Any:
        return (_listen_reuse_port, (int(self.family), *self.getsockname()[:2]))


def _listen_reuse_port(family: int, host: str, port: int) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    return sock


def uvicorn_config(app: Any, *, quiet: bool = False, drain_timeout: float = DRAIN_TIMEOUT, **kw: Any) -> Any:
    import uvicorn

    return uvicorn.Config(
        app,
        log_level="warning" if quiet else "info",
        access_log=not quiet,
        timeout_graceful_shutdown=drain_timeout,
        lifespan="on",
        **kw,
    )


class AppServer:
    """A bound server running ``app`` in-process (tests and embedding): ``serve_forever()`` on some
    thread, ``shutdown()`` drains and stops it, ``server_address`` says where it listens."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, *, quiet: bool = True) -> None:
        import uvicorn

        self.socket = bind_socket(host, port)
        self.server_address = self.socket.getsockname()[:2]
        self._server = uvicorn.Server(uvicorn_config(app, quiet=quiet))
        self._done = threading.Event()

    def serve_forever(self, poll_interval: float | None = None) -> None:
        try:
            self._server.run(sockets=[self.socket])
        finally:
            self._done.set()

    def start(self, timeout: float = 30.0) -> threading.Thread:
        """``serve_forever`` on a daemon thread; returns once the server (and its lifespan) started."""
        thread = threading.Thread(target=self.serve_forever, name="ctxtool-http", daemon=True)
        thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started and not self._done.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self._server.started:
            raise CtxtoolError("the HTTP server did not start; see the messages above")
        return thread

    def shutdown(self) -> None:
        self._server.should_exit = True
        self._done.wait(timeout=DRAIN_TIMEOUT + 5)

    def server_close(self) -> None:
        self.socket.close()


def make_server(
    service: Service,
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    token: str | None = None,
    quiet: bool = False,
    mounts: Mapping[str, Mount] | None = None,
    allowed_hosts: Iterable[str] = (),
) -> AppServer:
    """A bound, not yet serving, HTTP server (port 0 picks a free port: see ``server.server_address``)."""
    app = create_app(service, token=token, mounts=mounts, hosts=AllowedHosts(host, allowed_hosts))
    return AppServer(app, host, port, quiet=quiet)


def serve_http(
    service: Service, host: str = "127.0.0.1", port: int = 8765, *, token: str | None = None
) -> None:
    """Serve in this process until Ctrl-C or SIGTERM (which let in-flight requests finish)."""
    server = make_server(service, host, port, token=token)
    h, p = server.server_address
    sys.stderr.write(
        f"serving {service.runtime.ref} on http://{h}:{p} (OpenAPI at /openapi.json); Ctrl-C stops\n"
    )
    sys.stderr.flush()
    try:
        server.serve_forever()
    finally:
        server.server_close()
