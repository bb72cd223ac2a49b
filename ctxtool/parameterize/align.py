"""Where a SQL value is mentioned in the intent: the phrases, as spans of the intent text.

Intents are natural language, so patterns are fine here (they never touch SQL). A phrase matches
case-insensitively at word boundaries; a number matches whatever its written form (``6000``,
``6,000``, ``6000.0``, with a currency sign in front); an ISO date matches its ISO form and its
written forms (``January 15, 2024``, ``Jan 15th 2024``, ``15 Jan 2024``); quotes around a phrase belong
to the phrase.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from ctxtool.parameterize.extract import ISO_DATE, ISO_TIME, ISO_TIMESTAMP, SqlValue
from ctxtool.validate.literals import MONTHS

# ASCII quotes around a phrase belong to it (a `?` right after a closing ' would read as a
# placeholder); typographic quotes stay in the text around the placeholder: “$1”.
_QUOTES = {"'": "'", '"': '"', "`": "`"}
_CURRENCY = "$€£¥"

# a run of digits and commas, maybe a decimal part: "6,000.50" is one number, "1,2,3" three
_NUMBER_RUN = re.compile(r"(?<![\w.,:])(-?)(\d(?:[\d,]*\d)?)(\.\d+)?(?![\w:]|\.\d)")
_DATE_TOKEN = re.compile(
    r"(?<![\w-])\d{4}-\d{1,2}-\d{1,2}(?![\w-])|(?<![\w/])\d{1,4}/\d{1,2}/\d{1,4}(?![\w/])"
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_TIME = re.compile(r"(?<![\w:])(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s?([ap])\.?m\.?(?!\w))?(?![\w:])", re.I)

_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_WRITTEN_DATES = [
    (re.compile(rf"(?<!\w){_MONTH}\s+{_DAY},?\s+(\d{{4}})(?!\w)", re.I), ("m", "d", "y")),
    (re.compile(rf"(?<!\w){_DAY}\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})(?!\w)", re.I), ("d", "m", "y")),
    (re.compile(r"(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-]|:)"), ("y", "m", "d")),
    (re.compile(r"(?<![\w/])(\d{4})/(\d{1,2})/(\d{1,2})(?![\w/])"), ("y", "m", "d")),
]


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def parse_number(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _extend_quotes(intent: str, start: int, end: int) -> tuple[int, int]:
    """Include the quotes around a phrase: they are part of how the value is written."""
    if start > 0 and end < len(intent):
        close = _QUOTES.get(intent[start - 1])
        if close is not None and intent[end] == close:
            return start - 1, end + 1
    return start, end


def find_text(intent: str, phrase: str) -> list[Span]:
    """Case-insensitive occurrences of ``phrase`` at word boundaries."""
    out: list[Span] = []
    if not phrase:
        return out
    exact: list[Span] = []
    # a lookahead finds overlapping occurrences; IGNORECASE keeps indices into the original text
    for m in re.finditer(f"(?=({re.escape(phrase)}))", intent, re.IGNORECASE):
        i, j = m.start(1), m.end(1)
        before_ok = i == 0 or not (_word(phrase[0]) and _word(intent[i - 1]))
        after_ok = j == len(intent) or not (_word(phrase[-1]) and _word(intent[j]))
        if before_ok and after_ok:
            s, e = _extend_quotes(intent, i, j)
            out.append(Span(s, e))
            if intent[i:j] == phrase:
                exact.append(Span(s, e))
    # written as in the SQL wins over other casings: status 'A' is "A", not the article "a"
    return exact or out


def _numbers_in(intent: str) -> list[tuple[int, int, Decimal]]:
    """Every number written in ``intent``: (start, end, value)."""
    out: list[tuple[int, int, Decimal]] = []
    # the digits of an ISO or slashed date are parts of the date, not numbers of their own
    protected = [(m.start(), m.end()) for m in _DATE_TOKEN.finditer(intent)]
    for m in _NUMBER_RUN.finditer(intent):
        if any(a <= m.start() and m.end() <= b and (m.start(), m.end()) != (a, b) for a, b in protected):
            continue
        sign, digits, frac = m.group(1), m.group(2), m.group(3) or ""
        if sign and m.start() > 0 and _word(intent[m.start() - 1]):
            sign = ""
        start = m.start(2) - len(sign)
        if "," not in digits or _THOUSANDS.fullmatch(digits):
            n = parse_number(sign + digits + frac)
            if n is not None:
                out.append((start, m.end(), n))
            continue
        # commas between numbers that are not thousands groups separate them: 1,2,3
        pos = m.start(2)
        parts = digits.split(",")
        for k, part in enumerate(parts):
            if not part:
                pos += 1
                continue
            last = k == len(parts) - 1
            text = (sign if k == 0 else "") + part + (frac if last else "")
            s0 = pos - (len(sign) if k == 0 else 0)
            n = parse_number(text)
            if n is not None:
                out.append((s0, pos + len(part) + (len(frac) if last else 0), n))
            pos += len(part) + 1
    return out


def find_numbers(intent: str, value: Decimal) -> list[Span]:
    """Written forms of the number ``value``: digits with or without thousands separators and
    trailing zeros, a sign, a currency sign in front, quotes around."""
    out: list[Span] = []
    for s, e, n in _numbers_in(intent):
        if n != value:
            continue
        if s > 0 and intent[s - 1] in _CURRENCY:
            s -= 1
        s, e = _extend_quotes(intent, s, e)
        out.append(Span(s, e))
    return out


def find_times(intent: str, hour: int, minute: int, second: int) -> list[Span]:
    """``08:30``, ``8:30``, ``08:30:00``, ``8:30 am`` for a time of day."""
    out: list[Span] = []
    for m in _TIME.finditer(intent):
        h, mi, sec = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
        half = (m.group(4) or "").lower()
        if half:
            if not 1 <= h <= 12:
                continue
            h = h % 12 + (12 if half == "p" else 0)
        if (h, mi, sec) == (hour, minute, second):
            s, e = _extend_quotes(intent, m.start(), m.end())
            out.append(Span(s, e))
    return out


def iso_date_of(value: str) -> date | None:
    """The calendar date of an ISO date, or of a timestamp at midnight."""
    m = ISO_DATE.match(value)
    if m is None:
        m2 = ISO_TIMESTAMP.match(value)
        if m2 is None or any(int(g or 0) for g in m2.groups()[3:6]):
            return None
        m = m2
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def find_dates(intent: str, day: date) -> list[Span]:
    out: list[Span] = []
    for pattern, order in _WRITTEN_DATES:
        for m in pattern.finditer(intent):
            parts = dict(zip(order, m.groups(), strict=True))
            month = parts["m"]
            month_no = int(month) if month.isdigit() else MONTHS.get(month.lower().rstrip("."))
            try:
                found = date(int(parts["y"]), int(month_no or 0), int(parts["d"]))
            except (TypeError, ValueError):
                continue
            if found == day:
                s, e = _extend_quotes(intent, m.start(), m.end())
                out.append(Span(s, e))
    return out


def candidate_spans(intent: str, value: SqlValue) -> list[Span]:
    """Every span of the intent that mentions ``value``."""
    spans: list[Span] = []
    if value.kind == "number":
        n = value.number
        if n is not None:
            spans.extend(find_numbers(intent, n))
        return spans
    spans.extend(find_text(intent, value.phrase))
    if value.context != "like":
        day = iso_date_of(value.phrase)
        if day is not None:
            spans.extend(find_dates(intent, day))
        t = ISO_TIME.match(value.phrase)
        if t is not None:
            spans.extend(find_times(intent, int(t.group(1)), int(t.group(2)), int(t.group(3) or 0)))
        # a numeric string compared unquoted in the intent: '6000' / 6,000
        if re.fullmatch(r"-?\d+(?:\.\d+)?", value.phrase):
            n = parse_number(value.phrase)
            if n is not None and not (len(value.phrase) > 1 and value.phrase.startswith("0")):
                spans.extend(find_numbers(intent, n))
    unique = sorted(set(spans), key=lambda s: (s.start, s.end))
    return unique


def values_agree(sql_value: str, phrase: str, dialect: str) -> bool:
    """Whether ``phrase`` (from an intent) writes the SQL value ``sql_value`` (a literal as written in
    SQL: ``'London'``, ``6000``, ``DATE '2024-01-15'``, ``'%Heathrow%'``) the way ctxtool aligns them:
    any case, quoted or not, ``6,000``/``6000.0``, written dates, LIKE patterns without wildcards.
    For checkers that compare the two values bound to one placeholder."""
    from ctxtool.errors import CtxtoolError
    from ctxtool.parameterize.extract import extract_values

    candidates = []
    for snippet in (f"ctxtool_v = {sql_value}", f"ctxtool_v LIKE {sql_value}"):
        try:
            candidates.extend(extract_values(snippet, dialect, snippet=True).values)
        except CtxtoolError:
            continue
    for v in candidates:
        if v.sql_text != sql_value.strip():
            continue
        for span in candidate_spans(phrase, v):
            if span.start == 0 and span.end == len(phrase):
                return True
    return False
