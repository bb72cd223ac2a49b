"""SQL surgery for the runtime, done on sqlglot trees with placeholders swapped for sentinels.

Context-set placeholders (``$1``, ``?``) do not survive every sqlglot dialect, so before parsing each
one becomes a unique identifier ``__ctxp_<key>__``; after generation the sentinels are turned back
into the dialect's placeholders, numbering ``$n`` by first appearance and ordering ``?`` parameters
by position. This is how a facet's parameterized snippet is injected into the WHERE of a template
without ever pasting a value into SQL.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp

from ctxtool.dialects import normalize, sqlglot_dialect
from ctxtool.errors import InputError
from ctxtool.runtime.templates.params import InjectError, from_sentinels, to_sentinels
from ctxtool.runtime.templates.sqlread import all_aliases, table_aliases


def parse(sql: str, dialect: str) -> exp.Expression:
    """The tree of ``sql``, the caller's own to change: a template's SQL is parsed once per process
    (each question that composes on it gets a copy, cheaper than parsing again)."""
    tree = _parsed(sql, dialect)
    if isinstance(tree, str):
        raise InputError(tree)
    return tree.copy()


@lru_cache(maxsize=4096)
def _parsed(sql: str, dialect: str) -> exp.Expression | str:
    try:
        return sqlglot.parse_one(sql, read=sqlglot_dialect(dialect))
    except sqlglot.errors.SqlglotError as exc:
        return f"cannot parse SQL: {str(exc).splitlines()[0]}"


def generate(tree: exp.Expression, dialect: str) -> str:
    return tree.sql(dialect=sqlglot_dialect(dialect))


@dataclass
class SlotColumn:
    column: str | None  # "table.column" (lower case) the placeholder is compared with
    wrapped: str | None  # the function around the column (e.g. "extract", "year"), if any
    operator: str | None  # "eq", "gt", "lt", "gte", "lte", "neq", "like", "in", "between", "limit"


_OPS = {
    exp.EQ: "eq",
    exp.NEQ: "neq",
    exp.GT: "gt",
    exp.GTE: "gte",
    exp.LT: "lt",
    exp.LTE: "lte",
    exp.Like: "like",
    exp.ILike: "like",
    exp.In: "in",
    exp.Between: "between",
}


def analysis_tree(sql: str, dialect: str) -> tuple[exp.Expression | None, bool]:
    """The statement (or a facet's condition, wrapped in ``SELECT 1 WHERE``) parsed in ``dialect``
    with its placeholders as sentinels, and whether it is a condition; None if it does not parse."""
    text, _ = to_sentinels(sql, dialect, "s")
    snippet = _is_snippet(sql)
    try:
        return (parse(f"SELECT 1 WHERE {text}", dialect) if snippet else parse(text, dialect)), snippet
    except InputError:
        return None, snippet


def analyze(sql: str, dialect: str) -> tuple[dict[str, SlotColumn], set[str]]:
    """``(slot columns, tables)`` of a statement or condition, from one parse."""
    tree, snippet = analysis_tree(sql, dialect)
    if tree is None:
        return {}, set()
    return slot_columns_of(tree), tables_in(tree, snippet)


def slot_columns(sql: str, dialect: str) -> dict[str, SlotColumn]:
    """For each placeholder key (``s1``, ``s2``...), the column it is compared with (best effort)."""
    return analyze(sql, dialect)[0]


def tables_of(sql: str, dialect: str) -> set[str]:
    """Real table names (lower case) a statement or condition references; CTE names excluded."""
    return analyze(sql, dialect)[1]


def tables_in(tree: exp.Expression, snippet: bool) -> set[str]:
    """Real table names (lower case) of a parsed statement, CTE names excluded (a condition: the
    tables its columns are qualified with)."""
    if snippet:
        return {c.table.lower() for c in tree.find_all(exp.Column) if c.table}
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    return {t.name.lower() for t in tree.find_all(exp.Table) if t.name.lower() not in ctes}


def slot_columns_of(tree: exp.Expression) -> dict[str, SlotColumn]:
    """For each placeholder key (``s1``, ``s2``...) of a parsed statement, what it is compared with."""
    aliases = all_aliases(tree)
    out: dict[str, SlotColumn] = {}
    for col in tree.find_all(exp.Column):
        m = re.fullmatch(r"__ctxp_([a-z0-9_]+?)__", col.name)
        if not m:
            continue
        key = m.group(1)
        node: exp.Expression | None = col
        info = SlotColumn(None, None, None)
        while node is not None and node.parent is not None:
            parent = node.parent
            if isinstance(parent, exp.Limit) or isinstance(parent, exp.Offset):
                info.operator = "limit"
                break
            op = next((name for cls, name in _OPS.items() if isinstance(parent, cls)), None)
            if op:
                info.operator = op
                other = [c for c in parent.find_all(exp.Column) if not c.name.startswith("__ctxp_")]
                if other:
                    target = other[0]
                    table = aliases.get(target.table.lower(), target.table.lower()) if target.table else ""
                    if not table:
                        real = [t for t in set(aliases.values())]
                        table = real[0] if len(real) == 1 else ""
                    info.column = f"{table}.{target.name.lower()}" if table else target.name.lower()
                    fn = target.parent
                    if isinstance(fn, exp.Func) and fn is not parent:
                        info.wrapped = fn.key
                break
            node = parent
        out.setdefault(key, info)
    return out


def _is_snippet(sql: str) -> bool:
    return not re.match(r"\s*(\(\s*)*(select|with)\b", sql, re.I)


def _negated(node: exp.Expression) -> bool:
    """``node`` sits inside a NOT (``NOT IN``, ``NOT EXISTS``) or an ``EXCEPT`` right-hand side."""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, exp.Not) or (isinstance(parent, exp.Except) and child is parent.expression):
            return True
        child, parent = parent, parent.parent
    return False


def inject_conditions(
    sql: str,
    dialect: str,
    values: Sequence[Any],
    conditions: Sequence[tuple[str, Sequence[Any]]],
) -> tuple[str, list[Any]]:
    """AND each facet condition (parameterized snippet, its parameter values) into the WHERE of the
    SELECT that reads its tables, qualifying columns with that SELECT's aliases; placeholders of the
    result are renumbered (``$n``) or re-ordered (``?``). Returns the SQL and the parameters to bind."""
    dialect = normalize(dialect)
    text, keys = to_sentinels(sql, dialect, "t")
    bound: dict[str, Any] = {}
    for key in keys:
        n = int(key[1:])
        bound[key] = values[n - 1]
    tree = parse(text, dialect)
    selects = list(tree.find_all(exp.Select))
    for i, (snippet, params) in enumerate(conditions):
        stext, skeys = to_sentinels(snippet, dialect, f"f{i}_")
        for key in skeys:
            bound[key] = params[int(key.split("_", 1)[1]) - 1]
        cond = parse(f"SELECT 1 WHERE {stext}", dialect).args["where"].this
        needed = {c.table.lower() for c in cond.find_all(exp.Column) if c.table}
        target = None
        for sel in selects:  # outermost first (find_all walks breadth-first)
            aliases = table_aliases(sel)
            if needed and needed <= set(aliases):
                target = sel
                break
        if target is None:
            raise InjectError(f"no SELECT of the template reads {', '.join(sorted(needed)) or 'its tables'}")
        if _negated(target):
            # "not in (... WHERE country = 'X')" excludes those of X: the condition would turn around
            raise InjectError(f"the SELECT that reads {', '.join(sorted(needed))} is inside a negation")
        aliases = table_aliases(target)
        for col in cond.find_all(exp.Column):
            if col.table and col.table.lower() in aliases:
                col.set("table", exp.to_identifier(aliases[col.table.lower()]))
        target.where(cond, append=True, copy=False)
    out = generate(tree, dialect)
    return from_sentinels(out, dialect, bound)


# -- the objects a model's SQL may read (its read-only check is the gate's: ctxtool.gate) ---------


def check_allowed_objects(sql: str, dialect: str, allowed: set[str] | None) -> exp.Expression:
    """Raise InputError unless ``sql`` reads only tables in ``allowed`` (lower-case names; None allows
    any; CTE names are the query's own). Whether it is one read-only query is the gate's question
    (:func:`ctxtool.gate.require`), asked before this."""
    try:
        trees = [t for t in sqlglot.parse(sql, read=sqlglot_dialect(dialect)) if t is not None]
    except sqlglot.errors.SqlglotError as exc:
        raise InputError(f"the SQL does not parse: {str(exc).splitlines()[0]}") from None
    if len(trees) != 1:
        raise InputError(f"expected exactly one statement, got {len(trees)}")
    tree = trees[0]
    if allowed is not None:
        ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
        for t in tree.find_all(exp.Table):
            name = t.name.lower()
            if not name or name in ctes:
                continue
            if name not in allowed:
                raise InputError(
                    f"table {t.name!r} is not in the allowed objects ({', '.join(sorted(allowed))})"
                )
    return tree
