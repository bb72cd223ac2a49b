"""SQL layer: every SQL field parses in the dialect; templates and value searches are exactly one
read-only query with allowed functions, as the read-only gate (:mod:`ctxtool.gate`) that every
statement passes at run time says, with the same findings; a facet is exactly one boolean condition
whose functions and comments pass the same gate."""

from __future__ import annotations

from sqlglot import exp

from ctxtool.contextset import Item
from ctxtool.gate import check_parsed, lexical_findings
from ctxtool.gate.tree import WRITES
from ctxtool.validate.context import SQL_FIELDS, Context, text

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
    *WRITES,
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
    """A template or value-search query: one read-only query with allowed functions (the gate)."""
    parsed = ctx.parse(sql)
    if parsed.error is not None:
        if not _report_lexical(ctx, ptr, sql, what):
            ctx.report("CTX201", ptr, f"{what} does not parse as {ctx.dialect} SQL: {parsed.error}")
        return
    report_gate(ctx, ptr, sql, what, parsed.statements, "query")


def _report_lexical(ctx: Context, ptr: str, sql: str, what: str) -> bool:
    """Report the gate's lexical findings of a text that does not parse (a hidden comment is the
    reason, not the syntax); whether there were any."""
    found = lexical_findings(sql, ctx.dialect)
    for f in found:
        ctx.report(f.code, ptr, f"{what}: {f.message}; {f.fix}")
    return bool(found)


def report_gate(ctx: Context, ptr: str, sql: str, what: str, statements: list, kind: str) -> None:
    """Each finding of the read-only gate on ``sql`` as a finding of its rule, said of ``what``."""
    for found in check_parsed(sql, ctx.dialect, statements, kind=kind).findings:
        message = found.message
        message = what + message[len("the SQL") :] if message.startswith("the SQL") else f"{what}: {message}"
        ctx.report(found.code, ptr, f"{message}; {found.fix}")


def check_condition(ctx: Context, ptr: str, sql: str, what: str) -> None:
    """A facet snippet: exactly one boolean condition."""
    parsed = ctx.parse(sql)
    if parsed.error is not None:
        if not _report_lexical(ctx, ptr, sql, what):
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
        return
    report_gate(ctx, ptr, sql, what, parsed.statements, "condition")


def check(ctx: Context) -> None:
    for item in ctx.items():
        for ptr, sql, _ in sql_fields(item):
            if item.kind == "facets":
                check_condition(ctx, ptr, sql, "the facet")
            elif item.kind == "templates":
                check_query(ctx, ptr, sql, "the template SQL")
            else:
                check_query(ctx, ptr, sql, "the value-search query")
