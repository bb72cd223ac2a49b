"""Facet layer: every column is written ``table.column`` -- no bare columns, no aliases -- because a
facet is injected into queries that alias their tables their own way."""

from __future__ import annotations

import re

from sqlglot import exp

from ctxtool.validate.context import SQL_FIELDS, Context, text

# what a table alias usually looks like: one letter, optionally followed by digits (T, T1, a, b2)
_ALIAS_LIKE = re.compile(r"[A-Za-z]\d*")


def _outside_subqueries(tree: exp.Expr) -> list[exp.Column]:
    """Columns of the condition itself; a subquery's columns belong to that subquery's FROM."""
    out: list[exp.Column] = []
    stack: list[exp.Expr] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, exp.Query):
            continue
        if isinstance(node, exp.Column):
            out.append(node)
            continue
        stack.extend(reversed(list(node.iter_expressions())))
    return out


def _show(column: exp.Column, dialect: str) -> str:
    return column.sql(dialect=dialect)


def _is_table(ctx: Context, name: str) -> bool:
    """Whether the snapshot (when there is one) has a table really called ``name`` (``t2``)."""
    if not ctx.snapshot:
        return False
    from ctxtool.snapshot import catalog

    ref = catalog(ctx.snapshot).table(name)
    return ref is not None and ref.name.lower() == name.lower()


def check(ctx: Context) -> None:
    concrete, parameterized = SQL_FIELDS["facets"]
    for item in ctx.items("facets"):
        for path in ((concrete,), ("parameterized", parameterized)):
            sql = text(item.data, *path)  # type: ignore[arg-type]
            if sql is None:
                continue
            tree = ctx.parse(sql).single
            if tree is None or isinstance(tree, exp.Query):
                continue  # reported by the SQL layer
            ptr = item.field_pointer(*path)  # type: ignore[arg-type]
            for column in _outside_subqueries(tree):
                name = column.name
                if not name or name.startswith("$") or isinstance(column.this, exp.Star):
                    continue
                table = column.table
                if not table:
                    ctx.report(
                        "CTX501", ptr, f"column {_show(column, ctx.dialect)} has no table; write table.column"
                    )
                    break
                if _ALIAS_LIKE.fullmatch(table) and not _is_table(ctx, table):
                    ctx.report(
                        "CTX502",
                        ptr,
                        f"{table!r} in {_show(column, ctx.dialect)} looks like a table alias; "
                        "use the table's name",
                    )
                    break
