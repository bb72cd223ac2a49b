"""PostgreSQL and AlloyDB through psycopg 3: a read-only session with a statement timeout and a row cap.

Every statement runs inside a ``READ ONLY`` transaction that is rolled back afterwards; the session
also sets ``default_transaction_read_only`` and ``statement_timeout``. SQL in the context-set style
(``$1..$n``, ``$value``) goes through :class:`psycopg.RawCursor`, so ``$n`` placeholders reach the
server as they are and values are always bound. Introspection reads the catalogs with a fixed
number of queries (relations, columns, constraints, indexes, statistics), whatever the number of
tables, sent together as one pipeline: a schema of 1,000 tables costs one round trip, as one of ten.
"""

from __future__ import annotations

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
from ctxtool.errors import DatabaseError

ALLOYDB_EXTENSIONS = ("alloydb_ai_nl", "google_columnar_engine", "google_ml_integration", "alloydb_scann")
_SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")
# character(n): values are blank-padded to n; ctxtool shows and compares them trimmed
_PADDED = re.compile(r"^(?:character|bpchar)\s*(?:\(|$)", re.IGNORECASE)
_KINDS = {"r": "table", "p": "table", "f": "foreign_table", "v": "view", "m": "materialized_view"}
_CURSORABLE = re.compile(r"^\s*(?:\(\s*)*(select|with|values|table)\b", re.IGNORECASE)
_LEADING_COMMENTS = re.compile(r"^(?:\s+|--[^\n]*\n?|/\*.*?\*/)*", re.DOTALL)


_INFO_SQL = (
    "SELECT current_setting('server_version'), current_database(), "
    "(SELECT coalesce(array_agg(extname::text ORDER BY extname), '{}') FROM pg_extension), "
    "(SELECT coalesce(array_agg(name::text ORDER BY name), '{}') FROM pg_available_extensions "
    " WHERE name = ANY(%s))"
)
# Catalog queries of introspect(); {where} and {in_rels} select the schemas' relations.
_RELS_SQL = (
    "SELECT c.oid, n.nspname::text, c.relname::text, c.relkind::text, d.description, c.reltuples::float8, "
    "c.relispopulated "
    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass "
    "AND d.objsubid = 0 "
    "WHERE c.relkind IN ('r','p','v','m','f') AND NOT c.relispartition AND {where} "
    "AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = 'pg_class'::regclass "
    "AND e.objid = c.oid AND e.deptype = 'e')"
)
_COLUMNS_SQL = (
    "SELECT a.attrelid, a.attnum, a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
    "pg_get_expr(ad.adbin, ad.adrelid), d.description, a.attgenerated::text, a.attidentity::text, "
    # a domain's base type (a domain over integer is a number), an enum's labels in their order
    "CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END, "
    "CASE WHEN t.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_enum e "
    "  WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) END "
    "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
    "LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum "
    "LEFT JOIN pg_description d ON d.objoid = a.attrelid AND d.classoid = 'pg_class'::regclass "
    "AND d.objsubid = a.attnum "
    "WHERE a.attrelid {in_rels} AND a.attnum > 0 AND NOT a.attisdropped"
)
# the referenced columns' names come with each foreign key: the referenced table may lie in a schema
# that is not introspected
_CONSTRAINTS_SQL = (
    "SELECT con.conrelid, con.conname::text, con.contype::text, con.conkey::int[], "
    "fn.nspname::text, fc.relname::text, "
    "CASE WHEN con.contype = 'f' THEN ARRAY(SELECT coalesce((SELECT fa.attname::text FROM pg_attribute fa "
    "  WHERE fa.attrelid = con.confrelid AND fa.attnum = k.attnum), k.attnum::text) "
    "  FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, i) ORDER BY k.i) END, "
    "con.confdeltype::text, con.confupdtype::text "
    "FROM pg_constraint con "
    "LEFT JOIN pg_class fc ON fc.oid = con.confrelid "
    "LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace "
    "WHERE con.conrelid {in_rels} AND con.contype IN ('p', 'u', 'f')"
)
# Foreign keys declared on the partitions of a partitioned table (Pagila declares payment's keys on
# each partition, not on payment): one row per leaf partition, with its keys' columns by name (a
# partition's attnums may differ from its parent's). A key every leaf declares is the parent's.
_PARTITION_FKS_SQL = (
    "WITH RECURSIVE tree(root, relid) AS ("
    " SELECT i.inhparent, i.inhrelid FROM pg_inherits i WHERE i.inhparent {in_parted}"
    " UNION ALL SELECT t.root, i.inhrelid FROM tree t JOIN pg_inherits i ON i.inhparent = t.relid) "
    "SELECT t.root, t.relid, con.conname::text, "
    "ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, i) "
    "  JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.i), "
    "fn.nspname::text, fc.relname::text, "
    "ARRAY(SELECT coalesce((SELECT fa.attname::text FROM pg_attribute fa "
    "  WHERE fa.attrelid = con.confrelid AND fa.attnum = k.attnum), k.attnum::text) "
    "  FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, i) ORDER BY k.i), "
    "con.confdeltype::text, con.confupdtype::text "
    "FROM tree t JOIN pg_class c ON c.oid = t.relid AND c.relkind IN ('r', 'f') "
    "LEFT JOIN pg_constraint con ON con.conrelid = t.relid AND con.contype = 'f' "
    "LEFT JOIN pg_class fc ON fc.oid = con.confrelid "
    "LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace"
)
# pg_get_indexdef is slow: it is asked only for expression keys (attnum 0)
_INDEXES_SQL = (
    "SELECT i.indrelid, ic.relname::text, am.amname::text, i.indisunique, i.indisprimary, "
    "i.indnkeyatts, i.indkey::int2[], "
    "CASE WHEN 0 = ANY(i.indkey::int2[]) THEN ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) "
    "  FROM generate_series(1, i.indnatts) k ORDER BY k) END, "
    "i.indclass::oid[], pg_get_expr(i.indpred, i.indrelid), i.indisvalid "
    "FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam "
    "WHERE i.indrelid {in_rels}"
)


def flavour_from_extensions(installed: Sequence[str], available: Sequence[str] = ()) -> str:
    """``alloydb`` when the server has (or offers) an AlloyDB-only extension, else ``postgresql``."""
    return "alloydb" if (set(installed) | set(available)) & set(ALLOYDB_EXTENSIONS) else "postgresql"


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class PostgresConnector(Connector):
    """A read-only session on PostgreSQL, AlloyDB or Cloud SQL for PostgreSQL."""

    engine = "postgres"
    dialect = "postgres"

    def __init__(
        self,
        dsn: DSN,
        *,
        statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT,
        row_cap: int = DEFAULT_ROW_CAP,
        connect_timeout: float = 10.0,
        connection: Any = None,
    ) -> None:
        """``connection``: an open autocommit psycopg connection (a pool's, made with
        :func:`connect_kwargs`) to set up as this session instead of connecting."""
        super().__init__(statement_timeout=statement_timeout, row_cap=row_cap)
        import psycopg

        self.dsn = dsn
        self.round_trips = 0
        self._info: ServerInfo | None = None
        self._database: str | None = None
        self._plan_counter = 0
        try:
            self.conn = connection or psycopg.connect(dsn.libpq(), **connect_kwargs(dsn, connect_timeout))
        except psycopg.Error as exc:
            raise connect_error(exc, dsn) from None
        self.round_trips += 1
        try:
            ms = max(1, int(statement_timeout * 1000))
            self.conn.execute(
                f"SET statement_timeout = {ms}; SET default_transaction_read_only = on; "
                "SET idle_in_transaction_session_timeout = 60000"
            )
            self.round_trips += 1
            self.conn.autocommit = False
            self.conn.read_only = True
        except psycopg.Error as exc:
            self.conn.close()
            raise statement_error(exc, dsn, "cannot set up a read-only session") from None

    # ------------------------------------------------------------------ plumbing

    def _execute(self, cur: Any, sql: str, params: Any = None) -> Any:
        self.round_trips += 1
        return cur.execute(sql, params)

    def _finish(self) -> None:
        """End the current (read-only) transaction; nothing was written, so roll back."""
        import psycopg

        if self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            self.round_trips += 1
            try:
                self.conn.rollback()
            except psycopg.Error:
                pass

    def _catalog(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        import psycopg

        try:
            with self.conn.cursor() as cur:
                if self.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                    self.round_trips += 1  # BEGIN READ ONLY
                self._execute(cur, sql, params)
                return cur.fetchall()
        except psycopg.Error as exc:
            self._finish()
            raise statement_error(exc, self.dsn, "reading the catalog failed") from None

    # ------------------------------------------------------------------ interface

    def info(self) -> ServerInfo:
        return self._server_info(finish=True)

    def _server_info(self, *, finish: bool) -> ServerInfo:
        """The server's info (cached); ``finish=False`` leaves the read-only transaction open."""
        if self._info is None:
            rows = self._catalog(_INFO_SQL, (list(ALLOYDB_EXTENSIONS),))
            if finish:
                self._finish()
            self._remember_info(rows[0])
        assert self._info is not None
        return self._info

    def _remember_info(self, row: Sequence[Any]) -> None:
        version, database, installed, available = row
        self._database = database
        self._info = ServerInfo(
            engine="postgres",
            flavour=flavour_from_extensions(installed, available),
            version=str(version).split(" ", 1)[0],
            dialect="postgres",
            extensions=sorted(installed),
        )

    @property
    def server_version_num(self) -> int:
        return int(self.conn.info.server_version)

    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, max_rows: int | None = None
    ) -> QueryResult:
        import psycopg

        cap = self.row_cap if max_rows is None else max_rows
        driver_sql, driver_params = bind(sql, "postgres", params, "numbered")
        if self._single_round_trip():
            return self._query_one_round_trip(driver_sql, driver_params, cap)
        body = _LEADING_COMMENTS.sub("", driver_sql)
        try:
            if self.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                self.round_trips += 1
            if _CURSORABLE.match(body):
                # A server-side cursor: only the rows under the cap ever leave the server.
                cur = psycopg.RawServerCursor(self.conn, "ctxtool_q")
            else:
                cur = psycopg.RawCursor(self.conn)
            with cur:
                self._execute(cur, driver_sql, driver_params)
                if cur.description is None:
                    return QueryResult(columns=[], rows=[])
                rows = cur.fetchmany(cap + 1)
                columns = [d.name for d in cur.description]
                types = [self._type_name(d.type_code) for d in cur.description]
        except psycopg.Error as exc:
            self._finish()
            raise statement_error(exc, self.dsn, "the query failed") from None
        finally:
            self._finish()
        truncated = len(rows) > cap
        return QueryResult(
            columns=columns, rows=[tuple(r) for r in rows[:cap]], truncated=truncated, column_types=types
        )

    def _single_round_trip(self) -> bool:
        """Whether a query can run as one round trip: an autocommit statement in a session whose
        ``default_transaction_read_only`` is on. The server reports that setting to the client after
        every statement (PostgreSQL 14+), so a statement that turned it off is caught at no cost."""
        import psycopg

        return (
            self.server_version_num >= 140000
            and self.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            and self.conn.info.parameter_status("default_transaction_read_only") == "on"
        )

    def _query_one_round_trip(self, driver_sql: str, driver_params: Any, cap: int) -> QueryResult:
        """Run one statement in its own read-only implicit transaction, in one round trip. A query
        is wrapped in ``SELECT * FROM (...) LIMIT cap + 1`` so no more rows than the cap (and one to
        tell truncation) ever leave the server."""
        import psycopg

        body = _LEADING_COMMENTS.sub("", driver_sql)
        if _CURSORABLE.match(body):
            driver_sql = (
                f"SELECT * FROM ({driver_sql.rstrip().rstrip(';')}\n) AS ctxtool_q LIMIT {int(cap) + 1}"
            )
        self.conn.autocommit = True
        try:
            with psycopg.RawCursor(self.conn) as cur:
                self.round_trips += 1
                cur.execute(driver_sql, driver_params or None)
                description = cur.description
                rows = cur.fetchmany(cap + 1) if description is not None else []
        except psycopg.Error as exc:
            raise statement_error(exc, self.dsn, "the query failed") from None
        finally:
            if self.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                self.conn.autocommit = False
            self._ensure_read_only()
        if description is None:
            return QueryResult(columns=[], rows=[])
        return QueryResult(
            columns=[d.name for d in description],
            rows=[tuple(r) for r in rows[:cap]],
            truncated=len(rows) > cap,
            column_types=[self._type_name(d.type_code) for d in description],
        )

    def _ensure_read_only(self) -> None:
        """Close the session if a statement switched read-only mode off (e.g. through set_config)."""
        if self.conn.info.parameter_status("default_transaction_read_only") != "on":
            self.conn.close()
            raise DatabaseError(
                "a statement switched the read-only session to read-write; ctxtool closed the "
                "connection. Remove set_config/SET calls from the SQL"
            )

    def _type_name(self, oid: int) -> str:
        info = self.conn.adapters.types.get(oid)
        return info.name if info is not None else str(oid)

    def plan(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        """The JSON plan of ``sql``. Without values, placeholders are planned generically
        (``EXPLAIN (GENERIC_PLAN)`` on 16+, a prepared statement executed with NULLs before)."""
        import psycopg

        from ctxtool.placeholders import find_sql_placeholders

        found = find_sql_placeholders(sql, "postgres")
        prepared: str | None = None
        try:
            if self.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                self.round_trips += 1
            with psycopg.RawCursor(self.conn) as cur:
                if params is not None or not found:
                    driver_sql, driver_params = bind(sql, "postgres", params, "numbered")
                    self._execute(cur, "EXPLAIN (FORMAT JSON) " + driver_sql, driver_params or None)
                    return _json_plan(cur.fetchall())
                driver_sql = _numbered_only(sql, found)
                highest = max((int(p.name) for p in found if p.kind == "numbered"), default=0)
                n_params = highest + (1 if any(p.kind == "named" for p in found) else 0)
                if self.server_version_num >= 160000:
                    self._execute(cur, "EXPLAIN (GENERIC_PLAN, FORMAT JSON) " + driver_sql)
                    return _json_plan(cur.fetchall())
                self._plan_counter += 1
                prepared = f"ctxtool_plan_{self._plan_counter}"
                self._execute(cur, "SET LOCAL plan_cache_mode = force_generic_plan")
                self._execute(cur, f"PREPARE {prepared} AS {driver_sql}")
                nulls = ", ".join(["NULL"] * n_params)
                self._execute(cur, f"EXPLAIN (FORMAT JSON) EXECUTE {prepared}({nulls})")
                return _json_plan(cur.fetchall())
        except psycopg.Error as exc:
            self._finish()
            raise statement_error(exc, self.dsn, "the server cannot plan the query") from None
        finally:
            self._finish()
            if prepared is not None:  # prepared statements outlive the transaction: drop it after
                self._deallocate(prepared)

    def _deallocate(self, name: str) -> None:
        import psycopg

        try:
            self.round_trips += 1
            with self.conn.cursor() as cur:
                self._execute(cur, f"DEALLOCATE {name}")
        except psycopg.Error:
            pass  # never prepared (PREPARE failed): nothing to drop
        finally:
            self._finish()

    def sample_column(self, table: str, column: str, n: int = 100, *, schema: str | None = None) -> list[Any]:
        from ctxtool.connectors.profile import SAMPLE_ROWS

        target = (quote_ident(schema) + "." if schema else "") + quote_ident(table)
        col = quote_ident(column)
        sql = (
            f"SELECT v FROM (SELECT {col} AS v FROM {target} WHERE {col} IS NOT NULL LIMIT {SAMPLE_ROWS}) s "
            f"GROUP BY v ORDER BY count(*) DESC, v LIMIT {int(n)}"
        )
        try:
            result = self.query(sql, max_rows=n)
        except Exception:  # noqa: BLE001 - types without ordering/equality (json): plain sample
            result = self.query(
                f"SELECT {col} FROM {target} WHERE {col} IS NOT NULL LIMIT {int(n)}", max_rows=n
            )
        padded = bool(result.column_types) and result.column_types[0] == "bpchar"
        seen: list[Any] = []
        for (value,) in result.rows:
            if padded and isinstance(value, str):
                value = value.rstrip()  # character(n): as ::text (and users) write it
            if value not in seen:
                seen.append(value)
        return seen

    def introspect(
        self, schemas: Sequence[str] | None = None, *, profile: bool = False, progress: Any = None
    ) -> dict:
        step = progress or (lambda *a, **k: None)
        step("relations")
        if schemas:
            where = "n.nspname = ANY(%s)"
            params: tuple[Any, ...] = (list(schemas),)
        else:
            where = (
                "n.nspname <> ALL(%s) AND n.nspname NOT LIKE 'pg\\_temp\\_%%' "
                "AND n.nspname NOT LIKE 'pg\\_toast\\_temp\\_%%'"
            )
            params = (list(_SYSTEM_SCHEMAS),)
        # Every catalog query names its relations by the same filter (not by the oids the first one
        # returns), so all of them go to the server at once; extension-owned relations, which only
        # the first query excludes, are dropped here.
        in_rels = (
            "IN (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            f"WHERE c.relkind IN ('r','p','v','m','f') AND NOT c.relispartition AND {where})"
        )
        batch: list[tuple[str, Any]] = [
            (_RELS_SQL.format(where=where), params),
            (
                f"SELECT n.nspname::text FROM pg_namespace n WHERE {where} AND n.nspname NOT LIKE 'pg\\_%%'",
                params,
            ),
            (_COLUMNS_SQL.format(in_rels=in_rels), params),
            (_CONSTRAINTS_SQL.format(in_rels=in_rels), params),
            (_INDEXES_SQL.format(in_rels=in_rels), params),
            (
                _PARTITION_FKS_SQL.format(in_parted=in_rels.replace("IN ('r','p','v','m','f')", "= 'p'")),
                params,
            ),
            # operator classes other than the default one of their type (gin_trgm_ops, vector_cosine_ops...)
            ("SELECT oid, opcname::text FROM pg_opclass WHERE NOT opcdefault", None),
        ]
        if self._info is None:
            batch.insert(0, (_INFO_SQL, (list(ALLOYDB_EXTENSIONS),)))
        results = self._catalog_batch(batch, keep_open=profile)
        if self._info is None:
            self._remember_info(results.pop(0)[0])
        info = self._info
        assert info is not None
        rels, schema_names, col_rows, con_rows, idx_rows, part_fk_rows, opclass_rows = results
        tables: dict[int, dict[str, Any]] = {}
        for oid, nsp, name, kind, comment, reltuples, populated in rels:
            tables[oid] = {
                "_schema": nsp,
                "name": name,
                "kind": _KINDS.get(kind, "table"),
                "comment": comment,
                "row_estimate": int(reltuples) if reltuples is not None and reltuples >= 0 else None,
                "columns": [],
                "primary_key": [],
                "foreign_keys": [],
                "unique": [],
                "indexes": [],
                "interleave": None,
            }
            if not populated:  # a materialized view created WITH NO DATA: reading it is an error
                tables[oid]["populated"] = False
        step("columns")
        names: dict[tuple[int, int], str] = {}  # (relid, attnum) -> column name, to decode key arrays
        # The server sends a table's columns together and in attnum order (one index scan per
        # table) without being asked to sort them all; a table whose rows come otherwise is sorted
        # below.
        current, append, last = None, None, 0
        unordered: set[int] = set()
        for (
            relid,
            attnum,
            name,
            typ,
            notnull,
            default,
            comment,
            generated,
            identity,
            base,
            labels,
        ) in col_rows:
            if relid != current:
                table = tables.get(relid)
                current, append, last = relid, None, 0
                if table is not None:
                    append = table["columns"].append
                    if table["columns"]:  # the table's rows came split
                        unordered.add(relid)
            if append is None:
                continue  # an extension's relation
            if attnum < last:
                unordered.add(relid)
            last = attnum
            names[(relid, attnum)] = name
            if generated or identity:
                col: dict[str, Any] = {
                    "name": name, "type": typ, "nullable": not notnull,
                    "default": None if generated else default, "comment": comment,
                }  # fmt: skip
                if generated:
                    col["generated"] = default
                    if generated == "v":  # PostgreSQL 18: computed when read, not stored
                        col["virtual"] = True
                if identity:
                    col["identity"] = "always" if identity == "a" else "by default"
            else:
                col = {
                    "name": name,
                    "type": typ,
                    "nullable": not notnull,
                    "default": default,
                    "comment": comment,
                }
            if base:
                col["base_type"] = base
            if labels is not None:
                col["values"] = list(labels)
            append(col)
        if unordered:
            attnum_of = {(relid, name): attnum for (relid, attnum), name in names.items()}
            for relid in unordered:
                tables[relid]["columns"].sort(key=lambda c, r=relid: attnum_of[(r, c["name"])])
        step("constraints")
        actions = {"a": "no action", "r": "restrict", "c": "cascade", "n": "set null", "d": "set default"}
        for relid, name, contype, keys, ref_schema, ref_table, ref_columns, on_delete, on_update in con_rows:
            table = tables.get(relid)
            if table is None:
                continue
            cols = [names.get((relid, k), str(k)) for k in keys or []]
            if contype == "p":
                table["primary_key"] = cols
            elif contype == "u":
                table["unique"].append(cols)
            else:
                table["foreign_keys"].append(
                    {
                        "name": name,
                        "columns": cols,
                        "ref_schema": ref_schema,
                        "ref_table": ref_table,
                        "ref_columns": ref_columns,
                        "on_delete": actions.get(on_delete, on_delete),
                        "on_update": actions.get(on_update, on_update),
                    }
                )
        _inherit_partition_keys(tables, part_fk_rows, actions)
        step("indexes")
        special = dict(opclass_rows)
        for (
            relid,
            name,
            method,
            unique,
            primary,
            nkey,
            keys,
            exprs,
            opclass_oids,
            predicate,
            valid,
        ) in idx_rows:
            table = tables.get(relid)
            if table is None:
                continue
            defs = list(exprs) if exprs else [names.get((relid, k), str(k)) for k in keys]
            opclasses = [special.get(o, "") for o in opclass_oids or []]
            index: dict[str, Any] = {
                "name": name,
                "columns": defs[:nkey],
                "unique": bool(unique),
                "primary": bool(primary),
                "method": method,
                "opclasses": list(opclasses) if any(opclasses) else [],
            }
            if len(defs) > nkey:
                index["include"] = defs[nkey:]
            if predicate:
                index["predicate"] = predicate
            if not valid:
                index["valid"] = False
            table["indexes"].append(index)
        if profile:
            self._profile(tables, step)
        self._finish()
        by_schema: dict[str, list[dict[str, Any]]] = {name: [] for (name,) in schema_names}
        for table in tables.values():
            by_schema.setdefault(table.pop("_schema"), []).append(table)
        return {
            "engine": "postgres",
            "flavour": info.flavour,
            "version": info.version,
            "dialect": "postgres",
            "extensions": info.extensions,
            "database": self._database,
            "schemas": [{"name": name, "tables": ts} for name, ts in by_schema.items()],
        }

    def _catalog_batch(
        self, queries: list[tuple[str, Any]], *, keep_open: bool
    ) -> list[list[tuple[Any, ...]]]:
        """The rows of each catalog query, all read in one read-only transaction with JIT off (these
        queries are cheap; compiling them costs more than it saves). With libpq's pipeline mode the
        whole batch is one round trip (``BEGIN READ ONLY`` and ``ROLLBACK`` included); ``keep_open``
        leaves the transaction open for the statistics queries that follow."""
        import psycopg

        jit_off = (
            ("SELECT set_config('jit', 'off', true)", None) if self.server_version_num >= 110000 else None
        )
        idle = self.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        if not psycopg.Pipeline.is_supported():  # libpq before 14: one round trip per query
            if jit_off:
                self._catalog(*jit_off)
            return [self._catalog(sql, params) for sql, params in queries]
        own_transaction = idle and not keep_open  # BEGIN and ROLLBACK travel with the queries
        statements = ([jit_off] if jit_off else []) + queries
        try:
            if own_transaction:
                self.conn.autocommit = True
                statements = [("BEGIN READ ONLY", None), *statements, ("ROLLBACK", None)]
            elif idle:
                self.round_trips += 1  # psycopg's BEGIN READ ONLY waits for the server on its own
            self.round_trips += 1
            cursors = []
            with self.conn.pipeline():  # leaving the block sends one Sync and reads every result
                for sql, params in statements:
                    cur = self.conn.cursor()
                    cur.execute(sql, params)
                    cursors.append(cur)
            first = len(statements) - len(queries) - (1 if own_transaction else 0)
            results = [cur.fetchall() for cur in cursors[first : first + len(queries)]]
            for cur in cursors:
                cur.close()
            return results
        except psycopg.Error as exc:
            self._finish()
            raise statement_error(exc, self.dsn, "reading the catalog failed") from None
        finally:
            if own_transaction and not self.conn.closed:
                if self.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                    self.conn.autocommit = False

    def _profile(self, tables: dict[int, dict[str, Any]], step: Any) -> None:
        """Column profiles from ``pg_stats`` (one query); never-analyzed tables get a bounded sample."""
        # profiling only: not on the plain path
        from ctxtool.connectors.profile import effective_type, type_category

        step("statistics")
        stat_rows = self._catalog(
            "SELECT c.oid, s.attname::text, s.null_frac::float8, s.n_distinct::float8, "
            "s.most_common_vals::text::text[], s.most_common_freqs::float8[], "
            "s.histogram_bounds::text::text[], s.avg_width "
            "FROM pg_stats s JOIN pg_namespace n ON n.nspname = s.schemaname "
            "JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = s.tablename "
            "WHERE c.oid = ANY(%s::oid[]) ORDER BY c.oid, s.attname, s.inherited",
            (list(tables),),
        )
        stats: dict[tuple[int, str], tuple[Any, ...]] = {}
        for row in stat_rows:
            stats.setdefault((row[0], row[1]), row)
        for oid, table in tables.items():
            if table["kind"] not in ("table", "materialized_view") or table.get("populated") is False:
                continue
            missing = [c for c in table["columns"] if (oid, c["name"]) not in stats]
            if missing and table["columns"]:
                step(f"sampling {table['name']}")
                self._sample_profile(table)
                continue
            rows = table["row_estimate"] or 0
            for col in table["columns"]:
                _, _, null_frac, n_distinct, mcv, mcf, hist, avg_width = stats[(oid, col["name"])]
                category = type_category(effective_type(col))
                padded = _PADDED.match(col["type"]) is not None
                distinct = n_distinct if n_distinct >= 0 else -n_distinct * rows
                common = []
                if mcv and mcf and category != "other":
                    common = [
                        {
                            "value": _typed(v.rstrip() if padded and v else v, category),
                            "frequency": round(float(f), 4),
                        }
                        for v, f in zip(mcv, mcf, strict=False)
                    ][:10]
                lo = hi = None
                if category == "text" and hist:  # lexical bounds: they tell numbers stored as text
                    lo, hi = hist[0], hist[-1]
                elif category in ("number", "date"):
                    candidates = [v for v in list(mcv or []) + list(hist or []) if v is not None]
                    key = (lambda v: float(v)) if category == "number" else (lambda v: v)
                    try:
                        if candidates:
                            lo, hi = min(candidates, key=key), max(candidates, key=key)
                    except ValueError:
                        lo = hi = None
                col["profile"] = {
                    "distinct": int(round(distinct)),
                    "null_fraction": round(float(null_frac), 4),
                    "most_common": common,
                    "min": _typed(lo, category) if lo is not None else None,
                    "max": _typed(hi, category) if hi is not None else None,
                    "avg_length": float(avg_width) if category == "text" and avg_width is not None else None,
                }

    def _sample_profile(self, table: dict[str, Any]) -> None:
        target = quote_ident(table["_schema"]) + "." + quote_ident(table["name"])
        cols = ", ".join(quote_ident(c["name"]) for c in table["columns"])
        import psycopg

        from ctxtool.connectors.profile import SAMPLE_ROWS, effective_type, profile_rows

        try:
            with self.conn.cursor() as cur:
                self._execute(cur, f"SELECT {cols} FROM {target} LIMIT {SAMPLE_ROWS}")
                rows = cur.fetchall()
        except psycopg.Error as exc:
            self._finish()
            raise statement_error(exc, self.dsn, f"sampling {table['name']} failed") from None
        total = table["row_estimate"]
        if total is None and len(rows) < SAMPLE_ROWS:
            total = len(rows)
        profiles = profile_rows(
            [c["name"] for c in table["columns"]],
            [effective_type(c) for c in table["columns"]],
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


def _inherit_partition_keys(
    tables: dict[int, dict[str, Any]], rows: Sequence[tuple[Any, ...]], actions: Mapping[str, str]
) -> None:
    """Give a partitioned table the foreign keys every one of its leaf partitions declares.

    A key declared on the parent is cloned onto each partition (and is already the parent's); a key
    declared only on the partitions (Pagila's ``payment``) holds for every row of the parent when all
    partitions declare it, so joins through it are as sound as through the parent's own keys. A key
    some partitions lack is not the parent's: rows of the others may not match."""
    leaves: dict[int, set[int]] = {}
    keys: dict[int, dict[tuple[Any, ...], tuple[set[int], dict[str, Any]]]] = {}
    for root, leaf, name, cols, ref_schema, ref_table, ref_cols, on_delete, on_update in rows:
        leaves.setdefault(root, set()).add(leaf)
        if name is None:
            continue
        signature = (tuple(cols), ref_schema, ref_table, tuple(ref_cols))
        holders, _ = keys.setdefault(root, {}).setdefault(
            signature,
            (
                set(),
                {
                    "name": name,
                    "columns": list(cols),
                    "ref_schema": ref_schema,
                    "ref_table": ref_table,
                    "ref_columns": list(ref_cols),
                    "on_delete": actions.get(on_delete, on_delete),
                    "on_update": actions.get(on_update, on_update),
                },
            ),
        )
        holders.add(leaf)
    for root, by_signature in keys.items():
        table = tables.get(root)
        if table is None:
            continue
        own = {
            (tuple(fk["columns"]), fk["ref_schema"], fk["ref_table"], tuple(fk["ref_columns"]))
            for fk in table["foreign_keys"]
        }
        for signature, (holders, fk) in by_signature.items():
            if signature not in own and holders == leaves[root]:
                table["foreign_keys"].append(fk)


def _typed(text: str | None, category: str) -> Any:
    """A statistics value (text in pg_stats) as JSON: numbers parsed, everything else as text."""
    from ctxtool.connectors.profile import jsonable

    if text is None:
        return None
    if category == "number":
        try:
            number = float(text)
        except ValueError:
            return text
        return int(number) if number.is_integer() and abs(number) < 2**53 and "." not in text else number
    return jsonable(text)


def _json_plan(rows: list[tuple[Any, ...]]) -> Any:
    plan = rows[0][0] if rows else None
    if isinstance(plan, str):
        import json

        plan = json.loads(plan)
    return plan


def _numbered_only(sql: str, found: Sequence[Any]) -> str:
    """``sql`` with ``$value`` renumbered after the highest ``$n`` so all placeholders are numbered."""
    highest = max((int(p.name) for p in found if p.kind == "numbered"), default=0)
    parts: list[str] = []
    last = 0
    for p in found:
        if p.kind == "named":
            parts.append(sql[last : p.start])
            parts.append(f"${highest + 1}")
            last = p.end
    parts.append(sql[last:])
    return "".join(parts)


def connect_kwargs(dsn: DSN, connect_timeout: float = 10.0) -> dict[str, Any]:
    """psycopg.connect() options of a session (a connection pool opens its connections with them)."""
    return {
        "autocommit": True,
        "connect_timeout": max(1, int(connect_timeout)),
        "application_name": "ctxtool",
        "prepare_threshold": _prepare_threshold(dsn),
    }


def _prepare_threshold(dsn: DSN) -> int | None:
    """psycopg's automatic server-side prepared statements (after 5 runs of the same SQL), which
    spare the server re-planning the same value search. ``CTXTOOL_PG_PREPARE_THRESHOLD=off`` turns
    them off for connection poolers that cannot keep prepared statements."""
    import os

    value = os.environ.get("CTXTOOL_PG_PREPARE_THRESHOLD", "5").strip().lower()
    if value in ("off", "none", "0", "false", ""):
        return None
    try:
        return max(1, int(value))
    except ValueError:
        return 5
