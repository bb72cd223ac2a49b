"""Cloud Spanner (and its emulator) through google-cloud-spanner: read-only snapshots with a deadline.

Every statement runs in a read-only snapshot (introspection: one multi-use snapshot for all its
queries), with the statement timeout as the RPC deadline and the row cap applied while streaming.
There is no other path: the connector never opens a read-write transaction or a batch, so the server
refuses DML and DDL whatever text reaches it, and it parses one statement per call; a snapshot
leaves no session state behind, so a pool has nothing to reset.
Both database dialects are detected: GoogleSQL (ctxtool dialect ``spanner``: ``?`` and ``$value``
become ``@p1``... and ``@value``) and PostgreSQL (ctxtool dialect ``postgres``: ``$1``... bound as
``p1``...). ``SPANNER_EMULATOR_HOST`` (or ``?emulator_host=`` in the DSN) selects the emulator.

Introspection reads ``information_schema`` with seven queries whatever the number of tables, and
records what is particular to Spanner: interleaving (parent table, ``ON DELETE``), ``TOKENLIST``
columns and the search indexes over them, and the indexes Spanner manages itself for foreign keys
(left out, their names are generated).
"""

from __future__ import annotations

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
from ctxtool.connectors.errors import bind, connect_error, first_line, statement_error
from ctxtool.connectors.profile import SAMPLE_ROWS, profile_rows
from ctxtool.errors import DatabaseError

_SYSTEM_SCHEMAS = {"information_schema", "spanner_sys", "pg_catalog"}


def _yes(value: Any) -> bool:
    return value is True or str(value).upper() in ("YES", "TRUE")


class SpannerConnector(Connector):
    """A read-only session on a Spanner database (GoogleSQL or PostgreSQL dialect)."""

    engine = "spanner"

    def __init__(
        self,
        dsn: DSN,
        *,
        statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT,
        row_cap: int = DEFAULT_ROW_CAP,
        connect_timeout: float = 10.0,
    ) -> None:
        super().__init__(statement_timeout=statement_timeout, row_cap=row_cap)
        self.dsn = dsn
        self.connect_timeout = connect_timeout
        self.round_trips = 0
        self._info: ServerInfo | None = None
        if dsn.emulator_host:
            self._check_emulator(dsn.emulator_host)
        try:
            self.client = self._client()
            self.database = self.client.instance(dsn.instance).database(dsn.database)
            self.pg_dialect = self._detect_dialect()
        except DatabaseError:
            raise
        except Exception as exc:  # noqa: BLE001 - google.api_core / google.auth / grpc errors
            raise self._connect_error(exc) from None
        self.dialect = "postgres" if self.pg_dialect else "spanner"

    def _check_emulator(self, host: str) -> None:
        """Fail fast when nothing listens at the emulator's address (the client library would retry
        session creation for half a minute)."""
        import socket

        name, _, port = host.rpartition(":")
        try:
            with socket.create_connection(
                (name.strip("[]") or "localhost", int(port)), timeout=self.connect_timeout
            ):
                pass
        except (OSError, ValueError) as exc:
            raise connect_error(
                OSError(f"connection refused by the emulator at {host} ({exc})"), self.dsn
            ) from None

    def _client(self) -> Any:
        from google.cloud import spanner

        if self.dsn.emulator_host:
            from google.auth.credentials import AnonymousCredentials

            return spanner.Client(
                project=self.dsn.project,
                credentials=AnonymousCredentials(),
                client_options={"api_endpoint": self.dsn.emulator_host},
            )
        return spanner.Client(project=self.dsn.project)

    def _connect_error(self, exc: BaseException) -> DatabaseError:
        name = type(exc).__name__
        where = self.dsn.redacted
        if name == "DefaultCredentialsError":
            return DatabaseError(
                f"cannot connect to {where}: no Google credentials; run `gcloud auth application-default "
                "login`, set GOOGLE_APPLICATION_CREDENTIALS, or set SPANNER_EMULATOR_HOST for the emulator"
            )
        if name == "NotFound":
            return DatabaseError(
                f"cannot connect to {where}: the instance or database does not exist ({first_line(exc)}); "
                "check the project, instance and database in the DSN"
            )
        if name in ("PermissionDenied", "Unauthenticated", "Forbidden"):
            return DatabaseError(
                f"cannot connect to {where}: permission denied ({first_line(exc)}); check the "
                "credentials' Spanner roles"
            )
        return connect_error(exc, self.dsn)

    def _detect_dialect(self) -> bool:
        """True for a PostgreSQL-dialect database (the admin API when it says, else a probe)."""
        from google.cloud.spanner_admin_database_v1 import DatabaseDialect

        dialect = getattr(self.database, "_database_dialect", None)
        if dialect not in (None, DatabaseDialect.DATABASE_DIALECT_UNSPECIFIED):
            return dialect == DatabaseDialect.POSTGRESQL
        rows = self._run(  # also the connection check: an unreachable server fails within connect_timeout
            "SELECT table_schema FROM information_schema.tables WHERE table_name IN ('tables', 'TABLES') LIMIT 1",
            timeout=min(self.statement_timeout, self.connect_timeout),
        )
        return bool(rows) and rows[0][0] == "information_schema"

    # ------------------------------------------------------------------ plumbing

    def _run(
        self,
        sql: str,
        params: dict[str, Any] | None = None,
        *,
        snapshot: Any = None,
        limit: int | None = None,
        timeout: float | None = None,
    ) -> list[list[Any]]:
        self.round_trips += 1
        deadline = timeout or self.statement_timeout
        options = {"timeout": deadline, "retry": _retry(deadline)}
        if snapshot is None:
            with self.database.snapshot() as snap:
                return self._stream(snap.execute_sql(sql, params=params or None, **options), limit)
        return self._stream(snapshot.execute_sql(sql, params=params or None, **options), limit)

    @staticmethod
    def _stream(result: Any, limit: int | None) -> list[list[Any]]:
        rows: list[list[Any]] = []
        for row in result:
            rows.append(row)
            if limit is not None and len(rows) >= limit:
                break
        return rows

    def _driver(self, sql: str, params: Sequence[Any] | Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        if self.pg_dialect:
            driver_sql, ordered = bind(sql, "postgres", params, "numbered")
            return driver_sql, {f"p{i + 1}": v for i, v in enumerate(ordered)}
        driver_sql, named = bind(sql, "spanner", params, "named_at")
        return driver_sql, dict(named)

    def quote(self, name: str) -> str:
        if self.pg_dialect:
            return '"' + name.replace('"', '""') + '"'
        return "`" + name.replace("`", "\\`") + "`"

    # ------------------------------------------------------------------ interface

    def info(self) -> ServerInfo:
        if self._info is None:
            self._info = ServerInfo(
                engine="spanner",
                flavour="spanner-postgresql" if self.pg_dialect else "spanner-googlesql",
                version="emulator" if self.dsn.emulator_host else "cloud",
                dialect=self.dialect,
                extensions=[],
            )
        return self._info

    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, max_rows: int | None = None
    ) -> QueryResult:
        self.gate(sql)
        cap = self.row_cap if max_rows is None else max_rows
        driver_sql, driver_params = self._driver(sql, params)
        try:
            self.round_trips += 1
            with self.database.snapshot() as snap:
                result = snap.execute_sql(
                    driver_sql, params=driver_params or None, timeout=self.statement_timeout
                )
                rows = self._stream(result, cap + 1)
                fields = list(result.fields or [])
        except Exception as exc:  # noqa: BLE001
            raise statement_error(exc, self.dsn, "the query failed") from None
        return QueryResult(
            columns=[f.name for f in fields],
            rows=[tuple(r) for r in rows[:cap]],
            truncated=len(rows) > cap,
            column_types=[_type_name(f.type_) for f in fields],
        )

    def plan(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        """The Spanner query planner's view of ``sql`` (``QueryMode.PLAN``: analysed, not run).
        Unbound parameters are accepted by the planner, so no values are needed."""
        self.gate(sql)
        from google.cloud.spanner_v1 import ExecuteSqlRequest

        if params is None:
            driver_sql, driver_params = self._driver(sql, _NullParams())
            driver_params = {}
        else:
            driver_sql, driver_params = self._driver(sql, params)
        try:
            self.round_trips += 1
            with self.database.snapshot() as snap:
                result = snap.execute_sql(
                    driver_sql,
                    params=driver_params or None,
                    query_mode=ExecuteSqlRequest.QueryMode.PLAN,
                    timeout=self.statement_timeout,
                    retry=_retry(self.statement_timeout),
                )
                list(result)
                stats = result.stats
                fields = list(result.fields or [])
        except Exception as exc:  # noqa: BLE001
            raise statement_error(exc, self.dsn, "the server cannot plan the query") from None
        plan = None
        if stats is not None and getattr(stats, "query_plan", None) is not None:
            plan_pb = stats.query_plan
            plan = type(plan_pb).to_dict(plan_pb) if hasattr(type(plan_pb), "to_dict") else str(plan_pb)
        return {
            "query_plan": plan,
            "columns": [{"name": f.name, "type": _type_name(f.type_)} for f in fields],
        }

    def sample_column(self, table: str, column: str, n: int = 100, *, schema: str | None = None) -> list[Any]:
        target = (self.quote(schema) + "." if schema else "") + self.quote(table)
        col = self.quote(column)
        result = self.query(
            f"SELECT v FROM (SELECT {col} AS v FROM {target} WHERE {col} IS NOT NULL LIMIT {SAMPLE_ROWS}) AS s "
            f"GROUP BY v ORDER BY COUNT(*) DESC, v LIMIT {int(n)}",
            max_rows=n,
        )
        return [row[0] for row in result.rows]

    def introspect(
        self, schemas: Sequence[str] | None = None, *, profile: bool = False, progress: Any = None
    ) -> dict:
        info = self.info()
        step = progress or (lambda *a, **k: None)
        wanted = set(schemas) if schemas else None

        def keep(schema: str | None) -> bool:
            schema = schema or ""
            if wanted is not None:
                return schema in wanted
            return schema.lower() not in _SYSTEM_SCHEMAS

        try:
            with self.database.snapshot(multi_use=True) as snap:
                step("tables")
                table_rows = self._run(
                    "SELECT table_schema, table_name, table_type, parent_table_name, on_delete_action "
                    "FROM information_schema.tables",
                    snapshot=snap,
                )
                step("columns")
                column_rows = self._run(
                    "SELECT table_schema, table_name, column_name, ordinal_position, column_default, "
                    "is_nullable, spanner_type, is_generated, generation_expression "
                    "FROM information_schema.columns",
                    snapshot=snap,
                )
                step("indexes")
                index_rows = self._run(
                    "SELECT table_schema, table_name, index_name, index_type, parent_table_name, is_unique, "
                    "is_null_filtered, spanner_is_managed FROM information_schema.indexes",
                    snapshot=snap,
                )
                index_col_rows = self._run(
                    "SELECT table_schema, table_name, index_name, column_name, ordinal_position, "
                    "column_ordering, spanner_type FROM information_schema.index_columns",
                    snapshot=snap,
                )
                step("constraints")
                constraint_rows = self._run(
                    "SELECT constraint_schema, constraint_name, table_schema, table_name, constraint_type "
                    "FROM information_schema.table_constraints",
                    snapshot=snap,
                )
                key_rows = self._run(
                    "SELECT constraint_schema, constraint_name, table_schema, table_name, column_name, "
                    "ordinal_position, position_in_unique_constraint FROM information_schema.key_column_usage",
                    snapshot=snap,
                )
                ref_rows = self._run(
                    "SELECT constraint_schema, constraint_name, unique_constraint_schema, "
                    "unique_constraint_name, update_rule, delete_rule "
                    "FROM information_schema.referential_constraints",
                    snapshot=snap,
                )
                tables: dict[tuple[str, str], dict[str, Any]] = {}
                for schema, name, ttype, parent, on_delete in table_rows:
                    if not keep(schema):
                        continue
                    tables[(schema or "", name)] = {
                        "name": name,
                        "kind": "view" if "VIEW" in str(ttype).upper() else "table",
                        "comment": None,
                        "row_estimate": None,
                        "columns": [],
                        "primary_key": [],
                        "foreign_keys": [],
                        "unique": [],
                        "indexes": [],
                        "interleave": {"parent": parent, "on_delete": str(on_delete or "NO ACTION").lower()}
                        if parent
                        else None,
                    }
                self._columns(tables, column_rows)
                self._indexes(tables, index_rows, index_col_rows)
                self._foreign_keys(tables, constraint_rows, key_rows, ref_rows)
                if profile:
                    for (schema, _name), table in sorted(tables.items()):
                        if table["kind"] == "table" and table["columns"]:
                            step(f"sampling {table['name']}")
                            self._sample_profile(schema, table, snap)
        except DatabaseError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise statement_error(exc, self.dsn, "reading information_schema failed") from None
        by_schema: dict[str, list[dict[str, Any]]] = {}
        if wanted is None and not self.pg_dialect:
            by_schema[""] = []
        elif wanted is None:
            by_schema["public"] = []
        for (schema, _name), table in tables.items():
            by_schema.setdefault(schema, []).append(table)
        return {
            "engine": "spanner",
            "flavour": info.flavour,
            "version": info.version,
            "dialect": info.dialect,
            "extensions": [],
            "database": self.dsn.database,
            "schemas": [{"name": name, "tables": ts} for name, ts in by_schema.items()],
        }

    def _columns(self, tables: dict[tuple[str, str], dict[str, Any]], rows: list[list[Any]]) -> None:
        for schema, tname, cname, _pos, default, nullable, stype, generated, expr in sorted(
            rows, key=lambda r: (r[0] or "", r[1], r[3])
        ):
            table = tables.get((schema or "", tname))
            if table is None:
                continue
            col: dict[str, Any] = {
                "name": cname,
                "type": stype,
                "nullable": _yes(nullable),
                "default": default,
                "comment": None,
            }
            if str(generated or "NEVER").upper() != "NEVER" and expr:
                col["generated"] = expr
            table["columns"].append(col)

    def _indexes(
        self,
        tables: dict[tuple[str, str], dict[str, Any]],
        index_rows: list[list[Any]],
        column_rows: list[list[Any]],
    ) -> None:
        key_cols: dict[tuple[str, str, str], list[tuple[int, str, str]]] = {}
        storing: dict[tuple[str, str, str], list[str]] = {}
        col_types: dict[tuple[str, str, str], list[str]] = {}
        for schema, tname, iname, cname, pos, ordering, stype in column_rows:
            key = (schema or "", tname, iname)
            col_types.setdefault(key, []).append(str(stype or ""))
            if pos is None:
                storing.setdefault(key, []).append(cname)
            else:
                key_cols.setdefault(key, []).append((int(pos), cname, str(ordering or "ASC")))
        for schema, tname, iname, itype, parent, unique, null_filtered, managed in index_rows:
            table = tables.get((schema or "", tname))
            key = (schema or "", tname, iname)
            if table is None or _yes(managed):
                continue
            cols = sorted(key_cols.get(key, []))
            if str(itype).upper() == "PRIMARY_KEY":
                table["primary_key"] = [c for _, c, _ in cols]
                continue
            tokenlist = any(t.upper() == "TOKENLIST" for t in col_types.get(key, []))
            index: dict[str, Any] = {
                "name": iname,
                "columns": [c for _, c, _ in cols],
                "unique": _yes(unique),
                "primary": False,
                "method": "search" if tokenlist or str(itype).upper() == "SEARCH" else "btree",
                "opclasses": [],
            }
            if any(o.upper() == "DESC" for _, _, o in cols):
                index["orders"] = [o.lower() for _, _, o in cols]
            if storing.get(key):
                index["storing"] = sorted(storing[key])
            if parent:
                index["interleave_in"] = parent
            if _yes(null_filtered):
                index["null_filtered"] = True
            table["indexes"].append(index)
            if index["unique"]:
                table["unique"].append(list(index["columns"]))

    def _foreign_keys(
        self,
        tables: dict[tuple[str, str], dict[str, Any]],
        constraint_rows: list[list[Any]],
        key_rows: list[list[Any]],
        ref_rows: list[list[Any]],
    ) -> None:
        owner: dict[tuple[str, str], tuple[str, str]] = {}
        for cschema, cname, tschema, tname, _ctype in constraint_rows:
            owner[(cschema or "", cname)] = (tschema or "", tname)
        columns: dict[tuple[str, str], list[tuple[int, str, int | None]]] = {}
        for cschema, cname, _tschema, _tname, col, pos, upos in key_rows:
            columns.setdefault((cschema or "", cname), []).append((int(pos), col, upos))
        for cschema, cname, uschema, uname, on_update, on_delete in ref_rows:
            key = (cschema or "", cname)
            if key not in owner:
                continue
            table = tables.get(owner[key])
            if table is None:
                continue
            ref_table = owner.get((uschema or "", uname), ("", ""))
            ref_cols = [c for _, c, _ in sorted(columns.get((uschema or "", uname), []))]
            cols = sorted(columns.get(key, []))
            table["foreign_keys"].append(
                {
                    "name": cname,
                    "columns": [c for _, c, _ in cols],
                    "ref_schema": ref_table[0],
                    "ref_table": ref_table[1],
                    "ref_columns": [
                        ref_cols[int(u) - 1] if u and int(u) <= len(ref_cols) else None for _, _, u in cols
                    ]
                    if ref_cols
                    else [],
                    "on_delete": str(on_delete or "NO ACTION").lower(),
                    "on_update": str(on_update or "NO ACTION").lower(),
                }
            )

    def _sample_profile(self, schema: str, table: dict[str, Any], snap: Any) -> None:
        columns = [c for c in table["columns"] if str(c["type"]).upper() != "TOKENLIST"]
        if not columns:
            return
        target = (self.quote(schema) + "." if schema else "") + self.quote(table["name"])
        cols = ", ".join(self.quote(c["name"]) for c in columns)
        rows = self._run(f"SELECT {cols} FROM {target} LIMIT {SAMPLE_ROWS}", snapshot=snap)
        total = len(rows) if len(rows) < SAMPLE_ROWS else None
        if total is not None and table.get("row_estimate") is None:
            table["row_estimate"] = total  # the sample read the whole table: its row count is known
        profiles = profile_rows(
            [c["name"] for c in columns], [str(c["type"]) for c in columns], rows, total_rows=total
        )
        for col in columns:
            col["profile"] = profiles[col["name"]]

    def close(self) -> None:
        try:
            self.database = None
            close = getattr(self.client, "close", None)
            if callable(close):
                close()
        except Exception:  # noqa: BLE001 - closing never fails the caller
            pass


class _NullParams(dict):
    """Answers ``None`` for every placeholder, so SQL can be rewritten without values."""

    def __getitem__(self, key: Any) -> Any:
        return None

    def __len__(self) -> int:
        return 1


def _retry(deadline: float) -> Any:
    """Retries of transient errors (UNAVAILABLE...) that stop at the statement timeout, not after the
    client library's default of minutes: a dead server fails as fast as a slow statement."""
    from google.api_core.retry import Retry, if_transient_error

    return Retry(predicate=if_transient_error, initial=0.1, maximum=1.0, multiplier=2.0, timeout=deadline)


def _type_name(type_pb: Any) -> str:
    from google.cloud.spanner_v1 import TypeCode

    try:
        code = type_pb.code
        name = code.name if hasattr(code, "name") else TypeCode(int(code)).name
        if name == "ARRAY" and type_pb.array_element_type is not None:
            return f"ARRAY<{_type_name(type_pb.array_element_type)}>"
        return name
    except Exception:  # noqa: BLE001
        return str(type_pb)
