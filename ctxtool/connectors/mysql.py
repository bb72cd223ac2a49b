"""MySQL 8 and MariaDB through mysql-connector-python: a read-only session with a statement timeout
and a row cap.

The session is ``TRANSACTION READ ONLY`` and every statement also runs inside
``START TRANSACTION READ ONLY`` ... ``ROLLBACK``; the client never asks for multi-statements (the
driver does by default), so the server reads one statement per call; a pooled session is reset
(``COM_RESET_CONNECTION``: named locks, user variables, temporary tables, settings) and set up again
when it goes back to its pool (:meth:`MySQLConnector.reset_session`); the timeout is ``max_execution_time`` (MySQL, ms) or
``max_statement_time`` (MariaDB, s); ``sql_select_limit`` keeps the server from sending more rows than
the cap. Context-set SQL (``?``, ``$value``) runs through the server-side prepared cursor, so values
are bound, never pasted. The two servers differ in ways introspection hides: MariaDB reports ``JSON``
as ``LONGTEXT`` with a ``json_valid`` CHECK and integer display widths (``int(11)``), MySQL 8 returns
``information_schema`` labels in upper case (every label here is aliased) and has the ``ngram``
FULLTEXT parser. Introspection uses a fixed number of ``information_schema`` queries, plus one
``SHOW CREATE TABLE`` per table that has a FULLTEXT index (to learn its parser).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ctxtool.connectors.base import (
    DEFAULT_ROW_CAP,
    DEFAULT_STATEMENT_TIMEOUT,
    Connector,
    QueryResult,
    ServerInfo,
)
from ctxtool.connectors.dsn import DSN
from ctxtool.connectors.errors import bind, connect_error, statement_error
from ctxtool.connectors.profile import SAMPLE_ROWS, profile_rows
from ctxtool.errors import DatabaseError
from ctxtool.placeholders import find_sql_placeholders

SYSTEM_SCHEMAS = ("information_schema", "mysql", "performance_schema", "sys")
_READ_STATEMENT = re.compile(
    r"^\s*(?:\(\s*)*(select|with|show|explain|describe|desc|values|table)\b", re.IGNORECASE
)
_LEADING_COMMENTS = re.compile(r"^(?:\s+|--[^\n]*\n?|#[^\n]*\n?|/\*.*?\*/)*", re.DOTALL)
_INT_WIDTH = re.compile(r"^(tinyint|smallint|mediumint|int|integer|bigint)\(\d+\)", re.IGNORECASE)
_JSON_CHECK = re.compile(r"^\s*json_valid\(`((?:[^`]|``)+)`\)\s*$", re.IGNORECASE)
_FT_PARSER = re.compile(r"FULLTEXT\s+KEY\s+`((?:[^`]|``)+)`.*?WITH\s+PARSER\s+`?(\w+)`?", re.IGNORECASE)


def quote_ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def normalize_column_type(column_type: str, *, mariadb: bool) -> str:
    """MySQL 8's spelling of a column type: integer display widths dropped (``int(11)`` -> ``int``)
    except ``tinyint(1)`` (booleans) and ``ZEROFILL`` columns, where MySQL 8 keeps them too."""
    t = column_type.strip()
    if "zerofill" in t.lower():
        return t
    if re.match(r"^tinyint\(1\)", t, re.IGNORECASE):
        return t
    return _INT_WIDTH.sub(lambda m: m.group(1), t)


def _text(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, (set, frozenset)):  # a SET column through the text protocol
        return ",".join(sorted(str(v) for v in value))
    return value


def _read_year_as_integer(conn: Any) -> None:
    """mysql-connector-python reads a YEAR column of a prepared statement's (binary) result as a
    length-prefixed string and loses its place in the row (garbage, then an IndexError); the
    server sends YEAR as a 2-byte integer, as it sends SMALLINT, so it is read as one."""
    protocol = getattr(conn, "_protocol", None)
    parse = getattr(protocol, "_parse_binary_values", None)
    if parse is None:
        return
    from mysql.connector import FieldType

    def parse_values(fields: Any, packet: bytes, charset: str = "utf-8") -> Any:
        fields = [(f[0], FieldType.SHORT, *f[2:]) if f[1] == FieldType.YEAR else f for f in fields]
        return parse(fields, packet, charset)

    protocol._parse_binary_values = parse_values


def _select_expr(column: dict[str, Any]) -> str:
    """A column as the profile samples it: SET columns as their text (members in definition order,
    as the server stores and compares them), everything else as is."""
    name = quote_ident(column["name"])
    return f"CAST({name} AS CHAR)" if str(column.get("type") or "").lower().startswith("set(") else name


class MySQLConnector(Connector):
    """A read-only session on MySQL 8 or MariaDB."""

    engine = "mysql"
    dialect = "mysql"

    def __init__(
        self,
        dsn: DSN,
        *,
        statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT,
        row_cap: int = DEFAULT_ROW_CAP,
        connect_timeout: float = 10.0,
    ) -> None:
        super().__init__(statement_timeout=statement_timeout, row_cap=row_cap)
        import mysql.connector
        from mysql.connector.constants import ClientFlag

        self.dsn = dsn
        self.round_trips = 0
        self._info: ServerInfo | None = None
        kwargs: dict[str, Any] = {
            "host": dsn.host or "127.0.0.1",
            "port": dsn.port or 3306,
            "user": dsn.user or "root",
            "password": dsn.password or "",
            "connection_timeout": max(1, int(connect_timeout)),
            "consume_results": True,
            "autocommit": False,
            "charset": "utf8mb4",
            "use_unicode": True,
            # the driver asks for multi-statements by default: 'SELECT 1; DROP ...' would run both
            "client_flags": [-ClientFlag.MULTI_STATEMENTS],
        }
        if dsn.database:
            kwargs["database"] = dsn.database
        for key in ("ssl_ca", "ssl_cert", "ssl_key", "ssl_disabled", "auth_plugin", "unix_socket"):
            if key in dsn.params:
                value: Any = dsn.params[key]
                kwargs[key] = value.lower() in ("1", "true", "yes") if key == "ssl_disabled" else value
        try:
            self.conn = mysql.connector.connect(**kwargs)
        except mysql.connector.Error as exc:
            raise connect_error(exc, dsn) from None
        self.round_trips += 1
        _set_nodelay(self.conn)
        _read_year_as_integer(self.conn)
        version = str(self.conn.server_info or "")
        self.mariadb = "mariadb" in version.lower()
        self.version = version.removeprefix("5.5.5-").split("-", 1)[0]
        try:
            self._set_up()
            cur = self.conn.cursor()
            self._execute(cur, "SELECT DATABASE()")
            self.database = _text(cur.fetchone()[0])
            cur.close()
        except mysql.connector.Error as exc:
            self.conn.close()
            raise statement_error(exc, dsn, "cannot set up a read-only session") from None

    def _set_up(self) -> None:
        """The session's own settings: read-only transactions, the statement timeout, the row cap."""
        if self.mariadb:
            timeout = f"max_statement_time = {max(0.001, float(self.statement_timeout)):.3f}"
        else:
            timeout = f"max_execution_time = {max(1, int(self.statement_timeout * 1000))}"
        cur = self.conn.cursor()
        self._execute(cur, "SET SESSION TRANSACTION READ ONLY")
        self._execute(cur, f"SET SESSION {timeout}, SESSION sql_select_limit = {int(self.row_cap) + 1}")
        cur.close()

    def reset_session(self) -> None:
        """Bring the session back to how it was opened: ``COM_RESET_CONNECTION`` (named locks of
        ``GET_LOCK``, user variables, temporary tables, prepared statements and settings all go),
        then the session's settings again. Connection pools call this when a session comes back;
        a server that cannot reset raises :class:`DatabaseError` and the pool drops the session."""
        import mysql.connector

        try:
            self.round_trips += 1
            if not self.conn.cmd_reset_connection():
                raise DatabaseError(f"{self.dsn.redacted} cannot reset a session (COM_RESET_CONNECTION)")
            self._set_up()
        except mysql.connector.Error as exc:
            raise statement_error(exc, self.dsn, "resetting the session failed") from None

    # ------------------------------------------------------------------ plumbing

    def _execute(self, cur: Any, sql: str, params: Any = None) -> None:
        self.round_trips += 1
        cur.execute(sql, params) if params is not None else cur.execute(sql)

    def _begin(self, cur: Any) -> None:
        self._execute(cur, "START TRANSACTION READ ONLY")

    def _finish(self) -> None:
        import mysql.connector

        try:
            self.round_trips += 1
            self.conn.rollback()
        except mysql.connector.Error:
            pass

    def _catalog(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        import mysql.connector

        try:
            cur = self.conn.cursor()
            self._execute(cur, sql, tuple(params))
            rows = [tuple(_text(v) for v in row) for row in cur.fetchall()]
            cur.close()
            return rows
        except mysql.connector.Error as exc:
            self._finish()
            raise statement_error(exc, self.dsn, "reading information_schema failed") from None

    # ------------------------------------------------------------------ interface

    def info(self) -> ServerInfo:
        if self._info is None:
            self._info = ServerInfo(
                engine="mysql",
                flavour="mariadb" if self.mariadb else "mysql",
                version=self.version,
                dialect="mysql",
                extensions=[],
            )
        return self._info

    def _check_read_only(self, sql: str) -> None:
        if not _READ_STATEMENT.match(_LEADING_COMMENTS.sub("", sql)):
            raise DatabaseError(
                "only SELECT/WITH/SHOW/EXPLAIN statements run in the read-only session: "
                "this statement would change the database"
            )

    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, max_rows: int | None = None
    ) -> QueryResult:
        self.gate(sql)
        self._check_read_only(sql)
        cap = self.row_cap if max_rows is None else max_rows
        driver_sql, driver_params = bind(sql, "mysql", params, "qmark")
        return self.run_read_only(driver_sql, driver_params, cap)

    def run_read_only(
        self, driver_sql: str, driver_params: Sequence[Any] = (), cap: int | None = None
    ) -> QueryResult:
        """Run one statement in the driver's style (``?``, values bound) as a server-side prepared
        statement inside ``START TRANSACTION READ ONLY`` ... ``ROLLBACK``, at most ``cap`` rows.

        The layer below :meth:`query` (no SQL check of ours): what the server itself refuses,
        whatever text reaches it. One statement only (a prepared statement is one), no write (a
        read-only transaction), nothing kept but what only a session reset clears."""
        import mysql.connector

        cap = self.row_cap if cap is None else cap
        try:
            setup = self.conn.cursor()
            if cap + 1 != self.row_cap + 1:
                self._execute(setup, f"SET SESSION sql_select_limit = {int(cap) + 1}")
            self._begin(setup)
            setup.close()
            cur = self.conn.cursor(prepared=True)
            self._execute(cur, driver_sql, tuple(driver_params))
            if not cur.description:
                return QueryResult(columns=[], rows=[])
            rows = cur.fetchmany(cap + 1)
            if len(rows) > cap:
                # A statement's own LIMIT overrides sql_select_limit: read the rest (bounded by that
                # LIMIT) so the connection is free for the rollback that ends the transaction.
                cur.fetchall()
            columns = [_text(d[0]) for d in cur.description]
            types = [_field_type(d[1]) for d in cur.description]
            cur.close()
        except mysql.connector.Error as exc:
            raise statement_error(exc, self.dsn, "the query failed") from None
        finally:
            self._finish()
            if cap != self.row_cap:
                try:
                    restore = self.conn.cursor()
                    self._execute(restore, f"SET SESSION sql_select_limit = {int(self.row_cap) + 1}")
                    restore.close()
                except mysql.connector.Error:
                    pass
        bits = [i for i, t in enumerate(types) if t == "bit"]
        if bits:  # BIT(n) comes as bytes: its value is the number they spell
            rows = [
                tuple(int.from_bytes(v, "big") if i in bits and isinstance(v, (bytes, bytearray)) else v
                      for i, v in enumerate(r))
                for r in rows
            ]  # fmt: skip
        return QueryResult(
            columns=columns,
            rows=[tuple(_text(v) for v in r) for r in rows[:cap]],
            truncated=len(rows) > cap,
            column_types=types,
        )

    def plan(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        """``EXPLAIN FORMAT=JSON``; without values every placeholder is bound to ``1`` (valid in
        comparisons and in ``LIMIT``), which is enough for the server to resolve every name."""
        self.gate(sql)
        import json

        import mysql.connector

        self._check_read_only(sql)
        if params is None:
            found = find_sql_placeholders(sql, "mysql")
            positional = [1] * sum(1 for p in found if p.kind == "qmark")
            params = {"value": 1} if any(p.kind == "named" for p in found) and not positional else positional
            if positional and any(p.kind == "named" for p in found):
                driver_sql, driver_params = _mixed_to_qmark(sql, found)
            else:
                driver_sql, driver_params = bind(sql, "mysql", params, "qmark")
        else:
            driver_sql, driver_params = bind(sql, "mysql", params, "qmark")
        try:
            setup = self.conn.cursor()
            self._begin(setup)
            setup.close()
            cur = self.conn.cursor(prepared=True)
            self._execute(cur, "EXPLAIN FORMAT=JSON " + driver_sql, tuple(driver_params))
            rows = cur.fetchall()
            cur.close()
        except mysql.connector.Error as exc:
            raise statement_error(exc, self.dsn, "the server cannot plan the query") from None
        finally:
            self._finish()
        text = _text(rows[0][0]) if rows else None
        try:
            return json.loads(text) if isinstance(text, str) else text
        except ValueError:
            return text

    def sample_column(self, table: str, column: str, n: int = 100, *, schema: str | None = None) -> list[Any]:
        target = (quote_ident(schema) + "." if schema else "") + quote_ident(table)
        col = quote_ident(column)
        result = self.query(
            f"SELECT v FROM (SELECT {col} AS v FROM {target} WHERE {col} IS NOT NULL LIMIT {SAMPLE_ROWS}) s "
            f"GROUP BY v ORDER BY COUNT(*) DESC, v LIMIT {int(n)}",
            max_rows=n,
        )
        return [row[0] for row in result.rows]

    def introspect(
        self, schemas: Sequence[str] | None = None, *, profile: bool = False, progress: Any = None
    ) -> dict:
        info = self.info()
        step = progress or (lambda *a, **k: None)
        if schemas:
            names = list(schemas)
        elif self.database:
            names = [self.database]
        else:
            names = [
                r[0]
                for r in self._catalog(
                    "SELECT SCHEMA_NAME AS schema_name FROM information_schema.SCHEMATA "
                    f"WHERE SCHEMA_NAME NOT IN ({', '.join(['%s'] * len(SYSTEM_SCHEMAS))})",
                    SYSTEM_SCHEMAS,
                )
            ]
        if not names:
            return self._snapshot(info, {}, [])
        marks = ", ".join(["%s"] * len(names))
        cur = self.conn.cursor()
        # catalogs are read whole; JSON_ARRAYAGG is bounded by group_concat_max_len on MariaDB
        self._execute(
            cur, "SET SESSION sql_select_limit = DEFAULT, SESSION group_concat_max_len = 1073741824"
        )
        self._begin(cur)
        cur.close()
        try:
            return self._introspect(info, names, marks, profile, step)
        finally:
            self._finish()
            cur = self.conn.cursor()
            self._execute(cur, f"SET SESSION sql_select_limit = {int(self.row_cap) + 1}")
            cur.close()

    def _introspect(self, info: ServerInfo, names: list[str], marks: str, profile: bool, step: Any) -> dict:
        existing = [
            r[0]
            for r in self._catalog(
                f"SELECT SCHEMA_NAME AS schema_name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ({marks})",
                names,
            )
        ]
        step("tables")
        tables: dict[tuple[str, str], dict[str, Any]] = {}
        for schema, name, ttype, comment, rows in self._catalog(
            "SELECT TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name, TABLE_TYPE AS table_type, "
            "TABLE_COMMENT AS table_comment, TABLE_ROWS AS table_rows FROM information_schema.TABLES "
            f"WHERE TABLE_SCHEMA IN ({marks})",
            names,
        ):
            is_view = "VIEW" in str(ttype).upper()
            tables[(schema, name)] = {
                "name": name,
                "kind": "view" if is_view else "table",
                "comment": (comment or None) if not is_view or comment != "VIEW" else None,
                "row_estimate": int(rows) if rows is not None and not is_view else None,
                "columns": [],
                "primary_key": [],
                "foreign_keys": [],
                "unique": [],
                "indexes": [],
                "interleave": None,
            }
        step("columns")
        # One JSON array per table: the pure-Python driver parses 1,000 JSON texts far faster than
        # 20,000 rows of 11 fields (and both servers build them cheaply).
        columns: dict[tuple[str, str, str], dict[str, Any]] = {}
        for schema, tname, packed in self._catalog(
            "SELECT TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name, "
            "JSON_ARRAYAGG(JSON_ARRAY(COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, DATA_TYPE, IS_NULLABLE, "
            "COLUMN_DEFAULT, EXTRA, COLUMN_COMMENT, GENERATION_EXPRESSION)) AS columns_json "
            f"FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN ({marks}) GROUP BY TABLE_SCHEMA, TABLE_NAME",
            names,
        ):
            table = tables.get((schema, tname))
            if table is None:
                continue
            for cname, _pos, ctype, dtype, nullable, default, extra, comment, gen in sorted(
                json.loads(packed), key=lambda c: c[1]
            ):
                col: dict[str, Any] = {
                    "name": cname,
                    "type": normalize_column_type(str(ctype), mariadb=self.mariadb),
                    "nullable": str(nullable).upper() == "YES",
                    "default": self._default(default, str(dtype), str(extra or "")),
                    "comment": comment or None,
                }
                if gen:
                    col["generated"] = gen
                    col["default"] = None
                    if "virtual" in str(extra).lower():  # computed when read: cannot be indexed
                        col["virtual"] = True
                if "auto_increment" in str(extra).lower():
                    col["identity"] = "auto_increment"
                table["columns"].append(col)
                columns[(schema, tname, cname)] = col
        if self.mariadb:
            step("checks")
            for schema, tname, _cname, clause in self._catalog(
                "SELECT CONSTRAINT_SCHEMA AS constraint_schema, TABLE_NAME AS table_name, "
                "CONSTRAINT_NAME AS constraint_name, CHECK_CLAUSE AS check_clause "
                f"FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA IN ({marks})",
                names,
            ):
                match = _JSON_CHECK.match(str(clause or ""))
                col = columns.get((schema, tname, match.group(1).replace("``", "`"))) if match else None
                if col is not None and col["type"].lower() == "longtext":
                    col["type"] = "json"  # MariaDB's JSON: LONGTEXT CHECK (json_valid(...))
        step("indexes")
        indexes: dict[tuple[str, str, str], dict[str, Any]] = {}
        fulltext_tables: set[tuple[str, str]] = set()
        for schema, tname, iname, _seq, cname, non_unique, itype, sub_part in self._catalog(
            "SELECT TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name, INDEX_NAME AS index_name, "
            "SEQ_IN_INDEX AS seq_in_index, COLUMN_NAME AS column_name, NON_UNIQUE AS non_unique, "
            "INDEX_TYPE AS index_type, SUB_PART AS sub_part FROM information_schema.STATISTICS "
            f"WHERE TABLE_SCHEMA IN ({marks}) ORDER BY TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX",
            names,
        ):
            table = tables.get((schema, tname))
            if table is None:
                continue
            key = (schema, tname, iname)
            if key not in indexes:
                indexes[key] = {
                    "name": iname,
                    "columns": [],
                    "unique": str(non_unique) in ("0", "False"),
                    "primary": iname == "PRIMARY",
                    "method": str(itype).lower(),
                    "opclasses": [],
                }
                table["indexes"].append(indexes[key])
                if str(itype).upper() == "FULLTEXT":
                    fulltext_tables.add((schema, tname))
            index = indexes[key]
            index["columns"].append(cname if cname is not None else "(expression)")
            if sub_part:
                index.setdefault("prefix_lengths", {})[cname] = int(sub_part)
        for (schema, tname, _iname), index in indexes.items():
            table = tables[(schema, tname)]
            if index["primary"]:
                table["primary_key"] = list(index["columns"])
            elif index["unique"]:
                table["unique"].append(list(index["columns"]))
        step("foreign keys")
        # Two queries joined here: MariaDB evaluates the information_schema join row by row (slow).
        rules = {
            (schema, table, name): (str(on_delete).lower(), str(on_update).lower())
            for schema, table, name, on_delete, on_update in self._catalog(
                "SELECT CONSTRAINT_SCHEMA AS constraint_schema, TABLE_NAME AS table_name, "
                "CONSTRAINT_NAME AS constraint_name, DELETE_RULE AS delete_rule, UPDATE_RULE AS update_rule "
                f"FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA IN ({marks})",
                names,
            )
        }
        fks: dict[tuple[str, str, str], dict[str, Any]] = {}
        for schema, tname, cname, col, _pos, rschema, rtable, rcol in sorted(
            self._catalog(
                "SELECT TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name, CONSTRAINT_NAME AS constraint_name, "
                "COLUMN_NAME AS column_name, ORDINAL_POSITION AS ordinal_position, "
                "REFERENCED_TABLE_SCHEMA AS ref_schema, REFERENCED_TABLE_NAME AS ref_table, "
                "REFERENCED_COLUMN_NAME AS ref_column FROM information_schema.KEY_COLUMN_USAGE "
                f"WHERE TABLE_SCHEMA IN ({marks}) AND REFERENCED_TABLE_NAME IS NOT NULL",
                names,
            ),
            key=lambda r: (r[0], r[1], r[2], r[4]),
        ):
            table = tables.get((schema, tname))
            if table is None:
                continue
            key = (schema, tname, cname)
            if key not in fks:
                on_delete, on_update = rules.get(key, ("restrict", "restrict"))
                fks[key] = {
                    "name": cname,
                    "columns": [],
                    "ref_schema": rschema,
                    "ref_table": rtable,
                    "ref_columns": [],
                    "on_delete": on_delete,
                    "on_update": on_update,
                }
                table["foreign_keys"].append(fks[key])
            fks[key]["columns"].append(col)
            fks[key]["ref_columns"].append(rcol)
        if fulltext_tables:
            step("fulltext parsers")
            for schema, tname in sorted(fulltext_tables):
                for row in self._catalog(f"SHOW CREATE TABLE {quote_ident(schema)}.{quote_ident(tname)}"):
                    for match in _FT_PARSER.finditer(str(row[1])):
                        index = indexes.get((schema, tname, match.group(1).replace("``", "`")))
                        if index is not None:
                            index["parser"] = match.group(2).lower()
        if profile:
            for (schema, _tname), table in sorted(tables.items()):
                if table["kind"] == "table" and table["columns"]:
                    step(f"sampling {table['name']}")
                    self._sample_profile(schema, table)
        by_schema: dict[str, list[dict[str, Any]]] = {name: [] for name in existing}
        for (schema, _name), table in tables.items():
            by_schema.setdefault(schema, []).append(table)
        return self._snapshot(info, by_schema, existing)

    def _snapshot(
        self, info: ServerInfo, by_schema: dict[str, list[dict[str, Any]]], existing: list[str]
    ) -> dict:
        return {
            "engine": "mysql",
            "flavour": info.flavour,
            "version": info.version,
            "dialect": "mysql",
            "extensions": [],
            "database": self.database,
            "schemas": [{"name": name, "tables": ts} for name, ts in by_schema.items()],
        }

    def _default(self, default: Any, data_type: str, extra: str) -> str | None:
        """The default as SQL text, spelled the same on both servers (MariaDB quotes literals and
        says ``NULL``; MySQL 8 gives the bare literal and marks expressions ``DEFAULT_GENERATED``)."""
        if default is None:
            return None
        text = str(default)
        if self.mariadb:
            return None if text == "NULL" else text
        if "DEFAULT_GENERATED" in extra.upper():
            return text
        if data_type.lower() in (
            "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "numeric",
            "float", "double", "bit",
        ):  # fmt: skip
            return text
        return "'" + text.replace("'", "''") + "'"

    def _sample_profile(self, schema: str, table: dict[str, Any]) -> None:
        cols = ", ".join(_select_expr(c) for c in table["columns"])
        target = f"{quote_ident(schema)}.{quote_ident(table['name'])}"
        import mysql.connector

        try:
            cur = self.conn.cursor()
            self._execute(cur, f"SELECT {cols} FROM {target} LIMIT {SAMPLE_ROWS}")
            rows = [tuple(_text(v) for v in r) for r in cur.fetchall()]
            cur.close()
        except mysql.connector.Error as exc:
            raise statement_error(exc, self.dsn, f"sampling {table['name']} failed") from None
        total = table["row_estimate"]
        if len(rows) < SAMPLE_ROWS:
            total = len(rows)
        profiles = profile_rows(
            [c["name"] for c in table["columns"]],
            [c["type"] for c in table["columns"]],
            rows,
            total_rows=total,
        )
        for col in table["columns"]:
            col["profile"] = profiles[col["name"]]

    def close(self) -> None:
        try:
            self._finish()
        finally:
            self.conn.close()


def _field_type(code: int) -> str:
    from mysql.connector import FieldType

    try:
        return str(FieldType.get_info(code)).lower()
    except Exception:  # noqa: BLE001
        return str(code)


def _mixed_to_qmark(sql: str, found: Sequence[Any]) -> tuple[str, list[Any]]:
    """SQL with both ``?`` and ``$value`` as all-``?`` SQL with every value bound to ``1``."""
    parts: list[str] = []
    last = 0
    for p in found:
        parts.append(sql[last : p.start])
        parts.append("?")
        last = p.end
    parts.append(sql[last:])
    return "".join(parts), [1] * len(found)


def _set_nodelay(conn: Any) -> None:
    """Turn off Nagle's algorithm on the pure-Python driver's TCP socket: prepared statements are
    sent in several small writes, and with delayed ACKs each one otherwise costs about 40 ms."""
    import socket

    sock = getattr(getattr(conn, "_socket", None), "sock", None)
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
