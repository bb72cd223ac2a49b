"""A template's time as a typed slot: the time condition its SQL states ("in April 2007", written as a
range, as ``EXTRACT(YEAR ...) = 2007 AND EXTRACT(MONTH ...) = 4``, ``YEAR(col)``, a ``LIKE '2007-04%'``
or one day) is read back as the range of dates it keeps, and replaced by the question's range as
half-open bound parameters on the same column. A template written for April 2007 answers March 2007
this way, or raises :class:`ComposeError` (the runtime declines); it never answers with its own month.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

from sqlglot import exp

from ctxtool.compose.conditions import time_bound
from ctxtool.compose.query import Query
from ctxtool.compose.types import ComposeError, Retime
from ctxtool.mentions.periods import day_range, month_range, year_range

_PARTS = {"year": "year", "yyyy": "year", "month": "month", "mm": "month", "day": "day"}
_SENTINEL = re.compile(r"__ctxp_(\w+?)__")


def _value(q: Query, node: exp.Expression) -> Any:
    """The value a literal or a placeholder holds (None when it is neither)."""
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else int(node.this) if node.this.isdigit() else node.this
    if isinstance(node, exp.Column):
        m = _SENTINEL.fullmatch(node.name)
        if m and m.group(1) in q.values:
            return q.values[m.group(1)]
    if isinstance(node, exp.Cast):
        return _value(q, node.this)
    return None


def _as_date(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        m = re.match(r"(\d{4})-(\d{2})-(\d{2})", value)
        if m:
            try:
                return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            except ValueError:
                return None
    return None


def _part_of(node: exp.Expression) -> tuple[str, exp.Expression] | None:
    """``(part, column)`` of ``EXTRACT(YEAR FROM col)``, ``YEAR(col)``, ``MONTH(col)``."""
    if isinstance(node, exp.Extract) and isinstance(node.expression, exp.Expression):
        part = _PARTS.get(node.name.lower())
        col = _unwrap(node.expression)
        return (part, col) if part and col.find(exp.Column) is not None else None
    for kind, part in ((exp.Year, "year"), (exp.Month, "month"), (exp.Day, "day")):
        if isinstance(node, kind):
            return part, _unwrap(node.this)
    return None


def _unwrap(node: exp.Expression) -> exp.Expression:
    """The column under a conversion sqlglot reads into a date function (``YEAR(col)`` in MySQL is
    ``YEAR(TS_OR_DS_TO_DATE(col))``)."""
    while isinstance(node, (exp.Cast, exp.TsOrDsToDate, exp.TsOrDsToTimestamp)) and node.this is not None:
        node = node.this
    return node


class _Reading:
    """The time conditions found on one column: their nodes, and what they fix."""

    def __init__(self, column: exp.Expression) -> None:
        self.column = column
        self.nodes: list[exp.Expression] = []
        self.parts: dict[str, int] = {}
        self.start: date | None = None
        self.end: date | None = None

    def range(self) -> tuple[date | None, date | None] | None:
        if self.parts:
            year = self.parts.get("year")
            if year is None:
                return None  # "every April": no range of dates
            if "month" in self.parts and "day" in self.parts:
                return day_range(date(year, self.parts["month"], self.parts["day"]))
            if "month" in self.parts:
                return month_range(year, self.parts["month"])
            return year_range(year)
        if self.start is None and self.end is None:
            return None
        return self.start, self.end


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    if isinstance(node, exp.Paren) and isinstance(node.this, exp.And):
        return _conjuncts(node.this)
    return [node]


def _read(q: Query, where: exp.Expression) -> dict[str, _Reading]:
    """Every time condition of the WHERE's conjunction, by column."""
    found: dict[str, _Reading] = {}

    def at(col: exp.Expression) -> _Reading:
        return found.setdefault(col.sql().lower(), _Reading(col))

    for node in _conjuncts(where):
        if isinstance(node, exp.EQ):
            part = _part_of(node.this)
            value = _value(q, node.expression)
            if part and value is not None and str(value).isdigit():
                reading = at(part[1])
                reading.parts[part[0]] = int(value)
                reading.nodes.append(node)
                continue
            day = _as_date(value)
            if (
                isinstance(node.this, exp.Column)
                and day is not None
                and re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(value)[:10])
            ):
                reading = at(node.this)
                reading.start, reading.end = day_range(day)
                reading.nodes.append(node)
            continue
        if isinstance(node, exp.Like) and isinstance(node.this, exp.Column):
            m = re.fullmatch(r"(\d{4})(?:-(\d{2}))?-?%", str(_value(q, node.expression) or ""))
            if m:
                reading = at(node.this)
                year, month = int(m.group(1)), m.group(2)
                reading.start, reading.end = month_range(year, int(month)) if month else year_range(year)
                reading.nodes.append(node)
            continue
        if isinstance(node, exp.Between) and isinstance(node.this, exp.Column):
            lo, hi = _as_date(_value(q, node.args["low"])), _as_date(_value(q, node.args["high"]))
            if lo and hi:
                reading = at(node.this)
                reading.start, reading.end = lo, day_range(hi)[1]
                reading.nodes.append(node)
            continue
        if isinstance(node, (exp.GTE, exp.GT, exp.LT, exp.LTE)) and isinstance(node.this, exp.Column):
            day = _as_date(_value(q, node.expression))
            if day is None:
                continue
            reading = at(node.this)
            if isinstance(node, exp.GTE):
                reading.start = day
            elif isinstance(node, exp.GT):
                reading.start = day_range(day)[1]
            elif isinstance(node, exp.LT):
                reading.end = day
            else:
                reading.end = day_range(day)[1]
            reading.nodes.append(node)
    return found


def template_time(q: Query) -> tuple[str, date | None, date | None] | None:
    """The template's own time: ``(column SQL, start, end)`` when its WHERE states exactly one."""
    where = q.tree.args.get("where")
    if where is None:
        return None
    ranges = [(k, r.range()) for k, r in _read(q, where.this).items()]
    ranges = [(k, rng) for k, rng in ranges if rng is not None]
    if len(ranges) != 1:
        return None
    key, (start, end) = ranges[0]
    return key, start, end


def retime(q: Query, edit: Retime) -> None:
    """Replace the template's time condition by ``edit``'s range on the same column."""
    where = q.tree.args.get("where")
    readings = {k: r for k, r in _read(q, where.this).items() if r.range() is not None} if where else {}
    if edit.template_start is not None or edit.template_end is not None:
        readings = {
            k: r for k, r in readings.items() if r.range() == (edit.template_start, edit.template_end)
        }
    if len(readings) != 1:
        what = "no time condition" if not readings else f"{len(readings)} time conditions"
        raise ComposeError(
            f"the template's SQL states {what} that its own time reads as; write the time as a "
            "parameter of the template (a range on the date column) to answer other times"
        )
    reading = next(iter(readings.values()))
    col = reading.column
    if not isinstance(col, exp.Column):
        raise ComposeError("the template's time is computed from an expression, not a column")
    old = reading.range()
    for node in reading.nodes:
        q.drop_params(node)
        _remove(q, node)
    table = _table_of(q, col)
    kind = q.schema.type_of_name(table, col.name) if table else ""
    parts: list[exp.Expression] = []
    if edit.start is not None:
        parts.append(exp.GTE(this=col.copy(), expression=q.param(time_bound(edit.start, kind, q.dialect))))
    if edit.end is not None:
        parts.append(exp.LT(this=col.copy(), expression=q.param(time_bound(edit.end, kind, q.dialect))))
    q.tree.where(parts[0] if len(parts) == 1 else exp.and_(*parts), append=True, copy=False)
    said = f" (for {edit.said!r})" if edit.said else ""
    q.explanation.append(
        f"the template's time {old[0]} .. {old[1]} on {col.sql()} replaced by {edit.start} .. {edit.end}{said}"
    )


def _table_of(q: Query, col: exp.Column) -> str | None:
    aliases = {alias.lower(): table for table, alias in q.tables().items()}
    if col.table:
        return aliases.get(col.table.lower())
    tables = list(q.tables())
    return tables[0] if len(tables) == 1 else None


def _remove(q: Query, node: exp.Expression) -> None:
    parent = node.parent
    while isinstance(parent, exp.Paren):
        node, parent = parent, parent.parent
    if isinstance(parent, exp.Where):
        q.tree.set("where", None)
    elif isinstance(parent, exp.And):
        other = parent.expression if parent.this is node else parent.this
        parent.replace(other)
    else:  # pragma: no cover - conjuncts only sit under WHERE or AND
        raise ComposeError("the template's time condition is not one of its WHERE's conditions")
