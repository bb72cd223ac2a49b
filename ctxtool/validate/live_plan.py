"""Live-planning layer (``validate --dsn``): the server plans every template's SQL (concrete and
parameterized), every facet (inside ``SELECT 1 FROM <its tables> WHERE <facet>``) and every value
search, inside the connector's read-only session, without running them. What the server rejects is
reported at the ``file:line`` of the field that holds the SQL.

The schema-reference layer runs too when a connector is given: the connector introspects once per
run and the snapshot is shared (see :func:`snapshot_for`).
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ctxtool import sqlrefs
from ctxtool.dialects import sqlglot_dialect
from ctxtool.errors import DatabaseError
from ctxtool.gate import GateRefused
from ctxtool.validate.context import SQL_FIELDS, Context, text
from ctxtool.validate.findings import ERROR, WARNING
from ctxtool.validate.rules import Rule, register

register(
    Rule("CTX901", "server-rejects-sql", ERROR, "The database cannot plan the SQL (EXPLAIN or the Spanner planner fails).",
         "Fix the SQL so the server accepts it; the message is the server's own."),
    Rule("CTX902", "dialect-mismatch", WARNING, "The set is validated in a different dialect than the database speaks.",
         "Drop --dialect (it is taken from the database) or point --dsn at the right database."),
)  # fmt: skip

_snapshots: dict[int, tuple[Any, dict]] = {}


def snapshot_for(connector: Any) -> dict:
    """The connector's snapshot, introspected once per connector (and so once per validate run)."""
    hit = _snapshots.get(id(connector))
    if hit is not None and hit[0] is connector:
        return hit[1]
    from ctxtool import snapshot as snapshot_module

    snap = snapshot_module.build(connector)
    _snapshots.clear()
    _snapshots[id(connector)] = (connector, snap)
    return snap


def check(ctx: Context) -> None:
    connector = ctx.connector
    server_dialect = getattr(connector, "dialect", ctx.dialect)
    if server_dialect != ctx.dialect:
        ctx.report(
            "CTX902",
            "",
            f"the set is checked as {ctx.dialect} SQL but the database speaks {server_dialect}; "
            f"validate with --dialect {server_dialect}",
        )
        return
    if ctx.snapshot is None:
        from ctxtool.validate import schema_refs

        ctx.snapshot = snapshot_for(connector)
        schema_refs.check(ctx)
    for item in ctx.cs.items():
        concrete, parameterized = SQL_FIELDS[item.kind]
        paths: list[tuple[str, ...]] = [(concrete,)]
        if parameterized is not None:
            paths.append(("parameterized", parameterized))
        for path in paths:
            sql = text(item.data, *path)
            if sql is None or not ctx.parse(sql).ok or ctx.parse(sql).single is None:
                continue  # missing or unparsable: other layers report it
            statement = _facet_query(ctx, sql) if item.kind == "facets" else sql
            if statement is None:
                continue
            try:
                connector.plan(statement)
            except GateRefused:
                break  # not sent to the database: the SQL layer reports the gate's findings (CTX2xx)
            except DatabaseError as exc:
                ctx.report("CTX901", item.field_pointer(*path), _message(str(exc)))
                break  # the parameterized form would fail the same way


def _message(text_: str) -> str:
    for prefix in ("the server cannot plan the query: ",):
        if text_.startswith(prefix):
            text_ = text_[len(prefix) :]
    return f"the database rejects the SQL: {text_}"


def _facet_query(ctx: Context, snippet: str) -> str | None:
    """``SELECT 1 FROM <tables the facet names> WHERE <facet>``: what a runtime would inject it into."""
    tree = ctx.parse(snippet).single
    if tree is None or isinstance(tree, exp.Query):
        return None
    refs = sqlrefs.references(tree, ctx.dialect)
    if not refs.tables:
        return f"SELECT 1 WHERE {snippet}"
    dialect = sqlglot_dialect(ctx.dialect)
    tables = []
    for use in refs.tables:
        used = [c.column for c in refs.columns if c.table.lower() == use.name.lower()]
        schema = use.schema or _schema_of(ctx, use.name, used)
        table = exp.Table(
            this=exp.to_identifier(use.name, quoted=use.quoted or None),
            db=exp.to_identifier(schema, quoted=True if schema and schema != schema.lower() else None)
            if schema
            else None,
        )
        tables.append(table.sql(dialect=dialect))
    return f"SELECT 1 FROM {', '.join(tables)} WHERE {snippet}"


def _schema_of(ctx: Context, table: str, columns: list[str]) -> str | None:
    """The schema SQL must name for ``table`` (facets write ``table.column``; the snapshot knows
    where the table lives), or None for the default schema."""
    if not ctx.snapshot:
        return None
    from ctxtool.snapshot import catalog, schema_qualifier

    ref = catalog(ctx.snapshot).table(table, None, columns)
    return schema_qualifier(ctx.snapshot, ref.schema) if ref else None
