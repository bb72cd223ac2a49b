"""PostgreSQL and AlloyDB through psycopg 3: a read-only session with a statement timeout and a row cap.

Every statement of :meth:`PostgresConnector.query` and :meth:`PostgresConnector.plan` is sent, in one
round trip (libpq's pipeline mode), as ``BEGIN READ ONLY`` / the statement / ``ROLLBACK`` /
``SELECT pg_advisory_unlock_all()``. Pipeline mode sends every statement through the extended query
protocol, even one without parameters (psycopg otherwise sends those as a simple query, where
``SELECT 1; COMMIT; BEGIN READ WRITE; ...`` would run as several statements): the server refuses more
than one command per call ("cannot insert multiple commands into a prepared statement"). The
explicit read-only transaction holds whatever the session defaults say, and the rollback undoes what a
read-only transaction still allows (``set_config`` of the session's settings, a temporary table, a
large object). Session advisory locks outlive a rollback, hence the unlock. The session also sets
``default_transaction_read_only`` and ``statement_timeout`` (rolled back like any other change, so a
statement cannot lift them for the next). A pooled connection is also reset when it goes back to its
pool (:meth:`PostgresConnector.reset_session`). SQL in the context-set style (``$1..$n``, ``$value``)
goes through :class:`psycopg.RawCursor`, so ``$n`` placeholders reach the server as they are and values
are always bound. Introspection reads the catalogs with the fixed number of queries of
:mod:`ctxtool.connectors.pgcatalog` (relations, columns, constraints, indexes; statistics with
``profile``), whatever the number of tables, sent together as one pipeline: a schema of 1,000 tables
costs one round trip, as one of ten.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ctxtool.connectors import pgcatalog
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

# character(n): values are blank-padded to n; ctxtool shows and compares them trimmed
_PADDED = re.compile(r"^(?:character|bpchar)\s*(?:\(|$)", re.IGNORECASE)
_CURSORABLE = re.compile(r"^\s*(?:\(\s*)*(select|with|values|table)\b", re.IGNORECASE)
_LEADING_COMMENTS = re.compile(r"^(?:\s+|--[^\n]*\n?|/\*.*?\*/)*", re.DOTALL)
# Around every statement (see the module's docstring). These go unprepared (``prepare=False``):
# psycopg would prepare them after a few runs, and a statement due to be prepared in a pipeline
# that an error aborts is never prepared on the server, though psycopg believes it is.
_BEGIN = "BEGIN READ ONLY"
_END = "ROLLBACK"
_UNLOCK = "SELECT pg_advisory_unlock_all()"
# DISCARD ALL without DEALLOCATE ALL (and without its refusal to run in a pipeline)
_RESET = (
    "CLOSE ALL",
    "UNLISTEN *",
    "SELECT pg_advisory_unlock_all()",
    "DISCARD TEMP",
    "DISCARD SEQUENCES",
    "SET SESSION AUTHORIZATION DEFAULT",
    "RESET ALL",
)


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
            self.conn.execute("; ".join(self._settings()))
            self.round_trips += 1
            self.conn.autocommit = False
            self.conn.read_only = True
        except psycopg.Error as exc:
            self.conn.close()
            raise statement_error(exc, dsn, "cannot set up a read-only session") from None

    # ------------------------------------------------------------------ plumbing

    def _settings(self) -> list[str]:
        """The session's own settings (our fixed SQL): read-only by default, the statement timeout."""
        ms = max(1, int(self.statement_timeout * 1000))
        return [
            f"SET statement_timeout = {ms}",
            "SET default_transaction_read_only = on",
            "SET idle_in_transaction_session_timeout = 60000",
        ]

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
            rows = self._catalog(pgcatalog.INFO_SQL, (list(pgcatalog.ALLOYDB_EXTENSIONS),))
            if finish:
                self._finish()
            self._remember_info(rows[0])
        assert self._info is not None
        return self._info

    def _remember_info(self, row: Sequence[Any]) -> None:
        self._info, self._database = pgcatalog.server_info(row)

    @property
    def server_version_num(self) -> int:
        return int(self.conn.info.server_version)

    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, max_rows: int | None = None
    ) -> QueryResult:
        self.gate(sql)
        cap = self.row_cap if max_rows is None else max_rows
        driver_sql, driver_params = bind(sql, "postgres", params, "numbered")
        body = _LEADING_COMMENTS.sub("", driver_sql)
        if _CURSORABLE.match(body):
            # no more rows than the cap (and one to tell truncation) ever leave the server
            driver_sql = (
                f"SELECT * FROM ({driver_sql.rstrip().rstrip(';')}\n) AS ctxtool_q LIMIT {int(cap) + 1}"
            )
        description, rows = self.run_read_only(driver_sql, driver_params, "the query failed")
        if description is None:
            return QueryResult(columns=[], rows=[])
        return QueryResult(
            columns=[d.name for d in description],
            rows=[tuple(r) for r in rows[:cap]],
            truncated=len(rows) > cap,
            column_types=[self._type_name(d.type_code) for d in description],
        )

    def run_read_only(
        self,
        driver_sql: str,
        driver_params: Sequence[Any] | None = None,
        what: str = "the query failed",
        *,
        prelude: Sequence[str] = (),
        coda: Sequence[str] = (),
    ) -> tuple[Any, list[Any]]:
        """Run one statement in the driver's style (``$n``, values bound) inside ``BEGIN READ ONLY``
        ... ``ROLLBACK``, in one round trip; returns the cursor's description and every row.

        The layer below :meth:`query` (no SQL check of ours, no row cap): it is what the server
        itself refuses, whatever text reaches it. One statement only (extended protocol), no write
        (read-only transaction), nothing kept (rolled back, advisory locks released). ``prelude``:
        statements of ours run in the transaction before it; ``coda``: after the rollback."""
        import psycopg

        self._to_idle()
        self.conn.autocommit = True
        try:
            self.round_trips += 1
            with self.conn.cursor() as control, psycopg.RawCursor(self.conn) as cur:

                def send() -> None:
                    control.execute(_BEGIN, prepare=False)
                    for sql in prelude:
                        control.execute(sql, prepare=False)
                    # no pipeline (libpq before 14): prepared, so still the extended protocol
                    cur.execute(driver_sql, driver_params or None, prepare=None if pipelined else True)
                    for sql in (_END, _UNLOCK, *coda):
                        control.execute(sql, prepare=False)

                pipelined = psycopg.Pipeline.is_supported()
                if pipelined:
                    with self.conn.pipeline() as pipe:  # one Sync, when the block ends
                        failed = _in_pipeline(pipe, send)
                    if failed is not None:
                        raise failed
                else:
                    self.round_trips += 3 + len(prelude) + len(coda)
                    send()
                description = cur.description
                rows = cur.fetchall() if description is not None else []
        except psycopg.Error as exc:
            self._abandon()
            raise statement_error(exc, self.dsn, what) from None
        finally:
            if not self.conn.closed and _idle(self.conn):
                self.conn.autocommit = False
        self._ensure_read_only()
        return description, rows

    def _to_idle(self) -> None:
        """End a catalog transaction left open (introspection keeps one across its queries)."""
        if not _idle(self.conn):
            self._finish()

    def _abandon(self) -> None:
        """After a failed statement: roll back and release advisory locks taken before the failure
        (one round trip); a session that cannot do that is closed."""
        import psycopg

        if self.conn.closed or self.conn.broken:
            return
        try:
            if not self.conn.autocommit:  # (it cannot change inside the failed transaction)
                self._finish()
                return
            self.round_trips += 1
            with self.conn.cursor() as control:
                if psycopg.Pipeline.is_supported():
                    with self.conn.pipeline() as pipe:
                        failed = _in_pipeline(
                            pipe,
                            lambda: (
                                control.execute(_END, prepare=False),
                                control.execute(_UNLOCK, prepare=False),
                            ),
                        )
                    if failed is not None:
                        raise failed
                else:
                    control.execute(_END, prepare=False)
                    control.execute(_UNLOCK, prepare=False)
        except psycopg.Error:
            self.conn.close()

    def reset_session(self) -> None:
        """Bring the session back to how it was opened (one round trip): cursors closed, no LISTEN,
        no advisory lock, no temporary table or sequence state, the session's own role and
        settings. What ``DISCARD ALL`` does except ``DEALLOCATE ALL``: psycopg's own prepared
        statements stay valid (a user's ``PREPARE`` can only ever run inside a read-only,
        rolled-back transaction). Connection pools call this when a connection comes back."""
        import psycopg

        self._to_idle()
        self.conn.autocommit = True
        try:
            self.round_trips += 1
            with self.conn.cursor() as control:
                with self.conn.pipeline() as pipe:
                    failed = _in_pipeline(
                        pipe,
                        lambda: [control.execute(sql, prepare=False) for sql in (*_RESET, *self._settings())],
                    )
                if failed is not None:
                    raise failed
        except psycopg.Error as exc:
            self.conn.close()
            raise statement_error(exc, self.dsn, "resetting the session failed") from None
        finally:
            if not self.conn.closed and _idle(self.conn):
                self.conn.autocommit = False

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
        """The JSON plan of ``sql``. Without values, placeholders are planned generically (a
        prepared statement executed with NULLs under ``plan_cache_mode = force_generic_plan``)."""
        self.gate(sql)
        from ctxtool.placeholders import find_sql_placeholders

        found = find_sql_placeholders(sql, "postgres")
        what = "the server cannot plan the query"
        if params is not None or not found:
            driver_sql, driver_params = bind(sql, "postgres", params, "numbered")
            _, rows = self.run_read_only("EXPLAIN (FORMAT JSON) " + driver_sql, driver_params, what)
            return _json_plan(rows)
        # A prepared statement run with NULLs under a forced generic plan (``EXPLAIN (GENERIC_PLAN)``
        # of 16+ would count the placeholders as the statement's own, which the extended protocol
        # then wants values for); one round trip all the same.
        driver_sql = _numbered_only(sql, found)
        highest = max((int(p.name) for p in found if p.kind == "numbered"), default=0)
        n_params = highest + (1 if any(p.kind == "named" for p in found) else 0)
        self._plan_counter += 1
        prepared = f"ctxtool_plan_{self._plan_counter}"
        nulls = ", ".join(["NULL"] * n_params)
        try:
            _, rows = self.run_read_only(
                f"EXPLAIN (FORMAT JSON) EXECUTE {prepared}({nulls})",
                None,
                what,
                prelude=(
                    "SET LOCAL plan_cache_mode = force_generic_plan",
                    f"PREPARE {prepared} AS {driver_sql}",
                ),
                coda=(f"DEALLOCATE {prepared}",),
            )
        except DatabaseError:
            self._deallocate(prepared)  # prepared statements outlive the transaction
            raise
        return _json_plan(rows)

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
        batch = pgcatalog.queries(schemas, with_info=self._info is None)
        results = self._catalog_batch(batch, keep_open=profile)
        if self._info is None:
            self._remember_info(results.pop(0)[0])
        info = self._info
        assert info is not None
        rels, schema_names, col_rows, con_rows, idx_rows, part_fk_rows, opclass_rows = results
        tables = pgcatalog.tables(rels, col_rows, con_rows, idx_rows, part_fk_rows, opclass_rows, step)
        if profile:
            self._profile(tables, step)
        self._finish()
        return pgcatalog.raw_snapshot(info, self._database, schema_names, tables)

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


def _in_pipeline(pipe: Any, send: Any) -> Any:
    """Queue statements with ``send()``; an error that comes back while they are being sent is
    returned, not raised, once the pipeline is drained: raised inside the pipeline block, psycopg
    would log a second "pipeline aborted" error on stderr. Errors that come back later are raised
    when the block ends (its one Sync)."""
    import psycopg

    try:
        send()
    except psycopg.Error as exc:
        try:
            pipe.sync()  # the statements after it are aborted: read their results too
        except psycopg.Error:
            pass
        return exc
    return None


def _idle(conn: Any) -> bool:
    """Whether ``conn`` is outside any transaction."""
    import psycopg

    return bool(conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE)


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
