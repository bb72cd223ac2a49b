"""Calendar arithmetic for time ranges: months added with the day clamped, and the half-open range of
a year, a quarter, a month or a day."""

from __future__ import annotations

import calendar
from datetime import date, timedelta


def add_months(day: date, months: int) -> date:
    """``day`` moved by ``months`` calendar months, the day clamped to the month's length
    (31 March - 1 month = 28 or 29 February)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def year_range(year: int) -> tuple[date, date]:
    return date(year, 1, 1), date(year + 1, 1, 1)


def month_range(year: int, month: int) -> tuple[date, date]:
    start = date(year, month, 1)
    return start, add_months(start, 1)


def quarter_range(year: int, quarter: int) -> tuple[date, date]:
    start = date(year, 3 * (quarter - 1) + 1, 1)
    return start, add_months(start, 3)


def day_range(day: date) -> tuple[date, date]:
    return day, day + timedelta(days=1)
