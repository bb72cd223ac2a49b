"""What every HTTP endpoint of ctxtool checks before a request reaches it (the JSON API of ``ctxtool
serve`` and MCP over streamable HTTP): the one ASGI middleware :class:`Guard`.

- ``Host`` must name an address the server is bound to (421 otherwise): a DNS-rebinding page
  reaches a loopback server under a name of the attacker's (``evil.example``), which the browser
  then treats as that page's own origin. Bound to loopback, ``localhost``, ``127.0.0.1`` and
  ``[::1]`` are accepted; bound to one address, that address; bound to every interface (``0.0.0.0``,
  ``::``), any IP address and this machine's names. ``--allowed-host NAME`` adds names (``*``: any).
- A browser's cross-origin request is refused: a foreign ``Origin`` (403), and a POST whose
  ``Content-Type`` is not JSON (415): ``text/plain``, form-encoded and multipart bodies are what a
  page may send without asking the server first (no CORS preflight).
- ``Authorization: Bearer TOKEN`` (when the server has a token) with the scheme in any case, as
  RFC 9110 says: :func:`bearer_matches`.
- Anything the application raises becomes a JSON 500 and one line on stderr, never a traceback in
  the log, and the server goes on serving.

Tokens, when required, are checked after these (a request refused here never learns whether its
token was right).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
import sys
from collections.abc import Callable, Iterable
from typing import Any

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_ADDRESSES = frozenset({"0.0.0.0", "::", ""})


def json_error(status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> Any:
    """An ASGI callable answering ``{"error": {"code": status, "message": message}}``."""
    body = json.dumps({"error": {"code": status, "message": message}}, ensure_ascii=False).encode(
        "utf-8", "backslashreplace"
    )

    async def respond(scope: dict, receive: Callable, send: Callable) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    *(headers or []),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return respond


def bearer_matches(header: bytes | str | None, token: str) -> bool:
    """Whether an ``Authorization`` value is ``Bearer <token>`` (the scheme in any case)."""
    if not header:
        return False
    text = header.decode("latin-1") if isinstance(header, bytes) else header
    scheme, _, credentials = text.strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        credentials.strip().encode("utf-8", "surrogateescape"), token.encode("utf-8")
    )


def _host_of(value: str) -> str:
    """``example.com:8765`` -> ``example.com``; ``[::1]:8765`` -> ``::1``; lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _machine_names() -> set[str]:
    names = {"localhost"}
    try:
        hostname = socket.gethostname()
        names |= {hostname.lower(), socket.getfqdn(hostname).lower()}
    except OSError:
        pass
    return names


class AllowedHosts:
    """The names a request's ``Host`` (and a browser's ``Origin``) may carry, from the address the
    server binds and the ``--allowed-host`` list."""

    def __init__(self, bound: str | Iterable[str] | None, extra: Iterable[str] = ()) -> None:
        bound_list = [bound] if isinstance(bound, str) or bound is None else list(bound)
        self.names: set[str] = set()
        self.any_ip = False
        self.anything = False
        for address in bound_list:
            host = _host_of(address or "")
            if host in WILDCARD_ADDRESSES:
                self.any_ip = True
                self.names |= _machine_names() | LOOPBACK_NAMES
            elif host in LOOPBACK_NAMES or (_is_ip(host) and ipaddress.ip_address(host).is_loopback):
                self.names |= LOOPBACK_NAMES | {host}
            else:
                self.names.add(host)
        for name in extra:
            name = name.strip()
            if name == "*":
                self.anything = True
            elif name:
                self.names.add(_host_of(name))

    def __contains__(self, host_header: str) -> bool:
        if self.anything:
            return True
        host = _host_of(host_header)
        return host in self.names or (self.any_ip and _is_ip(host))

    def origin_allowed(self, origin: str, host_header: str) -> bool:
        """A browser's ``Origin``: this server itself, or a page on an allowed host."""
        if self.anything:
            return True
        scheme, sep, rest = origin.strip().partition("://")
        if not sep or scheme.lower() not in ("http", "https") or not rest:
            return False  # "null" (a sandboxed page, a file), or something no browser sends
        netloc = rest.split("/", 1)[0]
        return netloc.lower() == host_header.strip().lower() or (_host_of(netloc) in self.names)


class Guard:
    """ASGI middleware: the checks above, then ``app``; ``json_posts``: POST bodies must be JSON."""

    def __init__(self, app: Any, hosts: AllowedHosts, *, json_posts: bool = True) -> None:
        self.app = app
        self.hosts = hosts
        self.json_posts = json_posts

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
        if refused is not None:
            await json_error(*refused)(scope, receive, send)
            return
        started = False

        async def tracked(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # noqa: BLE001 - a server answers and goes on; one line, no traceback
            sys.stderr.write(
                f"ctxtool: {scope.get('method')} {scope.get('path')}: internal error: "
                f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}\n".encode(
                    "utf-8", "backslashreplace"
                ).decode("utf-8")
            )
            if not started:
                await json_error(500, f"internal error: {type(exc).__name__}")(scope, receive, send)

    def refusal(self, scope: dict) -> tuple[int, str] | None:
        """(status, message) when the request is refused, else None."""
        headers: dict[bytes, bytes] = {}
        for key, value in scope.get("headers") or []:
            headers.setdefault(key.lower(), value)
        host = headers.get(b"host", b"").decode("latin-1")
        if not host or host not in self.hosts:
            return 421, (
                f"this server does not answer for host {host!r}; connect to the address it listens on "
                "(or start it with --allowed-host NAME)"
            )
        origin = headers.get(b"origin")
        if origin is not None and not self.hosts.origin_allowed(origin.decode("latin-1"), host):
            return 403, "cross-origin requests are refused (Origin names another site)"
        if self.json_posts and scope.get("method") == "POST":
            kind = headers.get(b"content-type", b"").decode("latin-1").split(";", 1)[0].strip().lower()
            if kind != "application/json":
                return 415, f"send the body as Content-Type: application/json, not {kind or 'nothing'!r}"
        return None
