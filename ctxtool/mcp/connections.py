"""Database sessions kept open between tool calls, so an agent's tenth ``validate`` or ``test_values``
on a database does not pay the connection and login again (~15 ms locally, far more over a network).

A session is taken exclusively for one call (concurrent HTTP clients get sessions of their own) and
given back when the call succeeds; one that failed is closed, since its state is unknown. A session
idle for :data:`MAX_IDLE` seconds, or that no longer answers ``SELECT 1``, is replaced. Applying DDL
forgets the sessions of that database: they cache what the server had (its extensions).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

MAX_OPEN = 8  # idle sessions kept in all
MAX_IDLE = 300.0  # seconds


class Connections:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: OrderedDict[tuple[Any, ...], tuple[Any, float]] = OrderedDict()

    @contextlib.contextmanager
    def session(self, dsn: str, **options: Any) -> Iterator[Any]:
        """An open read-only session on ``dsn`` (``options``: those of :func:`ctxtool.connectors.connect`)."""
        from ctxtool.connectors import connect

        key = (dsn, *sorted(options.items()))
        with self._lock:
            entry = self._idle.pop(key, None)
        conn = entry[0] if entry is not None else None
        if conn is not None and (time.monotonic() - entry[1] > MAX_IDLE or not _answers(conn)):
            _close(conn)
            conn = None
        if conn is None:
            conn = connect(dsn, **options)
        try:
            yield conn
        except BaseException:
            _close(conn)
            raise
        with self._lock:
            if key in self._idle:  # another call gave one back meanwhile: keep one
                _close(conn)
                return
            self._idle[key] = (conn, time.monotonic())
            while len(self._idle) > MAX_OPEN:
                _close(self._idle.popitem(last=False)[1][0])

    def forget(self, dsn: str | None = None) -> None:
        """Close the idle sessions of ``dsn`` (all of them without one)."""
        with self._lock:
            keys = [k for k in self._idle if dsn is None or k[0] == dsn]
            entries = [self._idle.pop(k) for k in keys]
        for conn, _ in entries:
            _close(conn)


def _answers(conn: Any) -> bool:
    try:
        conn.query("SELECT 1", max_rows=1)
    except Exception:  # noqa: BLE001 - any failure: replace the session
        return False
    return True


def _close(conn: Any) -> None:
    with contextlib.suppress(Exception):
        conn.close()


CONNECTIONS = Connections()
