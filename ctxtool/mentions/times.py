"""Time expressions of a question, as half-open date ranges with their spans.

Points: a year ("in 2007"), a month and year ("March 2007", "2007-03"), a quarter ("Q1 2007", "the
first quarter of 2007"), a date ("2007-04-05", "5 April 2007", "April 5, 2007"). Ranges of two points,
both ends included: "between 2010 and 2012" (2010-01-01 to 2013-01-01), "from March to May 2007"
and "between January and April 1998" (the year written once applies to both). Open ranges: "since
2011", "after 2011" (from 2012), "before 2000", "until 2005" (to the end of 2005), "2011 or later".
Relative spans: "in the last 3 months" is anchored to the data's latest date when the question is
answered (:class:`~ctxtool.mentions.types.RelativeSpan`).

A bare four-digit number is a year only where English says a time: after a time preposition ("in",
"since", "during", "of", "for", the year) or in a range of years; "over 2000 tracks" is a number.
The months, units and ordinals are the lexicon's (general English); dates are computed with the
standard library (a date library would add a dependency to parse what these few patterns cover,
and none of those on PyPI reads "between January and April 1998" as one range).
"""

from __future__ import annotations

import re
from datetime import date

from ctxtool.english.lexicon import MONTHS, NUMBER_WORDS, QUARTER_ORDINALS, TIME_UNITS
from ctxtool.mentions.periods import add_months, day_range, month_range, quarter_range, year_range
from ctxtool.mentions.types import RelativeSpan, TimeMention

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_YEAR = r"(?:1[89]\d\d|20\d\d)"
_ORD = "|".join(sorted(QUARTER_ORDINALS, key=len, reverse=True))
_UNIT = "|".join(TIME_UNITS)
_COUNT = r"\d+|" + "|".join(NUMBER_WORDS)

# one point in time; every alternative names its groups so that _point() reads any of them
_POINT = re.compile(
    rf"""(?<![\w$.])(?<![A-Za-z]-)(?:
      (?P<iso_y>{_YEAR})-(?P<iso_m>\d{{1,2}})-(?P<iso_d>\d{{1,2}})
    | (?P<mdy_m>{_MONTH})\.?\s+(?P<mdy_d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<mdy_y>{_YEAR})
    | (?P<dmy_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmy_m>{_MONTH})\.?,?\s+(?P<dmy_y>{_YEAR})
    | (?P<ym_y>{_YEAR})-(?P<ym_m>0?[1-9]|1[0-2])(?![\d-])
    | (?P<my_m>{_MONTH})\.?,?\s+(?:of\s+)?(?P<my_y>{_YEAR})
    | [Qq](?P<q1_q>[1-4])\s*(?:of\s+|,\s*)?(?P<q1_y>{_YEAR})
    | (?P<q2_y>{_YEAR})\s*[Qq](?P<q2_q>[1-4])
    | (?:the\s+)?(?P<q3_o>{_ORD})\s+quarter\s+(?:of\s+)?(?P<q3_y>{_YEAR})
    | (?:the\s+)?(?:year\s+)?(?P<y>{_YEAR})
    | (?P<m>{_MONTH})\.?
    )(?!\w|-[A-Za-z])""",
    re.I | re.X,
)
# the words before a bare year that make it a time ("in 2007", "since 2011", "the year 2007")
_YEAR_BEFORE = re.compile(
    r"\b(?:in|during|of|for|since|before|after|until|till|through|from|between|dated|year|by|as\s+of)"
    r"\s+(?:the\s+)?(?:(?:fiscal|calendar)\s+)?(?:year\s+)?$",
    re.I,
)
_YEAR_AFTER = re.compile(r"^\s*(?:or|and)\s+(?:later|earlier|after|before|since)\b", re.I)
_RANGE_JOIN = re.compile(r"^\s*(?:and|to|until|till|through|thru|-|–|—)\s*$", re.I)
_OR = re.compile(r"^\s*(?:or|,)\s*$", re.I)
_OPEN_BEFORE = {
    "since": "since",
    "from": "since",
    "starting": "since",
    "after": "after",
    "before": "before",
    "prior to": "before",
    "earlier than": "before",
    "until": "until",
    "till": "until",
    "through": "until",
    "up to": "until",
    "later than": "after",
}
_OPEN = re.compile(
    r"\b(" + "|".join(sorted(_OPEN_BEFORE, key=len, reverse=True)) + r")\s+(?:the\s+(?:end|start)\s+of\s+)?$",
    re.I,
)
# "2011 or later"; not "before 1989-09-03 or after 2007-12-25", where "after" opens the next time
_OR_LATER = re.compile(r"^\s*(?:or|and)\s+(later|after|since|earlier|before)\b(?!\s+(?:the\s+)?\w*\d)", re.I)
_ONWARDS = re.compile(r"^\s*(?:on|onwards?|and\s+beyond)\b", re.I)
_RELATIVE = re.compile(
    rf"\b(?:(?:in|during|over|within|for|from)\s+)?(?:the\s+)?(?:last|past|previous|preceding|latest)\s+"
    rf"(?:(?P<n>{_COUNT})\s+)?(?P<unit>{_UNIT})s?\b",
    re.I,
)


class _Point:
    __slots__ = ("start", "end", "grain", "month", "a", "b")

    def __init__(self, a: int, b: int, grain: str, start: date | None, end: date | None, month: int | None):
        self.a, self.b, self.grain, self.start, self.end, self.month = a, b, grain, start, end, month


def _month(word: str) -> int:
    return MONTHS[word.lower().rstrip(".")]


def _point(m: re.Match[str], text: str) -> _Point | None:
    g = m.groupdict()
    try:
        if g["iso_y"]:
            s, e = day_range(date(int(g["iso_y"]), int(g["iso_m"]), int(g["iso_d"])))
            return _Point(m.start(), m.end(), "day", s, e, None)
        if g["mdy_m"]:
            s, e = day_range(date(int(g["mdy_y"]), _month(g["mdy_m"]), int(g["mdy_d"])))
            return _Point(m.start(), m.end(), "day", s, e, None)
        if g["dmy_m"]:
            s, e = day_range(date(int(g["dmy_y"]), _month(g["dmy_m"]), int(g["dmy_d"])))
            return _Point(m.start(), m.end(), "day", s, e, None)
    except ValueError:  # "February 30, 2007" is no date
        return None
    if g["ym_y"]:
        s, e = month_range(int(g["ym_y"]), int(g["ym_m"]))
        return _Point(m.start(), m.end(), "month", s, e, None)
    if g["my_m"]:
        if not _is_month_word(g["my_m"], m.start("my_m"), text):
            return None
        s, e = month_range(int(g["my_y"]), _month(g["my_m"]))
        return _Point(m.start(), m.end(), "month", s, e, None)
    for key in ("q1", "q2", "q3"):
        if g[f"{key}_y"]:
            q = g.get(f"{key}_q") or QUARTER_ORDINALS[g[f"{key}_o"].lower()]
            s, e = quarter_range(int(g[f"{key}_y"]), int(q))
            return _Point(m.start(), m.end(), "quarter", s, e, None)
    if g["y"]:
        s, e = year_range(int(g["y"]))
        return _Point(m.start(), m.end(), "year", s, e, None)
    if g["m"] and _is_month_word(g["m"], m.start("m"), text):
        return _Point(m.start(), m.end(), "month", None, None, _month(g["m"]))
    return None


def _is_month_word(word: str, at: int, text: str) -> bool:
    """A month name that is also an English word ("may", "march", "dec") is a month only when written
    as a name (capitalised, not at the start of the sentence for "May") or followed by a number."""
    low = word.lower().rstrip(".")
    if low not in ("may", "march", "mar", "jan", "dec", "sept", "sep", "aug", "jun", "oct"):
        return True
    after = text[at + len(word) :]
    if re.match(r"\.?,?\s+(?:of\s+)?\d", after):
        return True
    return word[0].isupper() and bool(_MONTH_BEFORE.search(text[:at]))


_MONTH_BEFORE = re.compile(
    r"\b(?:in|during|of|since|before|after|until|till|through|from|between|and|to|or)\s+$", re.I
)


def _bare_year_is_time(p: _Point, text: str) -> bool:
    """A bare year is a time after a time word ("in 2007"), as a determiner's modifier ("the 1997
    orders"), before "or later", or closing a clause with no number word around it ("revenue by
    country 2023"); "over 2000 tracks", "top 2000", "$2000" are numbers."""
    digits = re.search(r"\d", text[p.a : p.b])
    before, after = text[: p.a + (digits.start() if digits else 0)], text[p.b :]
    if re.search(r"\byear\s*$", before, re.I):
        return True
    if _YEAR_BEFORE.search(before) or _YEAR_AFTER.match(after):
        return True
    if re.search(r"\b(?:the|our|their|its)\s+$", before, re.I):
        return True
    if re.match(r"\s*(?:-|–|—|to|and|or)\s*(?:1[89]|20)\d\d\b", after, re.I):
        return True  # the first end of a range of years ("revenue 2010-2012")
    closes = re.match(r"\s*(?:[?.!,;]|$)", after)
    counted = re.search(
        r"(?:\b(?:than|over|under|above|below|top|first|last|least|most|exactly)|[$#€£])\s*$", before, re.I
    )
    return bool(closes) and not counted


def _points(text: str) -> list[_Point]:
    """The points of ``text``; a bare year counts after a time word or as a range's second end."""
    found: list[_Point] = []
    for m in _POINT.finditer(text):
        p = _point(m, text)
        if p is None:
            continue
        between = text[found[-1].b : p.a] if found else ""
        second = bool(found) and bool(_RANGE_JOIN.match(between) or _OR.match(between))
        if m.group("y") and not second and not _bare_year_is_time(p, text):
            continue
        found.append(p)
    return found


def _mention(
    text: str, a: int, b: int, kind: str, grain: str, start: date | None, end: date | None
) -> TimeMention:
    return TimeMention(text[a:b].strip(), (a, b), kind, grain, start, end)


def find_times(text: str) -> list[TimeMention]:
    """Every time expression of ``text`` (points, ranges, open ranges, relative spans), in order."""
    out: list[TimeMention] = []
    taken: list[tuple[int, int]] = []
    for m in _RELATIVE.finditer(text):
        n = m.group("n")
        count = 1 if n is None else int(n) if n.isdigit() else NUMBER_WORDS[n.lower()]
        unit = m.group("unit").lower()
        out.append(
            TimeMention(
                m.group().strip(), (m.start(), m.end()), "relative", unit, relative=RelativeSpan(count, unit)
            )
        )
        taken.append((m.start(), m.end()))
    points = [p for p in _points(text) if all(p.b <= a or p.a >= b for a, b in taken)]
    i = 0
    while i < len(points):
        p = points[i]
        q = points[i + 1] if i + 1 < len(points) else None
        if q is not None and _RANGE_JOIN.match(text[p.b : q.a]):
            lead = re.search(r"\b(between|from)\s+$", text[: p.a], re.I)
            if lead or p.grain == q.grain == "year" and re.match(r"^\s*[-–—]\s*$", text[p.b : q.a]):
                rng = _range(p, q)
                if rng is not None:
                    a = lead.start() if lead else p.a
                    out.append(_mention(text, a, q.b, "range", min(p.grain, q.grain, key=_fine), *rng))
                    i += 2
                    continue
        if q is not None and _OR.match(text[p.b : q.a]) and p.grain == q.grain and p.end == q.start:
            # "2024 or 2025": two periods one after the other are one range
            assert p.start is not None and q.end is not None
            out.append(_mention(text, p.a, q.b, "range", p.grain, p.start, q.end))
            i += 2
            continue
        if p.start is None:  # a month without a year
            out.append(TimeMention(text[p.a : p.b], (p.a, p.b), "month_of_year", "month", month=p.month))
            i += 1
            continue
        out.append(_open_or_point(text, p))
        i += 1
    return sorted(out, key=lambda t: t.span)


def _fine(grain: str) -> int:
    return ("year", "quarter", "month", "week", "day").index(grain)


def _range(p: _Point, q: _Point) -> tuple[date, date] | None:
    """Both ends included: a month written without a year takes the other end's year."""
    ps, qe = p.start, q.end
    if ps is None and p.month is not None and q.start is not None:
        ps = date(q.start.year, p.month, 1)
    if qe is None and q.month is not None and p.start is not None:
        qe = add_months(date(p.start.year, q.month, 1), 1)
    if ps is None or qe is None or qe <= ps:
        return None
    return ps, qe


def _open_or_point(text: str, p: _Point) -> TimeMention:
    before, after = text[: p.a], text[p.b :]
    word = _OPEN.search(before)
    later = _OR_LATER.match(after)
    if later:
        b = p.b + later.end()
        if later.group(1).lower() in ("later", "after", "since"):
            return _mention(text, p.a, b, "since", p.grain, p.start, None)
        return _mention(text, p.a, b, "before", p.grain, None, p.end)
    if word:
        how = _OPEN_BEFORE[re.sub(r"\s+", " ", word.group(1).lower())]
        if how == "since":
            onwards = _ONWARDS.match(after)
            if word.group(1).lower() == "from" and not onwards:
                return _mention(text, p.a, p.b, "point", p.grain, p.start, p.end)
            b = p.b + (onwards.end() if onwards else 0)
            return _mention(text, word.start(), b, "since", p.grain, p.start, None)
        if how == "after":
            return _mention(text, word.start(), p.b, "since", p.grain, p.end, None)
        if how == "before":
            return _mention(text, word.start(), p.b, "before", p.grain, None, p.start)
        return _mention(text, word.start(), p.b, "before", p.grain, None, p.end)
    return _mention(text, p.a, p.b, "point", p.grain, p.start, p.end)
