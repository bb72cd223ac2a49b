"""A shared store: a schema in a PostgreSQL database that several runtimes use.

The DSN may name the schema with a ``schema`` query parameter
(``postgresql://host/db?schema=ctxtool_sets``); the default is ``ctxtool_store``. Migrations and
version numbering take transaction-level advisory locks, so concurrent publishers and starting
runtimes never collide.
"""

from __future__ import annotations

import re
import zlib
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ctxtool.errors import DatabaseError, InputError
from ctxtool.store.base import Store

DEFAULT_SCHEMA = "ctxtool_store"
_MIGRATION_LOCK = 0x637478  # "ctx"


def split_schema(dsn: str) -> tuple[str, str]:
    """``(dsn without the schema parameter, schema)``."""
    parts = urlsplit(dsn)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = DEFAULT_SCHEMA
    kept = []
    for k, v in query:
        if k == "schema":
            schema = v
        else:
            kept.append((k, v))
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", schema):
        raise InputError(f"invalid store schema name {schema!r}: use letters, digits and '_'")
    return urlunsplit(parts._replace(query=urlencode(kept))), schema


class PostgresStore(Store):
    placeholder = "%s"

    def __init__(self, dsn: str) -> None:
        self.dsn, self.schema = split_schema(dsn)
        self.location = f"{_redact(self.dsn)} (schema {self.schema})"
        self._conn: Any = None
        self.migrate()

    def _connect(self) -> Any:
        if self._conn is None:
            import psycopg

            try:
                self._conn = psycopg.connect(self.dsn, connect_timeout=10)
            except psycopg.Error as exc:
                raise DatabaseError(
                    f"cannot open the set store at {_redact(self.dsn)}: {str(exc).strip().splitlines()[0]}"
                ) from None
            with self._conn.cursor() as cur:
                self._migration_lock(cur)  # concurrent CREATE SCHEMA IF NOT EXISTS can otherwise collide
                cur.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                cur.execute(f'SET search_path TO "{self.schema}"')
            self._conn.commit()
        return self._conn

    def _begin(self, conn: Any) -> None:
        """psycopg opens a transaction on the first statement."""

    def _migration_lock(self, cur: Any) -> None:
        cur.execute(
            "SELECT pg_advisory_xact_lock(%s, %s)",
            (_MIGRATION_LOCK, zlib.crc32(self.schema.encode()) - 2**31),
        )

    def _lock_name(self, cur: Any, name: str) -> None:
        key = zlib.crc32(f"{self.schema}/{name}".encode()) - 2**31
        cur.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_MIGRATION_LOCK + 1, key))

    def drop_schema(self) -> None:
        """Remove the whole store (tests and `sets` housekeeping)."""
        conn = self._connect()
        with conn.cursor() as cur:
            cur.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
        conn.commit()


def _redact(dsn: str) -> str:
    try:
        from ctxtool.connectors.dsn import redact
    except ImportError:  # pragma: no cover - connectors always ship with ctxtool
        return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", dsn)
    return redact(dsn)
