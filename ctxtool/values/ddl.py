"""Applying the DDL value searches need: the only write ctxtool makes to a user's database.

Connectors are read-only by construction, so :func:`apply_ddl` opens its own, separate and explicit
write connection, runs exactly the statements it is given (one by one, in order, each printed whole
before it runs), and
closes it. It runs only behind ``ctxtool draft values --apply-ddl``. Statements that already took
effect (``IF NOT EXISTS``, or the MySQL/Spanner "already exists" errors) are reported as such.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctxtool.connectors.dsn import DSN, parse, redact_text
from ctxtool.errors import DatabaseError

_ALREADY = re.compile(
    r"already exists|duplicate (key|column)|Duplicate key name|Duplicate column", re.IGNORECASE
)
_NAME = r'(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[\w$]+)'
_INDEXED_TABLE = re.compile(
    rf"^\s*(?:CREATE\s+(?:UNIQUE\s+|FULLTEXT\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?"
    rf"{_NAME}\s+ON\s+(?:ONLY\s+)?|ALTER\s+TABLE\s+(?={_NAME}(?:\s*\.\s*{_NAME})*\s+ADD\s+(?:UNIQUE\s+|FULLTEXT\s+)?(?:INDEX|KEY)\b))"
    rf"(?P<table>{_NAME}(?:\s*\.\s*{_NAME})*)",
    re.IGNORECASE,
)


@dataclass
class Applied:
    statement: str
    status: str  # "applied" | "exists"


def apply_ddl(
    dsn: str | DSN,
    statements: Sequence[str],
    *,
    log: Callable[[str], None] | None = None,
    timeout: float = 600.0,
) -> list[Applied]:
    """Run ``statements`` on the database ``dsn`` through a write connection of its own."""
    parsed = dsn if isinstance(dsn, DSN) else parse(dsn)
    log = log or (lambda _m: None)
    if not statements:
        return []
    if parsed.engine == "postgres":
        return _postgres(parsed, statements, log, timeout)
    if parsed.engine == "mysql":
        return _mysql(parsed, statements, log)
    return _spanner(parsed, statements, log, timeout)


def indexed_tables(applied: Sequence[Applied]) -> list[str]:
    """The tables (as written in the statements) that got a new index: they are analyzed right
    after, so the planner has statistics for new expression indexes at once."""
    out: list[str] = []
    for a in applied:
        m = _INDEXED_TABLE.match(a.statement) if a.status == "applied" else None
        if m and m.group("table") not in out:
            out.append(m.group("table"))
    return out


def _shown(stmt: str) -> str:
    """The whole statement on one line: what is about to run is printed before it runs."""
    return " ".join(stmt.split())


def _fail(parsed: DSN, stmt: str, exc: BaseException) -> DatabaseError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return DatabaseError(
        f"applying DDL failed on {parsed.redacted}: {redact_text(first, parsed.password)} "
        f"(statement: {stmt.splitlines()[0][:120]}); fix the cause or apply the --emit-ddl output by hand"
    )


def _postgres(
    parsed: DSN, statements: Sequence[str], log: Callable[[str], None], timeout: float
) -> list[Applied]:
    import psycopg

    out: list[Applied] = []
    try:
        conn = psycopg.connect(parsed.libpq(), autocommit=True, application_name="ctxtool-ddl")
    except psycopg.Error as exc:
        raise _fail(parsed, "connect", exc) from None
    with conn:
        conn.execute(f"SET statement_timeout = {int(timeout * 1000)}")
        for stmt in statements:
            log(f"applying: {_shown(stmt)}")
            try:
                conn.execute(stmt)
            except psycopg.Error as exc:
                if _ALREADY.search(str(exc)):
                    out.append(Applied(stmt, "exists"))
                    continue
                raise _fail(parsed, stmt, exc) from None
            out.append(Applied(stmt, "applied"))
        for table in indexed_tables(out):
            stmt = f"ANALYZE {table}"
            log(f"analyzing: {table}")
            try:
                conn.execute(stmt)
            except psycopg.Error as exc:
                raise _fail(parsed, stmt, exc) from None
    return out


def _mysql(parsed: DSN, statements: Sequence[str], log: Callable[[str], None]) -> list[Applied]:
    import mysql.connector

    out: list[Applied] = []
    try:
        conn = mysql.connector.connect(
            host=parsed.host,
            port=parsed.port,
            user=parsed.user,
            password=parsed.password or "",
            database=parsed.database,
            autocommit=True,
        )
    except mysql.connector.Error as exc:
        raise _fail(parsed, "connect", exc) from None
    try:
        cur = conn.cursor()
        for stmt in statements:
            log(f"applying: {_shown(stmt)}")
            try:
                cur.execute(stmt)
            except mysql.connector.Error as exc:
                if _ALREADY.search(str(exc)):
                    out.append(Applied(stmt, "exists"))
                    continue
                raise _fail(parsed, stmt, exc) from None
            out.append(Applied(stmt, "applied"))
        for table in indexed_tables(out):
            stmt = f"ANALYZE TABLE {table}"
            log(f"analyzing: {table}")
            try:
                cur.execute(stmt)
                cur.fetchall()
            except mysql.connector.Error as exc:
                raise _fail(parsed, stmt, exc) from None
    finally:
        conn.close()
    return out


def _spanner(
    parsed: DSN, statements: Sequence[str], log: Callable[[str], None], timeout: float
) -> list[Applied]:
    from google.api_core import exceptions
    from google.cloud import spanner

    kwargs: dict = {"project": parsed.project}
    if parsed.emulator_host:
        from google.auth.credentials import AnonymousCredentials

        kwargs.update(
            credentials=AnonymousCredentials(), client_options={"api_endpoint": parsed.emulator_host}
        )
    out: list[Applied] = []
    database = spanner.Client(**kwargs).instance(parsed.instance).database(parsed.database)
    for stmt in statements:  # one at a time, so an existing object does not block the rest
        log(f"applying: {_shown(stmt)}")
        try:
            database.update_ddl([stmt]).result(timeout)
        except (exceptions.GoogleAPICallError, exceptions.RetryError) as exc:
            if _ALREADY.search(str(exc)):
                out.append(Applied(stmt, "exists"))
                continue
            raise _fail(parsed, stmt, exc) from None
        out.append(Applied(stmt, "applied"))
    return out


def ddl_script(statements: Sequence[str], engine: str, header: str = "") -> str:
    """The statements as a script a person can read and run (``;``-terminated, with a header)."""
    lines = [f"-- {line}" for line in header.splitlines()] if header else []
    for stmt in statements:
        lines.append(stmt.rstrip().rstrip(";") + ";")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
