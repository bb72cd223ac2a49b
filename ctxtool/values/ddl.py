"""Applying the DDL value searches need: the only write ctxtool makes to a user's database.

Connectors are read-only by construction, so :func:`apply_ddl` opens its own, separate and explicit
write connection, runs exactly the statements it is given (in order, each printed whole before it runs), and closes it. It
runs only behind ``ctxtool draft values --apply-ddl``. Statements that already took effect (``IF NOT
EXISTS``, or the MySQL/Spanner "already exists" errors) are reported as such.

Plan, then apply. :func:`plan_ddl` says what each statement does (an extension, an index, or a
column added to the user's table, which changes the table people query) and how to undo it. Nothing
is half-applied: PostgreSQL runs every statement in one transaction (a failure rolls all back);
MariaDB/MySQL commit DDL one statement at a time, so every statement is first tried on an empty
temporary copy of its table (``CREATE TEMPORARY TABLE ... LIKE``), and only when all pass are they
run; should one still fail, the error lists exactly what was applied and the statements that undo it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

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


_Q = r'(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[\w$]+)'
_QUALIFIED = rf"{_Q}(?:\s*\.\s*{_Q})*"
_ADD_COLUMN = re.compile(
    rf"^\s*ALTER\s+TABLE\s+(?P<table>{_QUALIFIED})\s+ADD\s+COLUMN\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{_Q})",
    re.IGNORECASE,
)
_ADD_INDEX = re.compile(
    rf"^\s*ALTER\s+TABLE\s+(?P<table>{_QUALIFIED})\s+ADD\s+(?:UNIQUE\s+|FULLTEXT\s+|SEARCH\s+)?(?:INDEX|KEY)\s+(?P<name>{_Q})",
    re.IGNORECASE,
)
_CREATE_INDEX = re.compile(
    rf"^\s*CREATE\s+(?:UNIQUE\s+|FULLTEXT\s+|SEARCH\s+|VECTOR\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?"
    rf"(?P<name>{_Q})\s+ON\s+(?:ONLY\s+)?(?P<table>{_QUALIFIED})",
    re.IGNORECASE,
)
_CREATE_EXTENSION = re.compile(
    r"^\s*CREATE\s+EXTENSION\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>\S+)", re.IGNORECASE
)


@dataclass
class Applied:
    statement: str
    status: str  # "applied" | "exists"


@dataclass
class Planned:
    """One statement of the DDL, what it does and how to undo it."""

    statement: str
    kind: str  # "extension" | "index" | "column" | "other"
    table: str | None = None  # the user's table it changes (as written)
    name: str | None = None  # the index, column or extension it creates
    undo: str | None = None

    @property
    def changes_table(self) -> bool:
        """Whether the statement changes the columns of a table people query (a generated column)."""
        return self.kind == "column"

    def describe(self) -> str:
        if self.kind == "column":
            return f"adds column {self.name} to your table {self.table}"
        if self.kind == "index":
            return f"creates index {self.name} on {self.table}"
        if self.kind == "extension":
            return f"creates extension {self.name}"
        return "runs"


def plan_ddl(statements: Sequence[str], engine: str) -> list[Planned]:
    """What each statement does, the table it changes and the statement that undoes it."""
    out = []
    for stmt in statements:
        if m := _ADD_COLUMN.match(stmt):
            table, name = m.group("table"), m.group("name")
            out.append(Planned(stmt, "column", table, name, f"ALTER TABLE {table} DROP COLUMN {name}"))
        elif m := (_ADD_INDEX.match(stmt) or _CREATE_INDEX.match(stmt)):
            table, name = m.group("table"), m.group("name")
            if engine == "postgres":
                schema = table.rsplit(".", 1)[0] + "." if "." in table else ""
                undo = f"DROP INDEX IF EXISTS {schema}{name}"
            elif engine == "mysql":
                undo = f"DROP INDEX {name} ON {table}"
            else:
                undo = f"DROP INDEX {name}"
            out.append(Planned(stmt, "index", table, name, undo))
        elif m := _CREATE_EXTENSION.match(stmt):
            name = m.group("name")
            out.append(Planned(stmt, "extension", None, name, f"DROP EXTENSION IF EXISTS {name}"))
        else:
            out.append(Planned(stmt, "other"))
    return out


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


def _fail(parsed: DSN, stmt: str, exc: BaseException, state: str = "") -> DatabaseError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return DatabaseError(
        f"applying DDL failed on {parsed.redacted}: {redact_text(first, parsed.password)} "
        f"(statement: {stmt.splitlines()[0][:120]}); {state + '; ' if state else ''}"
        "fix the cause or apply the --emit-ddl output by hand"
    )


def _half_applied(parsed: DSN, engine: str, done: Sequence[Applied]) -> str:
    """What a failure left in place (DDL that committed one statement at a time) and its undo."""
    ran = [a.statement for a in done if a.status == "applied"]
    if not ran:
        return "nothing was applied"
    undo = [p.undo for p in reversed(plan_ddl(ran, engine)) if p.undo]
    return (
        f"applied before it ({len(ran)}): "
        + " | ".join(s.splitlines()[0] for s in ran)
        + (f"; to undo them: {' ; '.join(undo)}" if undo else "")
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
        # one transaction: a statement that fails rolls back every one before it
        conn.execute("BEGIN")
        for i, stmt in enumerate(statements):
            log(f"applying: {_shown(stmt)}")
            conn.execute(f"SAVEPOINT ctxtool_ddl_{i}")
            try:
                conn.execute(stmt)
            except psycopg.Error as exc:
                if _ALREADY.search(str(exc)):
                    conn.execute(f"ROLLBACK TO SAVEPOINT ctxtool_ddl_{i}")
                    out.append(Applied(stmt, "exists"))
                    continue
                conn.execute("ROLLBACK")
                raise _fail(parsed, stmt, exc, "nothing was applied (rolled back)") from None
            out.append(Applied(stmt, "applied"))
        conn.execute("COMMIT")
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
        _mysql_check(parsed, cur, statements, log)
        for stmt in statements:
            log(f"applying: {_shown(stmt)}")
            try:
                cur.execute(stmt)
            except mysql.connector.Error as exc:
                if _ALREADY.search(str(exc)):
                    out.append(Applied(stmt, "exists"))
                    continue
                raise _fail(parsed, stmt, exc, _half_applied(parsed, "mysql", out)) from None
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


def _mysql_check(parsed: DSN, cur: Any, statements: Sequence[str], log: Callable[[str], None]) -> None:
    """Try every statement on an empty temporary copy of its table (MyISAM, which takes FULLTEXT
    indexes in a temporary table) before any runs: MariaDB/MySQL commit each DDL statement, so a
    failure half-way would leave the others applied. Every failing statement is named at once."""
    import mysql.connector

    copies: dict[str, str] = {}
    failures: list[str] = []
    try:
        for planned in plan_ddl(statements, "mysql"):
            if planned.table is None:
                continue
            copy = copies.get(planned.table)
            if copy is None:
                copy = copies[planned.table] = f"`ctxtool_check_{len(copies)}`"
                cur.execute(f"CREATE TEMPORARY TABLE {copy} LIKE {planned.table}")
                cur.execute(f"ALTER TABLE {copy} ENGINE=MyISAM")
            m = _ADD_COLUMN.match(planned.statement) or _ADD_INDEX.match(planned.statement)
            m = m or _CREATE_INDEX.match(planned.statement)
            assert m is not None
            trial = planned.statement[: m.start("table")] + copy + planned.statement[m.end("table") :]
            log(f"checking: {_shown(planned.statement)}")
            try:
                cur.execute(trial)
            except mysql.connector.Error as exc:
                if not _ALREADY.search(str(exc)):
                    first = str(exc).strip().splitlines()[0]
                    failures.append(
                        f"{planned.statement.splitlines()[0][:120]}: {redact_text(first, parsed.password)}"
                    )
    except mysql.connector.Error as exc:
        raise _fail(parsed, "checking the DDL on a temporary copy", exc, "nothing was applied") from None
    finally:
        for copy in copies.values():
            try:
                cur.execute(f"DROP TEMPORARY TABLE IF EXISTS {copy}")
            except mysql.connector.Error:
                pass
    if failures:
        raise DatabaseError(
            f"applying DDL refused on {parsed.redacted}: {len(failures)} of {len(statements)} statement(s) "
            f"fail on a copy of their table, so none was applied: {' | '.join(failures)}; "
            "draft those columns with --match exact, or apply the --emit-ddl output you can by hand"
        )


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
            raise _fail(parsed, stmt, exc, _half_applied(parsed, "spanner", out)) from None
        out.append(Applied(stmt, "applied"))
    return out


def ddl_script(statements: Sequence[str], engine: str, header: str = "") -> str:
    """The statements as a script a person can read and run (``;``-terminated, with a header)."""
    lines = [f"-- {line}" for line in header.splitlines()] if header else []
    for stmt in statements:
        lines.append(stmt.rstrip().rstrip(";") + ";")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
