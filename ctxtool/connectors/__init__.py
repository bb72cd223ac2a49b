"""Connectors: one read-only session per engine behind :class:`~ctxtool.connectors.base.Connector`.

``connect(dsn)`` picks the engine from the connection string (see :mod:`ctxtool.connectors.dsn`);
the engine modules and their drivers are imported only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxtool.connectors.base import (
    DEFAULT_ROW_CAP,
    DEFAULT_STATEMENT_TIMEOUT,
    Connector,
    QueryResult,
    ServerInfo,
)
from ctxtool.connectors.dsn import DSN, parse, redact

if TYPE_CHECKING:
    from ctxtool.connectors.pgcatalog import PostgresCatalog

__all__ = ["Connector", "QueryResult", "ServerInfo", "DSN", "connect", "open_catalog", "parse", "redact"]


def connect(
    dsn: str | DSN,
    *,
    statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT,
    row_cap: int = DEFAULT_ROW_CAP,
) -> Connector:
    """Open a read-only session on the database ``dsn`` names.

    Raises :class:`~ctxtool.errors.InputError` for an unreadable DSN and
    :class:`~ctxtool.errors.DatabaseError` (password redacted, with what to do) when the server cannot
    be reached or refuses the login.
    """
    parsed = dsn if isinstance(dsn, DSN) else parse(dsn)
    if statement_timeout <= 0:
        from ctxtool.errors import InputError

        raise InputError("the statement timeout must be a positive number of seconds")
    if row_cap <= 0:
        from ctxtool.errors import InputError

        raise InputError("the row cap must be a positive number of rows")
    if parsed.engine == "postgres":
        from ctxtool.connectors.postgres import PostgresConnector

        return PostgresConnector(parsed, statement_timeout=statement_timeout, row_cap=row_cap)
    if parsed.engine == "mysql":
        from ctxtool.connectors.mysql import MySQLConnector

        return MySQLConnector(parsed, statement_timeout=statement_timeout, row_cap=row_cap)
    from ctxtool.connectors.spanner import SpannerConnector

    return SpannerConnector(parsed, statement_timeout=statement_timeout, row_cap=row_cap)


def open_catalog(
    dsn: str | DSN, *, statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT, profile: bool = False
) -> Connector | PostgresCatalog:
    """A session to introspect ``dsn`` once (``snapshot.build`` takes either): on PostgreSQL without
    ``profile``, a catalog-only libpq session that needs no psycopg (a command that only introspects
    starts sooner: :class:`~ctxtool.connectors.pgcatalog.PostgresCatalog`) where libpq 14+ loads; else :func:`connect`."""
    parsed = dsn if isinstance(dsn, DSN) else parse(dsn)
    if parsed.engine == "postgres" and not profile and statement_timeout > 0:
        from ctxtool.connectors import libpq, pgcatalog

        if libpq.library() is not None:
            return pgcatalog.PostgresCatalog(parsed, statement_timeout=statement_timeout)
    return connect(parsed, statement_timeout=statement_timeout)
