"""Helpers for the server tests: a set with a slow template, HTTP calls, a server on a free port."""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.rt_support import RUNTIME_SET

ROOT = Path(__file__).resolve().parent.parent
SLOW_QUESTION = "Run the sleepy audit report"
SLOW_SECONDS = 1.5
FAST_QUESTION = "How many clients live in the district Kladno?"


def slow_set(path: Path, seconds: float = SLOW_SECONDS) -> Path:
    """The runtime set plus one template whose query sleeps ``seconds`` on the server."""
    data = json.loads((ROOT / RUNTIME_SET).read_text())
    sql = f"SELECT pg_sleep({seconds})::text AS slept"
    data["templates"].append(
        {
            "nl_query": SLOW_QUESTION,
            "sql": sql,
            "manifest": SLOW_QUESTION,
            "parameterized": {"parameterized_intent": SLOW_QUESTION, "parameterized_sql": sql},
        }
    )
    path.write_text(json.dumps(data))
    return path


def call(url: str, body: Any = None, token: str | None = None, timeout: float = 30) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@contextlib.contextmanager
def running(app: Any) -> Iterator[str]:
    """``app`` served on a free loopback port in a thread; yields its base URL."""
    from ctxtool.server.http import AppServer

    server = AppServer(app, "127.0.0.1", 0)
    thread = server.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def serve_config(dsn: str, **kw: Any) -> Any:
    """A ServeConfig for ``dsn`` with the runtime options of `ctxtool serve` (no language model)."""
    from ctxtool.server.workers import ServeConfig

    runtime = {
        "set_ref": None,
        "context_file": str(ROOT / RUNTIME_SET),
        "store": None,
        "dsn": dsn,
        "dialect": None,
        "threshold": None,
        "row_cap": 1000,
        "timeout": 5.0,
        "object_list": None,
        "no_llm": True,
    }
    runtime.update(kw.pop("runtime", {}))
    kw.setdefault("quiet", True)
    return ServeConfig(runtime=runtime, **kw)


class TcpProxy:
    """A loopback TCP forwarder to ``target`` that can go down and come back on the same port: a
    database that restarts, as the server sees it."""

    def __init__(self, target: tuple[str, int]) -> None:
        import socket

        self.target = target
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._conns: list[Any] = []
        self._listener: Any = None

    def up(self) -> None:
        import socket
        import threading

        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", self.port))
        self._listener.listen(64)
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()

    def down(self) -> None:
        import socket

        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() blocked on it
        self._listener.close()
        for c in self._conns:
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
            c.close()
        self._conns.clear()

    def _accept(self, listener: Any) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            self._conns += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: Any, dst: Any) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.close()
