"""Running the HTTP server: one process, or ``--workers N`` processes under uvicorn's supervisor.

Each worker is a whole server: its own runtime (the compiled set, shared read-only by its request
threads), its own database pool, its own follower of the published set. Workers share what must be
shared through the stores: published sets (every worker follows the same store) and named
conversations (``--conversation-store postgresql://...``). The supervisor starts a new worker when
one dies and, on SIGTERM or Ctrl-C, stops accepting connections and lets the requests in flight
finish (up to ``drain_timeout`` seconds) before the workers exit.

Workers are started fresh (spawned), so the configuration travels to them in the environment
(:data:`CONFIG_ENV`, JSON) and :func:`app_from_env` builds each worker's application.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from importlib import import_module
from typing import Any

from ctxtool.connectors.pool import DEFAULT_POOL_SIZE, DEFAULT_WAIT_TIMEOUT
from ctxtool.errors import InputError
from ctxtool.server.follow import DEFAULT_INTERVAL
from ctxtool.server.http import DRAIN_TIMEOUT
from ctxtool.server.service import Service

CONFIG_ENV = "CTXTOOL_SERVE_CONFIG"


@dataclass
class ServeConfig:
    """Everything a worker needs to build its server (JSON-serializable)."""

    runtime: dict[str, Any]  # the runtime options of `ctxtool serve` (see cli/_runtime_opts.py)
    session_memory: bool = False
    conversation_store: str | None = None
    token: str | None = None
    pool_size: int = DEFAULT_POOL_SIZE
    pool_timeout: float = DEFAULT_WAIT_TIMEOUT
    reload_interval: float = DEFAULT_INTERVAL  # 0: never look for a newer version
    quiet: bool = False
    # extra ASGI applications: path -> "module:function", the function taking the Service (e.g. MCP)
    mounts: dict[str, str] = field(default_factory=dict)
    # the address the server binds and the other names ``Host`` may carry (ctxtool.server.guard)
    host: str = "127.0.0.1"
    allowed_hosts: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServeConfig:
        return cls(**json.loads(text))


def _follows(set_ref: str | None) -> bool:
    """Whether ``--set`` names a set to follow: a name without ``@VERSION`` (not a file)."""
    from ctxtool.store import parse_ref

    if not set_ref or set_ref.endswith(".json") or os.path.sep in set_ref or os.path.isfile(set_ref):
        return False
    return parse_ref(set_ref)[1] is None


def build_service(config: ServeConfig) -> Service:
    """A service on a pooled connector; it follows the published set when ``--set NAME`` names one
    without a version (its follower starts with the server)."""
    from ctxtool.cli._runtime_opts import make_runtime
    from ctxtool.connectors.pool import PooledConnector
    from ctxtool.server.follow import SetFollower
    from ctxtool.store import load_set

    opts = dict(config.runtime)
    if not opts.get("dsn"):
        raise InputError("give the database with --dsn DSN (or $CTXTOOL_DSN)")
    if bool(opts.get("set_ref")) == bool(opts.get("context_file")):
        raise InputError("name the set with exactly one of --set NAME[@VERSION] or --context FILE")
    pooled = PooledConnector(
        opts["dsn"],
        statement_timeout=opts.get("timeout", 5.0),
        row_cap=opts.get("row_cap", 1000),
        size=config.pool_size,
        wait_timeout=config.pool_timeout,
    )
    try:
        loaded = load_set(opts["set_ref"], opts.get("store")) if opts.get("set_ref") else None

        def build(contextset: Any) -> Any:
            return make_runtime(
                **opts, conversation=config.session_memory, connector=pooled, contextset=contextset
            )

        service = Service(
            build(loaded), conversation_store=config.conversation_store, set_version=loaded and loaded.version
        )
    except BaseException:
        pooled.close()
        raise
    if (
        loaded is not None
        and loaded.version is not None
        and _follows(opts["set_ref"])
        and config.reload_interval > 0
    ):
        service.follower = SetFollower(
            loaded.version.name,
            opts.get("store"),
            current=loaded.version,
            build=build,
            swap=lambda runtime, version: _swap(service, runtime, version),
            interval=config.reload_interval,
            quiet=config.quiet,
        )
    return service


def _swap(service: Service, runtime: Any, version: Any) -> None:
    """Serve the new version; let the collector free the old one (a frozen heap is never collected)."""
    import gc

    service.swap(runtime, version)
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def check_database(config: ServeConfig) -> None:
    """Connect once before serving: a wrong password, database or host is a one-line error now; a
    database that does not answer yet is only a warning (the server starts, /ready says 503 until it
    does, the pool keeps trying), so a server may start before its database."""
    from ctxtool.connectors import connect
    from ctxtool.connectors.privileges import startup_warning
    from ctxtool.errors import DatabaseError

    opts = config.runtime
    try:
        with connect(
            opts["dsn"], statement_timeout=opts.get("timeout", 5.0), row_cap=opts.get("row_cap", 1000)
        ) as connector:
            warning = startup_warning(opts["dsn"], connector)  # a role that can write: said once
        if warning:
            _say(f"ctxtool serve: {warning}\n")
    except DatabaseError as exc:
        if "cannot be reached" not in str(exc):
            raise
        _say(f"ctxtool serve: warning: {exc}; serving anyway, /ready answers 503 until it answers\n")


def close_service(service: Service) -> None:
    """Close the service and the pool under its runtime."""
    service.close()
    connector = service.runtime.connector
    if connector is not None:
        connector.close()


def mount_apps(mounts: dict[str, str]) -> dict[str, Any]:
    """``{path: "module:function"}`` -> ``{path: function}`` (each called with the Service)."""
    out = {}
    for path, target in mounts.items():
        module, _, name = target.partition(":")
        try:
            out[path] = getattr(import_module(module), name)
        except (ImportError, AttributeError) as exc:
            raise InputError(f"cannot mount {target!r} at {path}: {exc}") from None
    return out


def create_worker_app(config: ServeConfig) -> tuple[Any, Service]:
    """One worker's ASGI application and its service (closed with its pool when the worker stops)."""
    import gc

    from ctxtool.server.guard import AllowedHosts
    from ctxtool.server.http import create_app

    service = build_service(config)
    gc.collect()
    gc.freeze()  # the compiled set lives as long as the worker: keep it out of every GC pass
    app = create_app(
        service,
        token=config.token,
        mounts=mount_apps(config.mounts),
        threads=config.pool_size,
        on_close=lambda: close_service(service),
        hosts=AllowedHosts(config.host, config.allowed_hosts),
    )
    return app, service


def app_from_env() -> Any:
    """The uvicorn application factory of a worker process (``ctxtool.server.workers:app_from_env``)."""
    text = os.environ.get(CONFIG_ENV)
    if not text:
        raise InputError(f"${CONFIG_ENV} is not set: start workers with `ctxtool serve --workers N`")
    return create_worker_app(ServeConfig.from_json(text))[0]


def run(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    workers: int = 1,
    drain_timeout: float = DRAIN_TIMEOUT,
) -> None:
    """Serve until SIGTERM / Ctrl-C: in this process, or in ``workers`` supervised processes."""
    import uvicorn

    from ctxtool.server.http import bind_socket, uvicorn_config

    if workers < 1:
        raise InputError("--workers must be at least 1")
    config = replace(config, host=host)
    sock = bind_socket(host, port, per_worker=workers > 1)
    try:
        if workers == 1:
            app, service = create_worker_app(config)
            ref = service.runtime.ref
        else:
            check = build_service(config)  # a wrong set or DSN fails here, once, with its one-line error
            ref = check.runtime.ref
            close_service(check)
        h, p = sock.getsockname()[:2]
        banner = (
            f"serving {ref} on http://{h}:{p} with {workers} worker(s), {config.pool_size} database "
            f"session(s) each (OpenAPI at /openapi.json); Ctrl-C stops\n"
        )
        if workers == 1:
            _say(banner)  # the socket listens already: connections wait in its backlog
        else:  # each worker listens on its own socket: say so once the first one does
            threading.Thread(target=_say_when_listening, args=(h, p, banner), daemon=True).start()
        if workers == 1:
            server = uvicorn.Server(uvicorn_config(app, quiet=config.quiet, drain_timeout=drain_timeout))
            with _drained_sigterm_exits_0():
                server.run(sockets=[sock])
        else:
            from uvicorn.supervisors import Multiprocess

            os.environ[CONFIG_ENV] = config.to_json()
            cfg = uvicorn_config(
                f"{__name__}:app_from_env",
                factory=True,
                workers=workers,
                quiet=config.quiet,
                drain_timeout=drain_timeout,
            )
            Multiprocess(cfg, sockets=[sock]).run()
    finally:
        sock.close()


def _say(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def _say_when_listening(host: str, port: int, text: str, seconds: float = 300) -> None:
    target = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection((target, port), timeout=1).close()
        except OSError:
            time.sleep(0.05)
            continue
        _say(text)
        return


@contextlib.contextmanager
def _drained_sigterm_exits_0() -> Iterator[None]:
    """uvicorn drains on SIGTERM, then raises the signal again once it restored the handler it found:
    make that handler a no-op, so a drained server ends with 0, as under the worker supervisor."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
