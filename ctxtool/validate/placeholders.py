"""Placeholder layer: the style matches the dialect (``$1..$n`` on PostgreSQL, ``?`` on MySQL and
Spanner, ``$value`` only in value searches), numbering runs from 1 without gaps, the intent and the
SQL use the same placeholders, and the concrete forms hold none."""

from __future__ import annotations

from ctxtool.contextset import Item
from ctxtool.placeholders import Placeholder, find_sql_placeholders
from ctxtool.validate.context import SQL_FIELDS, Context, text


def _numbers(found: list[Placeholder]) -> set[int]:
    return {int(p.name) for p in found if p.kind == "numbered"}


def _fmt(numbers: set[int]) -> str:
    return ", ".join(f"${n}" for n in sorted(numbers)) or "none"


def _has_dollar_number(s: str) -> bool:
    return "$" in s and any(p.kind == "numbered" for p in find_sql_placeholders(s, "postgres"))


def check_item(ctx: Context, item: Item) -> bool:
    """Check a template or facet; return False when its placeholders are broken."""
    concrete_field, param_field = SQL_FIELDS[item.kind]
    assert param_field is not None
    qmark = ctx.dialect != "postgres"
    ok = True
    sql = text(item.data, concrete_field)
    intent = item.intent
    psql = text(item.data, "parameterized", param_field)
    pintent = text(item.data, "parameterized", "parameterized_intent")
    sql_ptr = item.field_pointer(concrete_field)
    psql_ptr = item.field_pointer("parameterized", param_field)
    pint_ptr = item.field_pointer("parameterized", "parameterized_intent")
    intent_ptr = item.field_pointer("intent" if "intent" in item.data else "nl_query")

    # concrete forms hold values, not placeholders
    if sql is not None and ("$" in sql or (qmark and "?" in sql)):
        found = ctx.sql_placeholders(sql)
        if found:
            ctx.report(
                "CTX304", sql_ptr, f"{concrete_field} holds the placeholder {found[0].text}; write the value"
            )
            ok = False
    if intent is not None and "$" in intent:
        found = [p for p in ctx.text_placeholders(intent) if p.kind != "qmark"]
        if found:
            ctx.report(
                "CTX304", intent_ptr, f"the intent holds the placeholder {found[0].text}; write the value"
            )
            ok = False

    sql_ph = ctx.sql_placeholders(psql) if psql is not None else []
    int_ph = ctx.text_placeholders(pintent) if pintent is not None else []

    # style
    for ptr, found in ((psql_ptr, sql_ph), (pint_ptr, int_ph)):
        named = [p for p in found if p.kind == "named"]
        if named:
            ctx.report(
                "CTX301",
                ptr,
                "$value belongs in value searches; use "
                + ("?" if qmark else "$1..$n")
                + " in templates and facets",
            )
            ok = False
    if qmark:
        for ptr, s in ((psql_ptr, psql), (pint_ptr, pintent)):
            if s is not None and _has_dollar_number(s):
                ctx.report("CTX301", ptr, f"{ctx.dialect} uses ? for every parameter, not $1..$n")
                ok = False
    elif psql is not None and "?" in psql:
        extra = len([p for p in find_sql_placeholders(psql, "mysql") if p.kind == "qmark"])
        if sql is not None:
            extra -= len([p for p in find_sql_placeholders(sql, "mysql") if p.kind == "qmark"])
        if extra > 0:
            ctx.report("CTX301", psql_ptr, "PostgreSQL parameters are $1..$n, not ?")
            ok = False
    if not ok:
        return False

    if qmark:
        n_sql = sum(1 for p in sql_ph if p.kind == "qmark")
        n_int = sum(1 for p in int_ph if p.kind == "qmark")
        if psql is not None and pintent is not None and n_sql != n_int:
            ctx.report(
                "CTX303",
                pint_ptr,
                f"the parameterized intent has {n_int} ? placeholder(s), the parameterized SQL {n_sql}",
            )
            return False
        return True

    sql_numbers, int_numbers = _numbers(sql_ph), _numbers(int_ph)
    used = sql_numbers | int_numbers
    if used and used != set(range(1, max(used) + 1)):
        missing = set(range(1, max(used) + 1)) - used
        detail = f"{_fmt(missing)} missing" if missing else "numbering must start at $1"
        ctx.report(
            "CTX302", psql_ptr if psql is not None else pint_ptr, f"placeholders {_fmt(used)}: {detail}"
        )
        return False
    if psql is not None and pintent is not None and sql_numbers != int_numbers:
        ctx.report(
            "CTX303",
            pint_ptr,
            f"the parameterized intent uses {_fmt(int_numbers)}, the parameterized SQL {_fmt(sql_numbers)}",
        )
        return False
    return True


def check_value_search(ctx: Context, item: Item) -> None:
    query = text(item.data, "query")
    if query is None:
        return
    ptr = item.field_pointer("query")
    found = ctx.sql_placeholders(query)
    positional = [p for p in found if p.kind != "named"]
    if not positional and ctx.dialect != "postgres" and _has_dollar_number(query):
        positional = [p for p in find_sql_placeholders(query, "postgres") if p.kind == "numbered"]
    if positional:
        ctx.report("CTX301", ptr, f"value searches use $value (in every dialect), not {positional[0].text}")


def check(ctx: Context) -> None:
    for item in ctx.items():
        if item.kind == "value_searches":
            check_value_search(ctx, item)
        elif not check_item(ctx, item):
            ctx.placeholder_trouble.add(item.pointer)
