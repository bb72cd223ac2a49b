"""SQL text as drafts write it: identifiers quoted only when they must be, literals per dialect,
numbers as people write them. One place, so every drafted template quotes and spells alike.
"""

from __future__ import annotations

import datetime as _dt
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxtool.draft.model import Column

# Words that must be quoted as identifiers in at least one of the engines.
RESERVED = frozenset(
    """all and any array as asc assert_rows_modified at between by case cast check collate column
    constraint create cross cube current current_date current_time current_timestamp current_user
    default define desc distinct else end enum escape except exclude exists extract false fetch
    following for foreign from full group grouping groups hash having if ignore in inner intersect
    interval into is join key lateral left like limit lookup merge natural new no not null nulls of
    offset on only or order outer over partition preceding primary proto range recursive references
    respect right rollup rows select set some struct table tablesample then to treesample true
    unbounded union unnest user using when where window with within""".split()
)


def quote_ident(name: str, dialect: str) -> str:
    """``name`` as an identifier, quoted only when it must be (upper case, symbols, reserved words)."""
    simple = re.fullmatch(r"[a-z_][a-z0-9_]*", name) is not None and name.lower() not in RESERVED
    if simple:
        return name
    if dialect == "postgres":
        return '"' + name.replace('"', '""') + '"'
    return "`" + name.replace("`", "``") + "`"


def sql_literal(value: Any, dialect: str, col: Column | None = None) -> str:
    """A literal for ``value`` in ``dialect`` (dates as ISO strings, ``'1995-01-01'``)."""
    if isinstance(value, bool) or (col is not None and col.category == "bool" and value in (0, 1)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, Decimal)) or isinstance(value, float):
        if col is not None and col.category == "text":
            return _string(str(value), dialect)
        return format_number(value)
    # Dates and timestamps are written as plain strings: every engine compares them with a date
    # column (Spanner coerces string literals), and a plain literal parameterizes into one placeholder.
    if isinstance(value, _dt.datetime):
        return _string(value.isoformat(sep=" "), dialect)
    if isinstance(value, _dt.date):
        return _string(value.isoformat(), dialect)
    text = str(value)
    if col is not None and col.category == "date":
        return _string(text.replace("T", " ") if col.is_timestamp else text[:10], dialect)
    if col is not None and col.category == "number":
        try:
            return format_number(Decimal(text))
        except ArithmeticError:
            pass
    return _string(text, dialect)


def _string(text: str, dialect: str) -> str:
    if dialect == "postgres":
        return "'" + text.replace("'", "''") + "'"
    if dialect == "spanner":
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def format_number(value: Any) -> str:
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        return repr(round(value, 6))
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return str(int(value))
        return format(value.normalize(), "f")
    return str(value)


def nice_number(value: float) -> int | float:
    """A round number near ``value`` (2 significant digits), as people write thresholds."""
    if value == 0:
        return 0
    sign = -1 if value < 0 else 1
    v = abs(value)
    digits = len(str(int(v))) if v >= 1 else 0
    if v >= 10:
        step = 10 ** max(0, digits - 2)
        return sign * int(round(v / step) * step)
    if v >= 1:
        return sign * round(v, 1) if v != int(v) else sign * int(v)
    return sign * round(v, 2)
