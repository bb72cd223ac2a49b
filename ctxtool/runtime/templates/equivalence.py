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

Each query's canonical form (its :class:`Shape`) is made once, when the set is compiled; comparing
two templates then only resolves the columns a query names without their table by the other
query's qualification.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from ctxtool.runtime.templates.facts import SENTINEL, name_words

__all__ = ["Shape", "same_query", "shape_of"]

UNRESOLVED = "__unresolved__"  # the table of a column the other query's qualification resolves


@dataclass(frozen=True)
class Shape:
    """A plain query's canonical form: its tables, its inner joins' equalities and the rest of it
    as text, with aliases resolved to tables; columns it names without their table among several
    tables are left ``UNRESOLVED`` (``unresolved``), for the other query to resolve."""

    tables: frozenset[str]
    joins: frozenset[frozenset[str]]
    text: str
    unresolved: frozenset[str] = frozenset()
    # column name -> the tables the query qualifies it with (what resolves the other's columns)
    qualified: dict[str, frozenset[str]] = field(default_factory=dict, hash=False, compare=False)


def _real(c: exp.Column) -> bool:
    return not SENTINEL.fullmatch(c.name or "")


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


def _columns(sel: exp.Select) -> dict[str, frozenset[str]]:
    """Column name -> the tables the query qualifies it with (after resolving aliases)."""
    tables = _tables(sel) or {}
    out: dict[str, set[str]] = {}
    for c in sel.find_all(exp.Column):
        if c.table and _real(c):
            out.setdefault(c.name.lower(), set()).add(tables.get(c.table.lower(), c.table.lower()))
    return {k: frozenset(v) for k, v in out.items()}


def _own_key(column: str, table: str) -> bool:
    """``tag_id`` of ``tags``: the column is the table's name and "id" (its key, one row each)."""
    words = name_words(column)
    return len(words) >= 2 and words[-1] == "id" and words[:-1] == name_words(table)


def _lookups_dropped(sel: exp.Select) -> exp.Select:
    """``sel`` without the inner joins that only look a key up: the joined table's one column read
    is its own key (:func:`_own_key`), named as the column it is joined with."""
    joins = list(sel.args.get("joins") or [])
    if not joins or any(not c.table for c in sel.find_all(exp.Column) if _real(c)):
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


def shape_of(tree: exp.Expression | None) -> Shape | None:
    """The canonical form of a parsed query (placeholders as sentinels); None when it is no plain
    SELECT over inner joins of distinct tables (such queries are the same only as written)."""
    if not isinstance(tree, exp.Select):
        return None
    qualified = _columns(tree)
    sel = _lookups_dropped(tree)
    tables = _tables(sel)
    if tables is None or any(s is not sel for s in sel.find_all(exp.Select)) or sel.find(exp.Subquery):
        return None
    own = set(tables.values())
    sel = sel.copy()
    unresolved: set[str] = set()
    for c in sel.find_all(exp.Column):
        if not _real(c):
            continue
        name = c.name.lower()
        if c.table:
            table = tables.get(c.table.lower(), c.table.lower())
        elif len(own) == 1:
            table = next(iter(own))
        else:
            table = UNRESOLVED
            unresolved.add(name)
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
    return Shape(frozenset(own), frozenset(joins), sel.sql().lower(), frozenset(unresolved), qualified)


def _column_text(table: str, name: str) -> str:
    return exp.Column(this=exp.to_identifier(name), table=exp.to_identifier(table)).sql()


def _resolved(shape: Shape, other: Shape) -> tuple[frozenset[str], frozenset[frozenset[str]], str] | None:
    """``shape`` with its unresolved columns qualified as ``other`` qualifies them (a valid query
    names a column of exactly one of its tables); None when one cannot be resolved."""
    text, joins = shape.text, shape.joins
    for name in shape.unresolved:
        tables = other.qualified.get(name, frozenset())
        if len(tables) != 1 or next(iter(tables)) not in shape.tables:
            return None
        marker = re.compile(re.escape(_column_text(UNRESOLVED, name)) + r"(?![\w\"])")
        real = _column_text(next(iter(tables)), name)
        text = marker.sub(real, text)
        joins = frozenset(frozenset(marker.sub(real, side) for side in pair) for pair in joins)
    return shape.tables, joins, text


def same_query(a: Any, b: Any) -> bool:
    """Whether two compiled templates ask the same thing of the database: their SQL the same up to
    aliases, column qualifiers and the order of inner joins (strict: anything their shapes do not
    capture must be equal as written)."""
    if " ".join(a.sql.split()).lower() == " ".join(b.sql.split()).lower():
        return True
    sa, sb = a.shape, b.shape
    if sa is None or sb is None:
        return False
    ka, kb = _resolved(sa, sb), _resolved(sb, sa)
    return ka is not None and ka == kb
