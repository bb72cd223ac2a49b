"""Typed mentions of a question: times, numbers, measures, groupings, orders (fixture cases in
tests/data/mentions/cases.json: each lists, per kind it names, every mention expected in order with
the fields it checks; a kind not named is not checked)."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import date
from pathlib import Path

import pytest

from ctxtool.mentions import RelativeSpan, read_mentions
from ctxtool.mentions.periods import add_months

CASES = json.loads((Path(__file__).parent / "data" / "mentions" / "cases.json").read_text())
KINDS = ("times", "numbers", "measures", "groupings", "orders")


def _plain(value: object) -> object:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict) and set(value) == {"count", "unit"}:
        return [value["count"], value["unit"]]
    return value


@pytest.mark.parametrize("case", CASES, ids=[c["q"] for c in CASES])
def test_mentions(case: dict) -> None:
    latest = date.fromisoformat(case["latest"]) if "latest" in case else None
    found = read_mentions(case["q"], latest=latest)
    for kind in KINDS:
        if kind not in case:
            continue
        got = [asdict(m) for m in getattr(found, kind)]
        assert len(got) == len(case[kind]), (kind, got)
        for want, have in zip(case[kind], got, strict=True):
            for key, value in want.items():
                assert _plain(have[key]) == value, (kind, key, have)


def test_spans_point_at_the_words() -> None:
    q = "How many tracks longer than 6 minutes were sold per month in 2012?"
    found = read_mentions(q)
    for m in found.all():
        assert q[m.span[0] : m.span[1]] == m.text
    assert [type(m).__name__ for m in found.all()] == [
        "MeasureMention",
        "NumberMention",
        "GroupingMention",
        "TimeMention",
    ]


def test_relative_spans_need_their_anchor() -> None:
    t = read_mentions("revenue in the last year").times[0]
    assert not t.resolved and t.relative == RelativeSpan(1, "year")
    assert t.anchored(date(2013, 12, 31)).start == date(2013, 1, 1)
    assert t.anchored(date(2013, 12, 31)).end == date(2014, 1, 1)


def test_months_clamp_their_day() -> None:
    assert add_months(date(2007, 3, 31), -1) == date(2007, 2, 28)
    assert add_months(date(2008, 3, 31), -1) == date(2008, 2, 29)
    assert add_months(date(2007, 11, 15), 3) == date(2008, 2, 15)
