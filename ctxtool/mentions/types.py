"""The typed parts of a question: what each says and where it is written.

Every mention carries its span (character offsets in the question) so that a decision can say which
words an answer used and which it did not. Times are half-open ranges ``[start, end)`` of dates: a
year, a month, a quarter or a day is the range it covers, so "April 2007" and "March 2007" are two
ranges of one typed slot, never two words to compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from ctxtool.mentions.periods import add_months

Span = tuple[int, int]

#: the grains a time is written in, finest last
GRAINS = ("year", "quarter", "month", "week", "day")


@dataclass(frozen=True)
class RelativeSpan:
    """ "the last 3 months": a count of calendar units ending at an anchor (the data's latest date)."""

    count: int
    unit: str  # "day" | "week" | "month" | "quarter" | "year"

    def resolve(self, latest: date) -> tuple[date, date]:
        """The half-open range of the ``count`` units up to and including ``latest``."""
        end = latest + timedelta(days=1)
        if self.unit == "day":
            return end - timedelta(days=self.count), end
        if self.unit == "week":
            return end - timedelta(weeks=self.count), end
        months = {"month": 1, "quarter": 3, "year": 12}[self.unit] * self.count
        return add_months(end, -months), end


@dataclass(frozen=True)
class TimeMention:
    """A time the question states, as the half-open range of dates it covers.

    ``start`` or ``end`` is None for an open range ("since 2011": no end; "before 2000": no start).
    A relative span ("in the last 3 months") has neither until :meth:`anchored` gives it the data's
    latest date. ``grain`` is the finest unit written ("March 2007": month), which a typed slot
    compares with the grain of the value its template was written for.
    """

    text: str
    span: Span
    kind: str  # "point" | "range" | "since" | "before" | "relative" | "month_of_year"
    grain: str
    start: date | None = None
    end: date | None = None
    relative: RelativeSpan | None = None
    month: int | None = None  # "in March" with no year: a month of any year

    @property
    def resolved(self) -> bool:
        """Whether the range is known without the data (a relative span needs its anchor)."""
        return self.relative is None and (self.start is not None or self.end is not None)

    def anchored(self, latest: date) -> TimeMention:
        """This time with a relative span resolved against the data's latest date."""
        if self.relative is None:
            return self
        start, end = self.relative.resolve(latest)
        return TimeMention(self.text, self.span, "range", self.grain, start, end, None, None)


@dataclass(frozen=True)
class NumberMention:
    """A number with what surrounds it: its unit ("6 minutes", "$40", "11 tracks") and the comparison
    the words around it state (``gt``, ``gte``, ``lt``, ``lte``, ``eq`` or None when none is said)."""

    text: str
    span: Span
    value: int | float
    unit: str | None = None  # the unit's lemma ("minute", "track"), "$" for a currency
    comparison: str | None = None
    seconds: float | None = None  # a duration's value in seconds ("6 minutes": 360.0)


@dataclass(frozen=True)
class MeasureMention:
    """What is computed: ``count``, ``sum``, ``avg``, ``min`` or ``max``, and the words of what it is
    computed of ("the average length of tracks": ``avg`` of "length")."""

    text: str
    span: Span
    function: str
    of: str = ""  # the words naming what is measured, as written


@dataclass(frozen=True)
class GroupingMention:
    """One group per value of something: "per genre", "by year", "for each customer", "broken down
    by country". ``grain`` is set when the groups are periods of time ("per month": month)."""

    text: str
    span: Span
    of: str  # the words naming the groups, as written
    grain: str | None = None


@dataclass(frozen=True)
class OrderMention:
    """An order and how many rows to keep: "top 5" (desc, 5), "the most" (desc, 1), "the earliest"
    (asc, 1, of a time), "biggest first" (desc, no limit). ``direction`` is None for a superlative
    whose direction only its column tells ("the cheapest")."""

    text: str
    span: Span
    direction: str | None  # "desc" | "asc" | None
    limit: int | None = None
    of: str = ""  # the words naming the order's key, as written ("the most tracks": "tracks")
    temporal: bool = False  # "the earliest", "the most recent": the order of a date
    rows: str = ""  # the words naming what is ranked ("the top 5 genres": "genres")


@dataclass
class Mentions:
    """Every typed mention of one question, each with its span."""

    text: str
    times: list[TimeMention] = field(default_factory=list)
    numbers: list[NumberMention] = field(default_factory=list)
    measures: list[MeasureMention] = field(default_factory=list)
    groupings: list[GroupingMention] = field(default_factory=list)
    orders: list[OrderMention] = field(default_factory=list)

    def all(self) -> list[TimeMention | NumberMention | MeasureMention | GroupingMention | OrderMention]:
        """Every mention, in the order they are written."""
        found: list = [*self.times, *self.numbers, *self.measures, *self.groupings, *self.orders]
        return sorted(found, key=lambda m: m.span)

    def anchored(self, latest: date) -> Mentions:
        """These mentions with every relative time resolved against the data's latest date."""
        return Mentions(
            self.text,
            [t.anchored(latest) for t in self.times],
            list(self.numbers),
            list(self.measures),
            list(self.groupings),
            list(self.orders),
        )
