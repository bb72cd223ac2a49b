"""SQL layer: every SQL field parses in the dialect; templates and value searches are exactly one
read-only query; a facet is exactly one boolean condition."""

from __future__ import annotations

import re

from sqlglot import exp

from ctxtool.contextset import Item
from ctxtool.validate.context import SQL_FIELDS, Context, text

# statement and expression types that change data or schema, or run opaque commands
_WRITES: tuple[type, ...] = tuple(
    getattr(exp, name)
    for name in (
        "Insert",
        "Update",
        "Delete",
        "Merge",
        "Create",
        "Drop",
        "Alter",
        "TruncateTable",
        "Command",
        "Copy",
        "Set",
        "Use",
        "Transaction",
        "Commit",
        "Rollback",
        "Grant",
        "Revoke",
        "Analyze",
        "Describe",
        "Pragma",
        "Kill",
        "Comment",
        "LoadData",
        "Cache",
        "Uncache",
        "Refresh",
        "Execute",
    )
    if hasattr(exp, name)
)
_QUERY_ROOTS: tuple[type, ...] = (exp.Select, exp.SetOperation, exp.Subquery)
# roots that can never be a boolean condition
_NOT_CONDITIONS: tuple[type, ...] = (
    exp.Query,
    exp.Literal,
    exp.Star,
    exp.Alias,
    exp.Null,
    exp.Tuple,
    exp.Array,
    exp.Interval,
    exp.Placeholder,
    exp.Parameter,
    exp.Neg,
    exp.BitwiseNot,
    exp.DataType,
    exp.Ordered,
    *_WRITES,
)


# keywords without which a SELECT cannot contain a write, SELECT ... INTO or a locking clause: when the
# text has none of them the tree walk is skipped (it costs as much as a third of the parse)
_RISKY = re.compile(
    r"\b(?:INSERT|UPDATE|DELETE|MERGE|CREATE|DROP|ALTER|TRUNCATE|COPY|INTO|FOR|LOCK|GRANT|REVOKE|CALL|"
    r"EXEC|EXECUTE|SET|COMMENT|ANALYZE|REFRESH|USE|KILL|LOAD|CACHE|UNCACHE|DESCRIBE|PRAGMA|COMMIT|"
    r"ROLLBACK|BEGIN|START|SHOW|EXPLAIN|REPLACE|UPSERT)\b",
    re.IGNORECASE,
)


def _kind_word(tree: exp.Expr) -> str:
    key = getattr(tree, "key", type(tree).__name__).upper()
    if isinstance(tree, exp.Command):
        first = str(tree.this or "").split()
        return first[0].upper() if first else "a command"
    return key


def sql_fields(item: Item) -> list[tuple[str, str, bool]]:
    """(pointer, SQL text, is_parameterized) for each SQL field of ``item`` that is a string."""
    concrete, parameterized = SQL_FIELDS[item.kind]
    out: list[tuple[str, str, bool]] = []
    sql = text(item.data, concrete)
    if sql is not None:
        out.append((item.field_pointer(concrete), sql, False))
    if parameterized is not None:
        psql = text(item.data, "parameterized", parameterized)
        if psql is not None:
            out.append((item.field_pointer("parameterized", parameterized), psql, True))
    return out


def check_query(ctx: Context, ptr: str, sql: str, what: str) -> None:
    """A template or value-search query: one read-only SELECT."""
    parsed = ctx.parse(sql)
    if parsed.error is not None:
        ctx.report("CTX201", ptr, f"{what} does not parse as {ctx.dialect} SQL: {parsed.error}")
        return
    if len(parsed.statements) > 1:
        ctx.report("CTX203", ptr, f"{what} holds {len(parsed.statements)} statements; keep exactly one")
        return
    tree = parsed.statements[0]
    if not isinstance(tree, _QUERY_ROOTS):
        ctx.report("CTX202", ptr, f"{what} is a {_kind_word(tree)} statement, not a read-only SELECT")
        return
    if _RISKY.search(sql) is None:
        return
    for node in tree.walk():
        if isinstance(node, _WRITES):
            ctx.report("CTX202", ptr, f"{what} contains a {_kind_word(node)}; a query must only read")
            return
        if isinstance(node, exp.Lock):
            kind = "FOR UPDATE" if node.args.get("update") else "FOR SHARE"
            ctx.report("CTX205", ptr, f"{what} takes row locks ({kind}); remove the locking clause")
            return
        if isinstance(node, exp.Select) and node.args.get("into") is not None:
            ctx.report("CTX204", ptr, f"{what} uses SELECT ... INTO, which writes a table or variable")
            return


def check_condition(ctx: Context, ptr: str, sql: str, what: str) -> None:
    """A facet snippet: exactly one boolean condition."""
    parsed = ctx.parse(sql)
    if parsed.error is not None:
        ctx.report("CTX201", ptr, f"{what} does not parse as {ctx.dialect} SQL: {parsed.error}")
        return
    if len(parsed.statements) > 1:
        ctx.report(
            "CTX206", ptr, f"{what} holds {len(parsed.statements)} statements; a facet is one condition"
        )
        return
    tree = parsed.statements[0]
    if isinstance(tree, exp.Boolean):
        return
    if isinstance(tree, _NOT_CONDITIONS) or (
        isinstance(tree, exp.Binary) and not isinstance(tree, (exp.Predicate, exp.Connector))
    ):
        ctx.report(
            "CTX206",
            ptr,
            f"{what} is a {_kind_word(tree)}, not a boolean condition (e.g. table.column > 4.5)",
        )


def check(ctx: Context) -> None:
    for item in ctx.items():
        for ptr, sql, _ in sql_fields(item):
            if item.kind == "facets":
                check_condition(ctx, ptr, sql, "the facet")
            elif item.kind == "templates":
                check_query(ctx, ptr, sql, "the template SQL")
            else:
                check_query(ctx, ptr, sql, "the value-search query")
