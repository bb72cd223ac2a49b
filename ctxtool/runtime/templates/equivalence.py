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

__all__ = ["UNRESOLVED", "Shape", "same_query"]

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


# an identifier as sqlglot's default dialect writes it: bare when it is a plain word, else quoted
_PLAIN = re.compile(r"^[_a-zA-Z][\w]*$")


def _identifier(name: str) -> str:
    return name if _PLAIN.match(name) else '"' + name.replace('"', '""') + '"'


def _column_text(table: str, name: str) -> str:
    """A qualified column as the shapes' text writes it (``t1.name``, ``"order items".id``)."""
    return f"{_identifier(table)}.{_identifier(name)}"


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
