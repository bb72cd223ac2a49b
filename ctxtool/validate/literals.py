"""When the value behind a placeholder is spelled differently in the SQL and in the intent.

The intent keeps a value phrase as the question wrote it, the SQL as the database needs it:
``'Prague'`` / ``Prague``, ``21`` / ``'21'``, ``6000`` / ``6,000.0``, ``10000`` / ``$10,000``,
``DATE '1997-01-15'`` / ``15 Jan 1997``, ``'%Heathrow%'`` (a LIKE pattern) / ``Heathrow``. Each
spelling is reduced to a set of canonical forms; two spellings are the same value when their sets
meet.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

_TYPED = re.compile(
    r"^(?:date|time|timestamp|timestamptz|datetime|interval|numeric|decimal|json|jsonb|n|e|x|b)\s*(?=['\"])",
    re.IGNORECASE,
)
MONTHS = {  # month names and abbreviations -> 1..12 (also used by ctxtool.parameterize)
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for m in names
}
_MONTH = r"(?P<month>[a-z]+)\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATES = [
    re.compile(rf"^{_YEAR}[-/.](?P<m>\d{{1,2}})[-/.](?P<day>\d{{1,2}})(?:[ t]00:00(?::00(?:\.0+)?)?)?$"),
    re.compile(rf"^{_MONTH}\s+{_DAY},?\s+{_YEAR}$"),
    re.compile(rf"^(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}$"),
]
_TIME = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.0+)?)?\s*(am|pm|a\.m\.|p\.m\.)?$")
_NUMBER = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$|^[+-]?\.\d+$")


def _unquote(value: str) -> str:
    v = _TYPED.sub("", value.strip())
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"`":
        q = v[0]
        v = v[1:-1].replace(q + q, q).replace("\\" + q, q)
    return v.strip()


def _date(v: str) -> str | None:
    for pattern in _DATES:
        m = pattern.match(v)
        if not m:
            continue
        groups = m.groupdict()
        month = int(groups["m"]) if groups.get("m") else MONTHS.get(groups.get("month") or "")
        if not month:
            return None
        return f"{int(groups['year']):04d}-{month:02d}-{int(groups['day']):02d}"
    return None


def _time(v: str) -> str | None:
    m = _TIME.match(v)
    if not m:
        return None
    hour, minute, second = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if m.group(4):
        hour = hour % 12 + (12 if m.group(4).startswith("p") else 0)
    return f"{hour:02d}:{minute:02d}:{second:02d}"


def _number(v: str) -> str | None:
    v = v.strip().lstrip("$€£¥").rstrip("%").strip()
    if not _NUMBER.match(v):
        return None
    try:
        d = Decimal(v.replace(",", ""))
    except InvalidOperation:
        return None
    return format(d.normalize(), "f")


@lru_cache(maxsize=4096)
def forms(value: str) -> frozenset[str]:
    """The canonical forms of one spelling of a value."""
    v = _unquote(value).casefold()
    out = {v}
    stripped = v.strip("%")
    if stripped and stripped != v:  # a LIKE pattern stands for the text inside it
        out.add(stripped)
    for candidate in list(out):
        number = _number(candidate)
        if number is not None:
            out.add("#" + number)
        date = _date(re.sub(r"\s+", " ", candidate))
        if date is not None:
            out.add("@" + date)
        time = _time(candidate)
        if time is not None:
            out.add("T" + time)
    return frozenset(out)


def same_value(a: str, b: str) -> bool:
    """Whether two spellings (SQL and intent) stand for the same value."""
    return not forms(a).isdisjoint(forms(b))


def unmatched(sql_values: list[str], intent_values: list[str]) -> tuple[list[str], list[str]]:
    """Pair the values of ``?`` placeholders (order may differ between SQL and intent); return the
    SQL values and the intent values left without a partner."""
    left = list(intent_values)
    lonely: list[str] = []
    for value in sql_values:
        for i, other in enumerate(left):
            if same_value(value, other):
                del left[i]
                break
        else:
            lonely.append(value)
    return lonely, left
