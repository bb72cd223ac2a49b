"""Conditions on a column the query reaches through the schema's foreign keys: ``column <op> value``
with the value bound as a parameter, and time ranges ``start <= column < end`` on a date or
timestamp column. The column is never wrapped in a function (an index on it still serves), and the
bounds are typed as the column is: dates for a DATE, midnights for a TIMESTAMP (in UTC on Spanner),
ISO text for dates a schema stores as text."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any

from sqlglot import exp

from ctxtool.compose.query import Query
from ctxtool.compose.types import Condition, TimeRange

_OPS: dict[str, type[exp.Expression]] = {
    "eq": exp.EQ,
    "ne": exp.NEQ,
    "gt": exp.GT,
    "gte": exp.GTE,
    "lt": exp.LT,
    "lte": exp.LTE,
    "like": exp.Like,
}
_WORDS = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=", "like": "like"}


def add_condition(q: Query, cond: Condition) -> None:
    """AND ``column <op> value`` into the query."""
    op = _OPS[cond.op]
    q.restrict(cond.column, lambda col: op(this=col, expression=q.param(cond.value)))
    q.explanation.append(f"added {cond.column} {_WORDS[cond.op]} {cond.value!r}" + _said(cond.said))


def add_time_range(q: Query, rng: TimeRange) -> None:
    """AND ``start <= column AND column < end`` into the query (either end may be open)."""
    kind = q.schema.type_of(rng.column)

    def build(col: exp.Column) -> exp.Expression:
        parts: list[exp.Expression] = []
        if rng.start is not None:
            parts.append(exp.GTE(this=col, expression=q.param(time_bound(rng.start, kind, q.dialect))))
        if rng.end is not None:
            parts.append(exp.LT(this=col.copy(), expression=q.param(time_bound(rng.end, kind, q.dialect))))
        return parts[0] if len(parts) == 1 else exp.and_(*parts)

    q.restrict(rng.column, build)
    ends = f"from {rng.start}" if rng.start else ""
    ends += (" " if ends else "") + (f"before {rng.end}" if rng.end else "")
    q.explanation.append(f"kept {rng.column} {ends}" + _said(rng.said))


def time_bound(day: date, kind: str, dialect: str) -> Any:
    """One end of a range typed as the column is compared in the dialect."""
    if "time" in kind:  # timestamp, datetime, timestamptz
        midnight = datetime(day.year, day.month, day.day)
        return midnight.replace(tzinfo=timezone.utc) if dialect == "spanner" else midnight
    if "date" in kind or not kind:
        return day
    return day.isoformat()  # a date stored as text: ISO text compares in date order


def _said(words: str) -> str:
    return f" (for {words!r})" if words else ""
