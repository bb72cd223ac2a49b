"""PostgreSQL's catalogs read into a schema snapshot: the queries and the assembly of their rows.

The queries are a fixed number whatever the number of tables (relations, schemas, columns,
constraints, indexes, operator classes; the server's info first when it is not known yet), all
naming their relations by the same filter, so they can travel together: as one psycopg pipeline
(:mod:`ctxtool.connectors.postgres`) or one libpq pipeline (:mod:`ctxtool.connectors.libpq`). Their
placeholders are psycopg's (``%s``). :func:`tables` turns their rows (tuples, or lists as JSON
gives them: the same values) into the snapshot's tables.

:class:`PostgresCatalog` reads them without psycopg, for a command that introspects once and exits
(``ctxtool introspect`` without ``--profile``; :func:`ctxtool.connectors.open_catalog`): one libpq
pipeline, one round trip (the statement timeout, ``BEGIN READ ONLY``, JIT off, the queries with
their values bound as parameters, ``ROLLBACK``), each query's rows coming back as one JSON text
(``json_agg``) decoded into the values psycopg gives (numbers, booleans, text, lists, None), so the
snapshot is the same (a test compares the two) and errors read the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ctxtool.connectors import libpq
from ctxtool.connectors.base import DEFAULT_STATEMENT_TIMEOUT, ServerInfo
from ctxtool.connectors.dsn import DSN
from ctxtool.connectors.errors import connect_error, statement_error

ALLOYDB_EXTENSIONS = ("alloydb_ai_nl", "google_columnar_engine", "google_ml_integration", "alloydb_scann")
_SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")
_KINDS = {"r": "table", "p": "table", "f": "foreign_table", "v": "view", "m": "materialized_view"}
_PLACEHOLDER = re.compile(r"%%|%s")
_ACTIONS = {"a": "no action", "r": "restrict", "c": "cascade", "n": "set null", "d": "set default"}

INFO_SQL = (
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


def server_info(row: Sequence[Any]) -> tuple[ServerInfo, str]:
    """The server's info and the database's name, from the row of :data:`INFO_SQL`."""
    version, database, installed, available = row
    info = ServerInfo(
        engine="postgres",
        flavour=flavour_from_extensions(installed, available),
        version=str(version).split(" ", 1)[0],
        dialect="postgres",
        extensions=sorted(installed),
    )
    return info, database


def queries(schemas: Sequence[str] | None, *, with_info: bool) -> list[tuple[str, Any]]:
    """The catalog queries of an introspection of ``schemas`` (default: every user schema), with
    their parameters: [info (when ``with_info``),] relations, schema names, columns, constraints,
    indexes, partitions' foreign keys, operator classes."""
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
    # the first query excludes, are dropped by tables().
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
        (_PARTITION_FKS_SQL.format(in_parted=in_rels.replace("IN ('r','p','v','m','f')", "= 'p'")), params),
        # operator classes other than the default one of their type (gin_trgm_ops, vector_cosine_ops...)
        ("SELECT oid, opcname::text FROM pg_opclass WHERE NOT opcdefault", None),
    ]
    if with_info:
        batch.insert(0, (INFO_SQL, (list(ALLOYDB_EXTENSIONS),)))
    return batch


def tables(
    rels: Sequence[Sequence[Any]],
    col_rows: Sequence[Sequence[Any]],
    con_rows: Sequence[Sequence[Any]],
    idx_rows: Sequence[Sequence[Any]],
    part_fk_rows: Sequence[Sequence[Any]],
    opclass_rows: Sequence[Sequence[Any]],
    step: Callable[[str], None],
) -> dict[int, dict[str, Any]]:
    """The snapshot's tables by oid (each with its schema under ``_schema``), from the rows of the
    relations, columns, constraints, indexes, partitions' foreign keys and operator-classes queries."""
    found: dict[int, dict[str, Any]] = {}
    for oid, nsp, name, kind, comment, reltuples, populated in rels:
        found[oid] = {
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
            found[oid]["populated"] = False
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
            table = found.get(relid)
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
            found[relid]["columns"].sort(key=lambda c, r=relid: attnum_of[(r, c["name"])])
    step("constraints")
    for relid, name, contype, keys, ref_schema, ref_table, ref_columns, on_delete, on_update in con_rows:
        table = found.get(relid)
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
                    "on_delete": _ACTIONS.get(on_delete, on_delete),
                    "on_update": _ACTIONS.get(on_update, on_update),
                }
            )
    _inherit_partition_keys(found, part_fk_rows)
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
        table = found.get(relid)
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
    return found


def raw_snapshot(
    info: ServerInfo,
    database: str | None,
    schema_names: Sequence[Sequence[Any]],
    found: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    """What a connector's ``introspect`` returns, from the server's info, the schema-names rows and
    :func:`tables` (whose ``_schema`` keys it takes out)."""
    by_schema: dict[str, list[dict[str, Any]]] = {name: [] for (name,) in schema_names}
    for table in found.values():
        by_schema.setdefault(table.pop("_schema"), []).append(table)
    return {
        "engine": "postgres",
        "flavour": info.flavour,
        "version": info.version,
        "dialect": "postgres",
        "extensions": info.extensions,
        "database": database,
        "schemas": [{"name": name, "tables": ts} for name, ts in by_schema.items()],
    }


def _inherit_partition_keys(tables: dict[int, dict[str, Any]], rows: Sequence[Sequence[Any]]) -> None:
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
                    "on_delete": _ACTIONS.get(on_delete, on_delete),
                    "on_update": _ACTIONS.get(on_update, on_update),
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


def _array(values: Sequence[str]) -> str:
    """A list of strings as a PostgreSQL array literal (a parameter's text)."""
    return "{" + ",".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


def _numbered(sql: str, params: Sequence[Any] | None) -> tuple[str, list[str]]:
    """psycopg's ``%s`` / ``%%`` as libpq's ``$n`` / ``%``, and the values as parameters' text."""
    values = list(params or ())
    counter = iter(range(1, len(values) + 1))
    text = _PLACEHOLDER.sub(lambda m: "%" if m.group() == "%%" else f"${next(counter)}", sql)
    return text, [_array(v) if isinstance(v, list) else str(v) for v in values]


def _row(pairs: list[tuple[str, Any]]) -> list[Any]:
    return [v for _, v in pairs]  # a row as JSON gives it, in column order (names may repeat)


class PostgresCatalog:
    """A read-only session that introspects, as :class:`~ctxtool.connectors.postgres.PostgresConnector`
    does without ``profile``, over :mod:`ctxtool.connectors.libpq` (where :func:`libpq.library` is
    not None). Use as a context manager."""

    engine = "postgres"
    dialect = "postgres"

    def __init__(
        self, dsn: DSN, *, statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT, connect_timeout: float = 10.0
    ) -> None:
        self.dsn, self.statement_timeout = dsn, statement_timeout
        options = {
            "dbname": dsn.libpq(),
            "application_name": "ctxtool",
            "connect_timeout": str(max(1, int(connect_timeout))),
            "client_encoding": "UTF8",
        }
        try:
            self.conn: libpq.Connection | None = libpq.Connection(options)
        except libpq.LibpqError as exc:  # worded as psycopg words it
            raise connect_error(libpq.LibpqError(f"connection failed: {exc}"), dsn) from None

    def batch(self, queries: Sequence[tuple[str, Any]]) -> list[list[list[Any]]]:
        """The rows of each query (psycopg placeholders), all in one read-only transaction with JIT
        off, in one round trip."""
        assert self.conn is not None
        ms = max(1, int(self.statement_timeout * 1000))
        statements: list[tuple[str, list[str]]] = [
            (f"SET statement_timeout = {ms}", []),
            ("BEGIN READ ONLY", []),
        ]
        if self.conn.server_version >= 110000:
            statements.append(("SET LOCAL jit = off", []))
        first = len(statements)
        for sql, params in queries:
            text, values = _numbered(sql, params)
            statements.append((f"SELECT coalesce(json_agg(r), '[]')::text FROM ({text}) r", values))
        statements.append(("ROLLBACK", []))
        try:
            texts = self.conn.pipeline(statements)
        except libpq.LibpqError as exc:
            raise statement_error(exc, self.dsn, "reading the catalog failed") from None
        return [json.loads(text or "[]", object_pairs_hook=_row) for text in texts[first:-1]]

    def introspect(
        self, schemas: Sequence[str] | None = None, *, profile: bool = False, progress: Any = None
    ) -> dict:
        """A schema snapshot (``profile`` needs the psycopg session: :func:`~ctxtool.connectors.connect`)."""
        if profile:
            raise ValueError("column profiles need the psycopg session (ctxtool.connectors.connect)")
        step = progress or (lambda *a, **k: None)
        step("relations")
        results = self.batch(queries(schemas, with_info=True))
        info, database = server_info(results[0][0])
        rels, schema_names, col_rows, con_rows, idx_rows, part_fk_rows, opclass_rows = results[1:]
        found = tables(rels, col_rows, con_rows, idx_rows, part_fk_rows, opclass_rows, step)
        return raw_snapshot(info, database, schema_names, found)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def __enter__(self) -> PostgresCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
