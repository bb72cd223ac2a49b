"""A connector many threads share: every statement runs on a read-only session leased from a pool.

``PooledConnector(dsn, size=10)`` behaves as one :class:`~ctxtool.connectors.base.Connector`, but
``query``/``plan``/``introspect``... each borrow a session for the statement and give it back, so a
server's requests run side by side and a slow query holds one session, not the server. The
sessions are the engine connectors themselves, set up as usual (read-only transaction, statement
timeout, row cap), so a pooled statement has the same guarantees as a direct one:

* PostgreSQL: a :class:`psycopg_pool.ConnectionPool` (connections replaced when broken or after an
  hour, reconnection in the background while the server is down), each connection set up once as a
  :class:`~ctxtool.connectors.postgres.PostgresConnector` and reset when it comes back (advisory
  locks, temporary tables, settings, LISTEN, cursors: nothing one request did reaches the next), in
  the pool's worker thread, so the reset costs the request nothing;
* MySQL/MariaDB: a bounded pool of :class:`~ctxtool.connectors.mysql.MySQLConnector` sessions,
  opened on demand, reset when they come back (``COM_RESET_CONNECTION`` and the session's settings
  again), pinged after a minute idle or a failed statement and replaced when dead;
* Spanner: one :class:`~ctxtool.connectors.spanner.SpannerConnector`: the client library's session
  pool is thread-safe and every statement already runs in its own read-only snapshot.

A statement whose session turns out dead (the server restarted, an admin killed it) runs again on
another session: statements are read-only, so the retry is safe, and no round trip is spent checking
sessions before use. Waiting for a free session is bounded (``wait_timeout``, and a second while
the database is known to be down): past it the statement fails with :class:`SessionUnavailable`, a
transient :class:`~ctxtool.errors.DatabaseError` (servers answer 503) that says what to check.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from ctxtool.connectors.base import (
    DEFAULT_ROW_CAP,
    DEFAULT_STATEMENT_TIMEOUT,
    Connector,
    QueryResult,
    ServerInfo,
)
from ctxtool.connectors.dsn import DSN, parse
from ctxtool.errors import DatabaseError, InputError

DEFAULT_POOL_SIZE = 10
DEFAULT_WAIT_TIMEOUT = 10.0  # seconds a statement waits for a free session
IDLE_CHECK = 60.0  # a MySQL session idle this long is pinged before use
DOWN_WAIT = 1.0  # seconds a request waits for a session while the database is known to be down


class PooledConnector(Connector):
    """Read-only statements on pooled sessions; safe to share between threads."""

    thread_safe = True  # servers skip their one-session lock for connectors that say so

    def __init__(
        self,
        dsn: str | DSN,
        *,
        statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT,
        row_cap: int = DEFAULT_ROW_CAP,
        size: int = DEFAULT_POOL_SIZE,
        wait_timeout: float = DEFAULT_WAIT_TIMEOUT,
    ) -> None:
        super().__init__(statement_timeout=statement_timeout, row_cap=row_cap)
        if size < 1:
            raise InputError("the pool size must be at least 1 session")
        if statement_timeout <= 0:
            raise InputError("the statement timeout must be a positive number of seconds")
        if row_cap <= 0:
            raise InputError("the row cap must be a positive number of rows")
        self.dsn = dsn if isinstance(dsn, DSN) else parse(dsn)
        self.size = size
        self.wait_timeout = wait_timeout
        self.engine = self.dsn.engine
        self._info: ServerInfo | None = None
        self._sessions: _Sessions
        if self.engine == "postgres":
            self._sessions = _PostgresSessions(self.dsn, statement_timeout, row_cap, size)
            self.dialect = "postgres"
        elif self.engine == "mysql":
            from ctxtool.connectors import connect

            self._sessions = _ConnectorSessions(
                lambda: connect(self.dsn, statement_timeout=statement_timeout, row_cap=row_cap), size
            )
            self.dialect = "mysql"
        else:
            from ctxtool.connectors import connect

            shared = connect(self.dsn, statement_timeout=statement_timeout, row_cap=row_cap)
            self._sessions = _SharedSession(shared)
            self.dialect = shared.dialect

    def session(self, timeout: float | None = None) -> AbstractContextManager[Connector]:
        """``with pooled.session() as c:`` one session for several statements (returned after)."""
        return self._sessions.lease(self.wait_timeout if timeout is None else timeout)

    # -- the Connector interface, one leased session per call ------------------------------------
    def _run(self, call: Callable[[Connector], Any]) -> Any:
        """``call`` on a leased session; again on another when the session turned out dead (the
        server restarted, an admin killed it; each dead one is dropped, so at most ``size`` retries).
        Statements are read-only, so a retry is safe."""
        for _ in range(self.size):
            try:
                with self.session() as c:
                    try:
                        return call(c)
                    except DatabaseError as exc:
                        if self._sessions.alive(c):
                            raise
                        raise _DeadSession from exc  # the lease drops the session
            except _DeadSession:
                continue
        with self.session() as c:
            return call(c)

    def info(self) -> ServerInfo:
        if self._info is None:
            self._info = self._run(lambda c: c.info())
        return self._info

    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, max_rows: int | None = None
    ) -> QueryResult:
        self.gate(sql)
        return self._run(lambda c: c.query(sql, params, max_rows=max_rows))

    def plan(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        self.gate(sql)
        return self._run(lambda c: c.plan(sql, params))

    def sample_column(self, table: str, column: str, n: int = 100, *, schema: str | None = None) -> list[Any]:
        return self._run(lambda c: c.sample_column(table, column, n, schema=schema))

    def introspect(
        self, schemas: Sequence[str] | None = None, *, profile: bool = False, progress: Any = None
    ) -> dict:
        return self._run(lambda c: c.introspect(schemas, profile=profile, progress=progress))

    def ping(self, timeout: float = 2.0) -> None:
        """Raise :class:`DatabaseError` unless a session answers ``SELECT 1`` within about ``timeout``."""
        with self.session(timeout) as c:
            c.query("SELECT 1")

    def stats(self) -> dict[str, Any]:
        """Sessions open, idle and in use (for /health)."""
        return {"engine": self.engine, "size": self.size, **self._sessions.stats()}

    def close(self) -> None:
        self._sessions.close()


class _DeadSession(Exception):
    """A leased session died under a statement: drop it and retry on another."""


class _Sessions:
    def lease(self, timeout: float) -> AbstractContextManager[Connector]:
        raise NotImplementedError

    def alive(self, session: Connector) -> bool:
        """Whether a session that just failed a statement can still run the next one."""
        return True

    def stats(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        raise NotImplementedError


class SessionUnavailable(DatabaseError):
    """No session could be had: the database is down or every session is busy. Not the statement's
    fault (``transient``): callers should not give up on the statement for good."""

    transient = True


def _no_session(dsn: DSN, size: int, timeout: float, why: str) -> DatabaseError:
    return SessionUnavailable(
        f"no database session for {dsn.redacted} within {timeout:g} s ({why}); check that the database "
        f"answers, or raise --pool-size (now {size}) if every session is busy"
    )


class _PostgresSessions(_Sessions):
    """psycopg_pool connections, each set up once as a PostgresConnector (kept on the connection)."""

    def __init__(self, dsn: DSN, statement_timeout: float, row_cap: int, size: int) -> None:
        from psycopg_pool import ConnectionPool

        from ctxtool.connectors.postgres import PostgresConnector, connect_kwargs

        self.dsn = dsn
        self.size = size
        self._down = False  # no connection could be made when a request last asked for one
        self._leased = 0

        def configure(conn: Any) -> None:
            conn._ctxtool_session = PostgresConnector(
                dsn, statement_timeout=statement_timeout, row_cap=row_cap, connection=conn
            )

        def reset(conn: Any) -> None:  # in the pool's worker thread, off the request's path
            conn._ctxtool_session.reset_session()

        self.pool = ConnectionPool(
            dsn.libpq(),
            kwargs=connect_kwargs(dsn),
            min_size=min(2, size),
            max_size=size,
            open=False,
            configure=configure,
            reset=reset,
            name="ctxtool",
            reconnect_timeout=30,  # then retried on the next request
        )
        self.pool.open(wait=False)  # a server starts (and says it is not ready) while the database is down

    @contextmanager
    def lease(self, timeout: float) -> Iterator[Connector]:
        from psycopg_pool import PoolTimeout

        if self._down:  # the database did not answer the last time: do not hold requests long
            timeout = min(timeout, DOWN_WAIT)
        try:
            conn = self.pool.getconn(timeout=timeout)
        except PoolTimeout as exc:
            self._down = self._leased < self.size  # not all sessions busy: none could be made
            raise _no_session(self.dsn, self.size, timeout, str(exc).split("\n")[0]) from None
        self._down = False
        self._leased += 1  # under the GIL; only read to tell "down" from "busy"
        try:
            yield conn._ctxtool_session
        finally:
            self._leased -= 1
            self.pool.putconn(conn)  # reset (or discarded when broken or closed) before reuse

    def alive(self, session: Connector) -> bool:
        conn = session.conn  # type: ignore[attr-defined]
        if conn.closed or conn.broken:
            self._down = True  # its siblings may be dead too: wait briefly for the next one
            return False
        return True

    def stats(self) -> dict[str, Any]:
        s = self.pool.get_stats()
        return {
            "open": s.get("pool_size", 0),
            "idle": s.get("pool_available", 0),
            "waiting": s.get("requests_waiting", 0),
        }

    def close(self) -> None:
        self.pool.close(timeout=5)


class _ConnectorSessions(_Sessions):
    """A bounded pool of whole connectors (MySQL): opened on demand, pinged when stale, replaced when dead."""

    def __init__(self, make: Callable[[], Connector], size: int) -> None:
        self._make = make
        self.size = size
        self._slots = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._idle: list[tuple[Connector, float]] = []  # (session, when it was given back)
        self._open = 0
        self._closed = False

    @contextmanager
    def lease(self, timeout: float) -> Iterator[Connector]:
        if not self._slots.acquire(timeout=timeout):
            raise SessionUnavailable(
                f"no free database session within {timeout:g} s: all {self.size} are busy; raise --pool-size"
            )
        try:
            session = self._take()
            try:
                yield session
            except DatabaseError:
                self._give_back(session, check=True)  # a dead session is dropped, not given back
                raise
            except BaseException:
                self._discard(session)
                raise
            else:
                self._give_back(session, check=False)
        finally:
            self._slots.release()

    def _take(self) -> Connector:
        while True:
            with self._lock:
                if self._closed:
                    raise DatabaseError("the connection pool is closed")
                session, since = self._idle.pop() if self._idle else (None, 0.0)
                if session is None:
                    self._open += 1
            if session is None:
                try:
                    return self._make()
                except BaseException:
                    with self._lock:
                        self._open -= 1
                    raise
            if time.monotonic() - since < IDLE_CHECK or _alive(session):
                return session
            self._discard(session)

    def _give_back(self, session: Connector, *, check: bool) -> None:
        if check and not _alive(session):
            self._discard(session)
            return
        try:
            session.reset_session()  # nothing one request left on the session reaches the next
        except DatabaseError:
            self._discard(session)
            return
        with self._lock:
            if not self._closed:
                self._idle.append((session, time.monotonic()))
                return
        self._discard(session)

    def _discard(self, session: Connector) -> None:
        with self._lock:
            self._open -= 1
        try:
            session.close()
        except Exception:  # noqa: BLE001 - a dead session may fail to close; it is dropped either way
            pass

    def alive(self, session: Connector) -> bool:
        return _alive(session)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"open": self._open, "idle": len(self._idle)}

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for session, _ in idle:
            self._discard(session)


def _alive(session: Connector) -> bool:
    """Whether a session's connection still answers (MySQL: a ping)."""
    conn = getattr(session, "conn", None)
    try:
        return bool(conn is not None and conn.is_connected())
    except Exception:  # noqa: BLE001 - any failure to ping means the session is gone
        return False


class _SharedSession(_Sessions):
    """One connector whose driver pools sessions itself (Spanner)."""

    def __init__(self, connector: Connector) -> None:
        self.connector = connector

    @contextmanager
    def lease(self, timeout: float) -> Iterator[Connector]:
        yield self.connector

    def close(self) -> None:
        self.connector.close()
