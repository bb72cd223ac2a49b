"""Writing the sample tables into a database the caller owns, through the plain drivers.

This is one of ctxtool's few writes: it creates tables and bulk-loads rows (COPY on PostgreSQL,
batched ``executemany`` on MySQL/MariaDB, mutation batches on Spanner), so it bypasses the
read-only :class:`~ctxtool.connectors.base.Connector` on purpose.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

from ctxtool.connectors.dsn import DSN, redact_text
from ctxtool.errors import CtxtoolError, DatabaseError
from ctxtool.sampledata.schema import ddl, drop_statements, tables

Progress = Callable[[str, int], None]  # (table, rows written)

MYSQL_BATCH_ROWS = 2000
SPANNER_BATCH_CELLS = 60000  # under Spanner's 80,000 mutations per commit, index entries included


def _exists_error(engine: str, dsn: DSN, found: list[str]) -> CtxtoolError:
    return CtxtoolError(
        f"{dsn.redacted}: sample tables already exist ({', '.join(sorted(found))}); "
        "pass replace=True (--replace) to drop and reload them, or use an empty database"
    )


def _fail(dsn: DSN, exc: BaseException, *, connecting: bool = False) -> DatabaseError:
    lines = str(exc).strip().splitlines()
    first = redact_text(lines[0] if lines else type(exc).__name__, dsn.password)
    if connecting:
        return DatabaseError(
            f"{dsn.redacted}: cannot connect: {first}; check the DSN, and create the database first"
        )
    return DatabaseError(f"{dsn.redacted}: loading the samples failed: {first}")


# --------------------------------------------------------------------------- PostgreSQL


def load_postgres(
    dsn: DSN,
    data: dict[str, list[tuple]],
    datasets: tuple[str, ...],
    replace: bool,
    progress: Progress | None,
) -> None:
    import psycopg

    names = list(data)
    try:
        conn = psycopg.connect(dsn.libpq(), connect_timeout=10)
    except psycopg.Error as exc:
        raise _fail(dsn, exc, connecting=True) from None
    try:
        with conn:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = current_schema() AND table_name = ANY(%s)",
                    (names,),
                )
                found = [r[0] for r in cur.fetchall()]
                if found and not replace:
                    raise _exists_error("postgres", dsn, found)
                for name in reversed([t.name for t in tables(datasets)]):
                    if name in found:
                        cur.execute(f"DROP TABLE IF EXISTS {name} CASCADE")
                for statement in ddl("postgres", datasets):
                    cur.execute(statement)
                for table in tables(datasets):
                    cols = ", ".join(f'"{c}"' for c in table.column_names)
                    with cur.copy(f"COPY {table.name} ({cols}) FROM STDIN") as copy:
                        for row in data[table.name]:
                            copy.write_row(row)
                    if progress:
                        progress(table.name, len(data[table.name]))
            conn.commit()
            conn.autocommit = True
            # Fresh statistics, so row estimates and profiles are right at once. A statistics target
            # this high makes ANALYZE read every row of these tables (its sample is 300 x target),
            # so profiles, and what is drafted from them, are the same on every load.
            conn.execute("SET default_statistics_target = 10000")
            for name in names:
                conn.execute(f"ANALYZE {name}")
            conn.execute("RESET default_statistics_target")
    except CtxtoolError:
        raise
    except psycopg.Error as exc:
        raise _fail(dsn, exc) from None


# --------------------------------------------------------------------------- MySQL / MariaDB


def _mysql_connect(dsn: DSN):
    import mysql.connector

    if not dsn.database:
        raise CtxtoolError(f"{dsn.redacted}: name the database to load into (mysql://user@host:3306/DB)")
    return mysql.connector.connect(
        host=dsn.host,
        port=dsn.port,
        user=dsn.user,
        password=dsn.password or "",
        database=dsn.database,
        connection_timeout=10,
        autocommit=False,
    )


def load_mysql(
    dsn: DSN,
    data: dict[str, list[tuple]],
    datasets: tuple[str, ...],
    replace: bool,
    progress: Progress | None,
) -> None:
    import mysql.connector

    try:
        conn = _mysql_connect(dsn)
    except mysql.connector.Error as exc:
        raise _fail(dsn, exc, connecting=True) from None
    try:
        cur = conn.cursor()
        cur.execute(
            "SELECT table_name AS table_name FROM information_schema.tables "
            "WHERE table_schema = DATABASE() AND table_name IN (" + ", ".join(["%s"] * len(data)) + ")",
            tuple(data),
        )
        found = [r[0] for r in cur.fetchall()]
        if found and not replace:
            raise _exists_error("mysql", dsn, found)
        if found:
            cur.execute("SET FOREIGN_KEY_CHECKS = 0")
            for name in reversed([t.name for t in tables(datasets)]):
                cur.execute(f"DROP TABLE IF EXISTS `{name}`")
            cur.execute("SET FOREIGN_KEY_CHECKS = 1")
        for statement in ddl("mysql", datasets):
            cur.execute(statement)
        for table in tables(datasets):
            cols = ", ".join(f"`{c}`" for c in table.column_names)
            sql = f"INSERT INTO {table.name} ({cols}) VALUES ({', '.join(['%s'] * len(table.columns))})"
            rows = data[table.name]
            for start in range(0, len(rows), MYSQL_BATCH_ROWS):
                cur.executemany(sql, rows[start : start + MYSQL_BATCH_ROWS])
            conn.commit()
            if progress:
                progress(table.name, len(rows))
        cur.execute("ANALYZE TABLE " + ", ".join(data))
        cur.fetchall()
        conn.commit()
    except CtxtoolError:
        raise
    except mysql.connector.Error as exc:
        raise _fail(dsn, exc) from None
    finally:
        conn.close()


# --------------------------------------------------------------------------- Spanner


def spanner_database(dsn: DSN):
    """The ``google.cloud.spanner`` Database of a spanner:// DSN (emulator when its host is set)."""
    from google.cloud import spanner

    if dsn.emulator_host:
        from ctxtool.spanner_emulator import client

        spanner_client = client(dsn.emulator_host, project=dsn.project or "test-project")
    else:  # a real instance: application default credentials
        spanner_client = spanner.Client(project=dsn.project)
    return spanner_client.instance(dsn.instance).database(dsn.database)


def spanner_engine(database) -> str:
    """``spanner-pg`` for a PostgreSQL-dialect database, else ``spanner`` (the emulator does not
    report the dialect in its metadata, so look at the schemas: only PostgreSQL has ``pg_catalog``)."""
    from google.cloud.spanner_admin_database_v1 import DatabaseDialect

    if database.database_dialect == DatabaseDialect.POSTGRESQL:
        return "spanner-pg"
    with database.snapshot() as snap:
        schemas = {r[0] for r in snap.execute_sql("SELECT schema_name FROM information_schema.schemata")}
    return "spanner-pg" if "pg_catalog" in schemas else "spanner"


def _spanner_value(value):
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


def load_spanner(
    dsn: DSN,
    data: dict[str, list[tuple]],
    datasets: tuple[str, ...],
    replace: bool,
    progress: Progress | None,
) -> None:
    from google.api_core import exceptions

    try:
        database = spanner_database(dsn)
        engine = spanner_engine(database)
        schema = "public" if engine == "spanner-pg" else ""
        with database.snapshot() as snap:
            existing = {
                r[1]
                for r in snap.execute_sql("SELECT table_schema, table_name FROM information_schema.tables")
                if r[0] == schema
            }
        found = [name for name in data if name in existing]
        if found and not replace:
            raise _exists_error(engine, dsn, found)
        statements = []
        if found:
            statements.extend(s for s in drop_statements(engine, datasets) if _drop_applies(s, existing))
        statements.extend(ddl(engine, datasets))
        database.update_ddl(statements).result(300)
        for table in tables(datasets):
            rows = data[table.name]
            per_batch = max(1, SPANNER_BATCH_CELLS // (len(table.columns) + 2 * len(table.foreign_keys) + 1))
            for start in range(0, len(rows), per_batch):
                chunk = [tuple(_spanner_value(v) for v in row) for row in rows[start : start + per_batch]]
                with database.batch() as batch:
                    batch.insert(table.name, table.column_names, chunk)
            if progress:
                progress(table.name, len(rows))
    except CtxtoolError:
        raise
    except exceptions.GoogleAPICallError as exc:
        raise _fail(dsn, exc) from None


def _drop_applies(statement: str, existing: set[str]) -> bool:
    """Drop only what exists: ``DROP TABLE t``, ``ALTER TABLE t DROP ...`` and ``DROP INDEX t_..``."""
    words = statement.split()
    if words[:2] in (["DROP", "TABLE"], ["ALTER", "TABLE"]):
        return words[2] in existing
    return any(words[2].startswith(name + "_") for name in existing)


LOADERS = {"postgres": load_postgres, "mysql": load_mysql, "spanner": load_spanner}
