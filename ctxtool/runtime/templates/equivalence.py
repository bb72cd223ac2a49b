"""Whether two templates' SQL ask the same thing of the database, spelled differently.

Two templates of a set often are one query written twice ("the average price of the products of a
category" with ``AVG(T2.UnitPrice)`` and with ``AVG(UnitPrice)``; the same inner join written from either
table). They are no rival readings of a question: whichever answers, the answer is the same, and
asking back between them only asks the user to pick one of two equal things. The comparison is
strict: aliases are resolved to their tables, an unqualified column takes the table the other query
names it with (a valid query names a column of exactly one of its tables), inner joins are compared
as the set of their tables and join equalities; anything else (a subquery, a set operation, an outer
join, a table joined twice) must be equal as written. A table joined on its own key, named as the
column it is joined with (``JOIN tags AS t3 ON t2.tag_id = t3.tag_id``), and read nowhere else only
looks the key up: the query is the same without it (on the Spider train kit: +2 covered, no wrong answer more).
"""

from __future__ import annotations

from functools import lru_cache

import sqlglot
from sqlglot import exp

from ctxtool.runtime.checks.shape import name_words


def _tables(sel: exp.Select) -> dict[str, str] | None:
    """Alias (or name) -> table name of the query's FROM and inner JOINs; None when it is not a
    plain inner join of distinct tables."""
    out: dict[str, str] = {}
    from_ = sel.args.get("from_") or sel.args.get("from")
    sources = [from_.this] if from_ is not None else []
    for j in sel.args.get("joins") or []:
        if (j.args.get("side") or j.args.get("kind") or "").upper() not in ("", "INNER"):
            return None
        sources.append(j.this)
    names = []
    for t in sources:
        if not isinstance(t, exp.Table):
            return None
        name = t.name.lower()
        names.append(name)
        out[(t.alias or t.name).lower()] = name
        out[name] = name
    return out if len(set(names)) == len(names) else None


def _columns(sel: exp.Select) -> dict[str, set[str]]:
    """Column name -> the tables the query qualifies it with (after resolving aliases)."""
    tables = _tables(sel) or {}
    out: dict[str, set[str]] = {}
    for c in sel.find_all(exp.Column):
        if c.table:
            out.setdefault(c.name.lower(), set()).add(tables.get(c.table.lower(), c.table.lower()))
    return out


def _own_key(column: str, table: str) -> bool:
    """``tag_id`` of ``tags``: the column is the table's name and "id" (its key, one row each)."""
    words = name_words(column)
    return len(words) >= 2 and words[-1] == "id" and words[:-1] == name_words(table)


def _lookups_dropped(sel: exp.Select) -> exp.Select:
    """``sel`` without the inner joins that only look a key up: the joined table's one column read
    is its own key (:func:`_own_key`), named as the column it is joined with."""
    joins = list(sel.args.get("joins") or [])
    if not joins or any(not c.table for c in sel.find_all(exp.Column)):
        return sel  # a column named without its table may be the joined table's
    kept = []
    for j in joins:
        alias = (j.this.alias or j.this.name).lower() if isinstance(j.this, exp.Table) else None
        on = j.args.get("on")
        sides = [on.left, on.right] if isinstance(on, exp.EQ) else []
        if (
            alias is None
            or (j.args.get("side") or j.args.get("kind") or "").upper() not in ("", "INNER")
            or len(sides) != 2
            or not all(isinstance(c, exp.Column) for c in sides)
            or sides[0].name.lower() != sides[1].name.lower()
            or not _own_key(sides[0].name, j.this.name)
            or [c.table.lower() == alias for c in sides].count(True) != 1
        ):
            kept.append(j)
            continue
        elsewhere = [c for c in sel.find_all(exp.Column) if c.table.lower() == alias and c.parent is not on]
        if elsewhere:
            kept.append(j)
    if len(kept) == len(joins):
        return sel
    sel = sel.copy()
    sel.set("joins", [j.copy() for j in kept])
    return sel


def _canonical(sel: exp.Select, other: dict[str, set[str]]) -> tuple | None:
    sel = _lookups_dropped(sel)
    tables = _tables(sel)
    if tables is None or any(s is not sel for s in sel.find_all(exp.Select)) or sel.find(exp.Subquery):
        return None
    own = set(tables.values())
    sel = sel.copy()
    for c in sel.find_all(exp.Column):
        name = c.name.lower()
        if c.table:
            table = tables.get(c.table.lower(), c.table.lower())
        elif len(own) == 1:
            table = next(iter(own))
        elif len(other.get(name, ())) == 1 and next(iter(other[name])) in own:
            table = next(iter(other[name]))
        else:
            return None
        c.set("table", exp.to_identifier(table))
        c.set("this", exp.to_identifier(name))
    joins = set()
    for j in sel.args.get("joins") or []:
        on = j.args.get("on")
        conds = list(on.flatten()) if isinstance(on, exp.And) else ([on] if on is not None else [])
        for cond in conds:
            if not isinstance(cond, exp.EQ):
                return None
            joins.add(frozenset((cond.left.sql(), cond.right.sql())))
        j.set("on", None)
    sel.set("from_" if "from_" in sel.args else "from", None)
    sel.set("joins", None)
    return (frozenset(own), frozenset(joins), sel.sql().lower())


def _parse(sql: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql.strip().rstrip(";"), read="postgres")
    except Exception:  # noqa: BLE001 - a query sqlglot cannot read is compared as written
        return None


@lru_cache(maxsize=4096)
def same_query(a: str, b: str) -> bool:
    """Whether the SQL ``a`` and ``b`` are the same query up to aliases, column qualifiers and the
    order of inner joins (strict: anything this does not understand must be equal as written)."""
    if " ".join(a.split()).lower() == " ".join(b.split()).lower():
        return True
    pa, pb = _parse(a), _parse(b)
    if not isinstance(pa, exp.Select) or not isinstance(pb, exp.Select):
        return False
    ca, cb = _columns(pa), _columns(pb)
    ka, kb = _canonical(pa, cb), _canonical(pb, ca)
    return ka is not None and ka == kb
