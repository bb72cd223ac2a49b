"""The typed parts of a question: times, numbers with unit and comparison, measures, groupings,
order and limit, each with its span (:mod:`ctxtool.mentions.types`).

    from ctxtool.mentions import read_mentions
    found = read_mentions("How many tracks longer than 6 minutes were sold per month in 2012?")
    found.times[0].start, found.times[0].end        # 2012-01-01, 2013-01-01
    found.numbers[0].comparison, found.numbers[0].seconds   # "gt", 360.0
    found.groupings[0].grain                        # "month"

Nothing here knows a database: values linked through a set's value searches are the runtime's
(:mod:`ctxtool.runtime.question.linking`); what a mention means for a template's SQL is decided by the
composition (:mod:`ctxtool.compose`).
"""

from __future__ import annotations

import re
from datetime import date

from ctxtool.mentions.groupings import find_groupings
from ctxtool.mentions.measures import find_measures
from ctxtool.mentions.orders import find_orders
from ctxtool.mentions.quantities import find_numbers
from ctxtool.mentions.times import find_times
from ctxtool.mentions.types import (
    GroupingMention,
    MeasureMention,
    Mentions,
    NumberMention,
    OrderMention,
    RelativeSpan,
    TimeMention,
)

__all__ = [
    "GroupingMention",
    "MeasureMention",
    "Mentions",
    "NumberMention",
    "OrderMention",
    "RelativeSpan",
    "TimeMention",
    "read_mentions",
]


def read_mentions(text: str, *, latest: date | None = None) -> Mentions:
    """Every typed mention of ``text``. With ``latest`` (the data's latest date), relative times
    ("in the last 3 months") are resolved to ranges ending on it.

    A time's words are never a number ("in 2007" is no 2007 of anything), a limit's count is never a
    number to compare ("top 5"), and a grouping by a period ("per month", "by year") is a grouping, not
    a time."""
    groupings = find_groupings(text)
    times = [
        t
        for t in find_times(text)
        if not any(g.grain and g.span[0] <= t.span[0] and t.span[1] <= g.span[1] for g in groupings)
    ]
    orders = [o for o in find_orders(text) if not any(_overlap(o.span, t.span) for t in times)]
    # "the top 3 cities by customers": the "by" of a ranking names its key, not a grouping
    groupings = [
        g
        for g in groupings
        if not any(
            o.limit and g.span[0] - o.span[1] in (0, 1) and g.text.lower().startswith("by") for o in orders
        )
    ]
    taken = [t.span for t in times] + [o.span for o in orders if o.limit is not None and o.limit > 1]
    taken += [_count_span(text, o) for o in orders if o.limit is not None]
    numbers = find_numbers(text, taken)
    measures = [
        m
        for m in find_measures(text)
        if not any(o.span[0] < m.span[0] and m.span[1] <= o.span[1] for o in orders)
    ]
    # "each X" groups only what is measured ("how many orders has each employee handled");
    # "the name of each pilot" lists them all
    if not measures:
        groupings = [g for g in groupings if not g.text.lower().startswith("each")]
    found = Mentions(text, times, numbers, measures, groupings, orders)
    return found.anchored(latest) if latest is not None else found


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _count_span(text: str, order: OrderMention) -> tuple[int, int]:
    """Where the count of a limit is written ("which 10 actors ... the most": "10")."""
    before = text[: order.span[1]]
    found = list(re.finditer(r"\b\d{1,4}\b", before))
    for m in reversed(found):
        if m.group() == str(order.limit):
            return m.start(), m.end()
    return order.span
