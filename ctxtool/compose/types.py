"""What a composition takes and gives: typed edits of a template's query, and the query they make.

An edit names its column as the schema writes it (:class:`ColumnRef`) and carries the words of the
question it stands for (``said``), so that the answer can explain itself: which template, which
conditions, which values. A LIMIT takes an ``int`` count of rows (from an order mention such as "top
5"); a time is a :class:`TimeRange` of dates and can never reach it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ctxtool.errors import InputError

COMPARISONS = ("eq", "ne", "gt", "gte", "lt", "lte", "like")
FUNCTIONS = ("count", "sum", "avg", "min", "max")
GRAINS = ("year", "quarter", "month", "day")


class ComposeError(InputError):
    """The edit cannot be made on this query (no path through the schema's keys, no measure to
    group, a UNION): the runtime declines or asks back, naming what is missing."""


@dataclass(frozen=True)
class ColumnRef:
    """A column of the schema: its table and name as the schema writes them."""

    table: str
    column: str

    def __str__(self) -> str:
        return f"{self.table}.{self.column}"


@dataclass(frozen=True)
class LinkedValue:
    """A value of the question found in the data (through a value search): the words, where they
    are, the column that stores it and the value as stored."""

    text: str
    span: tuple[int, int]
    column: ColumnRef
    value: Any


@dataclass(frozen=True)
class Condition:
    """``column <op> value``, the value bound as a parameter."""

    column: ColumnRef
    op: str
    value: Any
    said: str = ""

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS:
            raise ValueError(f"unknown comparison {self.op!r}: one of {', '.join(COMPARISONS)}")


@dataclass(frozen=True)
class TimeRange:
    """``start <= column < end`` on a date or timestamp column (either end may be open)."""

    column: ColumnRef
    start: date | None
    end: date | None
    said: str = ""

    def __post_init__(self) -> None:
        if self.start is None and self.end is None:
            raise ValueError("a time range needs a start or an end")
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError(f"empty time range {self.start} .. {self.end}")


@dataclass(frozen=True)
class Grouping:
    """One row per value of ``column`` (or per period of it, with ``grain``); the grouping column is
    returned first. ``replace`` drops the groups the query had."""

    column: ColumnRef
    grain: str | None = None
    replace: bool = True
    said: str = ""

    def __post_init__(self) -> None:
        if self.grain is not None and self.grain not in GRAINS:
            raise ValueError(f"unknown grain {self.grain!r}: one of {', '.join(GRAINS)}")


@dataclass(frozen=True)
class OrderLimit:
    """ORDER BY a column (or the query's measure when ``key`` is None), and LIMIT ``limit`` rows."""

    descending: bool
    limit: int | None = None
    key: ColumnRef | None = None
    said: str = ""

    def __post_init__(self) -> None:
        if self.limit is not None and (isinstance(self.limit, bool) or not isinstance(self.limit, int)):
            raise ValueError(f"a limit is a count of rows, not {self.limit!r}")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"a limit keeps at least one row, not {self.limit}")


@dataclass(frozen=True)
class Limit:
    """LIMIT ``count`` rows, the query's ORDER BY kept ("the top 3" of a template for the top 10)."""

    count: int
    said: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 1:
            raise ValueError(f"a limit is a count of rows, not {self.count!r}")


@dataclass(frozen=True)
class Measure:
    """The query's measure replaced: ``function`` of ``column`` (COUNT(*) when ``column`` is None)."""

    function: str
    column: ColumnRef | None = None
    distinct: bool = False
    said: str = ""

    def __post_init__(self) -> None:
        if self.function not in FUNCTIONS:
            raise ValueError(f"unknown measure {self.function!r}: one of {', '.join(FUNCTIONS)}")
        if self.column is None and self.function != "count":
            raise ValueError(f"{self.function} needs a column")


@dataclass(frozen=True)
class Retime:
    """The template's own time condition replaced by ``start <= column < end`` on the same column.
    ``template_start``/``template_end`` (the range of the template's own time, read from its example
    question) say which time condition is the template's when its SQL states more than one."""

    start: date | None
    end: date | None
    template_start: date | None = None
    template_end: date | None = None
    said: str = ""

    def __post_init__(self) -> None:
        if self.start is None and self.end is None:
            raise ValueError("a time needs a start or an end")


Edit = Condition | TimeRange | Grouping | OrderLimit | Limit | Measure | Retime


@dataclass
class Composition:
    """The composed query: its SQL in the set's dialect, the parameters to bind, and what was done."""

    sql: str
    params: list[Any]
    dialect: str
    template: str | None = None
    edits: list[Edit] = field(default_factory=list)
    explanation: list[str] = field(default_factory=list)
